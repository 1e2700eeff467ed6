import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
@testable import CometDaemon

/// Changes made beside a daemon are announced from its journal, however many land between two
/// looks: another daemon's clients or a `cometcal import` can add far more entries than one
/// look reads by default (`journalLook`).
@Suite("Journal announcements")
struct JournalAnnouncementTests {
    private static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schemas").path

    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var journals: [Int] = []
        func add(_ notification: JSONValue) {
            guard case .int(let journal)? = notification["params"]?["journal"] else { return }
            lock.withLock { journals.append(journal) }
        }
        var all: [Int] { lock.withLock { journals } }
    }

    @Test("more than journalLook entries written by another service on the same store between two looks are all announced, each once, in order")
    func manyBetweenLooks() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func service() throws -> DaemonService {
            try DaemonService(configuration: DaemonService.Configuration(store: .file(folder + "/s.sqlite"), opener: SQLiteStore.opener,
                                                                         schemaPaths: [JournalAnnouncementTests.schemas], timeZone: TimeZone(identifier: "UTC") ?? .current, readers: 1))
        }
        let watching = try service()
        let heard = Heard()
        watching.deliver = { _, notification in heard.add(notification) }
        _ = try watching.handle("subscribe", JSONObject([("topics", .array([.string("changes")]))]), connection: 1).get()
        let beside = try service()
        let count = DaemonService.journalLook * 3 + 7
        for number in 1...count {
            let created = try beside.handle("intent.perform", JSONObject([
                ("intent", .string("createEvent")),
                ("parameters", .object(JSONObject([("title", .string("Entry \(number)")), ("startDate", .string("2026-06-13T12:00:00Z"))]))),
            ]), connection: 2).get()
            #expect(created["outcome"] == "done")
        }
        watching.pollJournal()
        let journals = heard.all
        #expect(journals.count == count, "heard \(journals.count) of \(count)")
        #expect(journals == journals.sorted() && Set(journals).count == journals.count)
        watching.pollJournal()
        #expect(heard.all.count == count, "a second look says nothing new")
    }
}
