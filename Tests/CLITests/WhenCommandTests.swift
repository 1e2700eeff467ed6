import Testing
import Foundation
import CometSchema

/// `cometcal when`, and the same parser behind the date flags, run as a user runs them.
@Suite("cometcal when")
struct WhenCommandTests {
    static let clock = ["--now", "2026-06-10T09:00:00-07:00", "--tz", "America/Los_Angeles"]

    @discardableResult
    func run(_ arguments: [String], expect status: Int32 = 0, environment: [String: String] = [:],
             sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try CLIRunner.run(arguments, environment: environment)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test("text output names the kind and the value, in words and in ISO 8601", arguments: [
        ("next friday at noon", "instant  Friday, June 19, 2026, 12:00 (2026-06-19T12:00:00-07:00, America/Los_Angeles)"),
        ("June 15th", "date  Monday, June 15, 2026 (2026-06-15)"),
        ("at 3", "time of day  15:00"),
        ("from 2 to 3:30pm", "range  Wednesday, June 10, 2026, 14:00 to 15:30 (2026-06-10T14:00:00-07:00 to 2026-06-10T15:30:00-07:00)"),
        ("this weekend", "range  Saturday, June 13, 2026 to Sunday, June 14, 2026, whole days (2026-06-13T00:00:00-07:00 to 2026-06-15T00:00:00-07:00)"),
        ("for 45 minutes", "duration  45 minutes (PT45M)"),
        ("30 minutes earlier", "shift  30 minutes earlier (-PT30M)"),
        ("move it to Thursday", "shift  to Thursday, June 11, 2026, keeping the time (2026-06-11)"),
        ("every other Tuesday", "recurrence  every 2 weeks on Tuesday (FREQ=WEEKLY;INTERVAL=2;BYDAY=TU)"),
        ("every month on second Tuesday", "recurrence  every month on the second Tuesday (FREQ=MONTHLY;BYDAY=2TU)"),
        ("monthly on the last day", "recurrence  every month on the last day (FREQ=MONTHLY;BYMONTHDAY=-1)"),
        ("do not repeat", "recurrence  does not repeat"),
        ("until July", "series end  the last day is Tuesday, June 30, 2026 (UNTIL=20260630)"),
    ])
    func text(expression: String, expected: String) throws {
        let result = try run(["when", expression] + WhenCommandTests.clock)
        #expect(result.stdout == expected + "\n")
    }

    @Test("--json prints the kind, the ISO 8601 value, the zone and the clock")
    func json() throws {
        let instant = try JSONParser.parse(try run(["when", "June 15th, 8am", "--json"] + WhenCommandTests.clock).stdout)
        #expect(instant["kind"] == "instant")
        #expect(instant["value"] == "2026-06-15T08:00:00-07:00")
        #expect(instant["timeZone"] == "America/Los_Angeles")
        #expect(instant["now"] == "2026-06-10T09:00:00-07:00")
        #expect(instant["text"] == "June 15th, 8am")
        let duration = try JSONParser.parse(try run(["when", "for 45 minutes", "--json"] + WhenCommandTests.clock).stdout)
        #expect(duration["kind"] == "duration")
        #expect(duration["value"] == "PT45M")
        let rule = try JSONParser.parse(try run(["when", "every weekday until July", "--json"] + WhenCommandTests.clock).stdout)
        #expect(rule["rrule"] == "FREQ=WEEKLY;UNTIL=20260630;BYDAY=MO,TU,WE,TH,FR")
        let cleared = try JSONParser.parse(try run(["when", "don't repeat", "--json"] + WhenCommandTests.clock).stdout)
        #expect(cleared["rrule"] == .null)
    }

    @Test("words need no quotes; the zone comes from --now when --tz is not given; COMETCAL_NOW is the default clock")
    func clockAndWords() throws {
        #expect(try run(["when", "next", "friday", "at", "noon"] + WhenCommandTests.clock).stdout.contains("2026-06-19T12:00:00-07:00"))
        #expect(try run(["when", "tomorrow at 9", "--now", "2026-03-28T12:00[Europe/Berlin]"]).stdout.contains("2026-03-29T09:00:00+02:00, Europe/Berlin"))
        let fromEnvironment = try run(["when", "in two hours"], environment: ["COMETCAL_NOW": "2026-06-10T16:00:00Z", "TZ": "Asia/Tokyo"])
        #expect(fromEnvironment.stdout.contains("2026-06-11T03:00:00+09:00"))
    }

    @Test("a numeric date that depends on date_order, or goes against it, is said in a note; --date-order and the config key set it")
    func dateOrder() throws {
        let monthFirst = try run(["when", "03/05"] + WhenCommandTests.clock)
        #expect(monthFirst.stdout == """
            date  Friday, March 5, 2027 (2027-03-05)
            note: '03/05' is read as March 5, month first by the date_order setting (mdy); with dmy it would be May 3

            """)
        let dayFirst = try run(["when", "03/05", "--date-order", "dmy"] + WhenCommandTests.clock)
        #expect(dayFirst.stdout.hasPrefix("date  Monday, May 3, 2027 (2027-05-03)\nnote: '03/05' is read as May 3, day first by the date_order setting (dmy)"))
        let notAMonth = try run(["when", "23/05"] + WhenCommandTests.clock)
        #expect(notAMonth.stdout.contains("note: '23/05' is read as May 23, day first against the date_order setting (mdy): 23 cannot be a month"))
        // The order makes no difference: nothing to say.
        #expect(try run(["when", "6/15"] + WhenCommandTests.clock).stdout == "date  Monday, June 15, 2026 (2026-06-15)\n")
        let json = try JSONParser.parse(try run(["when", "23/05", "--json"] + WhenCommandTests.clock).stdout)
        #expect(json["value"] == "2027-05-23")
        guard case .array(let notes)? = json["notes"], let note = notes.first else {
            Issue.record("no notes in \(json)")
            return
        }
        #expect(notes.count == 1)
        #expect(note["column"] == .int(1))
        #expect(note["message"]?.stringValue?.contains("23 cannot be a month") == true)
        let plain = try JSONParser.parse(try run(["when", "6/15", "--json"] + WhenCommandTests.clock).stdout)
        #expect(plain["notes"] == nil)

        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let folder = scratch.url.appendingPathComponent("cometcal")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "date_order = dmy\n".write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let configured = try run(["when", "3/5"] + WhenCommandTests.clock, environment: ["XDG_CONFIG_HOME": scratch.url.path])
        #expect(configured.stdout.hasPrefix("date  Monday, May 3, 2027"))
        let flagWins = try run(["when", "3/5", "--date-order", "mdy"] + WhenCommandTests.clock, environment: ["XDG_CONFIG_HOME": scratch.url.path])
        #expect(flagWins.stdout.hasPrefix("date  Friday, March 5, 2027"))
        try "date_order = ymd\n".write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let bad = try run(["when", "3/5"] + WhenCommandTests.clock, expect: 78, environment: ["XDG_CONFIG_HOME": scratch.url.path])
        #expect(bad.stderr.contains("date_order: 'ymd' is not a date order; write mdy (3/5 is March 5) or dmy (3/5 is 3 May)"))
        let badFlag = try run(["when", "3/5", "--date-order", "ymd"] + WhenCommandTests.clock, expect: 64)
        #expect(badFlag.stderr.hasPrefix("error: Invalid value 'ymd' for '--date-order'"))
    }

    @Test("every time expression issue 19 names resolves", arguments: [
        ("10a", "time of day  10:00"), ("6p", "time of day  18:00"), ("9:15a", "time of day  09:15"),
        ("12 midnight", "time of day  00:00"), ("wed jun 3", "date  Wednesday, June 3, 2026 (2026-06-03)"),
        ("two weeks from tmrw", "date  Thursday, June 25, 2026 (2026-06-25)"), ("monday 3/8", "date  Monday, March 8, 2027 (2027-03-08)"),
        ("in the evening at 8", "time of day  20:00"), ("23/05", "date  Sunday, May 23, 2027 (2027-05-23)"),
    ])
    func issueExamples(expression: String, expected: String) throws {
        let result = try run(["when", expression] + WhenCommandTests.clock)
        #expect(result.stdout.hasPrefix(expected + "\n"))
    }

    @Test("an unknown word after an expression still fails the whole text")
    func unknownWordFails() throws {
        let result = try run(["when", "monday blah"] + WhenCommandTests.clock, expect: 65)
        #expect(result.stderr.hasPrefix("error: column 8: 'blah' is not understood after 'monday'"))
    }

    @Test("text that is not understood exits 65 with the message, the column and a caret")
    func notUnderstood() throws {
        let result = try run(["when", "next blursday"] + WhenCommandTests.clock, expect: 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            error: column 6: 'blursday' is not understood here; expected a weekday, 'week', 'weekend', 'month' or 'year'; did you mean 'thursday'?
              next blursday
                   ^

            """)
        let impossible = try run(["when", "February 30th"] + WhenCommandTests.clock, expect: 65)
        #expect(impossible.stderr.hasPrefix("error: column 10: February has no day 30"))
    }

