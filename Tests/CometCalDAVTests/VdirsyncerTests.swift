import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents
import CometConversation

/// vdirsyncer 0.21.0 and khal 0.14.1 (from PyPI, installed by scripts/bootstrap) on one calendar
/// of a `LiveServer`: vdirsyncer pairs a local vdir ("a") with the server's calendar ("b"), and
/// khal reads the vdir. Their configurations, vdirsyncer's status and khal's database are in a
/// scratch folder inside the server's, which goes when the server does; $HOME and the XDG
/// folders point into it too, so nothing is read from or written to the real ones.
final class VdirPair {
    static let calendarName = "comet"
    let server: LiveServer
    let folder: URL
    let vdir: URL
    let calendar: CalendarCollection
    /// What the last run wrote to its standard error.
    private(set) var lastComplaints = ""
    /// A vdirsyncer or khal run that takes longer than this is stopped and fails the test.
    let timeout: TimeInterval = 60

    /// How vdirsyncer is told where the calendar is.
    enum Remote {
        /// The calendar's own URL, with `collections = null`.
        case calendarURL
        /// The server's root URL only, with `collections = ["from a", "from b"]`: vdirsyncer
        /// finds the calendars (through /.well-known/caldav and the principal) and makes a vdir
        /// per calendar, and a calendar per vdir of its own (khal's "personal").
        case discovered
    }

    init(server: LiveServer, conflictResolution: String, remote: Remote = .calendarURL) throws {
        self.server = server
        folder = server.folder.appendingPathComponent("vdir-pair")
        let local = folder.appendingPathComponent("vdir")
        vdir = remote == .calendarURL ? local : local.appendingPathComponent(Self.calendarName)
        for name in ["vdir", "status", "home"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let created = try server.send("MKCALENDAR", "/dav/calendars/alice/\(Self.calendarName)/", body:
            "<C:mkcalendar xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:set><D:prop><D:displayname>Comet</D:displayname></D:prop></D:set></C:mkcalendar>")
        try #require(created.status == 201, "MKCALENDAR: \(created.status) \(created.body)")
        calendar = try #require(try server.engine.calendarCollections().first { $0.title == "Comet" })
        let vdirsyncer = """
        [general]
        status_path = "\(folder.appendingPathComponent("status").path)/"

        [pair comet]
        a = "comet_local"
        b = "comet_remote"
        collections = \(remote == .calendarURL ? "null" : "[\"from a\", \"from b\"]")
        conflict_resolution = "\(conflictResolution)"

        [storage comet_local]
        type = "filesystem"
        path = "\(local.path)/"
        fileext = ".ics"

        [storage comet_remote]
        type = "caldav"
        url = "http://127.0.0.1:\(server.server.port)/\(remote == .calendarURL ? "dav/calendars/alice/\(Self.calendarName)/" : "")"
        username = "alice"
        password = "secret"

        """
        try vdirsyncer.write(to: folder.appendingPathComponent("vdirsyncer.conf"), atomically: true, encoding: .utf8)
        let khal = """
        [calendars]
        [[comet]]
        path = \(vdir.path)
        \(remote == .calendarURL ? "" : "[[personal]]\npath = \(local.appendingPathComponent("personal").path)")
        [locale]
        timeformat = %H:%M
        dateformat = %Y-%m-%d
        longdateformat = %Y-%m-%d
        datetimeformat = %Y-%m-%d %H:%M
        longdatetimeformat = %Y-%m-%d %H:%M
        local_timezone = Europe/Berlin
        default_timezone = Europe/Berlin
        [default]
        default_calendar = comet
        [sqlite]
        path = \(folder.appendingPathComponent("khal.db").path)

        """
        try khal.write(to: folder.appendingPathComponent("khal.conf"), atomically: true, encoding: .utf8)
    }

    /// `vdirsyncer sync` (after `discover`, which it asks for the first time; discover's question
    /// whether to make the vdir of a calendar found on the server is answered yes).
    func sync() throws {
        try run(["vdirsyncer", "--config", folder.appendingPathComponent("vdirsyncer.conf").path, "discover"],
                answers: String(repeating: "y\n", count: 10))
        try run(["vdirsyncer", "--config", folder.appendingPathComponent("vdirsyncer.conf").path, "sync"])
    }

    /// `khal new` with its arguments, on the calendar of the pair unless told another.
    func khalNew(_ arguments: [String], calendar: String = VdirPair.calendarName) throws {
        try run(["khal", "-c", folder.appendingPathComponent("khal.conf").path, "new", "-a", calendar] + arguments)
    }

    /// What `khal list` shows of a day, one "start|end|title" line per event.
    func khalList(_ day: String) throws -> [String] {
        try run(["khal", "-c", folder.appendingPathComponent("khal.conf").path, "list", day, "1d", "--day-format", "",
                 "--format", "{start-time}|{end-time}|{title}"])
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// The files of the vdir (what khal reads), by name.
    func vdirFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: vdir.path).filter { $0.hasSuffix(".ics") }.sorted()
    }

