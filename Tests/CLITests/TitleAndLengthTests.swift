import Testing
import Foundation
import CometSchema

/// Issue 20, items 7 and 8: a title must say something (`@nonBlank`), and a new event given a
/// start and no end lasts an hour (`@defaultLength`), the same from every front end.
@Suite("cometcal: blank titles and the default length")
struct TitleAndLengthTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    @Test("event add with an empty or blank title fails, with or without a start, and nothing is created; --title is named when typed",
          arguments: ["", "   "])
    func blankAdd(title: String) throws {
        try run(["calendar", "add", "Work"])
        // Given as the argument, the title is spoken of without a flag the person did not type.
        let result = try run(["event", "add", title, "--start", "2026-12-01 15:00"], expect: 65)
        #expect(result.stderr == "error: a title must have something in it\n")
        let blankOnly = try run(["event", "add", title], expect: 65)
        #expect(blankOnly.stderr == "error: a title must have something in it\n", "refused before asking for a start")
        let flagged = try run(["event", "add", "--title", title, "--start", "2026-12-01 15:00"], expect: 65)
        #expect(flagged.stderr == "error: --title: a title must have something in it\n")
        let listed = try json(["search"])
        #expect(listed["entities"] == [], "\(listed)")
    }

    @Test("event update --title with spaces fails and keeps the title")
    func blankUpdate() throws {
        try run(["event", "add", "Dentist", "--start", "2026-12-01 15:00"])
        let result = try run(["event", "update", "Dentist", "--title", " ", "--yes"], expect: 65)
        #expect(result.stderr == "error: --title: a title must have something in it\n")
        #expect(try json(["event", "show", "Dentist"])["entity"]?["title"] == "Dentist")
    }

    @Test("intent run and --json name the parameter as the schema spells it")
    func blankIntentRun() throws {
        let result = try run(["intent", "run", "createCalendar", "title=  ", "--json"], expect: 65)
        let error = try JSONParser.parse(result.stdout)["error"]
        #expect(error?["parameter"] == "title", "\(result.stdout)")
        #expect(error?["message"] == "a title must have something in it")
        #expect(error?["code"] == "invalid_value")
    }

    @Test("event add with a start and no end lasts an hour, and the reply says the end")
    func oneHourByDefault() throws {
        // COMETCAL_NOW is Wednesday 2026-06-10, 12:00 in Berlin.
        let result = try run(["event", "add", "Review", "--start", "tomorrow 3pm"])
        #expect(result.stdout.contains("Created “Review” for Thu Jun 11 15:00–16:00."), "\(result.stdout)")
        #expect(try json(["event", "show", "Review"])["entity"]?["endDate"] == "2026-06-11T16:00:00+02:00[Europe/Berlin]")
        let moment = try json(["event", "add", "Launch", "--start", "2026-06-12 09:00", "--end", "+0m"])["entity"]
        #expect(moment?["endDate"] == moment?["startDate"], "--end +0m makes a moment")
        let allDay = try json(["event", "add", "Holiday", "--start", "2026-06-12", "--all-day"])["entity"]
        #expect(allDay?["endDate"] == "2026-06-13T00:00:00", "an all-day event lasts its day")
    }

    @Test("an imported VEVENT with a DATE-TIME DTSTART and no DTEND stays a moment (RFC 5545)")
    func importKeepsMoments() throws {
        let file = directory.appendingPathComponent("moment.ics")
        try """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:moment@test\r
            DTSTAMP:20261201T120000Z\r
            DTSTART:20261201T150000Z\r
            SUMMARY:Launch\r
            END:VEVENT\r
            END:VCALENDAR\r

            """.write(to: file, atomically: true, encoding: .utf8)
        try run(["import", file.path])
        let event = try json(["event", "show", "Launch"])["entity"]
        #expect(event?["startDate"] == "2026-12-01T15:00:00Z")
        #expect(event?["endDate"] == nil, "\(String(describing: event))")
    }

    @Test("an imported VEVENT with an empty or missing SUMMARY is kept with an empty title, and a warning says so at its line")
    func importUntitled() throws {
        let file = directory.appendingPathComponent("untitled.ics")
        try """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:empty@test\r
            DTSTAMP:20261201T120000Z\r
            DTSTART:20261201T150000Z\r
            SUMMARY:\r
            END:VEVENT\r
            BEGIN:VEVENT\r
            UID:missing@test\r
            DTSTAMP:20261201T120000Z\r
            DTSTART:20261202T150000Z\r
            END:VEVENT\r
            END:VCALENDAR\r

            """.write(to: file, atomically: true, encoding: .utf8)
        let result = try run(["import", file.path])
        #expect(result.stderr.contains("untitled.ics:8: warning: SUMMARY is empty, so the VEVENT is kept with an empty title"), "\(result.stderr)")
        #expect(result.stderr.contains("untitled.ics:10: warning: VEVENT has no SUMMARY, so it is kept with an empty title"), "\(result.stderr)")
        let report = try json(["import", file.path])
        guard case .array(let warnings)? = report["warnings"] else { Issue.record("no warnings in \(report)"); return }
        #expect(warnings.contains { $0["line"] == .int(8) }, "\(warnings)")
    }
}
