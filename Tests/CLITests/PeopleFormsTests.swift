import Testing
import Foundation
import CometSchema

/// Values as people mean them (issue 11, items 7 and 8): alarms before the start, an end that
/// counts from the start, a day alone as an all-day event, times in errors as the agenda shows
/// them, and the small things: undo with nothing to undo, one error prefix, colours, places.
@Suite("cometcal reads values as people mean them")
struct PeopleFormsTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func entity(_ arguments: [String]) throws -> JSONValue? {
        try json(arguments)["entity"]
    }

    @Test("--alarm 5m and 5m before are before the start, 5m after is after, -5m and ISO keep their sign")
    func alarms() throws {
        try run(["calendar", "add", "Home"])
        let event = try entity(["event", "add", "Yoga", "--start", "2026-06-12 08:00",
                                "--alarm", "5m", "--alarm", "1h before", "--alarm", "10m after", "--alarm", "-15m", "--alarm", "+2m",
                                "--alarm", "PT3M", "--alarm", "-PT4M", "--alarm", "2026-06-12 07:00"])
        #expect(event?["alarms"] == [["relative": "-PT5M"], ["relative": "-PT1H"], ["relative": "PT10M"], ["relative": "-PT15M"], ["relative": "PT2M"],
                                     ["relative": "PT3M"], ["relative": "-PT4M"], ["absolute": "2026-06-12T07:00:00+02:00[Europe/Berlin]"]],
                "\(String(describing: event?["alarms"]))")
        let card = try run(["event", "show", "Yoga"]).stdout
        #expect(card.contains("5 minutes before, 1 hour before, 10 minutes after"), "\(card)")
        let twice = try run(["event", "add", "X", "--start", "2026-06-12 08:00", "--alarm", "-5m before"], expect: 64)
        #expect(twice.stderr.contains("says its direction twice"), "\(twice.stderr)")
        let soon = try run(["event", "add", "X", "--start", "2026-06-12 08:00", "--alarm", "soon"], expect: 64)
        #expect(soon.stderr == "error: --alarm: 'soon' is not an alarm; write a duration (15m or 1h before the start, 5m after) or a date and time (friday 9:00, 2026-06-15 08:00)\n",
                "\(soon.stderr)")
    }

    @Test("--end +1h and --end 90m count from the start given, or on a change from the event's own")
    func endFromStart() throws {
        try run(["calendar", "add", "Home"])
        var event = try entity(["event", "add", "Talk", "--start", "2026-06-15 14:00", "--end", "+1h"])
        #expect(event?["endDate"] == "2026-06-15T15:00:00+02:00[Europe/Berlin]")
        event = try entity(["event", "update", "Talk", "--end", "90m"])
        #expect(event?["endDate"] == "2026-06-15T15:30:00+02:00[Europe/Berlin]", "from the event's own start, not from now")
        event = try entity(["event", "update", "Talk", "--start", "2026-06-16 09:00", "--end", "+30m"])
        #expect(event?["endDate"] == "2026-06-16T09:30:00+02:00[Europe/Berlin]")
        // -1h is a moment (an hour before now), not a length.
        let before = try run(["event", "add", "Odd", "--start", "2026-06-15 14:00", "--end", "-1h"], expect: 65)
        #expect(before.stderr.contains("is before the start"))
    }

    @Test("a day with no time makes an all-day event; --end then names its last day; --no-all-day keeps midnight")
    func dayAlone() throws {
        try run(["calendar", "add", "Home"])
        var event = try entity(["event", "add", "Trip", "--start", "friday", "--end", "sunday"])
        #expect(event?["isAllDay"] == true)
        #expect(event?["startDate"] == "2026-06-12T00:00:00")
        #expect(event?["endDate"] == "2026-06-15T00:00:00", "Friday to Sunday inclusive ends as Monday begins")
        #expect(try run(["event", "show", "Trip"]).stdout.contains("Fri Jun 12 – Sun Jun 14 (all day)"))
        event = try entity(["event", "add", "Midnight", "--start", "friday", "--no-all-day"])
        #expect(event?["isAllDay"] == false && event?["startDate"] == "2026-06-12T00:00:00+02:00[Europe/Berlin]")
        event = try entity(["event", "add", "Timed", "--start", "friday 9am"])
        #expect(event?["isAllDay"] == false)
    }

    @Test("an end before the start is said with times as the agenda shows them, not RFC 9557 text")
    func readableTimesInErrors() throws {
        try run(["calendar", "add", "Home"])
        let result = try run(["event", "add", "Back", "--start", "2026-06-15 14:00", "--end", "2026-06-15 13:00"], expect: 65)
        #expect(result.stderr == "error: --end: the end (Mon Jun 15 2026 13:00) is before the start (Mon Jun 15 2026 14:00 (Europe/Berlin)); give an end after the start, or move the start\n",
                "\(result.stderr)")
        #expect(!result.stderr.contains("[Europe/Berlin]"))
    }

    @Test("--repeat reads words as cometcal when does (biweekly, every 2 weeks) and says what it takes")
    func repeatWords() throws {
        try run(["calendar", "add", "Home"])
        #expect(try entity(["event", "add", "A", "--start", "2026-06-15 09:00", "--repeat", "biweekly"])?["recurrence"] == "FREQ=WEEKLY;INTERVAL=2")
        #expect(try entity(["event", "add", "B", "--start", "2026-06-15 09:00", "--repeat", "every other tuesday"])?["recurrence"] == "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU")
        let bad = try run(["event", "add", "C", "--start", "2026-06-15 09:00", "--repeat", "sometimes"], expect: 64)
        #expect(bad.stderr.contains("'sometimes' is not a repeat rule; write daily, weekly, weekdays, every 2 weeks"), "\(bad.stderr)")
        let rrule = try run(["event", "add", "C", "--start", "2026-06-15 09:00", "--repeat", "FREQ=WEEKLY;BYDAY=XX"], expect: 64)
        #expect(rrule.stderr.contains("BYDAY"), "an RRULE's own error names its part: \(rrule.stderr)")
    }

    @Test("enum flags take their words: --span 'all events', --status Tentative; a wrong one lists the answers")
    func enumWords() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Standup", "--start", "2026-06-01 09:00", "--repeat", "weekly"])
        #expect(try entity(["event", "update", "Standup", "--span", "all events", "--status", "Tentative"])?["status"] == "tentative")
        let bad = try run(["event", "update", "Standup", "--span", "most", "--note", "x"], expect: 64)
        #expect(bad.stderr == "error: --span: 'most' is not one of: this (only this event), future (this and future events), all (all events)\n", "\(bad.stderr)")
    }

    @Test("undo with nothing to undo says so plainly and exits 0; JSON keeps the engine's code")
    func nothingToUndo() throws {
        let result = try run(["undo"])
        #expect(result.stdout == "Nothing to undo.\n" && result.stderr.isEmpty, "\(result)")
        #expect(try run(["redo"]).stdout == "Nothing to redo.\n")
        #expect(try json(["undo"])["error"]?["code"] == "nothing_to_undo")
    }

    @Test("one error prefix: usage errors and engine errors both begin 'error: '")
    func errorPrefix() throws {
        let usage = try run(["event", "add", "X", "--sttus", "x"], expect: 64)
        #expect(usage.stderr.hasPrefix("error: Unknown option '--sttus'. Did you mean '--status'?"), "\(usage.stderr)")
        let engine = try run(["event", "show", "Nothing"], expect: 66)
        #expect(engine.stderr.hasPrefix("error: "))
    }

    @Test("--color takes CSS colours only, with a suggestion; calendar colours are drawn on a terminal")
    func colours() throws {
        let banana = try run(["calendar", "add", "Fruit", "--color", "banana"], expect: 65)
        #expect(banana.stderr.contains("'banana' is not a colour"), "\(banana.stderr)")
        let typo = try run(["calendar", "add", "Fruit", "--color", "tomatoe"], expect: 65)
        #expect(typo.stderr.contains("did you mean 'tomato'"), "\(typo.stderr)")
        try run(["calendar", "add", "Fruit", "--color", "#FF8800"])
        try run(["calendar", "add", "Veg", "--color", "teal"])
        try run(["calendar", "update", "Veg", "--color", "#3478F6FF"])
        #expect(try json(["calendar", "list"])["total"] == 2)
    }

    @Test("a place known only by its coordinates shows them, in the agenda and on the card")
    func coordinatesOnly() throws {
        try run(["calendar", "add", "Synthetic"])
        try run(["event", "add", "Hike", "--start", "2026-06-11 10:00", "--location", #"{"place": {"latitude": 52.5163, "longitude": -13.3777}}"#])
        let agenda = try run(["agenda", "--from", "2026-06-11", "--days", "1"]).stdout
        #expect(agenda.contains("Hike  Synthetic · 52.5163° N, 13.3777° W"), "\(agenda)")
        #expect(!agenda.contains("Synthetic ·\n"))
        let card = try run(["event", "show", "Hike"]).stdout
        #expect(card.contains("Location  52.5163° N, 13.3777° W"), "\(card)")
    }

    @Test("history shows times in the person's zone, not UTC")
    func historyInZone() throws {
        try run(["calendar", "add", "Home"])
        let berlin = try CLIRunner.run(["history"], environment: environment)
        #expect(berlin.stdout.contains("2026-06-10 12:00  Created calendar “Home”"), "10:00Z is 12:00 in Berlin: \(berlin.stdout)")
        var tokyo = environment
        tokyo["TZ"] = "Asia/Tokyo"
        #expect(try CLIRunner.run(["history"], environment: tokyo).stdout.contains("2026-06-10 19:00"))
    }

    @Test("a required record of a kind with no default names the command that makes one")
    func createOneFirst() throws {
        let schemas = scratch.url.appendingPathComponent("schemas")
        try FileManager.default.createDirectory(at: schemas, withIntermediateDirectories: true)
        try """
            domain projects

            /// A project.
            indexed entity Project {
                id: UUID
                /// Its name.
                @title @searchable
                title: String
            }

            /// A piece of work in a project.
            indexed entity Job {
                id: UUID
                /// What to do.
                @title @searchable
                title: String
                /// The project it belongs to.
                project: Project
            }

            /// Makes a project.
            intent createProject creates Project {
                title: String
            }

            /// Makes a job.
            intent createJob creates Job {
                title: String
                project: Project?
            }
            """.write(to: schemas.appendingPathComponent("projects.cal"), atomically: true, encoding: .utf8)
        let result = try run(["--schemas", schemas.path, "intent", "run", "createJob", "title=Paint"], expect: 66)
        #expect(result.stderr.contains("there is no project yet to put this job in; create one first: cometcal intent run createProject title=NAME"),
                "\(result.stderr)")
    }
}