    /// The calendar's resources as CometCal stores them: name and text.
    func serverTexts() throws -> [(name: String, text: String)] {
        let names = try server.engine.resources(in: calendar.id).map(\.name)
        return try server.engine.resourceTexts(in: calendar.id, named: names).map { ($0.resource.name, $0.text) }
    }

    /// Runs a tool with its output in files (no pipe to fill up), stopped after `timeout`.
    @discardableResult
    func run(_ arguments: [String], answers: String = "") throws -> String {
        let input = folder.appendingPathComponent("input")
        try Data(answers.utf8).write(to: input)
        let output = folder.appendingPathComponent("output")
        let errors = folder.appendingPathComponent("errors")
        try Data().write(to: output)
        try Data().write(to: errors)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // pyenv's shims find their root through HOME; keep it before HOME moves.
        if environment["PYENV_ROOT"] == nil, let home = environment["HOME"],
           FileManager.default.fileExists(atPath: home + "/.pyenv") {
            environment["PYENV_ROOT"] = home + "/.pyenv"
        }
        let home = folder.appendingPathComponent("home").path
        environment["HOME"] = home
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment["XDG_DATA_HOME"] = home + "/.local/share"
        environment["XDG_CACHE_HOME"] = home + "/.cache"
        environment["TZ"] = "Europe/Berlin"
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let timedOut = process.isRunning
        if timedOut {
            process.terminate()
            process.waitUntilExit()
        }
        process.waitUntilExit()
        let printed = try String(contentsOf: output, encoding: .utf8)
        let complaints = try String(contentsOf: errors, encoding: .utf8)
        lastComplaints = complaints
        if timedOut {
            throw LiveServer.Failure(description: "\(arguments.joined(separator: " ")) took over \(Int(timeout)) s and was stopped: \(complaints.suffix(3000))")
        }
        guard process.terminationStatus == 0 else {
            // env answers 127 when it finds no such program.
            let hint = process.terminationStatus == 127 ? " (scripts/bootstrap installs it)" : ""
            throw LiveServer.Failure(description: "\(arguments.joined(separator: " ")) exited \(process.terminationStatus)\(hint): \(printed.suffix(1500)) \(complaints.suffix(3000))")
        }
        return printed
    }
}

@Suite("vdirsyncer and khal against the CalDAV server", .serialized)
struct VdirsyncerTests {
    /// The day the tests' events are on; the conversation's clock is fixed two days before it, so
    /// "on march 18" and "to 3pm" mean the same whenever the tests run.
    static let day = "2027-03-10"

    /// A conversation whose "now" is two days before the events, in the server's time zone.
    static func conversation(on engine: IntentEngine) throws -> Conversation {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let date = try #require(CalendarDate(year: 2027, month: 3, day: 8))
        let now = try #require(LocalDateTime(date: date, hour: 9, minute: 0)?.dateTime(in: zone).instant)
        return Conversation(engine: engine, now: now, timeZone: zone)
    }

