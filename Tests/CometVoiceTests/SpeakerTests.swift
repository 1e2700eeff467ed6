import Foundation
import Testing
import CometSchema
import CometIntents
@testable import CometVoice

/// Speech out (espeak-ng's library into memory) and the endpointer (docs/voice.md).
@Suite("Speaker and Endpointer")
struct SpeakerTests {
    @Test("a reply is synthesized into memory at espeak-ng's rate, in pieces as they are made, and its WAVE header says that rate")
    func synthesis() throws {
        let speaker = try Speaker()
        #expect(speaker.sampleRate == 22_050)
        var pieces = 0
        let samples = try speaker.synthesize("Picnic is at Dolores Park.") { _ in pieces += 1 }
        #expect(Double(samples.count) / Double(speaker.sampleRate) > 0.8, "\(samples.count) samples")
        #expect(pieces > 1, "delivered in pieces: \(pieces)")
        #expect(samples.contains { abs(Int($0)) > 1000 }, "there is sound in it")
        let wave = WAVFile.encode(samples, sampleRate: speaker.sampleRate)
        // The recognizer refuses it as it is (22050 Hz), naming the rate: nothing is resampled silently.
        #expect(throws: VoiceError.self) { try WAVFile.decode(wave, path: "reply.wav") }
        do { _ = try WAVFile.decode(wave, path: "reply.wav") } catch { #expect(error.code == .wrongFormat && error.message.contains("22050 Hz")) }
        // At 16 kHz the same bytes read back as the samples written.
        #expect(try WAVFile.decode(WAVFile.encode(samples, sampleRate: 16_000), path: "same.wav") == samples)
    }

    @Test("what the speaker says, resampled to 16 kHz by sox, is heard as those words")
    func heardBack() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-speaker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let speaker = try Speaker(wordsPerMinute: 150)
        let raw = folder.appendingPathComponent("reply.wav").path
        try speaker.wave("where is the picnic").write(to: URL(fileURLWithPath: raw))
        let converted = folder.appendingPathComponent("reply-16k.wav").path
        try Speech.run("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", converted])
        let words = StoreWords(titles: ["Picnic", "Meteor Shower Watch Party"], places: ["Dolores Park"])
        let registry = try Registry.load(paths: [Speech.root.appendingPathComponent("Schemas").path])
        let language = try LanguageCompiler(pronunciations: try Pronunciations()).compile(registry: registry, store: words, folder: folder.appendingPathComponent("language").path)
        let heard = try Recognizer(language: language.files).hear(try WAVFile(path: converted).samples)
        #expect(heard.text.hasPrefix("where is") && heard.text.hasSuffix("picnic"), "heard “\(heard.text)”")
    }

    /// `seconds` of a 440 Hz tone at `amplitude`, or of quiet noise when `amplitude` is small.
    private func tone(_ seconds: Double, amplitude: Double) -> [Int16] {
        (0..<Int(seconds * 16_000)).map { index in Int16(amplitude * sin(2 * .pi * 440 * Double(index) / 16_000)) }
    }

    @Test("the endpointer finds each stretch of sound over the measured floor, with its preroll and hangover, and nothing in quiet")
    func endpoints() {
        var endpointer = Endpointer()
        let quiet = tone(0.5, amplitude: 40)
        var stream = quiet + tone(1.0, amplitude: 6000) + tone(1.0, amplitude: 40) + tone(0.4, amplitude: 6000) + tone(1.0, amplitude: 40)
        // Fed in uneven pieces, as a sound server hands them over.
        var utterances: [Endpointer.Utterance] = []
        while !stream.isEmpty {
            let piece = Array(stream.prefix(777))
            stream.removeFirst(piece.count)
            utterances += endpointer.feed(piece)
        }
        #expect(utterances.count == 2)
        #expect(endpointer.floor.map { $0 > 20 && $0 < 40 } == true, "the floor is the quiet's level: \(endpointer.floor ?? -1)")
        // 1 s of sound, 0.3 s before it (the preroll) and 0.5 s after it (the hangover), to a frame.
        if let first = utterances.first { #expect(abs(first.seconds - 1.8) < 0.05, "\(first.seconds)"); #expect(!first.cut) }
        if utterances.count == 2 { #expect(abs(utterances[1].seconds - 1.2) < 0.05, "\(utterances[1].seconds)") }
        #expect(endpointer.finish()?.samples == nil)

        var quietOnly = Endpointer()
        #expect(quietOnly.feed(tone(3, amplitude: 40)).isEmpty)
    }

    @Test("an utterance longer than the limit is cut there and says so; the rest starts the next one")
    func cut() {
        var endpointer = Endpointer()
        endpointer.maximumSeconds = 1
        let utterances = endpointer.feed(tone(0.3, amplitude: 0) + tone(2.2, amplitude: 6000) + tone(1, amplitude: 0))
        // 0.1 s of quiet kept before the tone, then the tone: cut at 1 s, cut at 1 s again, and the
        // last 0.3 s of it with the 0.5 s hangover, ended by the quiet.
        #expect(utterances.map(\.cut) == [true, true, false])
        #expect(utterances.map { ($0.seconds * 100).rounded() / 100 } == [1, 1, 0.8])
    }
}
