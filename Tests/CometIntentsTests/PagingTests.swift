import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// Searches return everything that matched unless a limit is asked for; a limit that cuts says
/// so, with the true total and where the next page starts.
@Suite("Search results are complete, or say how they were cut")
struct PagingTests {
    static let rangeFrom = "2026-01-01T00:00:00+01:00[Europe/Berlin]"
    static let rangeTo = "2029-01-01T00:00:00+01:00[Europe/Berlin]"

    /// A daily series for three years (1,096 occurrences, partly beyond the materialized window)
    /// and 40 single events: 1,136 occurrences in `rangeFrom..<rangeTo`.
    static func busyCalendar() throws -> TestStore {
        let fixture = try TestStore(label: "paging")
        try fixture.makeCalendar()
        try fixture.makeEvent("Standup", start: "2026-01-01T09:00:00+01:00[Europe/Berlin]", end: "2026-01-01T09:15:00+01:00[Europe/Berlin]",
                              ["recurrence": try rule("FREQ=DAILY;COUNT=1096")])
        for index in 0..<40 {
            // Every 27 days from January 2026, at 14:00: some inside the window, some after it.
            let day = Int64(index) * 27 * 86_400
            let start = DateTimeValue(kind: .zoned(epochSeconds: 1_767_272_400 + day, timeZone: "Europe/Berlin"))
            try fixture.makeEvent("Review \(index + 1)", start: start.description)
        }
        return fixture
    }

