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

    static func scratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Two services on one store in `folder`: one with a subscriber to changes (what it heard),
    /// one beside it, as another daemon.
    static func watchingAndBeside(_ folder: String) throws -> (watching: DaemonService, heard: Heard, beside: DaemonService) {
        func service() throws -> DaemonService {
            try DaemonService(configuration: DaemonService.Configuration(store: .file(folder + "/s.sqlite"), opener: SQLiteStore.opener,
                                                                         schemaPaths: [schemas], timeZone: TimeZone(identifier: "UTC") ?? .current, readers: 1))
        }
        let watching = try service()
        let heard = Heard()
        watching.deliver = { _, notification in heard.add(notification) }
        _ = try watching.handle("subscribe", JSONObject([("topics", .array([.string("changes")]))]), connection: 1).get()
        return (watching, heard, try service())
    }

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
        let folder = try JournalAnnouncementTests.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (watching, heard, beside) = try JournalAnnouncementTests.watchingAndBeside(folder)
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

    @Test("a daemon's own writes are announced when the request is answered, with no look at the journal; interleaved with another service's writes, each entry is announced once, in order")
    func ownWritesBesideOthers() throws {
        let folder = try JournalAnnouncementTests.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (watching, heard, beside) = try JournalAnnouncementTests.watchingAndBeside(folder)
        func create(_ title: String, on service: DaemonService) throws -> Int {
            let created = try service.handle("intent.perform", JSONObject([
                ("intent", .string("createEvent")),
                ("parameters", .object(JSONObject([("title", .string(title)), ("startDate", .string("2026-06-13T12:00:00Z"))]))),
            ]), connection: 2).get()
            #expect(created["outcome"] == "done")
            guard case .int(let journal)? = created["journal"] else { Issue.record("no journal in \(created)"); return 0 }
            return journal
        }
        // Its own: announced when the request is answered, no look needed.
        let first = try create("Mine 1", on: watching)
        #expect(heard.all == [first])
        let second = try create("Mine 2", on: watching)
        #expect(heard.all == [first, second])
        // Another's write, then its own: the own write is not the next entry after the last
        // announced, so the journal is read, and both are announced, in order.
        let others = try create("Theirs", on: beside)
        let third = try create("Mine 3", on: watching)
        #expect(heard.all == [first, second, others, third])
        // A look finds nothing more; a write of another's is found by the next look.
        watching.pollJournal()
        #expect(heard.all == [first, second, others, third])
        let later = try create("Theirs again", on: beside)
        #expect(heard.all.count == 4)
        watching.pollJournal()
        #expect(heard.all == [first, second, others, third, later])
    }
}

/// What a daemon relays to the others about an alarm it fired: PostgreSQL carries under 8,000
/// bytes per notification.
@Suite("Relayed alarms")
struct RelayedAlarmTests {
    @Test("a relayed alarm keeps its fields; a title too long for a notification is shortened, whole characters, and the alarm says titleShortened")
    func longTitleShortened() throws {
        let short = JSONObject([("event", .string("e1")), ("title", .string("Zahnarzt")), ("late", .bool(false))])
        let plain = try JSONParser.parse(DaemonService.relayedAlarm(short, from: "me"))
        #expect(plain["alarm"] == .object(short))
        #expect(plain["from"] == "me")
        let title = String(repeating: "Zähne ", count: 2_000)
        let long = JSONObject([("event", .string("e1")), ("title", .string(title)), ("late", .bool(true))])
        let message = DaemonService.relayedAlarm(long, from: "me")
        #expect(message.utf8.count <= DaemonService.relayLimit)
        let relayed = try JSONParser.parse(message)
        let shortened = try #require(relayed["alarm"]?["title"]?.stringValue)
        #expect(shortened.hasSuffix("…") && title.hasPrefix(String(shortened.dropLast())))
        #expect(relayed["alarm"]?["titleShortened"] == .bool(true))
        #expect(relayed["alarm"]?["late"] == .bool(true))
    }
}
