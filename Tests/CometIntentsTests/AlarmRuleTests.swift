import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// The alarm rules docs/daemon.md states, at the engine (`dueAlarms`, which the daemon's
/// scheduler reads): every occurrence's relative alarm, a fixed-moment alarm of a series once,
/// triggers within 30 days of their occurrence, and a fired alarm never again.
@Suite("Alarm rules")
struct AlarmRuleTests {
    private func date(_ text: String) throws -> Date { try #require(try DateTimeValue(parsing: text).instant) }

    @Test("a relative alarm is due at every occurrence of a series; a fixed-moment alarm once, at its first occurrence")
    func fixedMomentOnce() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Daily", start: "2026-06-10T09:00:00Z", end: "2026-06-10T09:30:00Z", [
            "recurrence": .set(.recurrence(try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=10"))),
            "alarms": .set(.array([relativeAlarm("-PT15M"), .union("absolute", .dateTime(try dateTime("2026-06-10T08:00:00Z")))])),
        ])
        let due = try fixture.engine.dueAlarms(from: try date("2026-06-09T00:00:00Z"), to: try date("2026-06-21T00:00:00Z"))
        let relative = due.filter { $0.trigger != (try? date("2026-06-10T08:00:00Z")) }
        #expect(relative.count == 10, "one per occurrence: \(relative.map(\.trigger))")
        #expect(relative.first?.trigger == (try date("2026-06-10T08:45:00Z")))
        let fixed = due.filter { $0.trigger == (try? date("2026-06-10T08:00:00Z")) }
        #expect(fixed.count == 1, "the fixed moment is one alarm, not one per occurrence: \(fixed.count)")
        #expect(fixed.first?.occurrence.instant == (try date("2026-06-10T09:00:00Z")), "belonging to the first occurrence")
    }

    @Test("a trigger up to 30 days before its occurrence is due; one further away is not found")
    func reach() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Far", start: "2026-08-01T09:00:00Z", end: "2026-08-01T10:00:00Z",
                              ["alarms": .set(.array([relativeAlarm("-P29D"), relativeAlarm("-P31D")]))])
        // The daemon asks for the alarms of the next few minutes; here, of the day of each trigger.
        let near = try fixture.engine.dueAlarms(from: try date("2026-07-03T00:00:00Z"), to: try date("2026-07-04T00:00:00Z"))
        #expect(near.map(\.trigger) == [try date("2026-07-03T09:00:00Z")], "29 days before: \(near.map(\.trigger))")
        let far = try fixture.engine.dueAlarms(from: try date("2026-07-01T00:00:00Z"), to: try date("2026-07-02T00:00:00Z"))
        #expect(far.isEmpty, "31 days before is past the reach: \(far.map(\.trigger))")
    }

    @Test("an alarm recorded as fired is not due again")
    func firedOnce() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Once", start: "2026-06-10T09:00:00Z", end: "2026-06-10T09:30:00Z",
                              ["alarms": .set(.array([relativeAlarm("-PT15M")]))])
        let range = (try date("2026-06-10T00:00:00Z"), try date("2026-06-11T00:00:00Z"))
        let due = try #require(try fixture.engine.dueAlarms(from: range.0, to: range.1).first)
        #expect(try fixture.engine.markFired(due, at: due.trigger, late: false))
        #expect(try !fixture.engine.markFired(due, at: due.trigger, late: false), "a second record of the same alarm is refused")
        #expect(try fixture.engine.dueAlarms(from: range.0, to: range.1).isEmpty)
    }
}
