import Foundation
import Testing
import CometSchema
import CometStore

/// Occurrences, as any store finds them: singles, series, overrides, exclusions, floating times,
/// inside and outside the materialization window, and pages with their totals.
@Suite("Store conformance: occurrences")
struct OccurrenceConformanceTests {
    private func starts(_ page: OccurrencePage) -> [String] { page.occurrences.map(\.start.description) }

    @Test("a single event overlapping the range is found, one before or after it is not, and one still going at the start is", arguments: StoreFactory.all)
    func singles(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work,
                         try fixture.event("Before", in: work, start: "2026-06-07T09:00:00Z", end: "2026-06-07T10:00:00Z"),
                         try fixture.event("Going on", in: work, start: "2026-06-07T22:00:00Z", end: "2026-06-08T02:00:00Z"),
                         try fixture.event("Inside", in: work, start: "2026-06-09T09:00:00Z", end: "2026-06-09T10:00:00Z"),
                         try fixture.event("After", in: work, start: "2026-06-15T00:00:00Z"))
        let page = try fixture.occurrences(from: "2026-06-08T00:00:00Z", to: "2026-06-15T00:00:00Z")
        #expect(page.occurrences.map { fixture.title($0.record) } == ["Going on", "Inside"])
        #expect(page.total == 2)
        #expect(page.occurrences.map(\.isRecurrenceInstance) == [false, false])
    }

    @Test("long occurrences still going at the range's start are found however long before it they began, and ones that ended at or before it are not: a conference of three days, a seven-hour shift, a floating day-long retreat, a weekly overnight", arguments: StoreFactory.all)
    func longOccurrences(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work,
                         try fixture.event("Conference", in: work, start: "2026-06-07T09:00:00Z", end: "2026-06-10T09:00:00Z"),
                         try fixture.event("Ended conference", in: work, start: "2026-06-05T09:00:00Z", end: "2026-06-09T00:00:00Z"),
                         try fixture.event("Shift", in: work, start: "2026-06-08T18:00:00Z", end: "2026-06-09T01:00:00Z"),
                         try fixture.event("Ended shift", in: work, start: "2026-06-08T17:00:00Z", end: "2026-06-09T00:00:00Z"),
                         try fixture.event("Retreat", in: work, start: "2026-06-08T06:00:00", end: "2026-06-09T06:00:00"),
                         try fixture.event("Short", in: work, start: "2026-06-08T23:00:00Z", end: "2026-06-09T00:30:00Z"),
                         try fixture.event("Overnight", in: work, start: "2026-06-01T20:00:00Z", end: "2026-06-02T08:00:00Z", [
                            "uid": .string("overnight"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY")),
                         ]))
        // The Berlin night of the 9th: from midnight UTC, an hour.
        let page = try fixture.occurrences(from: "2026-06-09T00:00:00Z", to: "2026-06-09T01:00:00Z")
        #expect(Set(page.occurrences.map { fixture.title($0.record) }) == ["Conference", "Shift", "Retreat", "Short", "Overnight"])
        // A week later only the weekly overnight (each starts 4 hours before the range) is there.
        let later = try fixture.occurrences(from: "2026-06-16T00:00:00Z", to: "2026-06-16T01:00:00Z")
        #expect(later.occurrences.map { fixture.title($0.record) } == ["Overnight"])
        // Asked over both spans at once, the same.
        let spans = try [("2026-06-09T00:00:00Z", "2026-06-09T01:00:00Z"), ("2026-06-16T00:00:00Z", "2026-06-16T01:00:00Z")].map { from, to in
            DateInterval(start: try #require(try DateTimeValue(parsing: from).instant), end: try #require(try DateTimeValue(parsing: to).instant))
        }
        let both = try fixture.store.readTransaction { try $0.occurrences(ConformanceStore.event, spans: spans, zone: ConformanceStore.berlin, matching: []) }
        #expect(both.map { Set($0.map { fixture.title($0.record) }) } == [["Conference", "Shift", "Retreat", "Short", "Overnight"], ["Overnight"]])
    }

    @Test("occurrences over several spans at once are each span's occurrences asked alone: singles, a series with an override and an exclusion, a floating time, a dense repeat, inside the window, past it, across its end, and an empty span", arguments: StoreFactory.all)
    func severalSpans(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work,
                         try fixture.event("Single", in: work, start: "2026-06-09T09:00:00Z", end: "2026-06-09T10:00:00Z"),
                         try fixture.event("Floating", in: work, start: "2026-06-10T09:00:00", end: "2026-06-10T11:00:00"),
                         try fixture.event("Weekly", in: work, start: "2026-06-01T09:00:00Z", end: "2026-06-01T10:00:00Z", [
                            "uid": .string("weekly-spans"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY")),
                            "excludedDates": .array([try dateTime("2026-06-08T09:00:00Z")]),
                         ]),
                         try fixture.event("Weekly (moved)", in: work, start: "2031-06-17T14:00:00Z", end: "2031-06-17T15:00:00Z", [
                            "uid": .string("weekly-spans"), "recurrenceId": try dateTime("2031-06-16T09:00:00Z"),
                         ]),
                         try fixture.event("Every ten minutes", in: work, start: "2026-06-09T08:00:00Z", end: "2026-06-09T08:05:00Z", [
                            "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=MINUTELY;INTERVAL=10")),
                         ]))
        func span(_ from: String, _ to: String) throws -> DateInterval {
            DateInterval(start: try #require(try DateTimeValue(parsing: from).instant), end: try #require(try DateTimeValue(parsing: to).instant))
        }
        let spans = [try span("2026-06-08T00:00:00Z", "2026-06-09T12:00:00Z"), try span("2026-06-10T08:30:00Z", "2026-06-10T09:30:00Z"),
                     try span("2026-06-15T08:00:00Z", "2026-06-15T09:30:00Z"), try span("2031-06-16T00:00:00Z", "2031-06-18T00:00:00Z"),
                     try span("2028-06-01T00:00:00Z", "2028-06-20T00:00:00Z"), try span("2026-06-09T09:00:00Z", "2026-06-09T09:00:00Z")]
        let together = try fixture.store.readTransaction { try $0.occurrences(ConformanceStore.event, spans: spans, zone: ConformanceStore.berlin, matching: []) }
        let alone = try spans.map { span in
            try fixture.store.readTransaction { try $0.occurrences(ConformanceStore.event, from: span.start, to: span.end, zone: ConformanceStore.berlin, matching: []) }
        }
        #expect(together.count == spans.count)
        for (number, (both, one)) in zip(together, alone).enumerated() {
            #expect(both.map(\.record.id) == one.map(\.record.id), "span \(number)")
            #expect(both.map(\.start) == one.map(\.start), "span \(number)")
        }
        // What the spans hold, so that the comparison is not of two empty lists.
        // The repeat every ten minutes has no end: 144 a day, 2,736 in the 19 days of 2028.
        #expect(alone.map(\.count) == [25, 7, 10, 289, 2_739, 0])
        let past = alone[3].map { fixture.title($0.record) }
        #expect(past.contains("Weekly (moved)") && !past.contains("Weekly"))
        #expect(alone[1].map { fixture.title($0.record) }.contains("Floating"))
    }

    @Test("a weekly series gives its instances in the zone's time, an EXDATE removes one, and an override stands in for another", arguments: StoreFactory.all)
    func seriesOverridesAndExclusions(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let standup = try fixture.event("Standup", in: work, start: "2026-06-01T09:00:00+02:00[Europe/Berlin]", end: "2026-06-01T09:15:00+02:00[Europe/Berlin]", [
            "uid": .string("standup-1"),
            "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO")),
            "excludedDates": .array([try dateTime("2026-06-15T09:00:00+02:00[Europe/Berlin]")]),
        ])
        let moved = try fixture.event("Standup (moved)", in: work, start: "2026-06-23T10:00:00+02:00[Europe/Berlin]", end: "2026-06-23T10:15:00+02:00[Europe/Berlin]", [
            "uid": .string("standup-1"),
            "recurrenceId": try dateTime("2026-06-22T09:00:00+02:00[Europe/Berlin]"),
        ])
        try fixture.save(work, standup, moved)
        let june = try fixture.occurrences(from: "2026-06-01T00:00:00+02:00[Europe/Berlin]", to: "2026-07-01T00:00:00+02:00[Europe/Berlin]")
        #expect(starts(june) == ["2026-06-01T09:00:00+02:00[Europe/Berlin]", "2026-06-08T09:00:00+02:00[Europe/Berlin]",
                                 "2026-06-23T10:00:00+02:00[Europe/Berlin]", "2026-06-29T09:00:00+02:00[Europe/Berlin]"])
        #expect(june.occurrences.map(\.isRecurrenceInstance) == [true, true, false, true])
        #expect(june.occurrences[2].recurrenceKey.description == "2026-06-22T09:00:00+02:00[Europe/Berlin]")
        #expect(june.occurrences[2].record.id == moved.id)
        #expect(june.occurrences[1].recurrenceKey.description == "2026-06-08T09:00:00+02:00[Europe/Berlin]")
        #expect(june.total == 4)
    }

    @Test("a floating time happens at its wall reading in the viewer's zone", arguments: StoreFactory.all)
    func floating(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work, try fixture.event("Wake up", in: work, start: "2026-06-13T07:00:00", end: "2026-06-13T07:30:00"))
        // 07:00 in Berlin is 05:00Z; in New York it is 11:00Z.
        let early = ("2026-06-13T04:00:00Z", "2026-06-13T06:00:00Z")
        #expect(try fixture.occurrences(from: early.0, to: early.1, zone: ConformanceStore.berlin).total == 1)
        #expect(try fixture.occurrences(from: early.0, to: early.1, zone: ConformanceStore.newYork).total == 0)
        let late = try fixture.occurrences(from: "2026-06-13T10:30:00Z", to: "2026-06-13T12:00:00Z", zone: ConformanceStore.newYork)
        #expect(late.total == 1)
        #expect(late.occurrences.first?.start.description == "2026-06-13T07:00:00")
    }

    @Test("a series is found outside the window (years ahead and back), an override replaces its instance there, and a year across the window's end has every instance once", arguments: StoreFactory.all)
    func outsideTheWindow(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let weekly = try fixture.event("Weekly", in: work, start: "2024-01-01T09:00:00Z", end: "2024-01-01T10:00:00Z", [
            "uid": .string("weekly-1"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY")),
        ])
        let moved = try fixture.event("Weekly (moved)", in: work, start: "2031-06-16T14:00:00Z", end: "2031-06-16T15:00:00Z", [
            "uid": .string("weekly-1"), "recurrenceId": try dateTime("2031-06-16T09:00:00Z"),
        ])
        try fixture.save(work, weekly, moved)
        // Mondays: 2031-06-02 … 2031-06-30 (five), far past the window's end (2028-06-10); the
        // 16th's is the override.
        let far = try fixture.occurrences(from: "2031-06-01T00:00:00Z", to: "2031-07-01T00:00:00Z")
        #expect(starts(far) == ["2031-06-02T09:00:00Z", "2031-06-09T09:00:00Z", "2031-06-16T14:00:00Z", "2031-06-23T09:00:00Z", "2031-06-30T09:00:00Z"])
        #expect(far.occurrences.map(\.record.id) == [weekly.id, weekly.id, moved.id, weekly.id, weekly.id])
        // Before the window's start (2025-06-09): 2024-06-03 … 2024-06-24 (four).
        #expect(try fixture.occurrences(from: "2024-06-01T00:00:00Z", to: "2024-07-01T00:00:00Z").total == 4)
        // A year across the end: the 52 Mondays of 2028, each once, a week apart.
        let across = try fixture.occurrences(from: "2028-01-01T00:00:00Z", to: "2029-01-01T00:00:00Z")
        let instants = across.occurrences.compactMap(\.start.instant)
        #expect(instants.count == 52)
        #expect(zip(instants, instants.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 7 * 86_400 })
    }

    @Test("pages of occurrences are slices of the whole list, with its total, inside and outside the window", arguments: StoreFactory.all)
    func pages(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work,
                         try fixture.event("Daily", in: work, start: "2026-06-01T08:00:00Z", end: "2026-06-01T08:30:00Z", [
                             "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=DAILY")),
                         ]),
                         try fixture.event("Floating lunch", in: work, start: "2026-06-10T12:00:00"),
                         try fixture.event("Same time", in: work, start: "2026-06-05T08:00:00Z"))
        for (from, to) in [("2026-06-01T00:00:00Z", "2026-06-15T00:00:00Z"), ("2030-06-01T00:00:00Z", "2030-06-15T00:00:00Z")] {
            let whole = try fixture.occurrences(from: from, to: to)
            #expect(whole.total == whole.occurrences.count)
            var paged: [Occurrence] = []
            for offset in stride(from: 0, to: whole.total + 4, by: 4) {
                let page = try fixture.occurrences(from: from, to: to, limit: 4, offset: offset)
                #expect(page.total == whole.total, "\(from): offset \(offset)")
                paged += page.occurrences
            }
            #expect(paged == whole.occurrences, "\(from)")
        }
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-06-15T00:00:00Z").total == 16)
    }

    @Test("outside the window, a repeated query sees every change: a new rule, a new override, a deletion, by this store or another on the same location", arguments: StoreFactory.all)
    func outsideTheWindowStaysTrue(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        let weekly = try fixture.event("Weekly", in: work, start: "2024-01-01T09:00:00Z", end: "2024-01-01T10:00:00Z", [
            "uid": .string("weekly-2"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY")),
        ])
        try fixture.save(work, weekly)
        let (from, to) = ("2030-03-01T00:00:00Z", "2030-04-01T00:00:00Z")
        // Mondays of March 2030: 4, 11, 18, 25. Asked twice, the same.
        let mondays = ["2030-03-04T09:00:00Z", "2030-03-11T09:00:00Z", "2030-03-18T09:00:00Z", "2030-03-25T09:00:00Z"]
        #expect(starts(try fixture.occurrences(from: from, to: to)) == mondays)
        #expect(starts(try fixture.occurrences(from: from, to: to)) == mondays)
        // This store changes the rule to every other week.
        var changed = weekly
        changed.values["recurrence"] = .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;INTERVAL=2"))
        try fixture.save(changed)
        let everyOther = try fixture.occurrences(from: from, to: to)
        #expect(everyOther.total == 2)
        #expect(starts(everyOther).allSatisfy { mondays.contains($0) })
        // Another store on the location moves one instance (an override): this one sees it.
        let first = try #require(everyOther.occurrences.first)
        let moved = try fixture.event("Weekly (moved)", in: work, start: "2030-03-07T15:00:00Z", end: "2030-03-07T16:00:00Z", [
            "uid": .string("weekly-2"), "recurrenceId": .dateTime(first.recurrenceKey),
        ])
        try other.transaction { try $0.save(moved) }
        #expect(try fixture.occurrences(from: from, to: to).occurrences.map(\.record.id) == [moved.id, weekly.id])
        // And deletes the series: nothing of it is left here.
        try other.transaction { try $0.delete(ConformanceStore.event, id: weekly.id) }
        #expect(try fixture.occurrences(from: from, to: to).occurrences.map(\.record.id) == [moved.id])
    }

    @Test("outside the window, one instant is one occurrence: a daily 02:30 in Berlin meets the 03:30 it becomes on the spring-forward day", arguments: StoreFactory.all)
    func oneInstantOnce(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        // 02:30 daily, with an added 03:30 on 2030-03-31, the day 02:30 does not exist in Berlin.
        try fixture.save(work, try fixture.event("Night shift", in: work, start: "2030-03-01T02:30:00+01:00[Europe/Berlin]", [
            "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=DAILY")),
            "additionalDates": .array([try dateTime("2030-03-31T03:30:00+02:00[Europe/Berlin]")]),
        ]))
        for _ in 0..<2 {
            let day = try fixture.occurrences(from: "2030-03-31T00:00:00+01:00[Europe/Berlin]", to: "2030-04-01T00:00:00+02:00[Europe/Berlin]")
            #expect(day.total == 1, "\(starts(day))")
        }
    }
}