    @Test("an event made with `khal new` reaches CometCal by `vdirsyncer sync`; moved by conversation in CometCal, the next sync shows the new time in `khal list`")
    func khalToCometCalAndBack() throws {
        let server = try LiveServer()
        let pair = try VdirPair(server: server, conflictResolution: "a wins")
        try pair.khalNew([Self.day, "10:00", "11:00", "Comet review"])
        #expect(try pair.khalList(Self.day) == ["10:00|11:00|Comet review"])
        try pair.sync()
        let stored = try pair.serverTexts()
        try #require(stored.count == 1, "\(stored.map(\.name))")
        #expect(stored[0].text.contains("SUMMARY:Comet review\r\n"))
        #expect(stored[0].text.contains("DTSTART;TZID=Europe/Berlin:20270310T100000\r\n"), "\(stored[0].text)")

        // A sync with nothing changed on either side writes nothing in CometCal.
        let journal = try server.engine.history(limit: 1_000).count
        try pair.sync()
        #expect(try server.engine.history(limit: 1_000).count == journal)

        let turn = try Self.conversation(on: server.engine).say("move the comet review to 3pm")
        #expect(turn.outcome == .done, "\(turn.reply)")
        try pair.sync()
        #expect(try pair.khalList(Self.day) == ["15:00|16:00|Comet review"])
        #expect(try pair.vdirFiles().count == 1)
        #expect(try pair.serverTexts().count == 1)
    }

    @Test("a weekly series made with `khal new -r weekly`: one occurrence moved by conversation in CometCal arrives in the same vdir file, and `khal list` shows it moved and the others where they were")
    func seriesWithAnOverride() throws {
        let server = try LiveServer()
        let pair = try VdirPair(server: server, conflictResolution: "a wins")
        try pair.khalNew(["-r", "weekly", "2027-03-11", "10:00", "11:00", "Weekly sync"])
        try pair.sync()
        try #require(try pair.serverTexts().first?.text.contains("RRULE:FREQ=WEEKLY") == true)
        let conversation = try Self.conversation(on: server.engine)
        let asked = conversation.say("move the weekly sync on march 18 to 2pm")
        #expect(asked.outcome == .needsValue(parameter: "span"), "\(asked.reply)")
        let moved = conversation.say("just this one")
        #expect(moved.outcome == .done, "\(moved.reply)")
        try pair.sync()
        #expect(try pair.vdirFiles().count == 1)
        #expect(try pair.khalList("2027-03-11") == ["10:00|11:00|Weekly sync"])
        #expect(try pair.khalList("2027-03-18") == ["14:00|15:00|Weekly sync"])
        #expect(try pair.khalList("2027-03-25") == ["10:00|11:00|Weekly sync"])
    }

