import Foundation
import Testing
import CometSchema

/// `cometcald --notify`: the command runs for each alarm as it fires, on the real clock, with
/// the event in its environment and as JSON on its standard input; one that hangs is killed
/// with its process group and holds up no other alarm; one that fails is logged; a restart
/// fires nothing twice and a missed alarm once, late.
@Suite("cometcald --notify", .serialized)
struct DaemonNotifyTests {
    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    private func zoned(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
        return formatter.string(from: date) + "[America/Los_Angeles]"
    }

    /// A whole second `seconds` from now.
    private func secondsFromNow(_ seconds: Double) -> Date { Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.down)) }

    /// An event whose alarm triggers one second before `start`.
    private func create(_ client: RPCClient, title: String, start: Date, location: String? = nil) throws {
        var parameters: [(String, JSONValue)] = [("title", .string(title)), ("startDate", .string(zoned(start))),
                                                 ("alarms", .array([object([("relative", "-PT1S")])]))]
        if let location { parameters.append(("location", object([("text", .string(location))]))) }
        let result = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object(parameters))]))
        #expect(result["outcome"] == "done", "\(result)")
    }

    private func script(_ directory: URL, _ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return "sh '\(url.path)'"
    }

    /// Waits until the file has at least `lines` lines, or `seconds` pass; its lines.
    private func lines(of path: String, atLeast lines: Int, within seconds: Double) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let found = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if found.count >= lines || Date() >= deadline { return found }
            usleep(50_000)
        }
    }

    @Test("the notify command gets the event in its environment and as one JSON object on standard input")
    func environmentAndStandardInput() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let record = directory.appendingPathComponent("record").path
        let command = try script(directory, "record.sh", """
            cat > '\(record).json'
            grep SigIgn /proc/$$/status > '\(record).signals'
            env | grep '^COMETCAL_' | sort > '\(record).tmp'
            mv '\(record).tmp' '\(record)'
            """)
        let daemon = try DaemonHarness(arguments: ["--notify", command], directory: directory)
        let client = try daemon.client()
        let start = secondsFromNow(4)
        try create(client, title: "Launch Review", start: start, location: "Hangar 2")
        let variables = lines(of: record, atLeast: 1, within: 10)
        #expect(variables.contains("COMETCAL_TITLE=Launch Review"), "\(variables)")
        #expect(variables.contains("COMETCAL_LOCATION=Hangar 2"))
        #expect(variables.contains("COMETCAL_CALENDAR=Calendar"))
        #expect(variables.contains("COMETCAL_START=\(zoned(start))"))
        #expect(variables.contains("COMETCAL_LATE=0"))
        #expect(variables.contains("COMETCAL_ALARM_DESCRIPTION=1 second before the start"))
        #expect(variables.contains { $0.hasPrefix("COMETCAL_TRIGGER=") && $0.hasSuffix("Z") })
        let json = try JSONParser.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: record + ".json"))))
        #expect(json["title"] == "Launch Review")
        #expect(json["late"] == false)
        #expect(json["start"] == .string(zoned(start)))
        #expect(json["alarm"] == "1 second before the start")
        #expect(json["fields"]?["location"] == "Hangar 2")
        #expect(json["fields"]?["calendar"] == "Calendar")
        // The daemon ignores SIGPIPE; the command does not inherit that.
        let ignored = try #require(lines(of: record + ".signals", atLeast: 1, within: 0).first?.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) })
        #expect(ignored & (1 << (UInt64(SIGPIPE) - 1)) == 0, "SIGPIPE is not ignored: \(String(ignored, radix: 16))")
        daemon.stop()
        #expect(daemon.logText.contains("msg=\"notify command ran\" event=\"Launch Review\""), "\(daemon.logText)")
    }

    @Test("a command that hangs is killed with its process group after --notify-seconds, logged, and the next alarm still runs on time")
    func hangingCommand() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let times = directory.appendingPathComponent("times").path
        let child = directory.appendingPathComponent("child.pid").path
        let command = try script(directory, "hang.sh", """
            if [ "$COMETCAL_TITLE" = "Hang" ]; then
              sleep 60 &
              echo $! > '\(child)'
              wait
            fi
            echo "$COMETCAL_TITLE $(date +%s.%N)" >> '\(times)'
            """)
        let daemon = try DaemonHarness(arguments: ["--notify", command, "--notify-seconds", "2"], directory: directory)
        let client = try daemon.client()
        let hangStart = secondsFromNow(4)
        try create(client, title: "Hang", start: hangStart)
        try create(client, title: "Next", start: hangStart.addingTimeInterval(1))
        let fired = lines(of: times, atLeast: 1, within: 10)
        #expect(fired.count == 1, "only Next's command finished: \(fired)")
        let parts = try #require(fired.first?.split(separator: " "))
        #expect(parts.first == "Next")
        let ranAt = try #require(parts.last.flatMap { Double($0) })
        // Next's trigger is hangStart (one second before its start); it ran within a second of it.
        #expect(abs(ranAt - hangStart.timeIntervalSince1970) < 1.0, "ran \(ranAt - hangStart.timeIntervalSince1970) s after its moment")
        // The hanging one is killed 2 s after it started, its sleep with it.
        let childPID = try #require(Int32(lines(of: child, atLeast: 1, within: 2).first ?? ""))
        let deadline = Date().addingTimeInterval(6)
        while kill(childPID, 0) == 0, Date() < deadline { usleep(100_000) }
        #expect(kill(childPID, 0) != 0, "the command's child was killed with its group")
        daemon.stop()
        #expect(daemon.logText.contains("msg=\"notify command killed: it ran past its time limit\" event=Hang limit=2"), "\(daemon.logText)")
    }

    @Test("a command still running when the daemon stops is killed with its group, and the log says so; it never outlives the daemon")
    func stopKillsRunning() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let child = directory.appendingPathComponent("child.pid").path
        let command = try script(directory, "hang.sh", """
            sleep 60 &
            echo $! > '\(child)'
            wait
            """)
        let daemon = try DaemonHarness(arguments: ["--notify", command, "--notify-seconds", "50"], directory: directory)
        let client = try daemon.client()
        try create(client, title: "Hang", start: secondsFromNow(3))
        let childPID = try #require(Int32(lines(of: child, atLeast: 1, within: 10).first ?? ""))
        #expect(kill(childPID, 0) == 0, "the command runs")
        daemon.stop()
        let deadline = Date().addingTimeInterval(5)
        while kill(childPID, 0) == 0, Date() < deadline { usleep(100_000) }
        #expect(kill(childPID, 0) != 0, "the command's child did not outlive the daemon")
        #expect(daemon.logText.contains("msg=\"notify command killed: the daemon is stopping\" event=Hang"), "\(daemon.logText)")
    }

    @Test("at most four commands run at once: a fifth alarm at the same moment waits its turn, and the log says so")
    func boundedConcurrency() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let runs = directory.appendingPathComponent("runs").path
        let daemon = try DaemonHarness(arguments: ["--notify", "sleep 2; echo \"$COMETCAL_TITLE\" >> '\(runs)'"], directory: directory)
        let client = try daemon.client()
        let start = secondsFromNow(3)
        for number in 1...5 { try create(client, title: "Burn \(number)", start: start) }
        #expect(lines(of: runs, atLeast: 5, within: 12).count == 5)
        daemon.stop()
        let waits = daemon.logText.components(separatedBy: "msg=\"notify command waits: others are still running\"").count - 1
        #expect(waits == 1, "\(daemon.logText)")
    }

    @Test("a command that fails is logged with its exit status and what it printed")
    func failingCommand() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let daemon = try DaemonHarness(arguments: ["--notify", "echo no display here >&2; exit 3"], directory: directory)
        let client = try daemon.client()
        try create(client, title: "Broken Hook", start: secondsFromNow(3))
        let deadline = Date().addingTimeInterval(10)
        while !daemon.readLog().contains("notify command failed"), Date() < deadline { usleep(100_000) }
        daemon.stop()
        #expect(daemon.logText.contains("msg=\"notify command failed\" event=\"Broken Hook\" status=3"), "\(daemon.logText)")
        #expect(daemon.logText.contains("output=\"no display here\""))
    }

    @Test("across a restart the command runs for no alarm twice, and once, late, for one missed while the daemon was down")
    func acrossRestart() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let runs = directory.appendingPathComponent("runs").path
        let command = "echo \"$COMETCAL_TITLE $COMETCAL_LATE\" >> '\(runs)'"
        let daemon = try DaemonHarness(arguments: ["--notify", command], directory: directory)
        let client = try daemon.client()
        let first = secondsFromNow(3)
        try create(client, title: "Before", start: first)
        try create(client, title: "Missed", start: first.addingTimeInterval(5))
        #expect(lines(of: runs, atLeast: 1, within: 6) == ["Before 0"])
        daemon.signal(SIGKILL)
        daemon.process.waitUntilExit()
        // Missed's moment (first + 4) passes while no daemon runs, by more than the 2.5 s that make late.
        while Date() < first.addingTimeInterval(8) { usleep(100_000) }
        let again = try DaemonHarness(arguments: ["--notify", command], directory: directory)
        _ = lines(of: runs, atLeast: 2, within: 5)
        usleep(2_000_000)  // room for anything fired twice to show
        #expect(lines(of: runs, atLeast: 3, within: 0) == ["Before 0", "Missed 1"])
        again.stop()
    }

    @Test("the config file's notify and notify_seconds are the daemon's default; a mistake there exits 78")
    func configKeys() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let runs = directory.appendingPathComponent("runs").path
        let config = directory.appendingPathComponent("config")
        try "notify = echo \"$COMETCAL_TITLE\" >> '\(runs)'\nnotify_seconds = 5\n".write(to: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonHarness(environment: ["COMETCAL_CONFIG": config.path], directory: directory)
        let client = try daemon.client()
        try create(client, title: "From Config", start: secondsFromNow(3))
        #expect(lines(of: runs, atLeast: 1, within: 8) == ["From Config"])
        daemon.stop()

        try "notify_second = 5\n".write(to: config, atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["--db", directory.appendingPathComponent("other.sqlite").path, "--socket", directory.appendingPathComponent("o.sock").path],
                                       environment: ["COMETCAL_CONFIG": config.path], program: "cometcald")
        #expect(result.status == 78)
        #expect(result.stderr.contains("config:1:1: error: unknown key 'notify_second'. Did you mean 'notify_seconds'?"), "\(result.stderr)")
    }
}
