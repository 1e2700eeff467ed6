import Testing
import Foundation
import CometSchema

/// `--speak` and `--speak-to`: the replies said by espeak-ng, played or written; with no sound
/// server, said once and the conversation goes on in text (docs/voice.md, "Speech out").
@Suite("cometcal listen --speak")
struct SpeakFlagTests {
    @Test("--speak-to writes each reply as a WAVE file whose header says espeak-ng's rate; the reply text still prints")
    func speakTo() throws {
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try ListenCommandTests().speech("Where is the picnic?", in: directory, name: "where")
        let folder = directory.appendingPathComponent("replies")
        let result = try CLIRunner.run(["listen", wave, "--speak-to", folder.path, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        guard case .array(let turns)? = json["turns"], let turn = turns.first else { Issue.record("no turns: \(result.stdout)"); return }
        let written = folder.appendingPathComponent("reply-1.wav").path
        #expect(turn["spoken"]?["file"]?.stringValue == written)
        #expect(turn["spoken"]?["rate"] == .int(22_050))
        #expect(json["speech"]?["problem"] == .null)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: written))
        #expect(String(decoding: bytes.prefix(4), as: UTF8.self) == "RIFF" && bytes.count > 44 + 22_050)

        let text = try CLIRunner.run(["listen", wave, "--speak-to", folder.path], environment: environment)
        #expect(text.stdout.contains("Dolores Park"), "the reply is printed as well")
    }

    @Test("--speak with no sound server says so once on standard error and in --json, and every turn is still answered")
    func noServer() throws {
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try ListenCommandTests().speech("Where is the picnic?", in: directory, name: "where")
        var nowhere = environment
        nowhere["PULSE_SERVER"] = "unix:" + directory.appendingPathComponent("no-such-socket").path
        let result = try CLIRunner.run(["listen", wave, wave, "--speak"], environment: nowhere)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "Dolores Park").count == 3, "both turns answered: \(result.stdout)")
        #expect(result.stderr.components(separatedBy: "no sound server or device to play to").count == 2, "said once: \(result.stderr)")
        #expect(result.stderr.contains("PULSE_SERVER"))

        let json = try CLIRunner.run(["listen", wave, "--speak", "--json"], environment: nowhere)
        #expect(json.status == 0)
        let parsed = try JSONParser.parse(json.stdout)
        #expect(parsed["speech"]?["problem"]?.stringValue?.contains("no sound server") == true, "\(json.stdout)")
        guard case .array(let turns)? = parsed["turns"] else { Issue.record("no turns"); return }
        #expect(turns.first?["spoken"]?["played"] == false)
    }

    @Test("--speak and --speak-to together are a usage error")
    func both() throws {
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try ListenCommandTests().speech("hello", in: directory, name: "hello")
        let result = try CLIRunner.run(["listen", wave, "--speak", "--speak-to", directory.path], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("give one of them"))
    }
}
