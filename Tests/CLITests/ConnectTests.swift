import Foundation
import Testing
import CometSchema

/// `cometcal --connect` runs the same commands through the daemon: the same output and the same
/// exit codes as on a local store (ids aside, which differ between two stores).
@Suite("cometcal --connect")
struct ConnectTests {
    static let commands: [[String]] = [
        ["calendar", "add", "Personal"],
        ["event", "add", "Picnic", "--start", "saturday 12:00", "--end", "saturday 14:00", "--location", "Tempelhofer Feld", "--attendee", "Ada <ada@example.org>"],
        ["event", "add", "Standup", "--start", "monday 9:30", "--end", "monday 9:45", "--repeat", "weekdays"],
        ["event", "add", "Lunch", "--start", "saturday 13:00", "--end", "saturday 13:30"],
        ["agenda"],
        ["agenda", "--json"],
        ["free", "saturday"],
        ["free", "monday", "--min", "1h", "--json"],
        ["event", "update", "Picnic", "--start", "saturday 11:30"],
        ["event", "update", "Picnic", "--start", "saturday 11:30", "--yes"],
        ["event", "update", "Picnic", "--clear", "locaton"],
        ["event", "update", "Standup", "--location", "Room 2"],
        ["event", "update", "Standup", "--span", "this", "--occurrence", "monday 9:30", "--location", "Room 2"],
        ["search", "picnic"],
        ["search", "picnic", "--json"],
        ["event", "show", "Picnic"],
        ["event", "show", "Nothing Like It"],
        ["event", "delete", "Picnic"],
        ["history"],
        ["undo"],
        ["redo"],
        ["import", "Examples/cometcal.ics"],
        ["import", "Examples/cometcal.ics", "--json"],
        ["export", "--calendar", "Lunar Orbit Log"],
        ["intent", "run", "updateEvent", "event=Standup", "prio=3"],
        ["intent", "run", "searchEvents", "text=standup", "--limit", "1"],
        ["calendar", "list"],
    ]

    static func normalized(_ text: String) -> String {
        var text = text.replacingOccurrences(of: #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, with: "ID", options: [.regularExpression, .caseInsensitive])
        // When a change was stamped (the store's own clock writes it) is not the command's output.
        text = text.replacingOccurrences(of: #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"#, with: "STAMP", options: .regularExpression)
        text = text.replacingOccurrences(of: #"DTSTAMP:\d{8}T\d{6}Z"#, with: "DTSTAMP:STAMP", options: .regularExpression)
        return text
    }

    @Test("every command prints the same and exits the same through the daemon")
    func sameOutput() throws {
        let local = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: local) }
        let clock = ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"]
        let daemon = try DaemonHarness(environment: clock)
        var localEnvironment = clock
        localEnvironment["COMETCAL_DB"] = local.appendingPathComponent("cal.sqlite").path
        for command in ConnectTests.commands {
            let mine = try CLIRunner.run(command, environment: localEnvironment)
            let theirs = try CLIRunner.run(["--connect", daemon.socket] + command, environment: clock)
            let name = command.joined(separator: " ")
            #expect(theirs.status == mine.status, "\(name): exit \(theirs.status) through the daemon, \(mine.status) locally\n\(theirs.stderr)")
            #expect(ConnectTests.normalized(theirs.stdout) == ConnectTests.normalized(mine.stdout), "\(name)\n--- daemon ---\n\(theirs.stdout)\n--- local ---\n\(mine.stdout)")
            #expect(ConnectTests.normalized(theirs.stderr) == ConnectTests.normalized(mine.stderr), "\(name)\n--- daemon ---\n\(theirs.stderr)\n--- local ---\n\(mine.stderr)")
        }
    }

    @Test("without a daemon, --connect says where it looked and how to start one; other schemas are refused")
    func noDaemon() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("none.sock").path
        let result = try CLIRunner.run(["--connect", missing, "agenda"])
        #expect(result.status == 74)
        #expect(result.stderr.contains("cannot reach cometcald at \(missing)"))
        #expect(result.stderr.contains("start it with 'cometcald'"))
        let daemon = try DaemonHarness()
        let tasks = try CLIRunner.run(["--schemas", "Examples/Schemas/tasks", "--connect=\(daemon.socket)", "intent", "run", "searchTasks"])
        #expect(tasks.status == 65)
        #expect(tasks.stderr.contains("serves other schemas"))
    }

    @Test("chat --connect holds the conversation on the daemon")
    func chat() throws {
        let daemon = try DaemonHarness(environment: ["COMETCAL_NOW": "2026-06-08T16:00:00Z"])
        let seeded = try CLIRunner.run(["--connect", daemon.socket, "import", "Examples/conversations/picnic.ics"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let session = try CLIRunner.run(["--connect", daemon.socket, "chat"], environment: ["COMETCAL_NOW": "2026-06-08T16:00:00Z", "TZ": "America/Los_Angeles"],
                                        stdin: "who's coming to my picnic?\nmove it to noon\nactually 11:30 am\nyes\n")
        #expect(session.status == 0, "\(session.stderr)")
        let lines = session.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Invited to “Picnic”: Ada Lovelace (accepted)") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Move “Picnic” to Sat Jun 13 11:30–13:30?") })
        #expect(lines.last == "Moved “Picnic” to Sat Jun 13 11:30–13:30.")
    }

    @Test("converse --connect plays scripts through the daemon's conversation and store")
    func converse() throws {
        let daemon = try DaemonHarness()
        let script = CLIRunner.repositoryRoot.appendingPathComponent("Examples/conversations/02-picnic-move-correction.convo").path
        let played = try CLIRunner.run(["--connect", daemon.socket, "converse", script])
        #expect(played.status == 0, "\(played.stdout)\(played.stderr)")
        #expect(played.stdout.hasSuffix("1 passed, 0 failed\n"))
        let tasks = CLIRunner.repositoryRoot.appendingPathComponent("Examples/conversations/tasks-01-remind-and-list.convo").path
        let refused = try CLIRunner.run(["--connect", daemon.socket, "converse", tasks])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("a daemon serves one registry"))
    }
}
