import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// The weekly standup: Mondays 09:00–10:00 Europe/Berlin from 2026-06-01 (June: 1, 8, 15, 22, 29).
private let june = (from: "2026-06-01T00:00:00+02:00[Europe/Berlin]", to: "2026-07-01T00:00:00+02:00[Europe/Berlin]")
private let junePlusJuly = (from: "2026-06-01T00:00:00+02:00[Europe/Berlin]", to: "2026-07-14T00:00:00+02:00[Europe/Berlin]")

private func berlin(_ day: String, _ time: String = "09:00") throws -> ParameterValue {
    try at("2026-\(day)T\(time):00+02:00[Europe/Berlin]")
}

private func berlinValue(_ day: String, _ time: String = "09:00") throws -> DateTimeValue {
    try dateTime("2026-\(day)T\(time):00+02:00[Europe/Berlin]")
}

@Suite("Editing a repeating event by span")
struct UpdateSpanTests {
    @Test("span this: only that occurrence moves, as an override sharing the series uid")
    func updateThis() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let result = try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "startDate": try berlin("06-15", "11:00"),
        ])
        let override = try #require(result.record)
        #expect(override.id != series.id)
        #expect(override.uid == series.uid)
        #expect(override.recurrenceId?.sortKey == (try berlinValue("06-15")).sortKey)
        #expect(override.recurrence == nil)
        #expect(override.start?.berlinWallText == "2026-06-15 11:00")
        #expect(override.end?.berlinWallText == "2026-06-15 12:00")
        #expect(try fixture.fetch(override.id) == override)
        #expect(try fixture.fetch(series.id) == series)

        let occurrences = try fixture.occurrences(from: june.from, to: june.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-15 11:00", "2026-06-22 09:00", "2026-06-29 09:00"])
        let moved = try #require(occurrences.first { $0.berlinStart == "2026-06-15 11:00" })
        #expect(moved.record.id == override.id)
        #expect(moved.recurrenceKey.sortKey == (try berlinValue("06-15")).sortKey)
    }

    @Test("span this again on the same occurrence edits the existing override")
    func updateThisTwice() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let first = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "startDate": try berlin("06-15", "11:00"),
        ]).record)
        let second = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "title": text("Standup (moved)"),
        ]).record)
        #expect(second.id == first.id)
        #expect(second.start?.berlinWallText == "2026-06-15 11:00")
        #expect(try fixture.all().count == 2)
    }

    @Test("span future: the old series ends before the occurrence; a new series with a new uid, related to the old, starts there")
    func updateFuture() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let result = try fixture.done("updateEvent", [
            "event": reference(series), "span": span("future"), "occurrence": try berlin("06-22"), "title": text("Standup (new format)"),
        ])
        let newSeries = try #require(result.record)
        let oldSeries = try #require(try fixture.fetch(series.id))

        // The old series ends before 2026-06-22 09:00 and after the previous occurrence.
        let cut = try berlinValue("06-22").sortKey
        guard case .untilDateTime(let until)? = oldSeries.recurrence?.end else {
            Issue.record("the old series has no UNTIL: \(String(describing: oldSeries.recurrence))")
            return
        }
        #expect(until.sortKey < cut)
        #expect(until.sortKey >= (try berlinValue("06-15")).sortKey)
        #expect(oldSeries.title == "Standup")

        #expect(newSeries.id != series.id)
        #expect(newSeries.uid != nil && newSeries.uid != series.uid)
        #expect(newSeries["relatedTo"] == series.uid.map(Value.string))
        #expect(newSeries.start?.berlinWallText == "2026-06-22 09:00")
        #expect(newSeries.end?.berlinWallText == "2026-06-22 10:00")
        #expect(newSeries.recurrence?.end == RecurrenceRule.End.never)

        let occurrences = try fixture.occurrences(from: junePlusJuly.from, to: junePlusJuly.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-15 09:00", "2026-06-22 09:00",
                                                   "2026-06-29 09:00", "2026-07-06 09:00", "2026-07-13 09:00"])
        #expect(occurrences.map { $0.record.title ?? "" } == ["Standup", "Standup", "Standup", "Standup (new format)",
                                                              "Standup (new format)", "Standup (new format)", "Standup (new format)"])
    }

    @Test("span future shares a COUNT between the two series")
    func updateFutureWithCount() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup(["recurrence": try rule("FREQ=WEEKLY;BYDAY=MO;COUNT=6")])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("future"), "occurrence": try berlin("06-22"), "note": text("new")])
        let occurrences = try fixture.occurrences(from: "2026-05-01T00:00:00Z", to: "2026-12-31T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-15 09:00",
                                                   "2026-06-22 09:00", "2026-06-29 09:00", "2026-07-06 09:00"])
        #expect(occurrences.map { $0.record["note"] == .string("new") } == [false, false, false, true, true, true])
    }

    @Test("span future moves later overrides to the new series")
    func updateFutureMovesOverrides() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-29"), "note": text("demo day"),
        ]).record)
        let newSeries = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("future"), "occurrence": try berlin("06-22"), "startDate": try berlin("06-22", "10:00"),
        ]).record)
        let moved = try #require(try fixture.fetch(override.id))
        #expect(moved.uid == newSeries.uid)
        #expect(moved.recurrenceId?.berlinWallText == "2026-06-29 10:00")
        let occurrences = try fixture.occurrences(from: june.from, to: june.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-15 09:00", "2026-06-22 10:00", "2026-06-29 10:00"])
        #expect(occurrences.last?.record.id == override.id)
    }

    @Test("span all: moving the start by an hour moves every occurrence, override and exception")
    func updateAllMovesEverything() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "startDate": try berlin("06-15", "11:00"),
        ]).record)
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-22")])

        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try berlin("06-01", "10:00")])
        let master = try #require(try fixture.fetch(series.id))
        #expect(master.start?.berlinWallText == "2026-06-01 10:00")
        #expect(master.end?.berlinWallText == "2026-06-01 11:00")
        #expect(master.excludedDates.map(\.berlinWallText) == ["2026-06-22 10:00"])
        let movedOverride = try #require(try fixture.fetch(override.id))
        #expect(movedOverride.recurrenceId?.berlinWallText == "2026-06-15 10:00")
        #expect(movedOverride.start?.berlinWallText == "2026-06-15 12:00")

        let occurrences = try fixture.occurrences(from: june.from, to: june.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 10:00", "2026-06-08 10:00", "2026-06-15 12:00", "2026-06-29 10:00"])
    }

    @Test("span all from a later occurrence shifts the whole series by the same amount and keeps its first date")
    func updateAllFromOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("updateEvent", [
            "event": reference(series), "span": span("all"), "occurrence": try berlin("06-15"), "startDate": try berlin("06-15", "10:00"),
        ])
        let occurrences = try fixture.occurrences(from: june.from, to: june.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 10:00", "2026-06-08 10:00", "2026-06-15 10:00", "2026-06-22 10:00", "2026-06-29 10:00"])
    }

    @Test("span all with a new title renames the series and leaves overrides' own titles alone")
    func updateAllTitle() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "title": text("Special standup")])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "title": text("Daily sync")])
        let titles = try fixture.occurrences(from: june.from, to: june.to).map { $0.record.title ?? "" }
        #expect(titles == ["Daily sync", "Daily sync", "Special standup", "Daily sync", "Daily sync"])
    }

    @Test("without a span an edit of a repeating event asks for one")
    func updateNeedsSpan() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try fixture.contents()
        guard case .needsValue(let parameter, let prompt) = fixture.run("updateEvent", ["event": reference(series), "title": text("Renamed")]) else {
            Issue.record("expected needsValue(span)")
            return
        }
        #expect(parameter == "span")
        #expect(prompt == "Change only this event, this and future events, or all events?")
        #expect(try fixture.contents() == before)
    }

    @Test("span this without an occurrence asks which occurrence")
    func updateThisNeedsOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        guard case .needsValue(let parameter, _) = fixture.run("updateEvent", ["event": reference(series), "span": span("this"), "title": text("x")]) else {
            Issue.record("expected needsValue(occurrence)")
            return
        }
        #expect(parameter == "occurrence")
    }

    @Test("an occurrence the series does not have fails with no_such_occurrence and changes nothing")
    func updateNoSuchOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try fixture.contents()
        // A Tuesday, and a Monday before the series starts.
        for day in ["06-16", "05-25"] {
            let error = try requireFailure(fixture.run("updateEvent", [
                "event": reference(series), "span": span("this"), "occurrence": try berlin(day), "title": text("x"),
            ]), .noSuchOccurrence)
            #expect(error.parameter == "occurrence")
        }
        #expect(try fixture.contents() == before)
    }

    @Test("an excluded occurrence no longer exists to be edited")
    func updateExcludedOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15")])
        let before = try fixture.contents()
        _ = try requireFailure(fixture.run("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "title": text("x"),
        ]), .noSuchOccurrence)
        #expect(try fixture.contents() == before)
    }
}

