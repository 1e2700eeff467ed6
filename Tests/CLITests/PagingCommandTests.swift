import Testing
import Foundation
import CometSchema

/// `agenda`, `search` and `intent run` print everything by default; `--limit` and `--offset`
/// page, and a cut result says so in text and in JSON.
@Suite("cometcal paging")
struct PagingCommandTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    /// One event every day for three years: 1,096 occurrences.
    func seedDaily() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Standup", "--start", "2026-01-01 09:00", "--end", "2026-01-01 09:15", "--repeat", "FREQ=DAILY;COUNT=1096"])
    }

    static let threeYears = ["agenda", "--from", "2026-01-01", "--to", "2029-01-01"]

    func seedCakes() throws {
        try run(["calendar", "add", "Home"])
        for day in 11...15 {
            try run(["event", "add", "Cake tasting \(day)", "--start", "2026-06-\(day) 15:00"])
        }
        try run(["event", "add", "Tea", "--start", "2026-06-16 15:00"])
    }

    @Test("agenda without --limit shows 1,000 of more than 1,000 occurrences and says so; --json returns all of them, listing the event once")
    func agendaEverything() throws {
        try seedDaily()
        let text = try run(PagingCommandTests.threeYears).stdout
        #expect(text.hasPrefix("Thursday, January 1, 2026\n  09:00–09:15  Standup ↻  Work"))
        #expect(text.hasSuffix("Tuesday, September 26, 2028\n  09:00–09:15  Standup ↻  Work\nShowing the first 1,000 of 1,096 occurrences; for more, add --offset 1000 (or a larger --limit). Without --limit the agenda shows at most 1,000.\n"), "\(text.suffix(300))")

        let agenda = try json(PagingCommandTests.threeYears)
        guard case .array(let occurrences)? = agenda["occurrences"], case .array(let entities)? = agenda["entities"] else {
            Issue.record("no occurrences or entities")
            return
        }
        #expect(occurrences.count == 1_096)
        #expect(entities.count == 1)
        #expect(entities.first?["title"] == "Standup")
        #expect(occurrences.allSatisfy { $0["id"] == entities.first?["id"] && $0["entity"] == nil })
        #expect(agenda["total"] == 1_096)
        #expect(agenda["truncated"] == false)
        #expect(agenda["next"] == nil)
        #expect(agenda["dialog"]?["full"] == "I found 1,096 events.")
    }

    @Test("agenda --limit cuts and says so in text and JSON; --offset gives the next page")
    func agendaLimit() throws {
        try seedDaily()
        let text = try run(PagingCommandTests.threeYears + ["--limit", "10"]).stdout
        #expect(text.contains("Saturday, January 10, 2026"))
        #expect(!text.contains("Sunday, January 11, 2026"))
        #expect(text.hasSuffix("\nShowing the first 10 of 1,096 occurrences; for more, add --offset 10 (or a larger --limit).\n"), "\(text)")

        let first = try json(PagingCommandTests.threeYears + ["--limit", "10"])
        guard case .array(let occurrences)? = first["occurrences"] else {
            Issue.record("no occurrences")
            return
        }
        #expect(occurrences.count == 10)
        #expect(first["truncated"] == true)
        #expect(first["total"] == 1_096)
        #expect(first["offset"] == 0)
        #expect(first["limit"] == 10)
        #expect(first["next"] == ["offset": 10, "limit": 10])

        let second = try json(PagingCommandTests.threeYears + ["--limit", "10", "--offset", "10"])
        guard case .array(let following)? = second["occurrences"] else {
            Issue.record("no occurrences")
            return
        }
        #expect(following.first?["start"] == "2026-01-11T09:00:00+01:00[Europe/Berlin]", "the page after the first ten starts on day eleven")
        #expect(second["next"] == ["offset": 20, "limit": 10])
        let middle = try run(PagingCommandTests.threeYears + ["--limit", "10", "--offset", "10"]).stdout
        #expect(middle.hasSuffix("\nShowing 11–20 of 1,096 occurrences; for more, add --offset 20.\n"), "\(middle)")

        let last = try run(PagingCommandTests.threeYears + ["--offset", "1090"]).stdout
        #expect(last.hasPrefix("Tuesday, December 26, 2028"))
        #expect(last.hasSuffix("\nShowing 1,091–1,096 of 1,096 occurrences.\n"), "\(last)")
        let lastJSON = try json(PagingCommandTests.threeYears + ["--offset", "1090"])
        #expect(lastJSON["truncated"] == false)
        #expect(lastJSON["offset"] == 1_090)

        let beyond = try run(PagingCommandTests.threeYears + ["--offset", "2000"]).stdout
        #expect(beyond == "No occurrences from number 2,001 on; there are 1,096.\n")
    }

    @Test("search --limit cuts text results and says so in text and JSON; without it every match is shown")
    func searchLimit() throws {
        try seedCakes()
        let all = try run(["search", "cake"]).stdout
        #expect((11...15).allSatisfy { all.contains("Cake tasting \($0)") })
        #expect(!all.contains("Tea"))
        #expect(!all.contains("Showing"))
        let allJSON = try json(["search", "cake"])
        #expect(allJSON["truncated"] == false)
        #expect(allJSON["total"] == 5)

        let cut = try run(["search", "cake", "--limit", "2"]).stdout
        let lines = cut.split(separator: "\n")
        #expect(lines.count == 3, "two results and the note: \(cut)")
        #expect(lines.last == "Showing the first 2 of 5 events; for more, add --offset 2 (or a larger --limit).")

        let cutJSON = try json(["search", "cake", "--limit", "2"])
        guard case .array(let entities)? = cutJSON["entities"] else {
            Issue.record("no entities")
            return
        }
        #expect(entities.count == 2)
        #expect(cutJSON["truncated"] == true)
        #expect(cutJSON["total"] == 5)
        #expect(cutJSON["next"] == ["offset": 2, "limit": 2])
        #expect(cutJSON["dialog"]?["full"] == "I found 5 events; here are the first 2.")

        let rest = try json(["search", "cake", "--limit", "2", "--offset", "4"])
        guard case .array(let remaining)? = rest["entities"] else {
            Issue.record("no entities")
            return
        }
        #expect(remaining.count == 1)
        #expect(rest["truncated"] == false)
    }

    @Test("intent run takes --limit and --offset for any search intent")
    func intentRunLimit() throws {
        try seedCakes()
        let page = try json(["intent", "run", "searchEvents", "text=cake", "--limit", "3", "--offset", "1"])
        guard case .array(let entities)? = page["entities"] else {
            Issue.record("no entities")
            return
        }
        #expect(entities.count == 3)
        #expect(page["offset"] == 1)
        #expect(page["next"] == ["offset": 4, "limit": 3])
        let text = try run(["intent", "run", "searchEvents", "text=cake", "--limit", "3", "--offset", "1"]).stdout
        #expect(text.hasSuffix("\nShowing 2–4 of 5 events; for more, add --offset 4.\n"), "\(text)")
        let calendars = try json(["calendar", "list", "--limit", "1"])
        #expect(calendars["truncated"] == false)
        #expect(calendars["total"] == 1)
    }

    @Test("a limit that is not a number is a usage error; a limit below 1 is an invalid value; both name the flag")
    func badLimits() throws {
        try seedCakes()
        let word = try run(["search", "cake", "--limit", "many"], expect: 64)
        #expect(word.stderr.contains("--limit"), "\(word.stderr)")
        let offset = try run(["agenda", "--offset", "x"], expect: 64)
        #expect(offset.stderr.contains("--offset takes a whole number"), "\(offset.stderr)")
        let zero = try run(["agenda", "--limit", "0"], expect: 65)
        #expect(zero.stderr.contains("--limit"), "\(zero.stderr)")
        let paged = try run(["intent", "run", "createCalendar", "title=Other", "--limit", "2"], expect: 65)
        #expect(paged.stderr.contains("only searches"), "\(paged.stderr)")
        let calendars = try json(["calendar", "list"])
        #expect(calendars["total"] == 1, "nothing was created")
    }

    @Test("an ambiguous name with many matches lists ten and says how many more; JSON has every candidate and the total")
    func manyCandidates() throws {
        try run(["calendar", "add", "Home"])
        for day in 11...22 {
            try run(["event", "add", "Party \(day)", "--start", "2026-06-\(day) 20:00"])
        }
        let result = try run(["event", "delete", "party", "--yes"], expect: 65)
        // Said once, a line each: the count, ten candidates with their ids, how many more.
        #expect(result.stderr.hasPrefix("error: 'party' matches 12 events:\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("did you mean"), "the candidates are not crammed into one sentence first\n\(result.stderr)")
        let idLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  …") }
        #expect(idLines.count == 10)
        #expect(result.stderr.contains("  …and 2 more (use more of the title, or --json for all of them)."), "\(result.stderr)")
        let outcome = try json(["event", "delete", "party", "--yes"], expect: 65)
        #expect(outcome["total"] == 12)
        guard case .array(let candidates)? = outcome["candidates"] else {
            Issue.record("no candidates")
            return
        }
        #expect(candidates.count == 12)
    }
}
