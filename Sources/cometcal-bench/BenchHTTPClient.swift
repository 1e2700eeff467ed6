import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 client connection on loopback, written on plain sockets so that what is timed
/// is the servers and not a client library: the connection is kept between requests
/// (keep-alive) and made again when a server closes it (Radicale's server answers HTTP/1.0 and
/// closes after every answer; that reconnect is part of its figure, as it is for its clients).
final class BenchHTTPClient {
    struct Answer {
        let status: Int
        /// Header names lowercased.
        let headers: [String: String]
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let port: UInt16
    private let authorization: String?
    private var socket: Int32 = -1
    /// Bytes read past the end of the previous answer (none with servers that answer in turn).
    private var pending: [UInt8] = []
    /// Connections made, for the report: one for a server that keeps them.
    private(set) var connectionsMade = 0
    /// How long one answer may take before the bench gives up on the server.
    private let timeoutSeconds = 900

    init(port: UInt16, user: String? = nil) {
        self.port = port
        authorization = user.map { "Basic " + Data("\($0):bench".utf8).base64EncodedString() }
    }

    deinit { disconnect() }

    /// Sends one request and reads its whole answer.
    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: \(body.count)\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        // A kept connection the server has since closed fails on write or answers nothing:
        // then once more on a new connection.
        let reused = socket >= 0
        do {
            try connectIfNeeded()
            try write(request)
            return try readAnswer(method: method)
        } catch is ConnectionClosed where reused {
            disconnect()
            try connectIfNeeded()
            try write(request)
            return try readAnswer(method: method)
        }
    }

    func disconnect() {
        if socket >= 0 { close(socket) }
        socket = -1
        pending.removeAll()
    }

    private struct ConnectionClosed: Error {}

    private func connectIfNeeded() throws {
        guard socket < 0 else { return }
        let made = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard made >= 0 else { throw BenchError("cannot make a socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(made, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(made, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(made, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(made)
            throw BenchError("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        socket = made
        connectionsMade += 1
    }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw ConnectionClosed() }
                throw BenchError("cannot send to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
            }
            sent += count
        }
    }

    /// Reads more bytes into `pending`; false at the end of the stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
            if count > 0 {
                pending.append(contentsOf: chunk[0..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw BenchError("127.0.0.1:\(port) did not answer within \(timeoutSeconds) s")
            }
            throw BenchError("cannot read from 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
    }

    private func readAnswer(method: String) throws -> Answer {
        var headerEnd: Int?
        var searchedTo = 0
        while headerEnd == nil {
            if let found = Self.find([13, 10, 13, 10], in: pending, from: max(0, searchedTo - 3)) {
                headerEnd = found
                break
            }
            searchedTo = pending.count
            guard try fill() else {
                if pending.isEmpty { throw ConnectionClosed() }
                throw BenchError("127.0.0.1:\(port) closed the connection inside an answer's head")
            }
        }
        let end = headerEnd!
        let headText = String(decoding: pending[0..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw BenchError("127.0.0.1:\(port) answered with a status line that cannot be read: \(statusLine.prefix(100))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let closes = statusParts[0] == "HTTP/1.0" ? headers["connection"]?.lowercased() != "keep-alive" : headers["connection"]?.lowercased() == "close"
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            // No body.
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try readChunked()
        } else if let lengthText = headers["content-length"], let length = Int(lengthText) {
            while pending.count < length {
                guard try fill() else { throw BenchError("127.0.0.1:\(port) closed the connection inside an answer's body") }
            }
            body = Array(pending[0..<length])
            pending.removeFirst(length)
        } else {
            while try fill() {}
            body = pending
            pending.removeAll()
            disconnect()
        }
        if closes { disconnect() }
        return Answer(status: status, headers: headers, body: body)
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            var lineEnd = Self.find([13, 10], in: pending, from: 0)
            while lineEnd == nil {
                guard try fill() else { throw BenchError("127.0.0.1:\(port) closed the connection inside a chunk") }
                lineEnd = Self.find([13, 10], in: pending, from: 0)
            }
            let sizeText = String(decoding: pending[0..<lineEnd!], as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw BenchError("127.0.0.1:\(port) sent a chunk size that cannot be read: \(sizeText.prefix(40))")
            }
            pending.removeFirst(lineEnd! + 2)
            if size == 0 {
                // Trailers, if any, end with an empty line.
                while Self.find([13, 10], in: pending, from: 0) == nil {
                    guard try fill() else { break }
                }
                if let trailerEnd = Self.find([13, 10], in: pending, from: 0) { pending.removeFirst(trailerEnd + 2) }
                return body
            }
            while pending.count < size + 2 {
                guard try fill() else { throw BenchError("127.0.0.1:\(port) closed the connection inside a chunk") }
            }
            body.append(contentsOf: pending[0..<size])
            pending.removeFirst(size + 2)
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] {
                var matches = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }
}
