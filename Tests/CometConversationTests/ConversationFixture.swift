import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
@testable import CometConversation

/// A fresh store in a temporary folder with the project's schemas and the example seeds, a
/// fixed clock (Monday 2026-06-08 09:00 in Los Angeles), and a conversation on it.
final class ConversationFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = root.appendingPathComponent("Examples/conversations")
    static let zone = TimeZone(identifier: "America/Los_Angeles")!
    static let now = LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 8)!, hour: 9, minute: 0)!.dateTime(in: zone).instant!

    let directory: URL
    let registry: Registry
    let engine: IntentEngine
    let conversation: Conversation

    init(seeds: [String] = ["picnic.ics", "crew.ics", "deep-space.ics"], schemas: String = "Schemas") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-conversation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let registry = try Registry.load(paths: [ConversationFixture.root.appendingPathComponent(schemas).path])
        self.registry = registry
        let store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path, registry: registry, now: ConversationFixture.now)
        let now = ConversationFixture.now
        engine = IntentEngine(store: store, timeZone: ConversationFixture.zone, clock: { now })
        let sources = try seeds.map { name in
            ImportSource(name: name, text: try String(contentsOf: ConversationFixture.examples.appendingPathComponent(name), encoding: .utf8), registry: registry)
        }
        if !sources.isEmpty {
            let report = engine.importCalendars(sources)
            precondition(report.written && report.problems.isEmpty, "the seeds import")
        }
        conversation = Conversation(engine: engine, now: now, timeZone: ConversationFixture.zone)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func say(_ text: String) -> Conversation.Turn { conversation.say(text) }

    var events: [EntityRecord] { (try? engine.records(QualifiedName(domain: "calendar", name: "Event"))) ?? [] }

    func event(_ title: String) -> EntityRecord? { events.first { registry.title(of: $0) == title } }

    /// Every record of every indexed entity and the journal's length: equal fingerprints mean
    /// nothing was written.
    struct Fingerprint: Equatable {
        let records: Set<EntityRecord>
        let journal: Int
    }

    func fingerprint() throws -> Fingerprint {
        var records = Set<EntityRecord>()
        for entity in registry.allEntities where entity.kind == .indexed {
            records.formUnion(try engine.records(entity.name))
        }
        return Fingerprint(records: records, journal: try engine.history(limit: 10_000).count)
    }

    /// The wall time of an event's start, as "2026-06-13 11:30" on the fixture's clock.
    func start(_ title: String) -> String? {
        guard case .dateTime(let value)? = event(title)?["startDate"] else { return nil }
        let wall = value.wallTime(in: ConversationFixture.zone)
        return String(format: "%@ %02d:%02d", wall.date.description, wall.hour, wall.minute)
    }
}
