import Foundation
import Testing
import CometSchema
@testable import CometVoice

/// The recognizer hears each turn on its own: what it heard before, and which language it
/// listened with before, do not change what it hears now.
@Suite("Recognizer")
struct RecognizerTests {
    /// Turns in the same order are heard the same: decoders made anew, or switched to the
    /// language from another, agree. The noise estimate carries over from turn to turn (with
    /// noise removal on, as by default): alone, a turn may be heard otherwise; with it off,
    /// turns are independent. docs/voice.md says why the default keeps it on.
    @Test("the same turns in the same order are heard the same; without noise removal, a turn is heard the same alone")
    func order() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-recognizer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiler = LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
        let picnic = try compiler.compile(registry: LanguageCompilerTests.registry, store: StoreWords(titles: ["Picnic"], people: ["Ada Lovelace"]),
                                          folder: folder.appendingPathComponent("picnic").path)
        let crew = try compiler.compile(registry: LanguageCompilerTests.registry, store: StoreWords(titles: ["Crew Lunch", "Team Lunch"]),
                                        folder: folder.appendingPathComponent("crew").path)
        let first = try Speech.synthesize("who's coming to my picnic", voice: Speech.voices[0], folder: folder, name: "first")
        let second = try Speech.synthesize("delete the picnic", voice: Speech.voices[1], folder: folder, name: "second")

        let one = try Recognizer(language: picnic.files)
        let heard = [try one.hear(first), try one.hear(second)]
        let two = try Recognizer(language: picnic.files)
        #expect([try two.hear(first), try two.hear(second)] == heard, "two new decoders disagree on the same turns")
        let switched = try Recognizer(language: crew.files)
        _ = try switched.hear(first)
        try switched.use(picnic.files)
        #expect(switched.language == picnic.files)
        #expect(try switched.hear(second) == heard[1], "a switched decoder heard otherwise than a new one")

        let plain = try Recognizer(language: picnic.files, removeNoise: false)
        let alone = try plain.hear(second)
        let after = try Recognizer(language: picnic.files, removeNoise: false)
        _ = try after.hear(first)
        #expect(try after.hear(second) == alone, "without noise removal, the turn before changed what was heard")
    }

    @Test("a recording with no room noise gets a faint floor, the same every time; one with a floor of its own is left as it is")
    func noiseFloor() {
        // A tone with digital silence around it, as a synthesizer writes it.
        let tone = (0..<8_000).map { Int16(8_000 * sin(Double($0) * 2 * .pi * 440 / 16_000)) }
        let synthesized = [Int16](repeating: 0, count: 8_000) + tone + [Int16](repeating: 0, count: 8_000)
        let floored = Recognizer.withNoiseFloor(synthesized)
        #expect(floored != synthesized)
        #expect(floored == Recognizer.withNoiseFloor(synthesized))
        #expect(floored.prefix(8_000).allSatisfy { abs(Int32($0)) <= Recognizer.noiseFloorAmplitude })
        #expect(floored.prefix(8_000).contains { $0 != 0 })
        // A recording whose quiet frames already hold noise (about −40 dBFS).
        var state: UInt32 = 7
        let room = synthesized.map { sample -> Int16 in
            state = state &* 1_103_515_245 &+ 12_345
            return Int16(clamping: Int32(sample) + Int32(state >> 16) % 600 - 300)
        }
        #expect(Recognizer.withNoiseFloor(room) == room)
        #expect(Recognizer.floored(synthesized).added && !Recognizer.floored(room).added)
    }

    @Test("silence is heard as no words at all, with confidence 0")
    func silence() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-recognizer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let language = try LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
            .compile(registry: LanguageCompilerTests.registry, store: StoreWords(titles: ["Picnic"]), folder: folder.path)
        let hearing = try Recognizer(language: language.files).hear([Int16](repeating: 0, count: 32_000))
        #expect(hearing.isEmpty)
        #expect(hearing.confidence == 0)
        #expect(hearing.seconds == 2)
    }

    @Test("a missing model or language is refused naming the file and scripts/bootstrap")
    func missing() {
        #expect {
            try Recognizer(language: LanguageFiles(languageModel: "/nonexistent/language.lm", dictionary: SpeechModels.cmudict))
        } throws: { error in
            (error as? VoiceError)?.code == .missingModel && (error as? VoiceError)?.place == "/nonexistent/language.lm"
                && (error as? VoiceError)?.message.contains("scripts/bootstrap") == true
        }
    }
}
