import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents

/// A page of occurrences inside the materialized window is read differently from the whole
/// list (rows with fixed times come from SQLite in order, only as many as the page needs, and
/// are counted there; floating rows are placed in the viewer's zone and merged in). Every page
/// must be exactly the same slice of the whole list, with the same total.
@Suite("Occurrence pages are slices of the whole list")
struct OccurrencePagingTests {
    @Test("every offset and limit gives the slice of the unpaged answer, with its total, for fixed, floating, all-day and repeating events")
    func slices() throws {
        let fixture = try TestStore(label: "paging")
        try fixture.makeCalendar()
        // Fixed times, several at the same instant (ordered by id), one ending exactly where the
        // range starts (left out) and one instant event on the range's start (kept).
        for index in 0..<6 {
            try fixture.makeEvent("Same time \(index)", start: "2026-06-15T09:00:00+02:00[Europe/Berlin]", end: "2026-06-15T10:00:00+02:00[Europe/Berlin]")
        }
        try fixture.makeEvent("Ends at the start", start: "2026-06-14T22:00:00+02:00[Europe/Berlin]", end: "2026-06-15T00:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Instant at the start", start: "2026-06-15T00:00:00+02:00[Europe/Berlin]", end: "2026-06-15T00:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Across the start", start: "2026-06-14T20:00:00Z", end: "2026-06-15T08:00:00Z")
        // Floating times, placed in Berlin: one just inside each end of the range.
        try fixture.makeEvent("Floating early", start: "2026-06-15T00:30:00", end: "2026-06-15T01:00:00")
        try fixture.makeEvent("Floating late", start: "2026-06-21T23:30:00", end: "2026-06-21T23:45:00")
        try fixture.makeEvent("Floating nine", start: "2026-06-16T09:00:00", end: "2026-06-16T09:30:00")
        // All-day, and a daily series with an instance replaced by an override.
        try fixture.makeEvent("Holiday", start: "2026-06-17T00:00:00", end: "2026-06-18T00:00:00", ["isAllDay": .set(.bool(true))])
        let daily = try fixture.makeEvent("Daily", start: "2026-06-10T08:00:00+02:00[Europe/Berlin]", end: "2026-06-10T08:30:00+02:00[Europe/Berlin]",
                                          ["recurrence": .set(.recurrence(try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=20")))])
        _ = try fixture.done("updateEvent", ["event": .set(.reference(daily.id)), "span": .set(.enumCase("this")),
                                             "occurrence": .set(.dateTime(try DateTimeValue(parsing: "2026-06-18T08:00:00+02:00[Europe/Berlin]"))),
                                             "startDate": .set(.dateTime(try DateTimeValue(parsing: "2026-06-18T07:15:00+02:00[Europe/Berlin]")))])

        func page(_ limit: Int?, _ offset: Int) throws -> (keys: [String], total: Int?) {
            let outcome = fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
                "from": .set(.dateTime(try DateTimeValue(parsing: "2026-06-15T00:00:00+02:00[Europe/Berlin]"))),
                "to": .set(.dateTime(try DateTimeValue(parsing: "2026-06-22T00:00:00+02:00[Europe/Berlin]"))),
            ]), page: ResultPage(limit: limit, offset: offset)))
            let result = try requireDone(outcome)
            return (result.occurrences.map { "\($0.start.sortKey) \(fixture.registry.title(of: $0.record)) \($0.record.id)" }, result.page?.total)
        }
        let whole = try page(nil, 0)
        #expect(whole.keys.count == 19, "\(whole.keys)")
        #expect(!whole.keys.contains { $0.contains("Ends at the start") })
        #expect(whole.keys.contains { $0.contains("Instant at the start") })
        #expect(whole.keys.filter { $0.contains("Daily") }.count == 7)
        #expect(whole.keys.contains { $0.hasPrefix("1781759700 ") }, "the override at 07:15 on the 18th")
        for limit in [1, 2, 3, 5, 7, 20, 50] {
            for offset in 0...22 {
                let sliced = try page(limit, offset)
                let expected = Array(whole.keys.dropFirst(offset).prefix(limit))
                #expect(sliced.keys == expected, "limit \(limit) offset \(offset)")
                #expect(sliced.total == whole.keys.count, "limit \(limit) offset \(offset)")
            }
        }
    }
}
