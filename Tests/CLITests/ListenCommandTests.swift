import Testing
import Foundation
import CometSchema

/// `cometcal listen`: WAVE files as the turns of one conversation, what was heard always shown.
@Suite("cometcal listen")
struct ListenCommandTests {
    /// A store holding the picnic seed.
    func seededStore() throws -> (URL, [String: String]) {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        let seeded = try CLIRunner.run(["import", ConverseCommandTests.examples.appendingPathComponent("picnic.ics").path], environment: environment)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return (directory, environment)
    }

    /// Runs /usr/bin/`name` (espeak-ng, sox) and expects it to succeed; the voice tests share it.
    static func tool(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(name) \(arguments)")
    }

    /// `text` spoken by espeak-ng, as a 16 kHz mono 16-bit WAVE file (`channels` 2 for a stereo one).
    func speech(_ text: String, in directory: URL, name: String, channels: Int = 1) throws -> String {
        let raw = directory.appendingPathComponent(name + "-raw.wav").path
        let wave = directory.appendingPathComponent(name + ".wav").path
        try ListenCommandTests.tool("espeak-ng", ["-v", "en-us", "-s", "150", "-w", raw, text])
        try ListenCommandTests.tool("sox", [raw, "-r", "16000", "-c", String(channels), "-b", "16", "-e", "signed-integer", wave])
        return wave
    }

    @Test("a spoken question is heard, shown with its confidence, and answered from the store")
    func question() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try speech("Where is the picnic?", in: directory, name: "question")
        let result = try CLIRunner.run(["listen", wave, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["language"] == "compiled")
        guard case .array(let turns)? = json["turns"], let turn = turns.first else { Issue.record("no turns: \(result.stdout)"); return }
        #expect(turn["file"]?.stringValue == wave)
        // The words as heard, whatever the recognizer made of the article (synthesized speech
        // is heard imperfectly: docs/voice.md); the question and its subject are what matter.
        let heard = turn["heard"]?["text"]?.stringValue ?? ""
        #expect(heard.hasPrefix("where is") && heard.hasSuffix("picnic"), "heard “\(heard)”")
        if case .double(let confidence)? = turn["heard"]?["confidence"] { #expect(confidence > 0 && confidence <= 1) } else { Issue.record("no confidence") }
        #expect(turn["reply"]?.stringValue?.contains("Dolores Park") == true)
        #expect(turn["gate"]?["decision"]?.stringValue?.hasPrefix("passed") == true)
        // espeak-ng's pauses are digital silence: the recognizer put a floor under them, and says so.
        #expect(turn["heard"]?["noiseFloorAdded"] == .bool(true))

        let text = try CLIRunner.run(["listen", wave], environment: environment)
        #expect(text.stdout.contains("heard “\(heard)” (confidence "))
        #expect(text.stdout.contains("; noise floor added)"))
        #expect(text.stdout.contains("Dolores Park"))

        // The same speech with room noise of its own is heard as it is, and nothing is said.
        let roomy = directory.appendingPathComponent("roomy.wav").path
        let noise = directory.appendingPathComponent("noise.wav").path
        try ListenCommandTests.tool("sox", [wave, noise, "synth", "whitenoise", "vol", "0.02"])
        try ListenCommandTests.tool("sox", ["-m", wave, noise, roomy])
        let room = try JSONParser.parse(try CLIRunner.run(["listen", roomy, "--json"], environment: environment).stdout)
        guard case .array(let roomTurns)? = room["turns"], let roomTurn = roomTurns.first else { Issue.record("no turns"); return }
        #expect(roomTurn["heard"]?["noiseFloorAdded"] == .bool(false))
    }

    @Test("silence is “I didn't catch that” and changes nothing")
    func silence() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = directory.appendingPathComponent("silence.wav").path
        try ListenCommandTests.tool("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", wave, "trim", "0", "2"])
        let before = try CLIRunner.run(["export"], environment: environment).stdout
        let result = try CLIRunner.run(["listen", wave, "--json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        guard case .array(let turns)? = json["turns"], let turn = turns.first else { Issue.record("no turns"); return }
        #expect(turn["heard"]?["text"] == "")
        #expect(turn["gate"]?["decision"] == "notCaught")
        #expect(turn["reply"] == "I didn't catch that.")
        #expect(try CLIRunner.run(["export"], environment: environment).stdout == before)
    }

    @Test("a file that is not 16 kHz mono is refused before any turn, naming it and the sox line that converts it")
    func wrongFormat() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stereo = try speech("delete the picnic", in: directory, name: "stereo", channels: 2)
        let result = try CLIRunner.run(["listen", stereo], environment: environment)
        #expect(result.status == 65)
        #expect(result.stderr.contains(stereo) && result.stderr.contains("2 channels") && result.stderr.contains("sox \(stereo) -r 16000 -c 1 -b 16"))
        #expect(result.stdout.isEmpty)
        let missing = try CLIRunner.run(["listen", directory.appendingPathComponent("nothing.wav").path], environment: environment)
        #expect(missing.status == 66)
    }
}
