import Foundation
import Testing
import CometSchema
@testable import CometVoice

/// docs/voice.md states facts: the threshold, the words that cannot be heard, the voices and
/// the noise are what the code and the suite use.
@Suite("docs/voice.md")
struct VoiceDocTests {
    static let page = (try? String(contentsOf: Speech.root.appendingPathComponent("docs/voice.md"), encoding: .utf8)) ?? ""

    @Test("the threshold it names is the gate's")
    func threshold() {
        #expect(VoiceDocTests.page.contains("so the threshold is 0.3\n(`VoiceConversation.defaultThreshold`)"))
        #expect(VoiceConversation.defaultThreshold == 0.3)
        #expect(VoiceDocTests.page.contains("| words, confidence at least 0.3 |"))
    }

    @Test("the calendar schemas' words with no pronunciation are the ones it lists")
    func unpronounceable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-doc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let language = try LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
            .compile(registry: LanguageCompilerTests.registry, store: StoreWords(titles: ["Picnic"]), folder: folder.path)
        let listed = language.report.unpronounceable.keys.sorted().map { "`\($0)`" }.joined(separator: ", ")
        #expect(VoiceDocTests.page.replacingOccurrences(of: "\n", with: " ").contains("cmudict lacks: \(listed)."), "the compile reports \(listed)")
    }

    @Test("the voices, speeds and signal-to-noise ratio it describes are the suite's")
    func speech() {
        #expect(Set(Speech.voices.map(\.description)) == ["en-us@150", "en-us@175", "en-us+f3@150", "en-us+f3@175"])
        #expect(VoiceDocTests.page.contains("voice and its female variant `f3`, each at 150 and 175 words a minute"))
        #expect(VoiceRun.snr == 10)
        #expect(VoiceDocTests.page.contains("mixed in at 10 dB SNR"))
        #expect(VoiceRun.inReference(0) && !VoiceRun.inReference(1) && !VoiceRun.inReference(5) && VoiceRun.inReference(6))
        #expect(VoiceDocTests.page.contains("The generic\n  model hears every sixth dialog only"))
    }
}