    @Test("a bad flag or flag value is a usage error: exit 64", arguments: [
        (["when", "noon", "--tz", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
        (["when", "noon", "--now", "yesterday"], "Invalid value 'yesterday' for '--now'"),
        (["when", "noon", "--nwo", "2026-06-10T09:00:00Z"], "Did you mean '--now'?"),
        (["when"], "Missing expected argument '<text>'"),
    ])
    func usage(arguments: [String], message: String) throws {
        let result = try run(arguments, expect: 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("a COMETCAL_NOW that is not ISO 8601 is named as such")
    func badEnvironmentClock() throws {
        let result = try run(["when", "noon"], expect: 64, environment: ["COMETCAL_NOW": "soon"])
        #expect(result.stderr.contains("COMETCAL_NOW is 'soon', not a date-time"), "\(result.stderr)")
    }

    @Test("--help explains the command")
    func help() throws {
        let result = try run(["when", "--help"])
        #expect(result.stdout.contains("USAGE: cometcal when <text> ... [--now <iso8601>] [--tz <zone>]"))
        #expect(result.stdout.contains("docs/conversation.md"))
    }
}

/// The date flags read temporal expressions with the same parser, after the short forms.
@Suite("cometcal date flags read temporal expressions")
struct TemporalFlagTests {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        // Wednesday, June 10th, 2026, 12:00 in Berlin.
        try? FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("store"), withIntermediateDirectories: true)
        environment = ["COMETCAL_DB": scratch.url.appendingPathComponent("store/cal.sqlite").path,
                       "COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"]
    }

    @discardableResult
    func run(_ arguments: [String], expect status: Int32 = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try CLIRunner.run(arguments, environment: environment)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    func entity(_ arguments: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> JSONValue? {
        try JSONParser.parse(try run(arguments + ["--json"], sourceLocation: sourceLocation).stdout)["entity"]
    }

    @Test("event add --start 'next friday at noon' and --start 'in 2 hours'")
    func start() throws {
        try run(["calendar", "add", "Work"])
        let lunch = try entity(["event", "add", "Crew lunch", "--start", "next friday at noon", "--end", "next friday at 1pm"])
        #expect(lunch?["startDate"] == "2026-06-19T12:00:00+02:00[Europe/Berlin]")
        #expect(lunch?["endDate"] == "2026-06-19T13:00:00+02:00[Europe/Berlin]")
        let call = try entity(["event", "add", "Call", "--start", "in 2 hours"])
        #expect(call?["startDate"] == "2026-06-10T14:00:00+02:00[Europe/Berlin]")
        let yoga = try entity(["event", "add", "Zero Gravity Yoga", "--start", "June 15th, 8am"])
        #expect(yoga?["startDate"] == "2026-06-15T08:00:00+02:00[Europe/Berlin]")
        let moved = try entity(["event", "update", "Crew lunch", "--start", "tomorrow at noon"])
        #expect(moved?["startDate"] == "2026-06-11T12:00:00+02:00[Europe/Berlin]")
    }

    @Test("the short forms still read as before")
    func shortForms() throws {
        try run(["calendar", "add", "Work"])
        #expect(try entity(["event", "add", "A", "--start", "friday 9am"])?["startDate"] == "2026-06-12T09:00:00+02:00[Europe/Berlin]")
        #expect(try entity(["event", "add", "B", "--start", "tomorrow 10:00"])?["startDate"] == "2026-06-11T10:00:00+02:00[Europe/Berlin]")
        #expect(try entity(["event", "add", "C", "--start", "+1h"])?["startDate"] == "2026-06-10T13:00:00+02:00[Europe/Berlin]")
        // A day with no time is an all-day event; --no-all-day keeps it a moment at midnight.
        let allDay = try entity(["event", "add", "D", "--start", "2026-06-15"])
        #expect(allDay?["startDate"] == "2026-06-15T00:00:00" && allDay?["isAllDay"] == true, "\(String(describing: allDay))")
        #expect(try entity(["event", "add", "D2", "--start", "2026-06-15", "--no-all-day"])?["startDate"] == "2026-06-15T00:00:00+02:00[Europe/Berlin]")
        // One rule for "next": the Friday of next week, as `cometcal when` says.
        #expect(try entity(["event", "add", "E", "--start", "next friday 14:30"])?["startDate"] == "2026-06-19T14:30:00+02:00[Europe/Berlin]")
    }

    @Test("agenda --from takes an expression")
    func agenda() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Standup", "--start", "next monday at 9:30", "--end", "next monday at 9:45"])
        let agenda = try run(["agenda", "--from", "next monday", "--days", "1"]).stdout
        #expect(agenda.contains("Monday, June 15, 2026\n  09:30–09:45  Standup"))
    }

    @Test("an expression that is not one moment is refused, naming what it is", arguments: [
        ("this week", "'this week' is a range, not a date and time"),
        ("for an hour", "'for an hour' is a duration, not a date and time"),
        ("next blursday", "column 6: 'blursday' is not understood here"),
    ])
    func notAMoment(text: String, message: String) throws {
        try run(["calendar", "add", "Work"])
        let result = try run(["event", "add", "X", "--start", text], expect: 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
