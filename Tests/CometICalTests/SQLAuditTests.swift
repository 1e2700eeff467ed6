import Testing
import Foundation
import Synchronization
import CometSchema
import CometStore
@testable import CometSQLiteStore
import CometIntents

/// docs/security.md, "No SQL is built from input", checked at run time: every SQL text the store
/// hands to SQLite (through `SQLAudit`, the one place statements are made) is collected while a
/// workload puts a marker into every value people give (titles, notes, locations, people,
/// categories, calendar names, search words, names that resolve, an imported file's every
/// field), and no statement may contain it.
@Suite("SQL audit", .serialized)
struct SQLAuditTests {
    static let marker = "qzxmarker"

    @Test("no value given to CometCal, typed or imported, ever becomes SQL text")
    func inputNeverBecomesSQL() throws {
        let seen = Mutex<Set<String>>([])
        SQLAudit.observe { sql in seen.withLock { _ = $0.insert(sql) } }
        defer { SQLAudit.observe(nil) }

        let session = try Corpus.Session()
        defer { session.close() }
        let engine = session.engine
        let m = Self.marker
        let hostile = "\(m) O'Brien\"; DROP TABLE _journal; -- \(m)* NEAR(\(m)) OR 1=1"
        func perform(_ intent: String, _ parameters: [String: ParameterValue], references: [String: String] = [:]) -> IntentOutcome {
            engine.perform(IntentRequest(intent: intent, parameters: ParameterBindings(parameters), references: references, confirmation: .confirmed))
        }
        #expect(perform("createCalendar", ["title": .set(.string("\(m) Calendar '"))]).name == "done")
        let start = try DateTimeValue(parsing: "2026-06-11T09:00:00+02:00[Europe/Berlin]")
        let created = perform("createEvent", [
            "title": .set(.string(hostile)), "startDate": .set(.dateTime(start)), "note": .set(.string(hostile)),
            "location": .set(.union("text", .string(hostile))), "categories": .set(.array([.string(hostile)])),
            "recurrence": .set(.recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=5"))),
        ], references: ["calendar": "\(m) Calendar '"])
        #expect(created.name == "done", "\(created)")
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//\(m)//EN\r
            X-WR-CALNAME:\(m) imported '\r
            BEGIN:VEVENT\r
            UID:\(m)-uid-'\r
            DTSTAMP:20260601T000000Z\r
            DTSTART;TZID=Europe/Berlin:20260612T100000\r
            SUMMARY:\(m) Imported'); DELETE FROM _meta;--\r
            DESCRIPTION:\(m) note\r
            LOCATION:\(m) room\r
            CATEGORIES:\(m) one,\(m) two\r
            ATTENDEE;CN=\(m) Person;PARTSTAT=ACCEPTED:mailto:\(m)@example.com\r
            X-\(m.uppercased()):\(m) extension\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let report = session.importText(text, name: "\(m).ics")
        #expect(report.written && report.added == 1, "\(report.problems)")
        for words in [m, "\(m)*", "\"\(m)\"", hostile, "\(m) imported"] {
            _ = perform("searchEvents", ["text": .set(.string(words))])
        }
        #expect(perform("openEvent", [:], references: ["event": "\(m) Imported"]).name == "done")
        #expect(perform("updateEvent", ["title": .set(.string("\(m) renamed")), "span": .set(.enumCase("all"))],
                        references: ["event": "\(m) Imported"]).name == "done")
        #expect(perform("deleteEvent", ["span": .set(.enumCase("all"))], references: ["event": "\(m) renamed"]).name == "done")
        #expect(engine.undo().name == "done")
        #expect(engine.redo().name == "done")
        _ = try engine.exportCalendar()
        _ = try engine.exportCalendar(calendar: "\(m) Calendar '")

        let statements = seen.withLock { $0 }
        #expect(statements.count > 40, "the audit saw the store's statements: \(statements.count)")
        let leaked = statements.filter { $0.lowercased().contains(m) }
        #expect(leaked.isEmpty, "SQL text with a value in it: \(leaked.prefix(3))")
    }

    @Test("the audit sees what it is meant to see: a statement that carried a value would be caught")
    func auditCatches() throws {
        let seen = Mutex<[String]>([])
        SQLAudit.observe { sql in seen.withLock { $0.append(sql) } }
        defer { SQLAudit.observe(nil) }
        let connection = try Connection(path: ":memory:")
        _ = try connection.prepare("SELECT '\(Self.marker)'")
        #expect(seen.withLock { $0 }.contains { $0.contains(Self.marker) })
    }
}