    static func rangeSearch(_ fixture: TestStore, page: ResultPage = .all, text: String? = nil) throws -> IntentResult {
        var parameters: [String: ParameterValue] = ["from": try at(rangeFrom), "to": try at(rangeTo)]
        if let text { parameters["text"] = .set(.string(text)) }
        return try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(parameters), page: page)))
    }

    /// An occurrence as a comparable key: which record, and when.
    static func key(_ occurrence: Occurrence) -> String { "\(occurrence.record.id)|\(occurrence.start.description)" }

    @Test("a range search without a limit returns every one of more than 1,000 occurrences and says how many")
    func rangeWithoutLimit() throws {
        let fixture = try PagingTests.busyCalendar()
        let result = try PagingTests.rangeSearch(fixture)
        #expect(result.occurrences.count == 1_136)
        #expect(Set(result.occurrences.map(PagingTests.key)).count == 1_136, "no occurrence twice")
        #expect(result.occurrences.filter { $0.record.title == "Standup" }.count == 1_096)
        let starts = result.occurrences.compactMap { $0.start.instant }
        #expect(starts == starts.sorted(), "in start order")
        let page = try #require(result.page)
        #expect(page.total == 1_136)
        #expect(page.offset == 0)
        #expect(page.count == 1_136)
        #expect(!page.isTruncated)
        #expect(page.next == nil)
        #expect(result.dialog.full == "I found 1,136 events.")
        #expect(result.dialog.supporting == "1,136 events")
    }

    @Test("a limit cuts a range search, says so with the true total, and the next pages follow with no overlap and no gap")
    func rangeWithLimit() throws {
        let fixture = try PagingTests.busyCalendar()
        let everything = try PagingTests.rangeSearch(fixture).occurrences.map(PagingTests.key)

        let first = try PagingTests.rangeSearch(fixture, page: ResultPage(limit: 500))
        #expect(first.occurrences.count == 500)
        let firstPage = try #require(first.page)
        #expect(firstPage.total == 1_136)
        #expect(firstPage.isTruncated)
        #expect(firstPage.next == ResultPage(limit: 500, offset: 500))
        #expect(first.dialog.full == "I found 1,136 events; here are the first 500.")
        #expect(first.dialog.supporting == "500 of 1,136 events")

        let second = try PagingTests.rangeSearch(fixture, page: try #require(firstPage.next))
        let secondPage = try #require(second.page)
        #expect(second.occurrences.count == 500)
        #expect(secondPage.offset == 500)
        #expect(secondPage.next == ResultPage(limit: 500, offset: 1_000))
        #expect(second.dialog.full == "I found 1,136 events; here are numbers 501 to 1,000.")
        #expect(second.dialog.supporting == "501–1,000 of 1,136 events")

        let third = try PagingTests.rangeSearch(fixture, page: try #require(secondPage.next))
        let thirdPage = try #require(third.page)
        #expect(third.occurrences.count == 136)
        #expect(!thirdPage.isTruncated, "the last page is not cut")
        #expect(thirdPage.next == nil)

        let paged = (first.occurrences + second.occurrences + third.occurrences).map(PagingTests.key)
        #expect(paged == everything, "the pages, in order, are exactly the unlimited result")

        let beyond = try PagingTests.rangeSearch(fixture, page: ResultPage(limit: 500, offset: 2_000))
        #expect(beyond.occurrences.isEmpty)
        #expect(beyond.page?.total == 1_136)
        #expect(beyond.page?.isTruncated == false)
        #expect(beyond.dialog.full == "I found 1,136 events, none from number 2,001 on.")
    }

    @Test("text and a range together are counted and paged after the text has matched")
    func textInRange() throws {
        let fixture = try PagingTests.busyCalendar()
        let all = try PagingTests.rangeSearch(fixture, text: "review")
        #expect(all.occurrences.count == 40)
        #expect(all.occurrences.allSatisfy { $0.record.title?.hasPrefix("Review") == true })
        #expect(all.page?.total == 40)
        let cut = try PagingTests.rangeSearch(fixture, page: ResultPage(limit: 15, offset: 30), text: "review")
        #expect(cut.occurrences.map(PagingTests.key) == Array(all.occurrences.map(PagingTests.key)[30..<40]))
        #expect(cut.page?.total == 40)
        #expect(cut.page?.isTruncated == false)
    }

    @Test("a text search returns all of more than 200 matches, and a limit pages them without overlap")
    func textSearchBeyond200() throws {
        let fixture = try TestStore(label: "paging-text")
        try fixture.makeCalendar()
        for index in 0..<230 {
            try fixture.makeEvent("Café \(index + 1)", start: "2026-06-16T18:00:00+02:00[Europe/Berlin]")
        }
        try fixture.makeEvent("Tea", start: "2026-06-16T18:00:00+02:00[Europe/Berlin]")
        let all = try fixture.done("searchEvents", ["text": text("cafe")])
        #expect(all.records.count == 230)
        #expect(all.page?.total == 230)
        #expect(all.page?.isTruncated == false)
        #expect(all.dialog.full == "I found 230 events.")

        let first = try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": text("cafe")]),
                                                                         page: ResultPage(limit: 200))))
        #expect(first.records.count == 200)
        #expect(first.page?.total == 230)
        #expect(first.page?.isTruncated == true)
        #expect(first.page?.next == ResultPage(limit: 200, offset: 200))
        #expect(first.dialog.full == "I found 230 events; here are the first 200.")
        let rest = try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": text("cafe")]),
                                                                        page: ResultPage(limit: 200, offset: 200))))
        #expect(rest.records.count == 30)
        #expect(rest.page?.isTruncated == false)
        #expect((first.records + rest.records).map(\.id) == all.records.map(\.id), "same order, no overlap, no gap")
    }

    @Test("a list without text or range returns everything, filters count, and a limit pages it by title")
    func listPaging() throws {
        let fixture = try TestStore(label: "paging-list")
        let work = try fixture.makeCalendar("Work")
        let home = try fixture.makeCalendar("Home")
        for index in 0..<30 {
            let calendar = index % 3 == 0 ? home : work
            try fixture.makeEvent(String(format: "Item %02d", index), start: "2026-06-16T18:00:00+02:00[Europe/Berlin]", ["calendar": reference(calendar)])
        }
        let all = try fixture.done("searchEvents")
        #expect(all.records.count == 30)
        let onlyHome = try fixture.done("searchEvents", ["calendar": reference(home)])
        #expect(onlyHome.records.count == 10)
        #expect(onlyHome.page?.total == 10)
        let cut = try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["calendar": reference(work)]),
                                                                       page: ResultPage(limit: 8, offset: 8))))
        #expect(cut.records.compactMap(\.title) == ["Item 13", "Item 14", "Item 16", "Item 17", "Item 19", "Item 20", "Item 22", "Item 23"])
        #expect(cut.page?.total == 20)
        #expect(cut.page?.next == ResultPage(limit: 8, offset: 16))
    }

    @Test("a limit below 1, a negative offset, or paging an intent that is not a search are invalid values")
    func invalidPages() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let zero = fixture.engine.perform(IntentRequest(intent: "searchEvents", page: ResultPage(limit: 0)))
        #expect(try requireFailure(zero, .invalidValue).parameter == "limit")
        let negative = fixture.engine.perform(IntentRequest(intent: "searchEvents", page: ResultPage(offset: -1)))
        #expect(try requireFailure(negative, .invalidValue).parameter == "offset")
        let create = fixture.engine.perform(IntentRequest(intent: "createCalendar", parameters: ParameterBindings(["title": text("Home")]),
                                                          page: ResultPage(limit: 5)))
        let error = try requireFailure(create, .invalidValue)
        #expect(error.parameter == "limit")
        #expect(error.message.contains("only searches"))
        #expect(try fixture.all(Fixture.calendar).count == 1, "nothing was created")
    }

    @Test("range-search JSON lists each entity once, occurrences refer to it by id, and says whether it was cut")
    func rangeJSON() throws {
        let fixture = try PagingTests.busyCalendar()
        let outcome = fixture.engine.perform(IntentRequest(
            intent: "searchEvents", parameters: ParameterBindings(["from": try at(PagingTests.rangeFrom), "to": try at(PagingTests.rangeTo)]),
            page: ResultPage(limit: 4)))
        let json = fixture.engine.json(outcome)
        guard case .array(let occurrences)? = json["occurrences"], case .array(let entities)? = json["entities"] else {
            Issue.record("occurrences and entities are arrays: \(JSONWriter.pretty(json))")
            return
        }
        // Three days of the series and the first review, which is on the first day.
        #expect(occurrences.count == 4)
        #expect(entities.compactMap { $0["title"]?.stringValue } == ["Standup", "Review 1"], "each record once, in order of first occurrence")
        let ids = entities.compactMap { $0["id"]?.stringValue }
        try #require(ids.count == 2)
        #expect(entities.first?["recurrence"] == "FREQ=DAILY;COUNT=1096")
        #expect(occurrences.compactMap { $0["id"]?.stringValue } == [ids[0], ids[1], ids[0], ids[0]])
        #expect(occurrences.allSatisfy { $0["entity"] == nil }, "the record is not repeated inside each occurrence")
        #expect(occurrences.compactMap { $0["start"]?.stringValue } ==
                ["2026-01-01T09:00:00+01:00[Europe/Berlin]", "2026-01-01T14:00:00+01:00[Europe/Berlin]",
                 "2026-01-02T09:00:00+01:00[Europe/Berlin]", "2026-01-03T09:00:00+01:00[Europe/Berlin]"])
        #expect(occurrences.compactMap { $0["end"]?.stringValue }.first == "2026-01-01T09:15:00+01:00[Europe/Berlin]")
        #expect(json["total"] == 1_136)
        #expect(json["offset"] == 0)
        #expect(json["limit"] == 4)
        #expect(json["truncated"] == true)
        #expect(json["next"] == ["offset": 4, "limit": 4])
        #expect(json["dialog"]?["full"]?.stringValue == "I found 1,136 events; here are the first 4.")

        let complete = fixture.engine.json(fixture.engine.perform(IntentRequest(
            intent: "searchEvents", parameters: ParameterBindings(["text": text("review 7")]))))
        #expect(complete["truncated"] == false)
        #expect(complete["total"] == 1)
        #expect(complete["next"] == nil)
        #expect(complete["limit"] == nil)
    }
}
