import Testing
import Foundation
import CometSchema

/// today, the week view and the month grid, against golden transcripts (COMETCAL_UPDATE_GOLDEN=1
/// writes them again), and the config file that shapes them.
@Suite("cometcal views and config")
struct ViewsTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func seed() throws {
        try run(["calendar", "add", "Work", "--color", "teal"])
        try run(["calendar", "add", "Home", "--color", "tomato"])
        try run(["event", "add", "Standup", "--start", "2026-06-01 09:30", "--end", "+15m", "--repeat", "weekdays", "--calendar", "Work"])
        try run(["event", "add", "Lunch with the whole crew at the new place", "--start", "2026-06-10 12:00", "--end", "+1h", "--calendar", "Home"])
        try run(["event", "add", "Ping", "--start", "2026-06-10 15:00", "--calendar", "Home"])
        try run(["event", "add", "Pong", "--start", "2026-06-10 16:00", "--calendar", "Home"])
        try run(["event", "add", "Trip", "--start", "2026-06-12", "--end", "2026-06-14", "--calendar", "Home"])
        try run(["event", "add", "Late", "--start", "2026-06-30 23:00", "--end", "2026-07-01 01:00", "--calendar", "Home"])
    }

    func golden(_ name: String, _ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let file = CLIRunner.repositoryRoot.appendingPathComponent("Tests/CLITests/Golden/views/\(name).txt")
        if ProcessInfo.processInfo.environment["COMETCAL_UPDATE_GOLDEN"] == "1" { try text.write(to: file, atomically: true, encoding: .utf8) }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "\(name) changed (COMETCAL_UPDATE_GOLDEN=1 to accept):\n\(text)", sourceLocation: sourceLocation)
    }

    @Test("today, the week and the month grid match their transcripts")
    func transcripts() throws {
        try seed()
        try golden("today", try run(["today"]).stdout)
        try golden("week", try run(["agenda", "--week"]).stdout)
        try golden("month", try run(["agenda", "--month"]).stdout)
        try golden("month-july", try run(["agenda", "--month", "--from", "2026-07-15"]).stdout)
    }

    @Test("the month grid fits narrow terminals as numbers with dots, today marked")
    func narrowGrid() throws {
        try seed()
        let grid = try CLIRunner.run(["agenda", "--month"], environment: environment.merging(["COLUMNS": "40"]) { $1 }).stdout
        for line in grid.split(separator: "\n").dropLast() { #expect(line.count <= 40, "\(line)") }
        #expect(grid.contains("│>10•│"), "\(grid)")
        #expect(grid.contains("│  6 │"), "a day without events has no dot\n\(grid)")
    }

    @Test("a card's long value wraps at a word, under where values start")
    func cardWraps() throws {
        try seed()
        try run(["event", "update", "Ping", "--attendee", "Ada Lovelace <ada@example.org>", "--attendee", "Grace Hopper <grace@example.org>",
                 "--attendee", "Alan Turing <alan@example.org>", "--yes"])
        let card = try CLIRunner.run(["event", "show", "Ping"], environment: environment.merging(["COLUMNS": "60"]) { $1 }).stdout
        let lines = card.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { #expect(line.count <= 60, "\(line)") }
        let first = try #require(lines.firstIndex { $0.contains("Attendees") })
        // Three names do not fit in 60 columns: the value goes on under itself, no word cut.
        #expect(lines[first + 1].contains("@example.org>"), "\(card)")
        for line in lines[first...(first + 1)] {
            #expect(line.filter { $0 == "<" }.count == line.filter { $0 == ">" }.count, "an address cut in two\n\(card)")
        }
        #expect(lines[first + 1].prefix(while: { $0 == " " }).count == lines[first].distance(from: lines[first].startIndex, to: lines[first].range(of: "Ada")!.lowerBound),
                "continuation lines start under the value\n\(card)")
    }

    @Test("the grid uses calendar colours where the terminal has them")
    func gridColours() throws {
        try seed()
        let session = try PseudoTerminal(["agenda", "--month"], environment: environment.merging(["COLORTERM": "truecolor"]) { $1 }, columns: 100)
        let (status, output) = try session.finish()
        #expect(status == 0)
        #expect(output.contains("\u{1B}[38;2;0;128;128m09:30 Standup"), "teal for Work: \(output.debugDescription.prefix(2000))")
        #expect(output.contains("\u{1B}[38;2;255;99;71m12:00 Lunch"), "tomato for Home")
        #expect(output.contains("\u{1B}[7m"), "today reversed")
    }

    @Test("--week and --month refuse --to and --days, and each other")
    func viewFlags() throws {
        #expect(try run(["agenda", "--week", "--days", "3"], expect: 64).stderr.contains("leave out --to and --days"))
        #expect(try run(["agenda", "--week", "--month"], expect: 64).stderr.contains("not both"))
    }

    func withConfig(_ text: String) throws -> [String: String] {
        let folder = scratch.url.appendingPathComponent("config/cometcal")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        return environment.merging(["XDG_CONFIG_HOME": scratch.url.appendingPathComponent("config").path]) { $1 }
    }

    @Test("config: every key changes what it says")
    func configKeys() throws {
        try seed()
        let env = try withConfig("""
            # my settings
            calendar = Work
            timezone = America/New_York
            week_start = sunday
            date_format = %a %d.%m.%Y
            time_format = %-I:%M %p
            event_length = 45m
            alarm = 10m
            """)
        let created = try CLIRunner.run(["event", "add", "Review", "--start", "2026-06-11 14:00", "--json"], environment: env)
        #expect(created.status == 0, "\(created.stderr)")
        let event = try JSONParser.parse(created.stdout)["entity"]
        #expect(event?["startDate"] == "2026-06-11T14:00:00-04:00[America/New_York]", "timezone")
        #expect(event?["endDate"] == "2026-06-11T14:45:00-04:00[America/New_York]", "event_length")
        #expect(event?["alarms"] == [["relative": "-PT10M"]], "alarm")
        let calendars = try json(["calendar", "list"])
        guard case .array(let list)? = calendars["entities"] else { Issue.record("no calendars"); return }
        let work = list.first { $0["title"] == "Work" }?["id"]
        #expect(event?["calendar"] == work, "calendar")
        // A flag given wins over the config.
        let flagged = try JSONParser.parse(try CLIRunner.run(["event", "add", "Other", "--start", "2026-06-11 14:00", "--end", "+2h", "--alarm", "1h", "--calendar", "Home", "--json"], environment: env).stdout)["entity"]
        #expect(flagged?["endDate"] == "2026-06-11T16:00:00-04:00[America/New_York]")
        #expect(flagged?["alarms"] == [["relative": "-PT1H"]])
        let agenda = try CLIRunner.run(["agenda", "--from", "2026-06-11", "--days", "1"], environment: env).stdout
        #expect(agenda.hasPrefix("Thu 11.06.2026\n"), "date_format: \(agenda)")
        #expect(agenda.contains("  3:30 AM–3:45 AM  Standup"), "time_format, in New York: \(agenda)")
        let month = try CLIRunner.run(["agenda", "--month", "--from", "2026-06-11"], environment: env).stdout
        #expect(month.contains("│Sunday    │Monday"), "week_start: \(month)")
    }

    @Test("config: a line that starts with # is a comment; a # later in a line is part of the value")
    func configComments() throws {
        try seed()
        let env = try withConfig("""
            # new events go to Home
              # indented, still a comment
            calendar = Home # Office
            """)
        let created = try CLIRunner.run(["event", "add", "Review", "--start", "2026-06-11 14:00"], environment: env)
        #expect(created.status != 0, "the calendar named is “Home # Office”, which does not exist: \(created.stdout)")
        #expect(created.stderr.contains("Home # Office"), "\(created.stderr)")
    }

    @Test("config: an unknown key gets did-you-mean with file:line:column; a bad value names its column; 78")
    func configErrors() throws {
        var env = try withConfig("week_start = monday\n  wek_start = sunday\n")
        var result = try CLIRunner.run(["agenda"], environment: env)
        let path = scratch.url.appendingPathComponent("config/cometcal/config").path
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("\(path):2:3: error: unknown key 'wek_start'. Did you mean 'week_start'?"), "\(result.stderr)")
        env = try withConfig("timezone = Mars/Olympus\n")
        result = try CLIRunner.run(["today"], environment: env)
        #expect(result.status == 78)
        #expect(result.stderr.contains("config:1:12: error: timezone: 'Mars/Olympus' is not an IANA time zone"), "\(result.stderr)")
        for (line, message) in [("event_length = soon", "is not a length"), ("date_format = %Q", "'%Q' is not a format directive"),
                                ("week_start = someday", "is not a day"), ("calendar", "is not key = value"), ("alarm = soon", "is not an alarm")] {
            env = try withConfig(line + "\n")
            result = try CLIRunner.run(["event", "add", "X", "--start", "2026-06-11 10:00"], environment: env)
            #expect(result.status == 78, "\(line): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(line): \(result.stderr)")
        }
        var missing = environment
        missing["COMETCAL_CONFIG"] = scratch.url.appendingPathComponent("nope").path
        #expect(try CLIRunner.run(["today"], environment: missing).stderr.contains("no such config file (named by COMETCAL_CONFIG)"))
    }
}
