import Testing
import Foundation
import CometSchema

/// The calendar CLI end to end, as a person or a script uses it: a fresh store per test, a fixed
/// clock and zone, no terminal (so confirmations need --yes).
@Suite("cometcal events")
struct EventCommandTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func seed() throws {
        try run(["calendar", "add", "Lunar Orbit Log"])
        try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00", "--end", "2026-06-13 15:00", "--location", "Tempelhofer Feld", "--note", "bring chocolate cake"])
    }

    @Test("a name given as the argument is spoken of without a flag the person did not type; given with --event, with the flag")
    func argumentNotFlag() throws {
        try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00"])
        for command in [["event", "show", "zzzz"], ["event", "delete", "zzzz", "--yes"], ["event", "update", "zzzz", "--title", "X"]] {
            let result = try run(command, expect: 66)
            #expect(result.stderr == "error: no event matches 'zzzz'\n", "\(command): \(result.stderr)")
        }
        #expect(try run(["event", "update", "--event", "zzzz", "--title", "X"], expect: 66).stderr == "error: --event: no event matches 'zzzz'\n")
    }

    @Test("an update's --start +1d shifts the event from its own start (one occurrence from its own); a new event's counts from now")
    func relativeStart() throws {
        try run(["event", "add", "Dentist", "--start", "2026-12-08 15:00", "--end", "+1h"])
        try run(["event", "update", "Dentist", "--start", "+1d", "--yes"])
        #expect(try json(["event", "show", "Dentist"])["entity"]?["startDate"] == "2026-12-09T15:00:00+01:00[Europe/Berlin]")
        try run(["event", "update", "Dentist", "--start", "-30m", "--yes"])
        let moved = try json(["event", "show", "Dentist"])["entity"]
        #expect(moved?["startDate"] == "2026-12-09T14:30:00+01:00[Europe/Berlin]")
        #expect(moved?["endDate"] == "2026-12-09T15:30:00+01:00[Europe/Berlin]", "the length is kept")
        try run(["event", "add", "Standup", "--start", "2026-12-07 09:30", "--end", "+15m", "--repeat", "weekly"])
        try run(["event", "update", "Standup", "--span", "this", "--occurrence", "2026-12-14 09:30", "--start", "+1h", "--yes"])
        let agenda = try run(["agenda", "--from", "2026-12-07", "--days", "15"]).stdout
        #expect(agenda.contains("Monday, December 14, 2026\n  10:30–10:45  Standup"), "\(agenda)")
        #expect(agenda.contains("Monday, December 21, 2026\n  09:30–09:45  Standup"), "\(agenda)")
        // COMETCAL_NOW is 2026-06-10T10:00:00Z (12:00 in Berlin): a create's +2h is from then.
        try run(["event", "add", "Call", "--start", "+2h"])
        #expect(try json(["event", "show", "Call"])["entity"]?["startDate"] == "2026-06-10T14:00:00+02:00[Europe/Berlin]")
    }

    @Test("after a “this and future” split, a name with an occurrence means the series that has it (a day alone is enough)")
    func occurrenceNarrowsName() throws {
        try run(["event", "add", "Yoga", "--start", "2026-12-02 18:00", "--end", "+1h", "--repeat", "weekly"])
        try run(["event", "update", "Yoga", "--span", "future", "--occurrence", "2026-12-16 18:00", "--location", "Studio", "--yes"])
        let early = try run(["event", "delete", "Yoga", "--span", "this", "--occurrence", "2026-12-09", "--yes"])
        #expect(early.stdout.hasPrefix("Deleted “Yoga” (only the occurrence on Wed Dec 9 18:00)."), "\(early.stdout)")
        let late = try run(["event", "delete", "Yoga", "--span", "this", "--occurrence", "2026-12-23 18:00", "--yes"])
        #expect(late.stdout.hasPrefix("Deleted “Yoga” (only the occurrence on Wed Dec 23 18:00)."), "\(late.stdout)")
        let agenda = try run(["agenda", "--from", "2026-12-01", "--days", "31"]).stdout
        #expect(agenda.components(separatedBy: "Yoga").count - 1 == 3, "Dec 2, 16 and 30 are left: \(agenda)")
        // Without an occurrence the name still matches both, and says so.
        let both = try run(["event", "delete", "Yoga", "--span", "all", "--yes"], expect: 65)
        #expect(both.stderr.hasPrefix("error: 'Yoga' matches 2 events:"), "\(both.stderr)")
    }

    @Test("--time-zone reads the times given with it as wall times in that zone; alone on update it keeps the moment")
    func timeZoneReadsWallTime() throws {
        try run(["event", "add", "Call", "--start", "2026-12-08 10:00", "--end", "+1h", "--time-zone", "America/New_York"])
        let call = try json(["event", "show", "Call"])["entity"]
        #expect(call?["startDate"] == "2026-12-08T10:00:00-05:00[America/New_York]", "10:00 in New York, not 10:00 Berlin re-expressed")
        #expect(call?["endDate"] == "2026-12-08T11:00:00-05:00[America/New_York]")
        try run(["event", "update", "Call", "--start", "2026-12-09 09:00", "--time-zone", "Europe/London", "--yes"])
        #expect(try json(["event", "show", "Call"])["entity"]?["startDate"] == "2026-12-09T09:00:00+00:00[Europe/London]")
        // A zone alone moves nothing: the same moment, shown on another clock.
        try run(["event", "update", "Call", "--time-zone", "Asia/Tokyo", "--yes"])
        #expect(try json(["event", "show", "Call"])["entity"]?["startDate"] == "2026-12-09T18:00:00+09:00[Asia/Tokyo]")
        // A time that names its own zone keeps it.
        try run(["event", "add", "Fixed", "--start", "2026-12-08T10:00:00Z", "--time-zone", "America/New_York"])
        #expect(try json(["event", "show", "Fixed"])["entity"]?["startDate"] == "2026-12-08T05:00:00-05:00[America/New_York]")
    }

    @Test("an occurrence changed on its own keeps its ↻ in the agenda, and the history says which occurrence was deleted")
    func oneOccurrenceSaid() throws {
        try run(["event", "add", "Standup", "--start", "2026-12-07 09:30", "--end", "+15m", "--repeat", "weekly"])
        try run(["event", "update", "Standup", "--span", "this", "--occurrence", "2026-12-14 09:30", "--location", "Room 2", "--yes"])
        try run(["event", "delete", "Standup", "--span", "this", "--occurrence", "2026-12-21 09:30", "--yes"])
        let agenda = try run(["agenda", "--from", "2026-12-07", "--days", "14"]).stdout
        #expect(agenda.contains("Monday, December 14, 2026\n  09:30–09:45  Standup ↻  Calendar · Room 2"), "\(agenda)")
        let history = try run(["history"]).stdout
        #expect(history.contains("Deleted event “Standup” (only the occurrence on Mon Dec 21 09:30)"), "\(history)")
    }

    @Test("asked which occurrence, the answer names the next three of the series")
    func occurrencePromptNamesSome() throws {
        try run(["event", "add", "Swim", "--start", "2026-06-11 07:00", "--end", "+1h", "--repeat", "weekly"])
        let asked = try run(["event", "delete", "Swim", "--span", "this"], expect: 64)
        #expect(asked.stderr.hasPrefix("error: What occurrence should I use? The next ones are Thu Jun 11 07:00, Thu Jun 18 07:00 and Thu Jun 25 07:00."), "\(asked.stderr)")
    }

    @Test("--location sets, --clear location clears, and no flag leaves the location alone")
    func updateSemantics() throws {
        try seed()
        var event = try json(["event", "update", "Picnic", "--location", "Lab 3"])
        #expect(event["entity"]?["location"] == ["text": "Lab 3"])
        event = try json(["event", "update", "Picnic", "--title", "Crew picnic"])
        #expect(event["entity"]?["location"] == ["text": "Lab 3"], "an unset parameter must leave the location")
        #expect(event["entity"]?["title"] == "Crew picnic")
        event = try json(["event", "update", "Crew picnic", "--clear", "location"])
        #expect(event["entity"]?["location"] == nil)
        #expect(event["entity"]?["note"] == "bring chocolate cake")
    }

    @Test("intent run updateEvent takes the same three forms: key=value, --clear key, and absent")
    func intentRunSemantics() throws {
        try seed()
        var event = try json(["intent", "run", "updateEvent", "event=Picnic", "location=Lab 3"])
        #expect(event["entity"]?["location"] == ["text": "Lab 3"])
        event = try json(["intent", "run", "updateEvent", "event=Picnic", "note=bring cake and blankets"])
        #expect(event["entity"]?["location"] == ["text": "Lab 3"])
        event = try json(["intent", "run", "updateEvent", "event=Picnic", "--clear", "location"])
        #expect(event["entity"]?["location"] == nil)
        #expect(event["entity"]?["note"] == "bring cake and blankets")
    }

    @Test("a weekly event edited with span this, future and all, shown by agenda")
    func spans() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Standup", "--start", "2026-06-01 09:00", "--end", "2026-06-01 09:15", "--repeat", "weekly"])
        let missingSpan = try run(["event", "update", "Standup", "--location", "Room 2"], expect: 64)
        #expect(missingSpan.stderr.contains("--span this|future|all"))
        try run(["event", "update", "Standup", "--span", "this", "--occurrence", "2026-06-08 09:00", "--start", "2026-06-08 11:00"])
        try run(["event", "update", "Standup", "--span", "all", "--location", "Room 2"])
        try run(["event", "update", "Standup", "--span", "future", "--occurrence", "2026-06-22 09:00", "--start", "2026-06-22 10:00"])
        let agenda = try run(["agenda", "--from", "2026-06-01", "--to", "2026-07-01"]).stdout
        #expect(agenda.contains("Monday, June 1, 2026\n  09:00–09:15  Standup ↻  Work · Room 2"))
        #expect(agenda.contains("Monday, June 8, 2026\n  11:00–11:15  Standup ↻  Work · Room 2"), "the override gets the series-wide location too, and is marked as one of the series\n\(agenda)")
        #expect(agenda.contains("Monday, June 15, 2026\n  09:00–09:15  Standup ↻  Work · Room 2"))
        #expect(agenda.contains("Monday, June 22, 2026\n  10:00–10:15  Standup ↻  Work · Room 2"))
        #expect(agenda.contains("Monday, June 29, 2026\n  10:00–10:15  Standup ↻  Work · Room 2"))
        // After the split, the name means two series: the person is asked which.
        let ambiguous = try run(["event", "update", "Standup", "--span", "all", "--note", "x"], expect: 65)
        #expect(ambiguous.stderr.contains("until 2026-06-22"))
    }

    @Test("across a DST change a weekly event keeps its wall-clock time")
    func daylightSaving() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Choir", "--start", "2026-10-14 19:00", "--end", "2026-10-14 21:00", "--repeat", "weekly"])
        let agenda = try run(["agenda", "--from", "2026-10-20", "--to", "2026-11-05"]).stdout
        #expect(agenda.contains("Wednesday, October 21, 2026\n  19:00–21:00  Choir ↻"))
        #expect(agenda.contains("Wednesday, October 28, 2026\n  19:00–21:00  Choir ↻"), "after the change back to CET\n\(agenda)")
        let utc = try json(["agenda", "--from", "2026-10-20", "--to", "2026-11-05"])
        guard case .array(let occurrences)? = utc["occurrences"] else {
            Issue.record("no occurrences")
            return
        }
        let starts = occurrences.compactMap { $0["start"]?.stringValue }
        #expect(starts == ["2026-10-21T19:00:00+02:00[Europe/Berlin]", "2026-10-28T19:00:00+01:00[Europe/Berlin]", "2026-11-04T19:00:00+01:00[Europe/Berlin]"])
    }

    @Test("delete asks for confirmation, and undo brings the event back identical")
    func deleteAndUndo() throws {
        try seed()
        try run(["event", "update", "Picnic", "--attendee", "Ada <ada@example.org>", "--alarm", "-1h", "--yes"])
        let before = try json(["event", "show", "Picnic"])["entity"]
        let refused = try run(["event", "delete", "Picnic"], expect: 64)
        #expect(refused.stderr.contains("Delete “Picnic”"))
        #expect(refused.stderr.contains("--yes"))
        let unchanged = try json(["event", "show", "Picnic"])["entity"]
        #expect(unchanged == before, "nothing is deleted without confirmation")
        try run(["event", "delete", "Picnic", "--yes"])
        try run(["event", "show", "Picnic"], expect: 66)
        try run(["undo"])
        let restored = try json(["event", "show", "Picnic"])["entity"]
        #expect(restored == before)
        try run(["redo"])
        try run(["event", "show", "Picnic"], expect: 66)
    }

    @Test("an ambiguous name lists the candidates and exits non-zero")
    func ambiguousName() throws {
        try seed()
        try run(["event", "add", "Launch party", "--start", "2026-06-20 18:00"])
        try run(["event", "add", "Retirement party", "--start", "2026-06-27 18:00"])
        let result = try run(["event", "delete", "party", "--yes"], expect: 65)
        #expect(result.stderr.contains("Launch party"))
        #expect(result.stderr.contains("Retirement party"))
        #expect(result.stderr.contains("Sat Jun 20 18:00"))
    }

    @Test("bad input gets a clear error and writes nothing", arguments: [
        (["event", "update", "Picnic", "--clear", "locaton"], Int32(64), "Did you mean 'location'?"),
        (["event", "update", "Picnic", "--clear", "title"], 65, "every event needs a title, so it cannot be cleared"),
        (["event", "update", "Picnic", "--end", "2026-06-13 10:00"], 65, "before the start"),
        (["event", "update", "Picnic", "--time-zone", "Mars/Olympus"], 65, "unknown time zone 'Mars/Olympus'"),
        (["event", "update", "Picnic", "--repeat", "FREQ=WEEKLY;BYDAY=MO,XX"], 64, "BYDAY=MO,XX"),
        (["event", "update", "Picnic", "--start", "next blursday"], 64, "is not a date and time"),
        (["event", "show", "00000000-0000-0000-0000-000000000000"], 66, "no event has the id"),
        (["event", "update", "Picnic", "--titel", "x"], 64, "Did you mean '--title'?"),
    ])
    func badInput(arguments: [String], status: Int32, message: String) throws {
        try seed()
        let before = try json(["event", "show", "Picnic"])["entity"]
        let result = try run(arguments, expect: status)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        let after = try json(["event", "show", "Picnic"])["entity"]
        #expect(after == before)
    }

    /// The folder here is the test's (a given path's folder must exist); the default
    /// location's folder, which cometcal makes, is checked in StorePathTests.
    @Test("the store is private to its owner")
    func storePermissions() throws {
        try seed()
        let store = directory.appendingPathComponent("store")
        let fileMode = try FileManager.default.attributesOfItem(atPath: store.appendingPathComponent("cal.sqlite").path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
    }

    @Test("search finds words in notes, ignoring case and accents")
    func search() throws {
        try seed()
        try run(["event", "add", "Café meetup", "--start", "2026-06-16 10:00"])
        let chocolate = try run(["search", "CHOCOLATE"]).stdout
        let cafe = try run(["search", "cafe"]).stdout
        #expect(chocolate.contains("Picnic"))
        #expect(cafe.contains("Café meetup"))
    }
}

