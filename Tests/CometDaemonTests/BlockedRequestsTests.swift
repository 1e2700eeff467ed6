import Foundation
import Testing
@testable import CometDaemon

/// Requests that block (on the database, on the writer) hold up only their own connection. Each
/// connection's work queue is a serial DispatchQueue, which libdispatch runs on its overcommit
/// threads (one more whenever one is needed). Targeted at `DispatchQueue.global()` instead, the
/// queue would get as many threads as cores and about one more a second while they block: this
/// test fails so (measured: the probe unanswered after 10 s, 3 of 16 requests alone).
@Suite("SocketServer with requests that block")
struct BlockedRequestsTests {
    private static func ask(_ fd: Int32, _ text: String) {
        let frame = FrameDecoder.frame(Array(text.utf8))
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The body of the next frame on `fd`, waiting at most `seconds`.
    private static func answer(_ fd: Int32, seconds: Double) -> String? {
        var decoder = FrameDecoder()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            decoder.append(chunk[0..<count])
            if case .message(let body)? = decoder.next() { return String(decoding: body, as: UTF8.self) }
        }
        return nil
    }

    @Test("16 connections' requests that each wait until all 16 have begun all run at once, and a 17th connection is answered meanwhile")
    func blockedRequestsRunTogether() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blocked-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/b.sock"
        let blocked = 16
        let barrier = Barrier(parties: blocked)
        let server = SocketServer(path: path, handlers: SocketServer.Handlers(
            message: { connection, body in
                let text = String(decoding: body, as: UTF8.self)
                connection.work.async {
                    // A request that blocks until every other blocking request has begun: run
                    // one after the other, or a few at a time, they would wait out the deadline.
                    let reply = text == "block" ? (barrier.arrive(seconds: 10) ? "all began" : "waited alone") : "pong"
                    connection.sendFrame(Array(reply.utf8))
                    connection.finished()
                }
            },
            problem: { _, _ in }, closed: { _ in }, log: { _, _ in }))
        try server.start()
        defer { server.stop() }

        let clients = try (0..<blocked).map { _ in try connectUnixSocket(path) }
        defer { for fd in clients { close(fd) } }
        for fd in clients { BlockedRequestsTests.ask(fd, "block") }
        let probe = try connectUnixSocket(path)
        defer { close(probe) }
        BlockedRequestsTests.ask(probe, "ping")
        #expect(BlockedRequestsTests.answer(probe, seconds: 10) == "pong")
        let answers = clients.map { BlockedRequestsTests.answer($0, seconds: 15) }
        #expect(answers == Array(repeating: "all began", count: blocked), "\(answers)")
    }
}

/// Waits until `parties` threads have arrived (or the time is up).
private final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    func arrive(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date().addingTimeInterval(seconds)
        while arrived < parties {
            guard condition.wait(until: deadline) else { return arrived >= parties }
        }
        return true
    }
}