    @Test("given the server's root URL only and collections from both sides, vdirsyncer makes a vdir per calendar of the server and a calendar in CometCal for a vdir of khal's own, and syncs both ways")
    func discovery() throws {
        let server = try LiveServer()
        let pair = try VdirPair(server: server, conflictResolution: "a wins", remote: .discovered)
        // A vdir of khal's own, which the server does not have yet.
        let local = pair.vdir.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: local.appendingPathComponent("personal"), withIntermediateDirectories: true)
        try pair.khalNew([Self.day, "18:00", "19:00", "Dentist"], calendar: "personal")
        try pair.sync()
        // A vdir per collection of the calendar home: the calendar, and the to-dos' collection.
        let made = try FileManager.default.contentsOfDirectory(atPath: local.path).sorted()
        #expect(made == [VdirPair.calendarName, "personal", "tasks"])
        // And a calendar in CometCal for khal's own vdir, with its event.
        let personal = try #require(try server.engine.calendarCollections().first { $0.title == "personal" })
        let dentist = try server.engine.resources(in: personal.id).map(\.name)
        #expect(try server.engine.resourceTexts(in: personal.id, named: dentist).map { $0.text.contains("SUMMARY:Dentist\r\n") } == [true])
        try pair.khalNew([Self.day, "10:00", "11:00", "Comet review"])
        try pair.sync()
        #expect(try pair.serverTexts().first?.text.contains("SUMMARY:Comet review\r\n") == true)
        let stored = try #require(try pair.serverTexts().first)
        _ = try server.engine.putResource(in: pair.calendar.id, named: stored.name,
                                          text: stored.text.replacingOccurrences(of: "SUMMARY:Comet review\r\n", with: "SUMMARY:Comet review, moved\r\n")).get()
        try pair.sync()
        #expect(try pair.khalList(Self.day) == ["10:00|11:00|Comet review, moved", "18:00|19:00|Dentist"])
    }

    @Test("a file deleted from the vdir is deleted in CometCal by the next sync, and a resource deleted in CometCal leaves the vdir and `khal list`")
    func deletesBothWays() throws {
        let server = try LiveServer()
        let pair = try VdirPair(server: server, conflictResolution: "a wins")
        // A third event stays on both sides: vdirsyncer refuses to sync a side that became
        // completely empty (it asks for --force-delete), whatever the server.
        try pair.khalNew([Self.day, "09:00", "09:30", "Launch check"])
        try pair.khalNew([Self.day, "12:00", "13:00", "Crew lunch"])
        try pair.khalNew([Self.day, "20:00", "22:00", "Telescope time"])
        try pair.sync()
        let stored = try pair.serverTexts()
        try #require(stored.count == 3)
        let lunch = try #require(stored.first { $0.text.contains("SUMMARY:Crew lunch\r\n") })
        let telescope = try #require(stored.first { $0.text.contains("SUMMARY:Telescope time\r\n") })

        // Deleted on the vdir side, as khal or a file manager would: gone from CometCal.
        let files = try pair.vdirFiles()
        try #require(files.count == 3)
        let launchFile = try #require(try files.first {
            try String(contentsOf: pair.vdir.appendingPathComponent($0), encoding: .utf8).contains("SUMMARY:Launch check")
        })
        try FileManager.default.removeItem(at: pair.vdir.appendingPathComponent(launchFile))
        try pair.sync()
        #expect(Set(try pair.serverTexts().map(\.name)) == [lunch.name, telescope.name])

        // Deleted in CometCal: gone from the vdir and from khal.
        _ = try server.engine.deleteResource(in: pair.calendar.id, named: telescope.name).get()
        try pair.sync()
        #expect(try pair.vdirFiles().count == 1)
        #expect(try pair.khalList(Self.day) == ["12:00|13:00|Crew lunch"])
        #expect(try pair.serverTexts().map(\.name) == [lunch.name])

        // The last one deleted in CometCal: vdirsyncer stops rather than empty the vdir.
        _ = try server.engine.deleteResource(in: pair.calendar.id, named: lunch.name).get()
        #expect(throws: LiveServer.Failure.self) { try pair.sync() }
        #expect(pair.lastComplaints.contains("--force-delete"), "\(pair.lastComplaints)")
        #expect(try pair.vdirFiles().count == 1)
    }

    @Test("both sides changed between syncs: with conflict_resolution \"a wins\" the vdir's version is on both sides after the sync")
    func conflictLocalWins() throws {
        try conflict(resolution: "a wins", winner: "Comet review (khal)")
    }

    @Test("both sides changed between syncs: with conflict_resolution \"b wins\" CometCal's version is on both sides after the sync")
    func conflictServerWins() throws {
        try conflict(resolution: "b wins", winner: "Comet review (CometCal)")
    }

    /// One event changed in the vdir and in CometCal between two syncs, then a sync.
    private func conflict(resolution: String, winner: String) throws {
        let server = try LiveServer()
        let pair = try VdirPair(server: server, conflictResolution: resolution)
        try pair.khalNew([Self.day, "10:00", "11:00", "Comet review"])
        try pair.sync()
        let file = try #require(try pair.vdirFiles().first)
        let local = pair.vdir.appendingPathComponent(file)
        let text = try String(contentsOf: local, encoding: .utf8)
        try #require(text.contains("SUMMARY:Comet review"))
        try text.replacingOccurrences(of: "SUMMARY:Comet review", with: "SUMMARY:Comet review (khal)")
            .write(to: local, atomically: true, encoding: .utf8)
        let stored = try #require(try pair.serverTexts().first)
        _ = try server.engine.putResource(in: pair.calendar.id, named: stored.name,
                                          text: stored.text.replacingOccurrences(of: "SUMMARY:Comet review\r\n", with: "SUMMARY:Comet review (CometCal)\r\n")).get()
        try pair.sync()
        #expect(try pair.khalList(Self.day) == ["10:00|11:00|\(winner)"])
        let after = try pair.serverTexts()
        #expect(after.count == 1)
        #expect(after.first?.text.contains("SUMMARY:\(winner)\r\n") == true, "\(after.first?.text ?? "nothing")")
    }
}
