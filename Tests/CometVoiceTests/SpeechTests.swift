import Foundation
import Testing

/// The suite's speech makers: flite's words read as the words said, and a missing synthesizer
/// named with its package (docs/voice.md, "How the voice suite measures").
@Suite("Voice suite's speech")
struct SpeechTests {
    @Test("flite's printed words are read as the words said")
    func fliteWords() {
        #expect(Speech.fliteWords("what 's on tomorrow \n", text: "What's on tomorrow?") == ["what's", "on", "tomorrow"])
        #expect(Speech.fliteWords("dont let me forget to feed the cat t m r w at eight _a m \n", text: "don't let me forget to feed the cat tmrw at 8am")
                == ["don't", "let", "me", "forget", "to", "feed", "the", "cat", "tmrw", "at", "eight", "am"])
        #expect(Speech.fliteWords("friday at nine : fifteen _a \n", text: "friday at 9:15a") == ["friday", "at", "nine", "fifteen", "a"])
    }

    @Test("flite speaks a turn, and says which words it spoke")
    func flite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-flite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spoken = try Speech.speak("Move it to noon… actually 11:30 am on June 13", voice: Speech.fliteVoices[0], folder: folder, name: "turn")
        #expect(spoken.said == ["move", "it", "to", "noon", "actually", "eleven", "thirty", "am", "on", "june", "thirteenth"])
        #expect(spoken.samples.count > 16_000)
        let slower = try Speech.speak("Move it to noon… actually 11:30 am on June 13", voice: Speech.fliteVoices[2], folder: folder, name: "slower")
        #expect(Double(slower.samples.count) > 1.1 * Double(spoken.samples.count), "duration_stretch 1.2 makes it longer")
        #expect(throws: Speech.ToolFailure.self) { try Speech.speak("café", voice: Speech.fliteVoices[0], folder: folder, name: "accent") }
    }

    @Test("a synthesizer that is not installed is an error naming its package and scripts/bootstrap")
    func missing() {
        do {
            try Speech.run("cometcal-no-such-synthesizer", [])
            Issue.record("a missing tool ran")
        } catch {
            #expect("\(error)".contains("/usr/bin/cometcal-no-such-synthesizer is missing"))
            #expect("\(error)".contains("run scripts/bootstrap"))
        }
        #expect(Speech.packages["flite"] == "flite")
    }
}
