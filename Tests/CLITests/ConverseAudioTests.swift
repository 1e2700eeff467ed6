import Foundation
import Testing
import CometSchema

/// `> @audio FILE.wav` turns in `.convo` scripts, played by `cometcal converse` (docs/voice.md,
/// "Scripts"). The sound and the script are made in a temporary folder when the test runs.
@Suite("cometcal converse: @audio turns")
struct ConverseAudioTests {
    /// A folder with the picnic seed, `where.wav` (espeak-ng, 16 kHz) and a script using them.
    private func folder(script: String) throws -> URL {
        let directory = try CLIRunner.temporaryDirectory()
        try FileManager.default.copyItem(at: ConverseCommandTests.examples.appendingPathComponent("picnic.ics"), to: directory.appendingPathComponent("picnic.ics"))
        let sounds = directory.appendingPathComponent("sounds")
        try FileManager.default.createDirectory(at: sounds, withIntermediateDirectories: true)
        _ = try ListenCommandTests().speech("Where is the picnic?", in: sounds, name: "where")
        try script.write(to: directory.appendingPathComponent("spoken.convo"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("an @audio turn is heard, shown, and checked like a typed one")
    func heardTurn() throws {
        let directory = try folder(script: """
            @now 2026-06-08 09:00 America/Los_Angeles
            @seed picnic.ics
            > @audio sounds/where.wav
            < Dolores Park
            @expect events 2
            > Who's coming to my picnic?
            < Ada Lovelace

            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("spoken.convo").path
        let result = try CLIRunner.run(["converse", script, "--json"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        guard case .array(let scripts)? = json["scripts"], let first = scripts.first, case .array(let heard)? = first["heard"], let turn = heard.first else {
            Issue.record("no heard turns: \(result.stdout)"); return
        }
        #expect(first["turns"] == .int(2))
        #expect(turn["line"] == .int(3))
        #expect(turn["file"] == "sounds/where.wav")
        let text = turn["text"]?.stringValue ?? ""
        #expect(text.hasPrefix("where is") && text.hasSuffix("picnic"), "heard “\(text)”")
        #expect(turn["decision"]?.stringValue?.hasPrefix("passed") == true)

        let printed = try CLIRunner.run(["converse", script])
        #expect(printed.stdout.contains("pass  \(script) (2 turns)"), "\(printed.stdout)")
        #expect(printed.stdout.contains("\(script):3: sounds/where.wav: heard “\(text)” (confidence "), "\(printed.stdout)")
    }

    @Test("with --connect, an @audio turn is sent to the daemon, which hears it")
    func throughTheDaemon() throws {
        let directory = try folder(script: """
            @now 2026-06-08 09:00 America/Los_Angeles
            @seed picnic.ics
            > @audio sounds/where.wav
            < Dolores Park
            > @audio sounds/where-raw.wav

            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try DaemonHarness()
        let script = directory.appendingPathComponent("spoken.convo").path
        let result = try CLIRunner.run(["--connect", daemon.socket, "converse", script, "--json"])
        let json = try JSONParser.parse(result.stdout)
        guard case .array(let scripts)? = json["scripts"], let first = scripts.first, case .array(let heard)? = first["heard"],
              case .array(let failures)? = first["failures"] else {
            Issue.record("no result: \(result.stdout)\(result.stderr)"); return
        }
        let text = heard.first?["text"]?.stringValue ?? ""
        #expect(text.hasPrefix("where is") && text.hasSuffix("picnic"), "heard “\(text)”")
        // The 22050 Hz file is refused by the daemon, at its line, with the sox line; nothing else failed.
        #expect(failures.count == 1, "\(failures)")
        #expect(failures.first?["line"] == .int(5))
        #expect(failures.first?["got"]?.stringValue?.contains("22050 Hz") == true, "\(failures)")
    }

    @Test("an @audio file that is missing or not 16 kHz mono fails at its line, saying why")
    func badFile() throws {
        let directory = try folder(script: """
            @seed picnic.ics
            > @audio sounds/nothing.wav
            > @audio sounds/where-raw.wav

            """)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("spoken.convo").path
        let result = try CLIRunner.run(["converse", script])
        #expect(result.status == 1)
        #expect(result.stdout.contains("\(script):2: expected a turn heard from sounds/nothing.wav"), "\(result.stdout)")
        #expect(result.stdout.contains("cannot read the file"))
        // espeak-ng writes 22050 Hz: refused with the sox line that converts it.
        #expect(result.stdout.contains("\(script):3: expected a turn heard from sounds/where-raw.wav"))
        #expect(result.stdout.contains("22050 Hz") && result.stdout.contains("-r 16000 -c 1 -b 16"))
    }
}
