import Foundation
import Testing
import CometSchema
@testable import CometDaemon

/// Many clients at once, each asking for small answers and for answers larger than a socket's
/// buffer (so the connection waits for its client to read them). Every request must be answered.
@Suite("SocketServer with many clients")
struct ConnectionChurnTests {
    /// A client with a deadline on every answer, so a request the server never reads fails the
    /// test instead of hanging it.
    final class Client {
        let fd: Int32
        private var decoder = FrameDecoder()

        init(path: String) throws {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let status = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard status == 0 else { throw ChurnError("connect: \(String(cString: strerror(errno)))") }
        }

        deinit { close(fd) }

        /// Sends `size` as the body and waits for the answer of that many bytes.
        func call(_ size: Int, seconds: Double) throws -> Int {
            let frame = FrameDecoder.frame(Array(String(size).utf8))
            var sent = 0
            while sent < frame.count {
                let count = frame[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { throw ChurnError("send: \(String(cString: strerror(errno)))") }
                sent += count
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                if case .message(let body)? = decoder.next() { return body.count }
                let remaining = Int32(max(0, deadline.timeIntervalSinceNow) * 1_000)
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard remaining > 0, poll(&descriptor, 1, remaining) > 0 else { throw ChurnError("no answer within \(Int(seconds)) s") }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw ChurnError("the server closed the connection") }
                decoder.append(chunk[0..<count])
            }
        }
    }

    struct ChurnError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        func add(_ text: String) { lock.withLock { all.append(text) } }
        var list: [String] { lock.withLock { all } }
    }

    /// 32 client threads for `seconds`; each connection makes 1 to 6 requests, or all of its
    /// requests when `keepConnections`. The server answers each after up to 2 ms of "work".
    private func run(seconds: Double, keepConnections: Bool) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("churn-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.sock"
        let server = SocketServer(path: path, handlers: SocketServer.Handlers(
            message: { connection, body in
                let size = Int(String(decoding: body, as: UTF8.self)) ?? 0
                connection.began()
                connection.work.async {
                    usleep(UInt32.random(in: 0...2_000))
                    connection.sendFrame([UInt8](repeating: UInt8(ascii: "x"), count: size))
                    connection.finished()
                }
            },
            problem: { _, _ in }, closed: { _ in }, log: { _, _ in }))
        try server.start()
        defer { server.stop() }
        let failures = Failures()
        let done = DispatchGroup()
        let end = Date().addingTimeInterval(seconds)
        for index in 0..<32 {
            done.enter()
            Thread {
                defer { done.leave() }
                var calls = 0
                let kept = keepConnections ? try? Client(path: path) : nil
                while Date() < end, failures.list.isEmpty {
                    do {
                        let client = try kept ?? Client(path: path)
                        for _ in 0..<(keepConnections ? 1 : Int.random(in: 1...6)) {
                            let size = Bool.random() ? Int.random(in: 100_000...1_500_000) : Int.random(in: 10...400)
                            let got = try client.call(size, seconds: 10)
                            calls += 1
                            if got != size { failures.add("client \(index): \(got) bytes, not \(size)") }
                        }
                    } catch {
                        failures.add("client \(index) after \(calls) calls: \(error)")
                    }
                }
            }.start()
        }
        done.wait()
        return failures.list
    }

    @Test("32 clients on their connections, small and large answers: every request is answered")
    func keptConnections() throws {
        let failures = try run(seconds: 3, keepConnections: true)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Found by the benchmark's daemon scenario (a client of a new phase waited forever with its
    /// request unread in the server's socket). `Connection.close()` closes the descriptor right
    /// after cancelling its dispatch sources; the number soon belongs to a connection accepted
    /// next, while libdispatch (epoll on Linux) may still hold the old registration, and the new
    /// connection's read events are then lost. Closing the descriptor in the sources' cancel
    /// handlers instead made it much rarer here but not gone, and this churn also crashed
    /// libdispatch's event loop now and then (with small answers alone as well).
    @Test("clients that connect, ask and leave all the time: every request is answered",
          .disabled("cometcald loses a new connection's requests under connection churn; see the comment"))
    func churn() throws {
        let failures = try run(seconds: 8, keepConnections: false)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}
