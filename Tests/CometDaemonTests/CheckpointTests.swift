import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
@testable import CometDaemon

/// The daemon's writer does not checkpoint inside its commits; its checkpointer does, on a
/// connection of its own, so the WAL stays bounded and the writes are all kept.
@Suite("WAL checkpoints off the write path")
struct CheckpointTests {
    private static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schemas").path

    private func create(_ index: Int, on service: DaemonService) throws {
        let answer = service.handle("intent.perform", JSONObject([
            ("intent", .string("createEvent")), ("confirmed", .bool(true)),
            ("parameters", .object(JSONObject([("title", .string("Checkpoint \(index)")),
                                               ("startDate", .string("2026-06-13T12:00:00+02:00[Europe/Berlin]"))]))),
        ]), connection: 1)
        let result = try answer.get()
        #expect(result["outcome"] == "done")
    }

    private func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test("the WAL grows past SQLite's own 1,000-page checkpoint until the checkpointer runs, then starts again from its beginning; every write is kept")
    func checkpointerBoundsTheWAL() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checkpoints-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/s.sqlite"
        let service = try DaemonService(configuration: DaemonService.Configuration(store: .file(store), opener: SQLiteStore.opener, schemaPaths: [CheckpointTests.schemas],
                                                                                   timeZone: TimeZone(identifier: "Europe/Berlin") ?? .current, readers: 1))
        var written = 0
        while service.checkpoints.pagesAtLastCommit < 1_200, written < 2_000 {
            try create(written, on: service)
            written += 1
        }
        // SQLite's automatic checkpoint would have started the WAL again at 1,000 pages.
        #expect(service.checkpoints.pagesAtLastCommit >= 1_200)
        let grown = try size(store + "-wal")
        let first = try #require(service.checkpoints.checkpoint())
        #expect(first.copied == first.walPages)
        // As many writes again, with the checkpointer between every 20: the WAL is reused.
        for index in 0..<written {
            try create(written + index, on: service)
            if index % 20 == 19 { service.checkpoints.checkpoint() }
        }
        #expect(service.checkpoints.pagesAtLastCommit < 1_000)
        #expect(try size(store + "-wal") <= grown)
        guard case .object(let health) = try service.handle("health", JSONObject(), connection: 1).get(),
              case .object(let records)? = health["records"] else {
            Issue.record("health has no records")
            return
        }
        #expect(records["Event"] == .int(2 * written))
    }
}
