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
        #expect(Set(Speech.fliteVoices.map(\.description)) == ["flite:slt@1.00", "flite:rms@1.00", "flite:slt@1.20", "flite:rms@1.20"])
        #expect(VoiceDocTests.flat.contains("its clustergen voices `slt` (female) and `rms` (male), each at flite's own speed and with `--setf duration_stretch=1.2`"))
        #expect(VoiceRun.snr == 10)
        #expect(VoiceDocTests.page.contains("mixed in at 10 dB SNR"))
        #expect(VoiceRun.inReference(0) && !VoiceRun.inReference(1) && !VoiceRun.inReference(5) && VoiceRun.inReference(6))
        #expect(VoiceDocTests.page.contains("The generic\n  model hears every sixth dialog only"))
    }

    @Test("the decoder settings, the other readings and the language's order it states are the code's")
    func hearingChoices() throws {
        #expect(DecoderSettings.compiled == .pocketsphinx && DecoderSettings.compiled.flags.isEmpty)
        #expect(VoiceDocTests.flat.contains("A compiled language is heard with pocketsphinx's defaults (`DecoderSettings.compiled` is empty)"))
        #expect(Recognizer.defaultAlternatives == 10 && Recognizer.pathsPerAlternative == 5)
        #expect(VoiceDocTests.flat.contains("up to 10 different in their words, from the first 50 paths"))
        #expect(LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations).order == 3)
        #expect(VoiceDocTests.flat.contains("The model is a Witten-Bell trigram"))
    }

    /// The page with its lines joined and its runs of spaces made one.
    static var flat: String {
        page.replacingOccurrences(of: "\n", with: " ").split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    @Test("the endpointer's figures and the speaker's rate it states are the code's")
    func endpointerAndSpeaker() throws {
        let endpointer = Endpointer()
        #expect(endpointer.calibrationFrames == 20 && VoiceDocTests.flat.contains("the first 0.2 s measure the room's noise floor"))
        #expect(endpointer.minimumFloor == 30 && VoiceDocTests.flat.contains("a floor under RMS 30 (digital silence, a muted input) counts as 30"))
        #expect(endpointer.startFrames == 3 && endpointer.startRatio == 4 && endpointer.prerollFrames == 30
                && VoiceDocTests.flat.contains("speech starts after 3 frames in a row at 4 times the floor (12 dB over it), with the 0.3 s before them kept"))
        #expect(endpointer.hangoverFrames == 50 && endpointer.endRatio == 2 && VoiceDocTests.flat.contains("it ends after 0.5 s under twice the floor (6 dB over it)"))
        #expect(endpointer.maximumSeconds == 15 && VoiceDocTests.flat.contains("an utterance past 15 s is cut there"))
        #expect(try Speaker().sampleRate == 22_050)
        #expect(VoiceDocTests.flat.contains("at espeak-ng's own rate, 22050 Hz"))
    }
}
