import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// python caldav (an independent client) reads a series that CometCal moved "this and future":
/// the engine's `updateEvent` with `span: future` at an occurrence ends the old series before it
/// (UNTIL) and starts a new one there, with a new UID related to the old.
@Suite("CalDAV: a series split in CometCal, read by python caldav", .serialized)
struct CalDAVSeriesSplitTests {
    static func berlin(_ text: String) throws -> ParameterValue {
        .set(.dateTime(try DateTimeValue(parsing: "2026-\(text):00+02:00[Europe/Berlin]")))
    }

    @Test("python caldav saves a weekly series (8 Mondays) with an override on 8 June; CometCal changes 6 July alone, then moves the series from 22 June to 10:30: the client sees the old series ending before 22 June with its override, the new one from 22 June with the 6 July override, and the same 8 instances")
    func thisAndFuture() throws {
        let server = try LiveServer()
        _ = try server.python("scenario.py", [server.url, "create"])
        let event = try #require(server.engine.registry.allEntities.first { $0.name.name == "Event" })
        let series = try #require(try server.engine.records(event.name).first { $0["uid"] == .string("standup@example.com") && $0["recurrenceId"] == nil })
        let demo = server.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(series.id)), "span": .set(.enumCase("this")), "occurrence": try Self.berlin("07-06T09:00"), "title": .set(.string("Standup (demo)")),
        ]), confirmation: .confirmed))
        try #require(demo.isDone, "\(demo)")
        let split = server.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(series.id)), "span": .set(.enumCase("future")), "occurrence": try Self.berlin("06-22T09:00"),
            "startDate": try Self.berlin("06-22T10:30"), "title": .set(.string("Standup (new time)")),
        ]), confirmation: .confirmed))
        try #require(split.isDone, "\(split)")

        let seen = try server.python("scenario.py", [server.url, "split"])
        let resources = try #require(seen.first?["resources"] as? [[String: Any]])
        try #require(resources.count == 2, "\(resources)")
        let (old, new) = (resources[0], resources[1])
        #expect(old["uid"] as? String == "standup@example.com")
        #expect(old["start"] as? String == "2026-06-01T09:00:00+02:00")
        let oldRule = try #require(old["rrule"] as? String)
        #expect(oldRule.contains("UNTIL=2026062") && !oldRule.contains("COUNT"), "\(oldRule)")
        #expect(old["overrides"] as? [String] == ["2026-06-08T09:00:00+02:00"])
        #expect(new["uid"] as? String != "standup@example.com")
        #expect(new["related"] as? String == "standup@example.com")
        #expect(new["start"] as? String == "2026-06-22T10:30:00+02:00")
        #expect((new["rrule"] as? String)?.contains("COUNT=5") == true, "\(new)")
        #expect(new["overrides"] as? [String] == ["2026-07-06T10:30:00+02:00"])
        #expect(seen.last?["instances"] as? [String] == [
            "2026-06-01T09:00:00+02:00 Standup", "2026-06-08T10:00:00+02:00 Standup (moved)", "2026-06-15T09:00:00+02:00 Standup",
            "2026-06-22T10:30:00+02:00 Standup (new time)", "2026-06-29T10:30:00+02:00 Standup (new time)", "2026-07-06T10:30:00+02:00 Standup (demo)",
            "2026-07-13T10:30:00+02:00 Standup (new time)", "2026-07-20T10:30:00+02:00 Standup (new time)",
        ])
    }
}
