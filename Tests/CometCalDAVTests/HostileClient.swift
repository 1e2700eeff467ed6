import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometHTTP

/// A request as bytes on a plain TCP socket, the Swift tests' only HTTP client. URLSession
/// (through libcurl) would tidy a path (`..` segments removed) and refuse a broken request
/// before it left, which is what some tests must send, and its callbacks race in
/// swift-corelibs-foundation (a fatal error in CI). One request per connection; the answer is
/// read to the end of the connection.
enum HostileClient {
    struct Answer {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `Basic` credentials for alice, as LiveServer's password file has them.
    static let alice = "Authorization: Basic " + Data("alice:secret".utf8).base64EncodedString() + "\r\n"

    /// Sends `head` (the request line and headers, each ending in CRLF, without the empty line
    /// that ends them) with `Connection: close`, then `body`, and reads the answer.
    /// `sendBody: false` sends the head alone and reads what the server says before any body.
    static func exchange(port: UInt16, _ head: String, body: [UInt8] = [], sendBody: Bool = true) throws -> Answer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        var bytes = Array((head + "Connection: close\r\n\r\n").utf8)
        if sendBody { bytes += body }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer and close before all is sent (a refused body): read what it said.
            guard sent > 0 else { break }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                // ECONNRESET after the answer (unread bytes were still coming): the answer stands.
                if received.isEmpty { throw Failure(description: "recv: errno \(errno)") }
                break
            }
            if count == 0 { break }
            received += buffer[..<count]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...max(0, received.count - 4)).first(where: { received.count >= $0 + 4 && Array(received[$0..<($0 + 4)]) == separator }) else {
            throw Failure(description: "no answer head in \(received.count) bytes: \(String(decoding: received, as: UTF8.self))")
        }
        var lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "not a status line: \(statusLine)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Answer(status: status, headers: headers, body: String(decoding: received[(end + 4)...], as: UTF8.self))
    }
}

/// What a store holds, counted on a connection of its own: the records of every indexed entity
/// and the journal's entries (each with whether it is undone). Equal before and after a
/// request means the request neither lost nor added anything.
struct StoreCensus: Equatable, CustomStringConvertible {
    let records: [String: Int]
    let journal: [String]

    init(of server: LiveServer) throws {
        let registry = server.engine.registry
        let store = try SQLiteStore.opener.open(.file(server.folder.appendingPathComponent("store.sqlite").path), registry: registry)
        (records, journal) = try store.readTransaction { reader in
            var counts: [String: Int] = [:]
            for entity in registry.allEntities where entity.kind == .indexed {
                counts["\(entity.name)"] = try reader.count(entity.name)
            }
            let heads = try reader.journalHeads(limit: 1_000_000).map { "\($0.sequence)\($0.undone ? " undone" : "")" }
            return (counts, heads)
        }
    }

    var description: String { "records \(records.sorted { $0.key < $1.key }), journal \(journal)" }
}
