import Foundation
import Testing
import CometSchema

/// `cometcal --connect SOCK listen FILE.wav…`: each file sent to a real `cometcald` as
/// `conversation.say`'s `audio`, heard with the daemon's language on one of its conversations,
/// and printed as the local `listen` prints it (docs/voice.md, "Through the daemon").
@Suite("cometcal listen --connect", .serialized)
struct ListenConnectTests {
    /// The clock and zone of the examples, for the client (the daemon's conversation takes them from it).
    static let clock = ["COMETCAL_NOW": "2026-06-08T09:00:00-07:00", "TZ": "America/Los_Angeles"]

    /// A daemon whose store holds the picnic example's seed (the picnic and the meteor shower party).
    static func seededDaemon(arguments: [String] = []) throws -> DaemonHarness {
        let daemon = try DaemonHarness(arguments: arguments)
        let seeded = try CLIRunner.run(["--connect", daemon.socket, "import", ConverseCommandTests.examples.appendingPathComponent("picnic.ics").path])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return daemon
    }

    static func listen(_ daemon: DaemonHarness, _ arguments: [String]) throws -> CLIResult {
        try CLIRunner.run(["--connect", daemon.socket, "listen"] + arguments, environment: clock)
    }

    /// The daemon's store as iCalendar, read through the daemon.
    static func exported(_ daemon: DaemonHarness) throws -> String {
        let result = try CLIRunner.run(["--connect", daemon.socket, "export"], environment: clock)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// How many conversations the daemon holds (none before a command's first turn).
    static func conversations(_ daemon: DaemonHarness) throws -> JSONValue? {
        try daemon.client().call("health")["conversations"]
    }

    /// The keys of an object, in order (the shape `--json` promises), or nil for anything else.
    static func keys(_ value: JSONValue?) -> [String]? { value?.objectValue?.keys }

    @Test("a spoken question is heard by the daemon and printed, and its --json shaped, as the local listen's; the daemon compiles its language first, once, and says so")
    func question() throws {
        let daemon = try ListenConnectTests.seededDaemon()
        let (local, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: local) }
        let wave = try ListenCommandTests().speech("Where is the picnic?", in: daemon.directory, name: "where")

        let text = try ListenConnectTests.listen(daemon, [wave])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr.contains("listen: the daemon at \(daemon.socket) had no language yet and compiled one for its schemas and store"), "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(text.stdout)")
        let here = try CLIRunner.run(["listen", wave], environment: environment)
        let localLines = here.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("\(wave): heard “where is") == true && lines.first?.contains("picnic” (confidence 0.") == true, "\(text.stdout)")
        #expect(lines.first?.contains("; passed") == true && lines.first?.hasSuffix("; noise floor added)") == true, "\(text.stdout)")
        // The words the daemon's language cannot hear, said as the local listen says its own.
        let unheard = here.stderr.split(separator: "\n").map(String.init).filter { $0.contains("word(s) have no pronunciation and cannot be heard: appt") }
        #expect(unheard.count == 1, "\(here.stderr)")
        #expect(unheard.allSatisfy { text.stderr.contains($0) }, "\(text.stderr)")
        #expect(Array(lines.dropFirst()) == Array(localLines.dropFirst()), "the reply and the outcome as the local listen prints them:\n\(text.stdout)\n\(here.stdout)")
        #expect(lines.last == "(done)")

        // --json: the same fields in the same order as the local listen's, the compile report the daemon's.
        let speakTo = daemon.directory.appendingPathComponent("replies").path
        let remote = try ListenConnectTests.listen(daemon, [wave, "--json", "--speak-to", speakTo])
        #expect(remote.status == 0, "\(remote.stderr)")
        #expect(!remote.stderr.contains("had no language yet"), "compiled once, by the first command: \(remote.stderr)")
        let theirs = try JSONParser.parse(remote.stdout)
        let ours = try JSONParser.parse(try CLIRunner.run(["listen", wave, "--json", "--speak-to", local.appendingPathComponent("replies").path], environment: environment).stdout)
        #expect(ListenConnectTests.keys(theirs) == ListenConnectTests.keys(ours))
        #expect(ListenConnectTests.keys(theirs["compiled"]) == ListenConnectTests.keys(ours["compiled"]), "\(String(describing: theirs["compiled"]))")
        #expect(theirs["language"] == "compiled")
        guard case .array(let turns)? = theirs["turns"], let turn = turns.first, case .array(let localTurns)? = ours["turns"], let localTurn = localTurns.first else {
            Issue.record("no turns: \(remote.stdout)")
            return
        }
        for path in [[], ["heard"], ["gate"], ["spoken"]] {
            let remoteValue = path.reduce(Optional(turn)) { $0?[$1] }
            let localValue = path.reduce(Optional(localTurn)) { $0?[$1] }
            #expect(ListenConnectTests.keys(remoteValue) == ListenConnectTests.keys(localValue), "\(path): \(String(describing: remoteValue)) against \(String(describing: localValue))")
        }
        #expect(turn["file"]?.stringValue == wave)
        #expect(turn["reply"]?.stringValue?.contains("Dolores Park") == true, "\(turn)")
        #expect(turn["gate"]?["decision"]?.stringValue?.hasPrefix("passed") == true)
        // --speak-to: the reply spoken on this machine, as without --connect.
        #expect(FileManager.default.fileExists(atPath: speakTo + "/reply-1.wav"))
        #expect(turn["spoken"]?["rate"] == .int(22_050), "\(turn)")

        daemon.readLog()
        #expect(daemon.logText.components(separatedBy: "voice: language compiled").count == 2, "one compile for both commands: \(daemon.logText.suffix(2000))")
    }

    @Test("a spoken delete is asked back and a spoken yes does it, on the daemon's store; silence is “I didn't catch that” and changes nothing")
    func deleteAndSilence() throws {
        let daemon = try ListenConnectTests.seededDaemon()
        let directory = daemon.directory
        let before = try ListenConnectTests.exported(daemon)
        #expect(before.contains("SUMMARY:Meteor Shower"), "\(before)")

        let silence = directory.appendingPathComponent("silence.wav").path
        try ListenCommandTests.tool("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", silence, "trim", "0", "2"])
        let quiet = try ListenConnectTests.listen(daemon, [silence, "--json"])
        #expect(quiet.status == 0, "\(quiet.stderr)")
        let quietTurn: JSONValue? = { if case .array(let turns)? = try? JSONParser.parse(quiet.stdout)["turns"] { return turns.first } else { return nil } }()
        #expect(quietTurn?["reply"] == "I didn't catch that.", "\(quiet.stdout)")
        #expect(quietTurn?["gate"]?["decision"] == "notCaught")
        #expect(quietTurn?["heard"]?["text"] == "")
        #expect(try ListenConnectTests.exported(daemon) == before)

        // The delete alone: asked (by the gate or by the engine's policy), nothing written.
        let delete = try ListenCommandTests().speech("Delete the meteor shower watch party", in: directory, name: "delete")
        let asked = try ListenConnectTests.listen(daemon, [delete])
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(asked.stdout.hasSuffix("(needsConfirmation)\n"), "\(asked.stdout)")
        #expect(try ListenConnectTests.exported(daemon) == before, "nothing is written before the yes")

        // The delete and a yes to each question (the gate's "Did you say …?" when the hearing was
        // unsure, then the engine's); a yes with nothing asked changes nothing.
        let yes = try ListenCommandTests().speech("yes", in: directory, name: "yes")
        let done = try ListenConnectTests.listen(daemon, [delete, yes, yes, "--json"])
        #expect(done.status == 0, "\(done.stderr)")
        guard case .array(let turns)? = try JSONParser.parse(done.stdout)["turns"] else { Issue.record("no turns: \(done.stdout)"); return }
        #expect(turns.count == 3)
        #expect(turns.first?["outcome"] == "needsConfirmation", "\(done.stdout)")
        #expect(turns.contains { $0["outcome"] == "done" }, "\(done.stdout)")
        let after = try ListenConnectTests.exported(daemon)
        #expect(!after.contains("Meteor Shower"), "the party was deleted by voice, on the daemon's store")
        #expect(after.contains("SUMMARY:Picnic"))
    }

    @Test("a file that is not a 16 kHz mono WAVE file, or --language generic, is refused before any turn (65, 64); sound the daemon refuses ends listen with its reason (65)")
    func refused() throws {
        let daemon = try ListenConnectTests.seededDaemon(arguments: ["--max-request", "4096"])
        let directory = daemon.directory
        let good = try ListenCommandTests().speech("Where is the picnic?", in: directory, name: "where")
        let notWave = directory.appendingPathComponent("notes.wav").path
        try "not a sound".write(toFile: notWave, atomically: true, encoding: .utf8)

        let bad = try ListenConnectTests.listen(daemon, [good, notWave])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains(notWave) && bad.stderr.contains("not a WAVE file"), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
        let stereo = try ListenCommandTests().speech("delete the picnic", in: directory, name: "stereo", channels: 2)
        let twoChannels = try ListenConnectTests.listen(daemon, [stereo])
        #expect(twoChannels.status == 65)
        #expect(twoChannels.stderr.contains(stereo) && twoChannels.stderr.contains("2 channels"), "\(twoChannels.stderr)")

        let missing = try ListenConnectTests.listen(daemon, [good, directory.appendingPathComponent("nothing.wav").path])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nothing.wav"))

        let generic = try ListenConnectTests.listen(daemon, [good, "--language", "generic"])
        #expect(generic.status == 64)
        #expect(generic.stderr.contains("--language generic") && generic.stderr.contains("the daemon hears only with the language it compiled"), "\(generic.stderr)")
        #expect(generic.stdout.isEmpty)
        #expect(try ListenConnectTests.conversations(daemon) == .int(0), "no conversation was opened, no turn played")

        // This daemon takes requests of 4 KiB at most: the sound is refused, with the daemon's reason.
        let large = try ListenConnectTests.listen(daemon, [good])
        #expect(large.status == 65)
        #expect(large.stderr.contains("error: \(good): the daemon did not hear it: ") && large.stderr.contains("4096"), "\(large.stderr)")
        #expect(large.stdout.isEmpty)
    }

    @Test("without a daemon at the socket, listen --connect says where it looked (74)")
    func noDaemon() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try ListenCommandTests().speech("Where is the picnic?", in: directory, name: "where")
        let socket = directory.appendingPathComponent("none.sock").path
        let result = try CLIRunner.run(["--connect", socket, "listen", wave], environment: ListenConnectTests.clock)
        #expect(result.status == 74)
        #expect(result.stderr.contains("cannot reach cometcald at \(socket)"), "\(result.stderr)")
    }
}
