import Testing
import Foundation
import CometSchema

/// A repeat every second or minute (issue 20, item 13): said when it is saved or imported, and
/// the agenda it fills says how much of it it shows.
@Suite("Repeats that crowd a day")
struct CrowdedRepeatTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
        _ = try CLIRunner.run(["calendar", "add", "Work"], environment: environment)
    }

    @Test("a repeat every second is saved and said, in the reply and in --json warnings")
    func everySecond() throws {
        let added = try run(["event", "add", "Pulse", "--start", "2026-06-10 12:00", "--end", "2026-06-10 12:00", "--repeat", "FREQ=SECONDLY"])
        #expect(added.stdout.contains("“Pulse” repeats at least 10,000 times on 2026-06-10 (FREQ=SECONDLY); more than 24 a day is seldom meant, and each one is listed in the agenda."), "\(added.stdout)")
        let json = try json(["event", "add", "Tick", "--start", "2026-06-10 12:00", "--end", "2026-06-10 12:00", "--repeat", "FREQ=MINUTELY;INTERVAL=40"])
        // Pulse, every second, makes the span Tick's overlaps would be looked for in (its first
        // 500 occurrences, 13.9 days: 1.2 million of Pulse's) too large to list: that is said too
        // (docs/cli.md, "Overlaps, and free and busy").
        #expect(json["warnings"] == .array([.string("“Tick” repeats 36 times on 2026-06-11 (FREQ=MINUTELY;INTERVAL=40); more than 24 a day is seldom meant, and each one is listed in the agenda."),
                                             .string("Overlaps with other events were not looked for: one repeating event has more than 1,000,000 occurrences in this range; ask for a shorter range.")]), "\(json)")
    }

    @Test("every hour (24 a day) is not warned about; an update that makes a repeat crowded is")
    func hourlyIsFine() throws {
        let hourly = try json(["event", "add", "Chime", "--start", "2026-06-10 00:00", "--end", "2026-06-10 00:05", "--repeat", "FREQ=HOURLY"])
        #expect(hourly["warnings"] == nil, "\(hourly)")
        let updated = try json(["event", "update", "Chime", "--span", "all", "--repeat", "FREQ=MINUTELY;INTERVAL=15"])
        #expect(updated["warnings"] == .array([.string("“Chime” repeats 96 times on 2026-06-10 (FREQ=MINUTELY;INTERVAL=15); more than 24 a day is seldom meant, and each one is listed in the agenda.")]), "\(updated)")
    }

    @Test("an imported repeat every 30 minutes is imported, with a warning naming its file, line and UID")
    func importedEveryHalfHour() throws {
        let file = scratch.url.appendingPathComponent("busy.ics")
        try ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tests//EN", "BEGIN:VEVENT", "UID:busy@test", "DTSTAMP:20260601T000000Z",
             "DTSTART:20260610T000000Z", "DURATION:PT1M", "RRULE:FREQ=MINUTELY;INTERVAL=30", "SUMMARY:Busy", "END:VEVENT", "END:VCALENDAR", ""]
            .joined(separator: "\r\n").write(to: file, atomically: true, encoding: .utf8)
        let text = try run(["import", file.path])
        #expect(text.stderr.contains("busy.ics:4: warning: “Busy” repeats 48 times on 2026-06-10 (FREQ=MINUTELY;INTERVAL=30); more than 24 a day is seldom meant, and each one is listed in the agenda. [UID busy@test]"), "\(text.stderr)")
        #expect(text.stdout.contains("1 added"))
    }

    @Test("a plain agenda shows at most 1,000 occurrences and says how many there are and how to see more; --json and --limit are not cut")
    func agendaSaysWhatItShows() throws {
        try run(["event", "add", "Tick", "--start", "2026-06-10 12:00", "--end", "2026-06-10 12:00", "--repeat", "FREQ=MINUTELY"])
        let agenda = try run(["agenda"])
        let lines = agenda.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("Tick") }.count == 1_000)
        #expect(lines.last == "Showing the first 1,000 of 9,360 occurrences; for more, add --offset 1000 (or a larger --limit). Without --limit the agenda shows at most 1,000.")
        let week = try run(["agenda", "--week"])
        #expect(!week.stdout.contains("Nothing scheduled."), "a cut week does not call the days after the cut empty")
        #expect(week.stdout.split(separator: "\n").last?.hasPrefix("Showing the first 1,000 of ") == true)
        let all = try json(["agenda"])
        guard case .array(let occurrences)? = all["occurrences"] else { Issue.record("no occurrences"); return }
        #expect(occurrences.count == 9_360)
        let more = try run(["agenda", "--limit", "2000"])
        #expect(more.stdout.split(separator: "\n").filter { $0.contains("Tick") }.count == 2_000)
    }

    @Test("today is cut the same way, and takes the --offset its note offers")
    func todaySaysWhatItShows() throws {
        try run(["event", "add", "Tock", "--start", "2026-06-10 00:00", "--end", "2026-06-10 00:00", "--repeat", "FREQ=MINUTELY"])
        let today = try run(["today"])
        #expect(today.stdout.split(separator: "\n").last == "Showing the first 1,000 of 1,440 occurrences; for more, add --offset 1000 (or a larger --limit). Without --limit the agenda shows at most 1,000.")
        let rest = try run(["today", "--offset", "1000"])
        #expect(rest.stdout.split(separator: "\n").filter { $0.contains("Tock") }.count == 440)
        #expect(rest.stdout.split(separator: "\n").last == "Showing 1,001–1,440 of 1,440 occurrences.")
    }
}
