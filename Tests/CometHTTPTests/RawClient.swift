import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client on a plain TCP socket, so that tests can send any bytes (broken request lines,
/// bodies in pieces) and read the answer as it comes.
struct RawClient {
    struct Answer {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let descriptor: Int32

    init(port: UInt16, host: String = "127.0.0.1") throws {
        let isIPv6 = host.contains(":")
        descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw Failure(description: "connect to \(host):\(port): errno \(errno)")
        }
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads one answer: its head, then as many body bytes as Content-Length says (or to the
    /// end of the connection when it says none).
    func readAnswer() throws -> Answer {
        var received: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil {
            guard try readMore(into: &received) else { throw Failure(description: "the connection closed before an answer: \(String(decoding: received, as: UTF8.self))") }
            headEnd = Self.find([13, 10, 13, 10], in: received)
        }
        let headText = String(decoding: received[..<headEnd!], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "not a status line: \(headText)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = headEnd! + 4
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
        if let length {
            while received.count - bodyStart < length {
                guard try readMore(into: &received) else { throw Failure(description: "the connection closed inside a body") }
            }
            return Answer(status: status, headers: headers, body: Array(received[bodyStart..<(bodyStart + length)]))
        }
        while try readMore(into: &received) {}
        return Answer(status: status, headers: headers, body: Array(received[bodyStart...]))
    }

    /// Reads the head of an answer (to a HEAD request), and whatever follows until the server
    /// closes, as its body.
    func readHead() throws -> Answer {
        var received: [UInt8] = []
        while try readMore(into: &received) {}
        guard let headEnd = Self.find([13, 10, 13, 10], in: received) else { throw Failure(description: "no head") }
        let lines = String(decoding: received[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: headers, body: Array(received[(headEnd + 4)...]))
    }

    /// True when the other side has closed the connection (reads nothing more).
    func isClosedByServer() -> Bool {
        var received: [UInt8] = []
        return (try? readMore(into: &received)) == false
    }

    private func readMore(into received: inout [UInt8]) throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw Failure(description: "recv: errno \(errno)") }
        if count == 0 { return false }
        received += buffer[..<count]
        return true
    }

    func close() { Glibc.close(descriptor) }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// One request on its own connection, the answer read whole.
    static func exchange(port: UInt16, _ request: String, body: [UInt8] = []) throws -> Answer {
        let client = try RawClient(port: port)
        defer { client.close() }
        try client.send(Array(request.utf8) + body)
        return try client.readAnswer()
    }
}
