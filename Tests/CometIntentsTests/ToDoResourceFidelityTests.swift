import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents

/// To-dos as CalDAV clients write them, through the tasks schema (which maps UID, SUMMARY, DUE,
/// PRIORITY, STATUS and DESCRIPTION, and keeps the rest): what a client sends comes back as sent.
@Suite("To-do resources: what a client wrote comes back")
struct ToDoResourceFidelityTests {
    static func todo(_ body: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Client//EN\r\nBEGIN:VTODO\r\n" + body + "END:VTODO\r\nEND:VCALENDAR\r\n"
    }

    private func fixture(_ label: String) throws -> (TestStore, UUID) {
        let registry = try Registry.load(paths: [Fixture.repoRoot + "/Schemas", Fixture.repoRoot + "/Examples/Schemas/tasks"])
        let fixture = try TestStore(registry: registry, label: label)
        let tasks = try #require(fixture.engine.standaloneCollection(holding: "VTODO"))
        return (fixture, tasks.id)
    }

    private func put(_ fixture: TestStore, _ collection: UUID, _ name: String, _ text: String) throws -> ResourceWrite {
        switch fixture.engine.putResource(in: collection, named: name, text: text) {
        case .success(let write): return write
        case .failure(let refusal):
            Issue.record("refused: \(refusal.message)")
            throw refusal
        }
    }

    private func stored(_ fixture: TestStore, _ collection: UUID, _ name: String) throws -> String {
        try #require(try fixture.engine.resourceTexts(in: collection, named: [name]).first?.text)
    }

    private func lines(_ text: String, _ name: String) -> [String] {
        text.components(separatedBy: "\r\n").filter { $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";") }
    }

    @Test("a to-do keeps its UID, DTSTAMP, DTSTART and DURATION, which the tasks schema has no field for")
    func keptTimes() throws {
        let (fixture, tasks) = try fixture("todo-times")
        _ = try put(fixture, tasks, "t.ics", Self.todo("UID:csc-task-4@example.org\r\nDTSTAMP:20260113T151313Z\r\nDTSTART:20260118T120000Z\r\nDURATION:PT2H\r\nSUMMARY:Two hours\r\n"))
        let text = try stored(fixture, tasks, "t.ics")
        #expect(lines(text, "UID") == ["UID:csc-task-4@example.org"])
        #expect(lines(text, "DTSTAMP") == ["DTSTAMP:20260113T151313Z"])
        #expect(lines(text, "DTSTART") == ["DTSTART:20260118T120000Z"])
        #expect(lines(text, "DURATION") == ["DURATION:PT2H"])
    }

    @Test("a DUE that is a date comes back a date; moved by an edit, it is written as the field's date and time")
    func dateDue() throws {
        let (fixture, tasks) = try fixture("todo-date-due")
        _ = try put(fixture, tasks, "d.ics", Self.todo("UID:d\r\nDTSTAMP:20260113T151313Z\r\nDUE;VALUE=DATE:20260108\r\nSUMMARY:By Friday\r\n"))
        let text = try stored(fixture, tasks, "d.ics")
        #expect(lines(text, "DUE") == ["DUE;VALUE=DATE:20260108"])
        var task = try #require(try fixture.engine.records(QualifiedName(domain: "tasks", name: "Task")).first)
        task["dueDate"] = .dateTime(.floating(try #require(LocalDateTime(parsing: "20260109T170000"))))
        try fixture.store.transaction { try $0.save(task) }
        #expect(lines(try stored(fixture, tasks, "d.ics"), "DUE") == ["DUE:20260109T170000"])
    }

    @Test("PRIORITY 3 (outside the schema's 1, 5 and 9) is kept as written with a warning, not refused, and written once; a priority set later replaces it")
    func priorityOutsideTheEnumeration() throws {
        let (fixture, tasks) = try fixture("todo-priority")
        let write = try put(fixture, tasks, "p.ics", Self.todo("UID:p\r\nDTSTAMP:20260113T151313Z\r\nSUMMARY:Weekly chore\r\nPRIORITY:3\r\nRRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3\r\n"))
        #expect(write.warnings.contains { $0.message.contains("PRIORITY '3'") })
        let text = try stored(fixture, tasks, "p.ics")
        #expect(lines(text, "PRIORITY") == ["PRIORITY:3"])
        #expect(lines(text, "RRULE") == ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"])
        let task = try #require(try fixture.engine.records(QualifiedName(domain: "tasks", name: "Task")).first)
        var changed = task
        changed["priority"] = .enumCase("high")
        try fixture.store.transaction { try $0.save(changed) }
        #expect(lines(try stored(fixture, tasks, "p.ics"), "PRIORITY") == ["PRIORITY:1"])
    }

    @Test("an event written with DURATION comes back with that DURATION and no DTEND; once its end changes, DTEND")
    func eventDuration() throws {
        let fixture = try TestStore(label: "event-duration")
        let work = try fixture.makeCalendar("Work")
        let sent = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//Client//EN\r\nBEGIN:VEVENT\r\nUID:dur-1\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART:20260613T120000Z\r\nDURATION:PT1H30M\r\nSUMMARY:Review\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        _ = try put(fixture, work.id, "dur-1.ics", sent)
        let text = try stored(fixture, work.id, "dur-1.ics")
        #expect(lines(text, "DURATION") == ["DURATION:PT1H30M"])
        #expect(lines(text, "DTEND").isEmpty)
        var event = try #require(try fixture.engine.records(QualifiedName(domain: "calendar", name: "Event")).first)
        event["endDate"] = .dateTime(DateTimeValue(kind: .utc(epochSeconds: 1_781_352_000 + 7_200)))
        try fixture.store.transaction { try $0.save(event) }
        let moved = try stored(fixture, work.id, "dur-1.ics")
        #expect(lines(moved, "DURATION").isEmpty)
        #expect(lines(moved, "DTEND") == ["DTEND:20260613T140000Z"])
    }
}