@Suite("cometcal with the tasks domain")
struct TasksDomainTests {
    @Test("tasks are created, updated with cleared fields, listed, searched and deleted with no Swift code of their own")
    func tasksDomain() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ["COMETCAL_DB": directory.appendingPathComponent("tasks.sqlite").path, "TZ": "UTC"]
        func run(_ arguments: [String], expect status: Int32 = 0) throws -> CLIResult {
            let result = try CLIRunner.run(["--schemas", "Examples/Schemas"] + arguments, environment: environment)
            #expect(result.status == status, "\(arguments) → \(result.stderr)")
            return result
        }
        let created = try JSONParser.parse(try run(["intent", "run", "createTask", "title=Buy chocolate cake", "priority=high", "dueDate=2026-06-13 17:00", "notes=For the picnic", "--json"]).stdout)
        #expect(created["entity"]?["priority"] == "high")
        #expect(created["entity"]?["done"] == false, "the schema default fills 'done'")
        _ = try run(["intent", "run", "createTask", "title=Book the observatory"])
        let updated = try JSONParser.parse(try run(["intent", "run", "updateTask", "task=cake", "done=yes", "--clear", "notes", "--clear", "priority", "--json"]).stdout)
        #expect(updated["entity"]?["done"] == true)
        #expect(updated["entity"]?["notes"] == nil)
        #expect(updated["entity"]?["priority"] == "normal", "clearing a property with a default resets it")
        #expect(updated["entity"]?["dueDate"] == "2026-06-13T17:00:00Z", "unset leaves the due date")
        let listed = try run(["intent", "run", "searchTasks"]).stdout
        #expect(listed.contains("Buy chocolate cake") && listed.contains("Book the observatory"))
        let found = try run(["intent", "run", "searchTasks", "text=observ"]).stdout
        #expect(found.contains("Book the observatory"))
        _ = try run(["intent", "run", "deleteTask", "task=observatory", "--yes"])
        let remaining = try run(["intent", "run", "searchTasks"]).stdout
        #expect(!remaining.contains("observatory"))
        let typo = try run(["intent", "run", "updateTask", "task=cake", "prio=low"], expect: 64)
        #expect(typo.stderr.contains("Did you mean 'priority'?"))
    }
}
