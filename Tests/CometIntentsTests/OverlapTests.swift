import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

private func june(_ day: Int, _ time: String) -> String {
    String(format: "2026-06-%02d", day) + "T\(time):00+02:00[Europe/Berlin]"
}

@Suite("Overlaps said when an event is created or moved")
struct OverlapTests {
    @Test("creating an event onto another says which one and when, in the dialog and in warnings")
    func createOntoAnother() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Review", start: june(12, "09:30"), end: june(12, "09:45"))
        let result = try fixture.done("createEvent", ["title": text("Call"), "startDate": try at(june(12, "09:00")), "endDate": try at(june(12, "10:00"))])
        let sentence = "This overlaps “Review” (Fri Jun 12 09:30–09:45)."
        #expect(result.dialog.full.hasSuffix(" " + sentence))
        #expect(result.warnings == [sentence])
    }

    @Test("an event that only touches another (ends when it starts) overlaps nothing")
    func touchingIsNoOverlap() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Review", start: june(12, "09:00"), end: june(12, "10:00"))
        let result = try fixture.done("createEvent", ["title": text("Call"), "startDate": try at(june(12, "10:00")), "endDate": try at(june(12, "11:00"))])
        #expect(result.warnings.isEmpty)
        #expect(!result.dialog.full.contains("overlaps"))
    }

    @Test("all-day and transparent events neither overlap nor are overlapped")
    func allDayAndTransparentAreFree() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Holiday", start: june(12, "00:00"), end: june(13, "00:00"), ["isAllDay": .set(.bool(true))])
        try fixture.makeEvent("Focus", start: june(12, "09:00"), end: june(12, "12:00"), ["showsAsBusy": .set(.bool(false))])
        let timed = try fixture.done("createEvent", ["title": text("Call"), "startDate": try at(june(12, "09:00")), "endDate": try at(june(12, "10:00"))])
        #expect(timed.warnings.isEmpty)
        // A transparent event put on the call takes no time of its own either.
        let transparent = try fixture.done("createEvent", [
            "title": text("Reading"), "startDate": try at(june(12, "09:00")), "endDate": try at(june(12, "10:00")), "showsAsBusy": .set(.bool(false)),
        ])
        #expect(transparent.warnings.isEmpty)
        // An all-day event put on a day full of meetings takes no time of its own.
        let allDay = try fixture.done("createEvent", ["title": text("Birthday"), "startDate": try at(june(12, "00:00")), "isAllDay": .set(.bool(true))])
        #expect(allDay.warnings.isEmpty)
    }

    @Test("an occurrence of a repeating event is overlapped like a single one")
    func ontoRepeatingOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeWeeklyStandup()
        let result = try fixture.done("createEvent", ["title": text("Dentist"), "startDate": try at(june(15, "09:30")), "endDate": try at(june(15, "10:30"))])
        #expect(result.warnings == ["This overlaps “Standup” (Mon Jun 15 09:00–10:00)."])
    }

    @Test("a repeating event says its first overlap and how many more in the 90 days looked at")
    func repeatingEventCountsItsOverlaps() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeWeeklyStandup()
        // Daily from Thu Jun 11: the Mondays from Jun 15 to Sep 7 inside 90 days are 13.
        let result = try fixture.done("createEvent", [
            "title": text("Sync"), "startDate": try at(june(11, "09:30")), "endDate": try at(june(11, "09:45")), "recurrence": try rule("FREQ=DAILY"),
        ])
        #expect(result.warnings == ["This overlaps “Standup” (Mon Jun 15 09:00–10:00) first, and 12 more times in its first 90 days."])
    }

    @Test("a repeating event that started before now counts its overlaps over the next 90 days from now")
    func startedSeriesCountsFromNow() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeWeeklyStandup()
        // Daily from Mon Jun 1; now is Wed Jun 10 12:00: the Mondays from Jun 15 to Sep 7 are 13.
        let result = try fixture.done("createEvent", [
            "title": text("Sync"), "startDate": try at(june(1, "09:30")), "endDate": try at(june(1, "09:45")), "recurrence": try rule("FREQ=DAILY"),
        ])
        #expect(result.warnings == ["This overlaps “Standup” (Mon Jun 15 09:00–10:00) first, and 12 more times in the next 90 days."])
    }

    @Test("a dense repeat is checked over its first 500 occurrences, and says so")
    func denseRepeatIsBounded() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Review", start: june(11, "10:00"), end: june(11, "10:30"))
        let result = try fixture.done("createEvent", [
            "title": text("Tick"), "startDate": try at(june(11, "09:00")), "endDate": try at(june(11, "09:01")), "recurrence": try rule("FREQ=MINUTELY"),
        ])
        #expect(result.warnings.last == "This overlaps “Review” (Thu Jun 11 10:00–10:30), the only overlap in its first 500 occurrences.")
    }

    @Test("a range too large for the store to list leaves the change made and says overlaps were not looked for")
    func tooLargeIsSaid() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Pulse", start: june(11, "09:00"), end: june(11, "09:00"), ["recurrence": try rule("FREQ=SECONDLY")])
        let result = try fixture.done("createEvent", [
            "title": text("Sync"), "startDate": try at(june(11, "09:30")), "endDate": try at(june(11, "09:45")), "recurrence": try rule("FREQ=DAILY"),
        ])
        #expect(result.warnings.last?.hasPrefix("Overlaps with other events were not looked for: ") == true, "\(result.warnings)")
        #expect(try fixture.all().count == 2)
    }

    @Test("an event a repeating one meets on several days is one overlap, and one its occurrences only come near is none")
    func longEventMetOnSeveralDaysCountsOnce() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        // Busy from Fri 09:00 to Sun 18:00: the daily sync meets it on three days.
        try fixture.makeEvent("Offsite", start: june(12, "09:00"), end: june(14, "18:00"))
        // Between two syncs, never during one.
        try fixture.makeEvent("Lunch", start: june(20, "12:00"), end: june(20, "13:00"))
        let result = try fixture.done("createEvent", [
            "title": text("Sync"), "startDate": try at(june(11, "09:30")), "endDate": try at(june(11, "09:45")), "recurrence": try rule("FREQ=DAILY"),
        ])
        #expect(result.warnings == ["This overlaps “Offsite” (Fri Jun 12 09:00 – Sun Jun 14 18:00), the only overlap in its first 90 days."])
    }

    @Test("several overlaps name three and count the rest")
    func severalOverlapsAreCounted() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        for (index, title) in ["A", "B", "C", "D", "E"].enumerated() {
            try fixture.makeEvent(title, start: june(12, String(format: "%02d:00", 9 + index)), end: june(12, String(format: "%02d:30", 9 + index)))
        }
        let result = try fixture.done("createEvent", ["title": text("Workshop"), "startDate": try at(june(12, "09:00")), "endDate": try at(june(12, "17:00"))])
        #expect(result.warnings == ["This overlaps “A” (Fri Jun 12 09:00–09:30), “B” (Fri Jun 12 10:00–10:30), “C” (Fri Jun 12 11:00–11:30) and 2 more events."])
    }

    @Test("moving an event onto another says it; a rename of an overlapping event does not")
    func moveSaysItRenameDoesNot() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Review", start: june(12, "09:30"), end: june(12, "09:45"))
        let call = try fixture.makeEvent("Call", start: june(12, "14:00"), end: june(12, "15:00"))
        let moved = try fixture.done("updateEvent", ["event": reference(call), "startDate": try at(june(12, "09:00"))])
        #expect(moved.warnings == ["This overlaps “Review” (Fri Jun 12 09:30–09:45)."])
        #expect(moved.dialog.full.hasSuffix("This overlaps “Review” (Fri Jun 12 09:30–09:45)."))
        let renamed = try fixture.done("updateEvent", ["event": reference(call), "title": text("Phone call")])
        #expect(renamed.warnings.isEmpty)
    }

    @Test("a repeating event moved does not overlap its own occurrences or overrides")
    func ownOccurrencesAreNotOverlaps() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try at(june(15, "09:00")), "startDate": try at(june(15, "09:30"))])
        let moved = try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try at(june(1, "09:15"))])
        #expect(moved.warnings.isEmpty)
    }
}