@Suite("Deleting a repeating event by span")
struct DeleteSpanTests {
    @Test("span this adds an EXDATE and keeps every other occurrence")
    func deleteThis() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15")])
        let master = try #require(try fixture.fetch(series.id))
        #expect(master.excludedDates.map(\.sortKey) == [try berlinValue("06-15").sortKey])
        #expect(try fixture.occurrences(from: june.from, to: june.to).map(\.berlinStart) ==
                ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-22 09:00", "2026-06-29 09:00"])
    }

    @Test("span this on an overridden occurrence removes the override as well")
    func deleteThisOverride() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "startDate": try berlin("06-15", "11:00"),
        ]).record)
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15")])
        #expect(try fixture.fetch(override.id) == nil)
        #expect(try fixture.occurrences(from: june.from, to: june.to).map(\.berlinStart) ==
                ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-22 09:00", "2026-06-29 09:00"])
    }

    @Test("span future ends the series before the occurrence and removes later overrides")
    func deleteFuture() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-29"), "note": text("demo"),
        ]).record)
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("future"), "occurrence": try berlin("06-22")])
        #expect(try fixture.fetch(override.id) == nil)
        #expect(try fixture.all().count == 1)
        #expect(try fixture.occurrences(from: "2026-05-01T00:00:00Z", to: "2027-01-01T00:00:00Z").map(\.berlinStart) ==
                ["2026-06-01 09:00", "2026-06-08 09:00", "2026-06-15 09:00"])
    }

    @Test("span all deletes the series and its overrides")
    func deleteAll() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let other = try fixture.makeEvent("Other", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "note": text("x")])
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("all")])
        #expect(try fixture.all().map(\.id) == [other.id])
        #expect(try fixture.occurrences(from: june.from, to: june.to).map(\.record.id) == [other.id])
    }

    @Test("without a span a delete of a repeating event asks for one, before asking to confirm")
    func deleteNeedsSpan() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try fixture.contents()
        guard case .needsValue(let parameter, _) = fixture.run("deleteEvent", ["event": reference(series)]) else {
            Issue.record("expected needsValue(span)")
            return
        }
        #expect(parameter == "span")
        guard case .needsConfirmation = fixture.run("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15")]) else {
            Issue.record("expected needsConfirmation once the span is known")
            return
        }
        #expect(try fixture.contents() == before)
    }

    @Test("deleting an occurrence that does not exist fails with no_such_occurrence")
    func deleteNoSuchOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try fixture.contents()
        _ = try requireFailure(fixture.run("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-17")],
                                           confirmation: .confirmed), .noSuchOccurrence)
        #expect(try fixture.contents() == before)
    }
}

