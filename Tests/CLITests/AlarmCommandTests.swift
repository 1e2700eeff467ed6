import Foundation
import Testing
import CometSchema

/// `cometcal alarms` and `cometcal remind`: the alarms to come, and alarms going off without
/// the daemon, with the daemon's bookkeeping (never twice, a missed one once, late).
@Suite("cometcal alarms and remind")
struct AlarmCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    /// The same store at another moment of the fixed clock.
    private func at(_ now: String, _ arguments: [String], expect status: Int32 = 0) throws -> CLIResult {
        var env = environment
        env["COMETCAL_NOW"] = now
        let result = try CLIRunner.run(arguments, environment: env)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)")
        return result
    }

    @Test("alarms lists the next 7 days by default, says the range, and gives each alarm's moment, event and start")
    func listsTheWeek() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-11 09:30", "--end", "2026-06-11 09:45", "--repeat", "daily", "--alarm", "15m"])
        let text = try run(["alarms"]).stdout.split(separator: "\n").map(String.init)
        // Now is Wed Jun 10 12:00 in Berlin: Jun 11 to Jun 17 have an alarm at 09:15 before 12:00.
        #expect(text.first == "Alarms from Wed Jun 10 12:00 to Wed Jun 17 12:00:", "\(text)")
        #expect(text.count == 8)
        #expect(text.dropFirst().first == "Thu Jun 11 09:15  Standup  (starts Thu Jun 11 09:30; 15 minutes before the start)")
        #expect(text.last == "Wed Jun 17 09:15  Standup  (starts Wed Jun 17 09:30; 15 minutes before the start)")

        let json = try json(["alarms", "--from", "2026-06-12", "--to", "2026-06-14"])
        #expect(json["from"] == "2026-06-11T22:00:00Z")
        #expect(json["to"] == "2026-06-13T22:00:00Z")
        guard case .array(let alarms)? = json["alarms"] else { Issue.record("no alarms array: \(json)"); return }
        #expect(alarms.count == 2)
        #expect(alarms.first?["title"] == "Standup")
        #expect(alarms.first?["trigger"] == "2026-06-12T07:15:00Z")
        #expect(alarms.first?["start"]?.stringValue?.hasPrefix("2026-06-12T09:30:00+02:00") == true)
        #expect(alarms.first?["alarm"] == "15 minutes before the start")

        #expect(try run(["alarms", "--from", "2026-06-01", "--to", "2026-06-02"]).stdout == "No alarms from Mon Jun 1 00:00 to Tue Jun 2 00:00.\n")
        #expect(try run(["alarms", "--from", "2026-07-02", "--to", "2026-07-01"], expect: 64).stderr.contains("--to must be after --from"))
    }

    @Test("remind --once: the first run starts watching, a later one fires what came since, once, late when missed, and runs the command")
    func remindOnce() throws {
        let record = directory.appendingPathComponent("ran").path
        let command = "echo \"$COMETCAL_TITLE $COMETCAL_LATE $COMETCAL_ALARM_DESCRIPTION\" >> '\(record)'"
        let first = try at("2026-06-10T10:00:00Z", ["remind", "--once", "--notify", command])
        #expect(first.stdout.isEmpty)
        #expect(first.stderr.contains("alarms were never watched on this store"))
        // 12:30 in Berlin is 10:30Z: its alarm is at 10:15Z.
        try run(["event", "add", "Launch", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        try run(["event", "add", "Landing", "--start", "2026-06-10 12:40", "--alarm", "15m"])

        let missed = try at("2026-06-10T10:20:00Z", ["remind", "--once", "--notify", command])
        #expect(missed.stdout.contains("Wed Jun 10 12:15  Launch  (starts Wed Jun 10 12:30; 15 minutes before the start) late"), "\(missed.stdout)")
        #expect(!missed.stdout.contains("Landing"))
        let onTime = try at("2026-06-10T10:25:01Z", ["remind", "--once", "--notify", command, "--json"])
        let notice = try JSONParser.parse(onTime.stdout)
        #expect(notice["title"] == "Landing")
        #expect(notice["late"] == false)
        #expect(try at("2026-06-10T10:30:00Z", ["remind", "--once", "--notify", command]).stdout.isEmpty, "nothing goes off twice")
        let ran = try String(contentsOfFile: record, encoding: .utf8)
        #expect(ran == "Launch 1 15 minutes before the start\nLanding 0 15 minutes before the start\n")
    }

    @Test("alarms through --connect says what it says on the store; remind refuses --connect")
    func throughTheDaemon() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-11 09:30", "--repeat", "daily", "--alarm", "15m"])
        let daemon = try DaemonHarness(directory: directory, store: environment["COMETCAL_DB"])
        let local = try run(["alarms", "--from", "2026-06-12", "--to", "2026-06-15"])
        let remote = try run(["--connect", "--socket", daemon.socket, "alarms", "--from", "2026-06-12", "--to", "2026-06-15"])
        #expect(remote.stdout == local.stdout)
        #expect(remote.stdout.split(separator: "\n").count == 4)
        #expect(try run(["--connect", "--socket", daemon.socket, "alarms", "--json"]).stdout == (try run(["alarms", "--json"]).stdout))
        let refused = try run(["--connect", "--socket", daemon.socket, "remind"], expect: 64)
        #expect(refused.stderr.contains("remind runs on the store itself, not through --connect"), "\(refused.stderr)")
        daemon.stop()
    }

    @Test("an alarm the daemon fired does not go off again in remind: one bookkeeping in the store")
    func daemonThenRemind() throws {
        let daemon = try DaemonHarness(directory: directory, store: environment["COMETCAL_DB"])
        let moment = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.down))
        var realClock = environment
        realClock.removeValue(forKey: "COMETCAL_NOW")
        let added = try CLIRunner.run(["intent", "run", "createEvent", "title=Burn", "startDate=\(DateTimeValue.utc(moment).description)",
                                       "alarms={\"relative\": \"PT0S\"}"], environment: realClock)
        #expect(added.status == 0, "\(added.stderr)")
        let deadline = Date().addingTimeInterval(8)
        while !daemon.readLog().contains("msg=alarm event=Burn"), Date() < deadline { usleep(100_000) }
        daemon.stop()
        #expect(daemon.logText.contains("msg=alarm event=Burn"), "\(daemon.logText)")
        let later = try at(DateTimeValue.utc(moment.addingTimeInterval(10)).description, ["remind", "--once"])
        #expect(later.stdout.isEmpty, "\(later.stdout)")
        #expect(!later.stderr.contains("never watched"), "the daemon's watch is remind's")
    }

    @Test("remind reads notify from the config file")
    func remindConfigAndConnect() throws {
        let record = directory.appendingPathComponent("ran").path
        let config = directory.appendingPathComponent("config")
        try "notify = echo \"$COMETCAL_TITLE\" >> '\(record)'\n".write(to: config, atomically: true, encoding: .utf8)
        var env = environment
        env["COMETCAL_CONFIG"] = config.path
        env["COMETCAL_NOW"] = "2026-06-10T10:00:00Z"
        _ = try CLIRunner.run(["remind", "--once"], environment: env)
        try run(["event", "add", "Launch", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        env["COMETCAL_NOW"] = "2026-06-10T10:15:01Z"
        #expect(try CLIRunner.run(["remind", "--once"], environment: env).status == 0)
        #expect(try String(contentsOfFile: record, encoding: .utf8) == "Launch\n")
    }

    /// `cometcal remind` in the foreground on the real clock, with its output and errors piped.
    func foregroundRemind() throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try CLIRunner.binary()
        process.arguments = ["remind"]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment where key != "COMETCAL_NOW" { env[key] = value }
        env.removeValue(forKey: "COMETCAL_NOW")
        env.removeValue(forKey: "COMETCAL_CONFIG")
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        env["NO_COLOR"] = "1"
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    @Test("remind in the foreground: an alarm another process adds goes off on time, and SIGTERM ends it cleanly")
    func remindInForeground() throws {
        let (process, out, err) = try foregroundRemind()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        // An alarm at a whole second 3 s from now, added by another cometcal on the real clock.
        let moment = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3).rounded(.down))
        var realClock = environment
        realClock.removeValue(forKey: "COMETCAL_NOW")
        let added = try CLIRunner.run(["intent", "run", "createEvent", "title=Burn", "startDate=\(DateTimeValue.utc(moment).description)",
                                       "alarms={\"relative\": \"PT0S\"}"], environment: realClock)
        #expect(added.status == 0, "\(added.stderr)")
        while Date() < moment.addingTimeInterval(1.5) { usleep(100_000) }
        kill(process.processIdentifier, SIGTERM)
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(stdout.contains("  Burn  ("), "\(stdout)\n\(stderr)")
        #expect(!stdout.contains("late"), "it went off on time: \(stdout)")
        #expect(stderr.hasSuffix("Stopped.\n"), "\(stderr)")
    }

    @Test("--alarm 9:00 on a monthly all-day event goes off at 09:00 on each day, and is TRIGGER:PT9H in iCalendar, read back the same")
    func clockTimeOnAllDaySeries() throws {
        try run(["event", "add", "Rent", "--start", "2026-07-01", "--repeat", "monthly", "--alarm", "9:00"])
        let listed = try run(["alarms", "--from", "2026-06-20", "--to", "2026-09-20"]).stdout.split(separator: "\n").map(String.init)
        #expect(listed.dropFirst() == ["Wed Jul 1 09:00  Rent  (starts Wed Jul 1 00:00; 9 hours after the start)",
                                       "Sat Aug 1 09:00  Rent  (starts Sat Aug 1 00:00; 9 hours after the start)",
                                       "Tue Sep 1 09:00  Rent  (starts Tue Sep 1 00:00; 9 hours after the start)"], "\(listed)")
        let exported = try run(["export"]).stdout
        #expect(exported.contains("TRIGGER:PT9H"), "\(exported)")
        let file = directory.appendingPathComponent("rent.ics")
        try exported.write(to: file, atomically: true, encoding: .utf8)
        var other = environment
        other["COMETCAL_DB"] = directory.appendingPathComponent("store/other.sqlite").path
        #expect(try CLIRunner.run(["import", file.path], environment: other).status == 0)
        let again = try CLIRunner.run(["alarms", "--from", "2026-06-20", "--to", "2026-09-20"], environment: other).stdout.split(separator: "\n").map(String.init)
        #expect(again == listed)
    }

    @Test("--alarm 9am on a weekly 10:00 event is an hour before each occurrence; a date and time stays one moment")
    func clockTimeOnTimedSeries() throws {
        try run(["event", "add", "Review", "--start", "2026-06-15 10:00", "--repeat", "weekly", "--alarm", "9am"])
        let listed = try run(["alarms", "--from", "2026-06-14", "--to", "2026-06-28"]).stdout.split(separator: "\n").map(String.init)
        #expect(listed.dropFirst() == ["Mon Jun 15 09:00  Review  (starts Mon Jun 15 10:00; 1 hour before the start)",
                                       "Mon Jun 22 09:00  Review  (starts Mon Jun 22 10:00; 1 hour before the start)"], "\(listed)")
        #expect(try run(["export"]).stdout.contains("TRIGGER:-PT1H"))
        try run(["event", "update", "Review", "--alarm", "2026-06-20 08:00", "--span", "all"])
        let fixed = try run(["alarms", "--from", "2026-06-14", "--to", "2026-06-28"]).stdout.split(separator: "\n").map(String.init)
        #expect(fixed.dropFirst().count == 1, "\(fixed)")
        #expect(fixed.dropFirst().first?.hasPrefix("Sat Jun 20 08:00  Review") == true, "\(fixed)")
        // On update without --start, the time of day counts from the event's own start.
        try run(["event", "update", "Review", "--alarm", "9:30", "--span", "all"])
        #expect(try run(["alarms", "--from", "2026-06-14", "--to", "2026-06-16"]).stdout.contains("Mon Jun 15 09:30  Review  (starts Mon Jun 15 10:00; 30 minutes before the start)"))
    }

    @Test("a time-of-day alarm on an all-day event keeps its time on the day the clocks change")
    func clockTimeAcrossDaylightSaving() throws {
        // Berlin moves its clocks from 02:00 to 03:00 on Sunday, March 29 2026: nine hours after
        // that midnight is 10:00, but the alarm was said as 09:00.
        try run(["event", "add", "Bins", "--start", "2026-03-29", "--repeat", "monthly", "--alarm", "9:00"])
        let listed = try run(["alarms", "--from", "2026-03-28", "--to", "2026-04-30"]).stdout.split(separator: "\n").map(String.init)
        #expect(listed.dropFirst() == ["Sun Mar 29 09:00  Bins  (starts Sun Mar 29 00:00; 9 hours after the start)",
                                       "Wed Apr 29 09:00  Bins  (starts Wed Apr 29 00:00; 9 hours after the start)"], "\(listed)")
    }

    @Test("the config's alarm = 9:00 is on the day of each occurrence too")
    func clockTimeFromConfig() throws {
        let config = directory.appendingPathComponent("config")
        try "alarm = 9:00\n".write(to: config, atomically: true, encoding: .utf8)
        var env = environment
        env["COMETCAL_CONFIG"] = config.path
        #expect(try CLIRunner.run(["event", "add", "Rent", "--start", "2026-07-01", "--repeat", "monthly"], environment: env).status == 0)
        let listed = try run(["alarms", "--from", "2026-07-20", "--to", "2026-08-20"]).stdout.split(separator: "\n").map(String.init)
        #expect(listed.dropFirst() == ["Sat Aug 1 09:00  Rent  (starts Sat Aug 1 00:00; 9 hours after the start)"], "\(listed)")
    }

    @Test("remind in the foreground ends cleanly on SIGINT (Ctrl-C) too")
    func remindEndsOnInterrupt() throws {
        let (process, _, err) = try foregroundRemind()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        usleep(1_000_000)
        kill(process.processIdentifier, SIGINT)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.hasSuffix("Stopped.\n"), "\(stderr)")
    }
}
