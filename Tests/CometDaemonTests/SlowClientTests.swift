import Foundation
import Testing
import CometSchema
@testable import CometDaemon

/// A client that asks and never reads its answers is disconnected, by time and by size, and
/// the others are served meanwhile.
@Suite("SocketServer and a client that does not read")
struct SlowClientTests {
    private func ask(_ fd: Int32, size: Int) {
        let frame = FrameDecoder.frame(Array(String(size).utf8))
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test("by time: a client that takes none of its answers for sendSeconds is disconnected; by size: past pendingOutputBytes")
    func slowClients() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("slow-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s.sock"
        var limits = SocketServer.Limits()
        limits.sendSeconds = 1
        limits.pendingOutputBytes = 8 * 1024 * 1024
        let logs = LogLines()
        let server = SocketServer(path: path, limits: limits, handlers: SocketServer.Handlers(
            message: { connection, body in
                let size = Int(String(decoding: body, as: UTF8.self)) ?? 0
                connection.work.async {
                    connection.sendFrame([UInt8](repeating: 0x78, count: size))
                    connection.finished()
                }
            },
            problem: { _, _ in }, closed: { _ in }, log: { message, fields in logs.add(message + " " + fields.map { "\($0)=\($1)" }.joined(separator: " ")) }))
        try server.start()
        defer { server.stop() }

        // Asks for 4 MB it never reads: the socket fills, and after a second it is let go.
        let stalled = try connectUnixSocket(path)
        defer { close(stalled) }
        ask(stalled, size: 4 * 1024 * 1024)
        // Asks for 3 x 4 MB at once, past the 8 MB of answers a client may leave unread.
        let greedy = try connectUnixSocket(path)
        defer { close(greedy) }
        for _ in 0..<3 { ask(greedy, size: 4 * 1024 * 1024) }

        // Meanwhile another client is served.
        // Connecting is enough: the server accepts it while the others stall. It is kept
        // alive to the end, since only it should be left.
        let client = try DaemonClient(path: path)
        defer { withExtendedLifetime(client) {} }
        // Both are let go (said in the log), however the three connections interleave; then
        // only the client that reads is left.
        let deadline = Date().addingTimeInterval(15)
        func bothLogged() -> Bool {
            logs.all.contains { $0.contains("it took none of its replies") } && logs.all.contains { $0.contains("it does not read its replies") }
        }
        while !bothLogged() || server.connectionCount != 1, Date() < deadline { usleep(50_000) }
        #expect(server.connectionCount == 1, "only the client that reads is left")
        #expect(logs.all.contains { $0.contains("it took none of its replies for 1 s") }, "\(logs.all)")
        #expect(logs.all.contains { $0.contains("it does not read its replies") }, "\(logs.all)")
    }
}

final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
