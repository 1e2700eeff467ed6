import Testing
import Foundation
import CometSchema

/// Issue 20, item 3: a whole-store export imported into a new store keeps its calendars, and a
/// vdir (a folder per calendar, a file per event) goes out and back in, and reads in khal.
@Suite("calendars survive export and import: .ics streams and vdirs")
struct CalendarRoundTripTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    /// The environment of another, empty store beside the first.
    func otherStore(_ name: String) -> [String: String] {
        var other = environment
        other["COMETCAL_DB"] = scratch.url.appendingPathComponent("store/\(name).sqlite").path
        return other
    }

    func path(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

    /// Two calendars (made Work first, so that their order in an export is by title, not by
    /// age), a timed event, an all-day one, a weekly series with one occurrence moved, and text
    /// that is not ASCII.
    func fillStore() throws {
        try run(["calendar", "add", "Work", "--color", "#3478F6", "--description", "Büro, Pläne; Termine"])
        try run(["calendar", "add", "Home/Family", "--color", "teal", "--description", "Zuhause"])
        try run(["event", "add", "Réunion d’équipe", "--start", "2026-06-16 10:00", "--end", "2026-06-16 11:30", "--calendar", "Work"])
        try run(["event", "add", "Ferien", "--start", "2026-06-18", "--all-day", "--calendar", "Home/Family"])
        try run(["event", "add", "Yoga", "--start", "2026-06-15 18:00", "--end", "2026-06-15 19:00", "--repeat", "weekly", "--calendar", "Home/Family"])
        try run(["event", "update", "Yoga", "--occurrence", "2026-06-22", "--span", "this", "--start", "2026-06-22 19:00", "--end", "2026-06-22 20:00"])
    }

    func calendars(in environment: [String: String]) throws -> [(title: String, color: String?, description: String?)] {
        let result = try CLIRunner.run(["calendar", "list", "--json"], environment: environment)
        try #require(result.status == 0, "\(result.stderr)")
        guard case .array(let items)? = try JSONParser.parse(result.stdout)["entities"] else { return [] }
        return items.map { ($0["title"]?.stringValue ?? "", $0["color"]?.stringValue, $0["description"]?.stringValue) }
            .sorted { $0.title < $1.title }
    }

    func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    // MARK: One stream of several VCALENDARs

    @Test("a whole-store export is a VCALENDAR per calendar, by title; a new store imports each into its calendar and exports the same bytes")
    func wholeStoreRoundTrip() throws {
        try fillStore()
        try run(["export", "-o", path("all.ics")])
        let exported = try String(contentsOfFile: path("all.ics"), encoding: .utf8)
        #expect(count("BEGIN:VCALENDAR\r\n", in: exported) == 2)
        let home = try #require(exported.range(of: "X-WR-CALNAME:Home/Family\r\n"))
        let work = try #require(exported.range(of: "X-WR-CALNAME:Work\r\n"))
        #expect(home.lowerBound < work.lowerBound, "calendars in title order")
        #expect(exported.contains("COLOR:#3478F6\r\n") && exported.contains("COLOR:teal\r\n"))
        #expect(exported.contains("X-WR-CALDESC:Büro\\, Pläne\\; Termine\r\n"))
        // Each event inside its own calendar's VCALENDAR.
        let homePart = String(exported[home.lowerBound..<work.lowerBound])
        #expect(homePart.contains("SUMMARY:Yoga") && homePart.contains("SUMMARY:Ferien") && !homePart.contains("SUMMARY:Réunion"))
        #expect(String(exported[work.lowerBound...]).contains("SUMMARY:Réunion d’équipe"))

        let fresh = otherStore("fresh")
        let imported = try CLIRunner.run(["import", "--json", path("all.ics")], environment: fresh)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(try JSONParser.parse(imported.stdout)["calendars"] == .array([.string("Home/Family"), .string("Work")]))
        let copied = try calendars(in: fresh)
        #expect(copied.map(\.title) == ["Home/Family", "Work"])
        #expect(copied.map(\.color) == ["teal", "#3478F6"])
        #expect(copied.map(\.description) == ["Zuhause", "Büro, Pläne; Termine"])
        let again = try CLIRunner.run(["export"], environment: fresh)
        #expect(again.status == 0)
        #expect(again.stdout == exported, "the re-export differs")
        // Importing the same stream again changes nothing.
        let twice = try CLIRunner.run(["import", path("all.ics")], environment: fresh)
        #expect(twice.stdout.contains("0 added, 0 updated, 4 unchanged"), "\(twice.stdout)")
    }

    @Test("--calendar still exports exactly one calendar, and forces a whole-store stream into one calendar on import")
    func calendarFlagForcesOne() throws {
        try fillStore()
        let one = try run(["export", "--calendar", "Work"]).stdout
        #expect(count("BEGIN:VCALENDAR\r\n", in: one) == 1)
        #expect(one.contains("X-WR-CALNAME:Work\r\n") && one.contains("SUMMARY:Réunion") && !one.contains("SUMMARY:Yoga"))
        // A selection writes the calendars that hold what it selects.
        let yoga = try run(["export", "--event", "Yoga"]).stdout
        #expect(count("BEGIN:VCALENDAR\r\n", in: yoga) == 1 && yoga.contains("X-WR-CALNAME:Home/Family\r\n"), "\(yoga)")
        try run(["export", "-o", path("all.ics")])
        let fresh = otherStore("forced")
        let imported = try CLIRunner.run(["import", "--json", "--calendar", "Inbox", path("all.ics")], environment: fresh)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try JSONParser.parse(imported.stdout)["calendars"] == .array([.string("Inbox")]))
        #expect(try calendars(in: fresh).map(\.title) == ["Inbox"])
        let inbox = try CLIRunner.run(["export", "--calendar", "Inbox"], environment: fresh).stdout
        #expect(count("BEGIN:VEVENT", in: inbox) == 4)
    }

    @Test("a stream whose second VCALENDAR has a problem imports nothing: neither calendar is made")
    func severalCalendarsAllOrNothing() throws {
        let good = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nX-WR-CALNAME:Alpha\r\nBEGIN:VEVENT\r\nUID:a@t\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260615T100000Z\r\nSUMMARY:A\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let bad = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nNAME:Beta\r\nBEGIN:VEVENT\r\nUID:b@t\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:2026061X\r\nSUMMARY:B\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        try (good + bad).write(toFile: path("two.ics"), atomically: true, encoding: .utf8)
        let refused = try run(["import", path("two.ics")], expect: 65)
        #expect(refused.stdout.contains("Nothing was imported"))
        #expect(try calendars(in: environment).isEmpty)
        try (good + bad.replacingOccurrences(of: "2026061X", with: "20260616")).write(toFile: path("two.ics"), atomically: true, encoding: .utf8)
        let accepted = try run(["import", path("two.ics")])
        #expect(accepted.stdout.contains("Imported into Alpha, Beta: 2 added"), "\(accepted.stdout)")
    }

    // MARK: vdir

    @Test("export --vdir writes a folder per calendar with displayname, color and description, a file per event named by its UID; import DIR gives the same store back")
    func vdirRoundTrip() throws {
        try fillStore()
        try run(["export", "-o", path("all.ics")])
        let exported = try String(contentsOfFile: path("all.ics"), encoding: .utf8)
        let written = try run(["export", "--vdir", path("vdir")])
        #expect(written.stderr.contains("Wrote 2 calendar folders"), "\(written.stderr)")
        // teal is no #RRGGBB: written as it is, and said.
        #expect(written.stderr.contains("warning: calendar 'Home/Family': its colour 'teal' is written to the color file as it is"), "\(written.stderr)")
        let files = FileManager.default
        #expect(try files.contentsOfDirectory(atPath: path("vdir")).sorted() == ["Home%2FFamily", "Work"])
        func text(_ file: String) throws -> String { try String(contentsOfFile: path("vdir/" + file), encoding: .utf8) }
        #expect(try text("Home%2FFamily/displayname") == "Home/Family")
        #expect(try text("Home%2FFamily/color") == "teal")
        #expect(try text("Work/color") == "#3478F6")
        #expect(try text("Work/description") == "Büro, Pläne; Termine")
        let homeItems = try files.contentsOfDirectory(atPath: path("vdir/Home%2FFamily")).filter { $0.hasSuffix(".ics") }
        #expect(homeItems.count == 2, "one file per event, the override with its series: \(homeItems)")
        for item in homeItems {
            let body = try text("Home%2FFamily/" + item)
            let uid = try #require(body.components(separatedBy: "\r\n").first { $0.hasPrefix("UID:") }).dropFirst(4)
            #expect(item == uid + ".ics")
            #expect(count("BEGIN:VCALENDAR", in: body) == 1 && !body.contains("X-WR-CALNAME"))
            if body.contains("SUMMARY:Yoga") { #expect(count("BEGIN:VEVENT", in: body) == 2 && body.contains("RECURRENCE-ID")) }
        }

        let fresh = otherStore("fromvdir")
        let imported = try CLIRunner.run(["import", "--json", path("vdir")], environment: fresh)
        #expect(imported.status == 0, "\(imported.stdout)\(imported.stderr)")
        #expect(try JSONParser.parse(imported.stdout)["calendars"] == .array([.string("Home/Family"), .string("Work")]))
        let again = try CLIRunner.run(["export"], environment: fresh)
        #expect(again.stdout == exported, "the export after a vdir round trip differs")
    }

    @Test("a calendar with no events is not in an .ics export, and is an empty folder (with its displayname) in a vdir, made again by its import")
    func emptyCalendar() throws {
        try run(["calendar", "add", "Work"])
        try run(["calendar", "add", "Leer"])
        try run(["event", "add", "Plan", "--start", "2026-06-16 10:00", "--calendar", "Work"])
        let exported = try run(["export"]).stdout
        #expect(count("BEGIN:VCALENDAR", in: exported) == 1 && !exported.contains("Leer"))
        try run(["export", "--vdir", path("vdir")])
        #expect(try FileManager.default.contentsOfDirectory(atPath: path("vdir/Leer")) == ["displayname"])
        let fresh = otherStore("empty")
        #expect(try CLIRunner.run(["import", path("vdir")], environment: fresh).status == 0)
        #expect(try calendars(in: fresh).map(\.title) == ["Leer", "Work"])
    }

    @Test("calendar properties a vdir folder cannot hold (a kept X- property) are named in a warning on export --vdir")
    func vdirSaysWhatItLeavesOut() throws {
        let file = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nX-WR-CALNAME:Club\r\nX-CLUB-ID:42\r\nBEGIN:VEVENT\r\nUID:c@t\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260615T100000Z\r\nSUMMARY:C\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        try file.write(toFile: path("club.ics"), atomically: true, encoding: .utf8)
        try run(["import", path("club.ics")])
        let written = try run(["export", "--vdir", path("vdir")])
        #expect(written.stderr.contains("warning: calendar 'Club': its kept calendar properties cannot go into a vdir"), "\(written.stderr)")
    }

    @Test("a vdir folder without a displayname file is named after the folder; stray files are ignored with a warning each")
    func vdirFolderNames() throws {
        let item = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nX-WR-CALNAME:Elsewhere\r\nBEGIN:VEVENT\r\nUID:x@t\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260615T100000Z\r\nSUMMARY:X\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let folder = scratch.url.appendingPathComponent("tree/sport")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try item.write(to: folder.appendingPathComponent("x@t.ics"), atomically: true, encoding: .utf8)
        try "notes".write(to: folder.appendingPathComponent("README"), atomically: true, encoding: .utf8)
        try "loose".write(to: scratch.url.appendingPathComponent("tree/loose.txt"), atomically: true, encoding: .utf8)
        let result = try run(["import", path("tree")])
        #expect(result.stdout.contains("Imported into sport: 1 added"), "the folder names it, not the file's X-WR-CALNAME: \(result.stdout)")
        #expect(result.stderr.contains("tree/sport/README: warning: not a .ics file or a metadata file"), "\(result.stderr)")
        #expect(result.stderr.contains("tree/loose.txt: warning: not in a calendar folder"), "\(result.stderr)")
    }

    @Test("export --vdir refuses a folder that is not empty, a file, and other selections; import refuses a folder with no calendar folders")
    func vdirRefusals() throws {
        try fillStore()
        let full = scratch.url.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        try "mine".write(to: full.appendingPathComponent("keep.txt"), atomically: true, encoding: .utf8)
        let notEmpty = try run(["export", "--vdir", full.path], expect: 74)
        #expect(notEmpty.stderr.contains("is not empty") && notEmpty.stderr.contains("nothing was written"), "\(notEmpty.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: full.path) == ["keep.txt"])
        try "x".write(toFile: path("afile"), atomically: true, encoding: .utf8)
        let onFile = try run(["export", "--vdir", path("afile")], expect: 74)
        #expect(onFile.stderr.contains("exists and is not a folder"), "\(onFile.stderr)")
        let combined = try run(["export", "--vdir", path("new"), "--calendar", "Work"], expect: 64)
        #expect(combined.stderr.contains("cannot be combined with --calendar"))
        let withOutput = try run(["export", "--vdir", path("new"), "-o", path("x.ics")], expect: 64)
        #expect(withOutput.stderr.contains("cannot be combined with --output"))
        #expect(!FileManager.default.fileExists(atPath: path("new")))
        let noParent = try run(["export", "--vdir", path("missing/parent")], expect: 74)
        #expect(noParent.stderr.hasPrefix("error: cannot write the vdir"), "\(noParent.stderr)")

        // An empty folder is fine for export (and then holds the vdir).
        let empty = scratch.url.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try run(["export", "--vdir", empty.path])
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty.path).count == 2)

        let none = scratch.url.appendingPathComponent("none")
        try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
        let nothing = try run(["import", none.path], expect: 66)
        #expect(nothing.stderr.contains("holds no calendar folders"), "\(nothing.stderr)")
        // One calendar's folder given instead of the vdir: said so.
        let single = try run(["import", empty.appendingPathComponent("Work").path], expect: 66)
        #expect(single.stderr.contains("as one calendar's folder does"), "\(single.stderr)")
    }

    @Test("through the daemon (--connect), import DIR and export --vdir give the same tree as locally")
    func vdirThroughDaemon() throws {
        try fillStore()
        try run(["export", "--vdir", path("local")])
        let clock = ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"]
        let daemon = try DaemonHarness(environment: clock)
        let imported = try CLIRunner.run(["--connect", daemon.socket, "import", path("local")], environment: clock)
        #expect(imported.status == 0 && imported.stdout.contains("Imported into Home/Family, Work: 4 added"), "\(imported.stdout)\(imported.stderr)")
        let exported = try CLIRunner.run(["--connect", daemon.socket, "export", "--vdir", path("remote")], environment: clock)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("its colour 'teal' is written to the color file as it is"))
        func tree(_ root: String) throws -> [String: String] {
            var files: [String: String] = [:]
            for folder in try FileManager.default.contentsOfDirectory(atPath: path(root)) {
                for file in try FileManager.default.contentsOfDirectory(atPath: path("\(root)/\(folder)")) {
                    files["\(folder)/\(file)"] = try String(contentsOfFile: path("\(root)/\(folder)/\(file)"), encoding: .utf8)
                }
            }
            return files
        }
        let local = try tree("local")
        #expect(local.count == 9)
        #expect(try tree("remote") == local)
    }

    // MARK: khal

    @Test("khal (PyPI) lists the same events from an exported vdir as CometCal's agenda, and the vdir imports back to the same bytes")
    func khalReadsTheVdir() throws {
        try fillStore()
        try run(["export", "--vdir", path("vdir")])
        let config = """
        [calendars]
        [[vdir]]
        path = \(path("vdir"))/*
        type = discover
        [locale]
        timeformat = %H:%M
        dateformat = %Y-%m-%d
        longdateformat = %Y-%m-%d
        datetimeformat = %Y-%m-%d %H:%M
        longdatetimeformat = %Y-%m-%d %H:%M
        local_timezone = Europe/Berlin
        default_timezone = Europe/Berlin
        [default]
        default_calendar = Work
        [sqlite]
        path = \(path("khal.db"))

        """
        try config.write(toFile: path("khal.conf"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["khal", "-c", path("khal.conf"), "list", "2026-06-14", "2026-06-30", "--day-format", "",
                             "--format", "{start-date}|{start-time}|{end-time}|{title}|{calendar}"]
        var khalEnvironment = ProcessInfo.processInfo.environment
        khalEnvironment["TZ"] = "Europe/Berlin"
        process.environment = khalEnvironment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let listed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "khal failed (run scripts/bootstrap to install it): \(complaints)")
        let khalLines = listed.split(separator: "\n").map(String.init).filter { !$0.isEmpty }

        // CometCal's agenda for the same days, in the same shape.
        let agenda = try json(["agenda", "--from", "2026-06-14", "--to", "2026-07-01"])
        guard case .array(let occurrences)? = agenda["occurrences"], case .array(let entities)? = agenda["entities"] else {
            Issue.record("no occurrences in the agenda")
            return
        }
        var allDay: [String: Bool] = [:]
        var calendarOf: [String: String] = [:]
        for entity in entities { allDay[entity["id"]?.stringValue ?? ""] = entity["isAllDay"] == .bool(true) }
        let listedCalendars = try JSONParser.parse(try run(["calendar", "list", "--json"]).stdout)
        var titles: [String: String] = [:]
        if case .array(let items)? = listedCalendars["entities"] {
            for item in items { titles[item["id"]?.stringValue ?? ""] = item["title"]?.stringValue }
        }
        for entity in entities { calendarOf[entity["id"]?.stringValue ?? ""] = titles[entity["calendar"]?.stringValue ?? ""] }
        let ours: [String] = occurrences.map { occurrence in
            let id = occurrence["id"]?.stringValue ?? ""
            let start = occurrence["start"]?.stringValue ?? ""
            let end = occurrence["end"]?.stringValue ?? ""
            let time: (String) -> String = { allDay[id] == true ? "" : String($0.dropFirst(11).prefix(5)) }
            return "\(start.prefix(10))|\(time(start))|\(time(end))|\(occurrence["title"]?.stringValue ?? "")|\(calendarOf[id] ?? "?")"
        }
        #expect(ours.count == 5, "\(ours)")
        #expect(khalLines == ours, "khal: \(khalLines)\nCometCal: \(ours)")
        #expect(khalLines.contains("2026-06-22|19:00|20:00|Yoga|Home/Family"), "the moved occurrence: \(khalLines)")
        #expect(khalLines.contains("2026-06-16|10:00|11:30|Réunion d’équipe|Work"))

        // Back into a new store: the same bytes as the first store's export.
        let fresh = otherStore("khal")
        #expect(try CLIRunner.run(["import", path("vdir")], environment: fresh).status == 0)
        #expect(try CLIRunner.run(["export"], environment: fresh).stdout == run(["export"]).stdout)
    }
}
