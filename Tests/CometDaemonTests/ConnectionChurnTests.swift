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
                guard remaining > 0 else { throw ChurnError("no answer within \(Int(seconds)) s") }
                let ready = poll(&descriptor, 1, remaining)
                // Signals (SIGCHLD from the daemons other suites start) interrupt waits: not an error.
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { throw ChurnError("no answer within \(Int(seconds)) s") }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw ChurnError(count == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))") }
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
        let failuresLog = Failures()
        let server = SocketServer(path: path, handlers: SocketServer.Handlers(
            message: { connection, body in
                let size = Int(String(decoding: body, as: UTF8.self)) ?? 0
                connection.work.async {
                    usleep(UInt32.random(in: 0...2_000))
                    connection.sendFrame([UInt8](repeating: UInt8(ascii: "x"), count: size))
                    connection.finished()
                }
            },
            problem: { _, problem in failuresLog.add("problem \(problem)") }, closed: { _ in }, log: { message, fields in failuresLog.add("log \(message) \(fields)") }))
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
        return failures.list + (failures.list.isEmpty ? [] : failuresLog.list)
    }

    @Test("32 clients on their connections, small and large answers: every request is answered")
    func keptConnections() throws {
        let failures = try run(seconds: 3, keepConnections: true)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Found by the benchmark's daemon scenario: with dispatch sources watching the sockets, a
    /// descriptor closed and reused by the next connection could keep its old epoll
    /// registration in libdispatch, and the new connection's requests went unread. The
    /// transport now reads with a thread per connection and no sources.
    @Test("clients that connect, ask and leave all the time: every request is answered")
    func churn() throws {
        let failures = try run(seconds: 8, keepConnections: false)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}
