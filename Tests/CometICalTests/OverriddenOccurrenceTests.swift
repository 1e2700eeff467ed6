import Testing
import Foundation
import CSQLite
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// An override hides the instance it replaces. The occurrence table flags the hidden rows on
/// every write (so a range query reads its covering index alone), whichever arrives first, and
/// brings a row back when its override goes; a store written before the flag existed gets its
/// occurrence table rebuilt when opened.
@Suite("Overridden occurrences")
struct OverriddenOccurrenceTests {
    static let event = QualifiedName(domain: "calendar", name: "Event")

    static func calendarText(overrideFirst: Bool) -> String {
        let master = """
            BEGIN:VEVENT
            UID:weekly-1@example.com
            DTSTAMP:20260601T000000Z
            DTSTART;TZID=Europe/Berlin:20260601T090000
            DTEND;TZID=Europe/Berlin:20260601T100000
            RRULE:FREQ=WEEKLY;COUNT=4
            SUMMARY:Standup
            END:VEVENT
            """
        let override = """
            BEGIN:VEVENT
            UID:weekly-1@example.com
            DTSTAMP:20260601T000000Z
            RECURRENCE-ID;TZID=Europe/Berlin:20260608T090000
            DTSTART;TZID=Europe/Berlin:20260608T110000
            DTEND;TZID=Europe/Berlin:20260608T120000
            SUMMARY:Standup (moved)
            END:VEVENT
            """
        let components = overrideFirst ? [override, master] : [master, override]
        return (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + components + ["END:VCALENDAR"])
            .joined(separator: "\n").replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
    }

    struct SearchFailed: Error { let outcome: String }

    /// "start title" of June 2026's occurrences, in order (start in seconds since 1970).
    static func june(_ engine: IntentEngine) throws -> [String] {
        let outcome = engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
            "from": .set(.dateTime(try DateTimeValue(parsing: "2026-06-01T00:00:00+02:00[Europe/Berlin]"))),
            "to": .set(.dateTime(try DateTimeValue(parsing: "2026-07-01T00:00:00+02:00[Europe/Berlin]"))),
        ])))
        guard case .done(let result) = outcome else { throw SearchFailed(outcome: outcome.name) }
        return result.occurrences.map { "\($0.start.sortKey) \(Corpus.registry.title(of: $0.record))" }
    }

    @Test("the override hides its instance whether it comes before or after the series, and the instance returns when the override is deleted",
          arguments: [false, true])
    func hidesAndReturns(overrideFirst: Bool) throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(Self.calendarText(overrideFirst: overrideFirst), name: "weekly.ics")
        #expect(report.written && report.added == 2, "\(report.problems)")
        let titles = try Self.june(session.engine).map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(titles == ["Standup", "Standup (moved)", "Standup", "Standup"])
        // The moved one starts at 11:00 Berlin on 8 June (09:00 UTC).
        #expect(try Self.june(session.engine)[1].hasPrefix("1780909200 "))
        // Delete the override record: the 8 June instance is back at 09:00.
        let override = try #require(try session.store.transaction { try $0.fetchAll(Self.event, matching: [], limit: nil) }
            .first { Corpus.registry.title(of: $0) == "Standup (moved)" })
        try session.store.transaction { try $0.delete(Self.event, id: override.id) }
        let after = try Self.june(session.engine).map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(after == ["Standup", "Standup", "Standup", "Standup"])
    }

    @Test("a store whose occurrence table predates the flag gets it rebuilt when opened, overrides and all")
    func rebuildsAnOldTable() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        #expect(session.importText(Self.calendarText(overrideFirst: false), name: "weekly.ics").written)
        let before = try Self.june(session.engine)
        // Turn the occurrence table back into the first format: no flag, no covering index, no marker.
        let path = session.directory.appendingPathComponent("store.sqlite").path
        var database: OpaquePointer?
        #expect(sqlite3_open(path, &database) == SQLITE_OK)
        let downgrade = """
            DROP TABLE "calendar__Event__occurrences";
            CREATE TABLE "calendar__Event__occurrences" (entity_id TEXT NOT NULL, start_key INTEGER NOT NULL, end_key INTEGER NOT NULL,
              floating INTEGER NOT NULL, series_uid TEXT, original_key INTEGER NOT NULL, is_override INTEGER NOT NULL);
            DELETE FROM _meta WHERE key = 'occurrences:calendar__Event__occurrences';
            """
        #expect(sqlite3_exec(database, downgrade, nil, nil, nil) == SQLITE_OK)
        sqlite3_close(database)
        let reopened = try SQLiteStore(path: path, registry: Corpus.registry, now: Corpus.now)
        let engine = IntentEngine(store: reopened, timeZone: TimeZone(identifier: "UTC")!, clock: { Corpus.now })
        #expect(try Self.june(engine) == before)
        #expect(before.count == 4)
    }
}