@Suite("Expansion in the event's own zone across DST")
struct DSTTests {
    @Test("a weekly 09:00 Europe/Berlin event stays at 09:00 local across both 2026 DST changes")
    func weeklyAcrossDST() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Weekly", start: "2026-03-16T09:00:00+01:00[Europe/Berlin]", end: "2026-03-16T09:30:00+01:00[Europe/Berlin]",
                              ["recurrence": try rule("FREQ=WEEKLY")])
        let occurrences = try fixture.occurrences(from: "2026-03-16T00:00:00Z", to: "2026-11-10T00:00:00Z")
        #expect(occurrences.count == 35)
        #expect(occurrences.allSatisfy { $0.start.wallTime(in: Fixture.berlin).hour == 9 && $0.start.wallTime(in: Fixture.berlin).minute == 0 })
        #expect(occurrences.allSatisfy { $0.end.wallTime(in: Fixture.berlin).minute == 30 })
        let byDay = Dictionary(uniqueKeysWithValues: occurrences.map { (String($0.berlinStart.prefix(10)), $0.start.utcHour ?? -1) })
        #expect(byDay["2026-03-23"] == 8)  // CET, before 2026-03-29
        #expect(byDay["2026-03-30"] == 7)  // CEST
        #expect(byDay["2026-10-19"] == 7)  // CEST, before 2026-10-25
        #expect(byDay["2026-10-26"] == 8)  // CET again
        #expect(occurrences.allSatisfy { $0.start.localTime.hour == 9 })
    }

    @Test("expansion outside the materialized window also keeps the wall time across DST (2030)")
    func dstOutsideWindow() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Weekly", start: "2026-03-16T09:00:00+01:00[Europe/Berlin]", ["recurrence": try rule("FREQ=WEEKLY")])
        let occurrences = try fixture.occurrences(from: "2030-03-18T00:00:00Z", to: "2030-04-09T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2030-03-18 09:00", "2030-03-25 09:00", "2030-04-01 09:00", "2030-04-08 09:00"])
        #expect(occurrences.map { $0.start.utcHour ?? -1 } == [8, 8, 7, 7])
    }

    @Test("a daily 02:30 occurrence on the spring-forward day moves to 03:30 (RFC 5545)")
    func nonexistentWallTime() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Night job", start: "2026-03-27T02:30:00+01:00[Europe/Berlin]", ["recurrence": try rule("FREQ=DAILY;COUNT=4")])
        let occurrences = try fixture.occurrences(from: "2026-03-26T00:00:00Z", to: "2026-04-01T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2026-03-27 02:30", "2026-03-28 02:30", "2026-03-29 03:30", "2026-03-30 02:30"])
    }

    @Test("an all-day yearly event stays on its date")
    func allDayYearly() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Birthday", start: "2026-03-29T00:00:00", ["isAllDay": .set(.bool(true)), "recurrence": try rule("FREQ=YEARLY")])
        #expect(event.start?.isFloating == true)
        #expect(event.end?.localTime.date == event.start.map { LocalDateTime(wallSeconds: $0.localTime.wallSeconds + 86_400).date })
        let occurrences = try fixture.occurrences(from: "2026-01-01T00:00:00Z", to: "2029-01-01T00:00:00Z")
        #expect(occurrences.map { $0.start.localTime.description } == ["2026-03-29T00:00:00", "2027-03-29T00:00:00", "2028-03-29T00:00:00"])
    }
}

@Suite("Spans: moving series, rules and how occurrences are named")
struct SeriesEditingTests {
    @Test("span all moving a Monday series to Tuesday repeats on Tuesdays and keeps overrides and exceptions attached")
    func moveToAnotherWeekday() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "note": text("special"),
        ]).record)
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-22")])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try berlin("06-02")])
        let master = try #require(try fixture.fetch(series.id))
        #expect(master.recurrence?.byDay == [RecurrenceRule.WeekdayOccurrence(.tuesday)])
        let occurrences = try fixture.occurrences(from: june.from, to: june.to)
        #expect(occurrences.map(\.berlinStart) == ["2026-06-02 09:00", "2026-06-09 09:00", "2026-06-16 09:00", "2026-06-30 09:00"])
        #expect(occurrences[2].record.id == override.id)
    }

    @Test("span all moving a Saturday series to Sunday keeps its exception across the end of DST")
    func moveAcrossDSTKeepsExceptions() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeEvent("Class", start: "2026-06-06T09:00:00+02:00[Europe/Berlin]", end: "2026-06-06T10:00:00+02:00[Europe/Berlin]",
                                           ["recurrence": try rule("FREQ=WEEKLY;BYDAY=SA")])
        // Cancel the class on Saturday 24 October (CEST); the day after, DST ends.
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-10-24T09:00:00+02:00[Europe/Berlin]")])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try at("2026-06-07T09:00:00+02:00[Europe/Berlin]")])
        let occurrences = try fixture.occurrences(from: "2026-10-17T00:00:00Z", to: "2026-11-03T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2026-10-18 09:00", "2026-11-01 09:00"])
    }

    @Test("span all moving a Saturday series to Sunday keeps an override across the end of DST")
    func moveAcrossDSTKeepsOverrides() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeEvent("Class", start: "2026-06-06T09:00:00+02:00[Europe/Berlin]", end: "2026-06-06T10:00:00+02:00[Europe/Berlin]",
                                           ["recurrence": try rule("FREQ=WEEKLY;BYDAY=SA")])
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try at("2026-10-24T09:00:00+02:00[Europe/Berlin]"), "note": text("guest speaker"),
        ]).record)
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try at("2026-06-07T09:00:00+02:00[Europe/Berlin]")])
        let occurrences = try fixture.occurrences(from: "2026-10-24T00:00:00Z", to: "2026-10-26T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2026-10-25 09:00"])
        #expect(occurrences.first?.record.id == override.id)
    }

    @Test("a new rule with span all drops overrides whose occurrence no longer exists")
    func ruleChangeDropsOrphanedOverrides() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let orphan = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "note": text("x"),
        ]).record)
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "recurrence": try rule("FREQ=MONTHLY;COUNT=3")])
        #expect(try fixture.fetch(orphan.id) == nil)
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-12-01T00:00:00Z").map(\.berlinStart) ==
                ["2026-06-01 09:00", "2026-07-01 09:00", "2026-08-01 09:00"])
    }

    @Test("the occurrence may be named in UTC or as a floating wall time in the series' zone")
    func occurrenceSpellings() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let first = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try at("2026-06-15T07:00:00Z"), "note": text("utc"),
        ]).record)
        let second = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try at("2026-06-22T09:00:00"), "note": text("floating"),
        ]).record)
        #expect(first.recurrenceId?.berlinWallText == "2026-06-15 09:00")
        #expect(second.recurrenceId?.berlinWallText == "2026-06-22 09:00")
    }

    @Test("span future at the first occurrence changes the whole series without splitting it")
    func futureFromFirstOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("updateEvent", ["event": reference(series), "span": span("future"), "occurrence": try berlin("06-01"), "title": text("Sync")])
        #expect(try fixture.all().map(\.id) == [series.id])
        #expect(try fixture.fetch(series.id)?.title == "Sync")
    }

    @Test("the rule belongs to the whole series: changing it for one occurrence is refused")
    func ruleForOneOccurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "recurrence": try rule("FREQ=DAILY"),
        ]), .notSupported)
        #expect(error.parameter == "recurrence")
        #expect(try fixture.contents() == before)
    }

    @Test("an override named by its own title is edited on its own")
    func overrideByTitle() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "title": text("Quarterly planning"),
        ]).record)
        let result = try fixture.done("updateEvent", ["note": text("agenda attached")], references: ["event": "quarterly planning"])
        #expect(result.record?.id == override.id)
        #expect(try fixture.fetch(override.id)?["note"] == .string("agenda attached"))
        #expect(try fixture.fetch(series.id)?["note"] == nil)
    }

    @Test("a text matching a series and its override names the series, not a choice between them")
    func seriesAndOverrideCollapse() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try berlin("06-15"), "note": text("x")])
        let result = try fixture.done("openEvent", references: ["event": "standup"])
        #expect(result.record?.id == series.id)
    }
}
