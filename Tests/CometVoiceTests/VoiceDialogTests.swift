import Foundation
import Testing
@testable import CometVoice

/// The example dialogs by voice, with no person (docs/voice.md, "Measured"): word error rate
/// and the share of dialogs whose store ends right, for the compiled language and the generic
/// model in the same run, clean and at 10 dB SNR.
@Suite("Voice dialogs")
struct VoiceDialogTests {
    @Test("the table of word error rates and dialogs right, per model, clean and at 10 dB SNR")
    func table() throws {
        let run = try VoiceRun.shared.get()
        print(run.table)
        print(run.thresholds)
        print("dialogs right by threshold (compiled): " + run.sweep.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("dialogs right (compiled) with a person who says yes to a hearing that reads as what they said: "
              + run.lenient.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        print("right with nothing heard: \(run.silentRight.count) of \(run.dialogs.count) dialogs (they only ask, or wait for a yes)")
        for key in ["compiled/clean", "compiled/noisy", "generic/clean", "generic/noisy", "compiled/flite-clean", "compiled/flite-noisy",
                    "generic/flite-clean"] {
            let (right, of) = run.needingHearing(key)
            let tasks = run.needingHearing(key, prefix: "tasks-")
            print("\(key): \(right) of the \(of) dialogs that need hearing ended right (tasks: \(tasks.right) of \(tasks.of))")
        }
        for key in ["compiled/clean", "compiled/noisy", "compiled/flite-clean", "compiled/flite-noisy"] {
            let kinds = run.errorKinds[key] ?? [:]
            print("\(key) word errors by kind: " + kinds.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            print("\(key) gate: " + (run.gateCounts[key] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            let figures = run.figures[key]
            #expect(kinds.values.reduce(0, +) == figures?.errors, "\(key): every word error has a kind")
        }
        for (key, names) in run.wrong.sorted(by: { $0.key < $1.key }) { print("wrong (\(key)): \(names.joined(separator: ", "))") }
        for (reference, heard) in run.misheard { print("misheard: “\(reference)” → “\(heard)”") }
        print("phases (s): " + run.phaseSeconds.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", "))
        print("decoder seconds: " + run.decodeSpent.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", ")
              + String(format: "; speech: %.1f s per condition (all dialogs), flite's %.1f s", run.audioSeconds, run.fliteAudioSeconds))
        print("languages: \(run.languages.count), compiled in \(run.compileSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ")) s; clipped samples: \(run.clipped)")
        #expect(run.dialogs.count >= 100)
        // Floors the build meets with a margin (docs/voice.md, "Measured"); far from the
        // issue's targets, which are not met.
        let clean = try #require(run.figures["compiled/clean"]), noisy = try #require(run.figures["compiled/noisy"])
        #expect(clean.wer <= 0.40, "compiled, clean: WER \(clean.wer)")
        #expect(noisy.wer <= 0.60, "compiled, 10 dB: WER \(noisy.wer)")
        #expect(clean.right >= 42, "compiled, clean: \(clean.right) dialogs right")
        #expect(noisy.right >= 31, "compiled, 10 dB: \(noisy.right) dialogs right")
        #expect(run.needingHearing("compiled/clean").right >= 9, "compiled, clean: dialogs that need hearing, right")
        // The half of the dialogs no setting was chosen on (the even ones), on its own.
        let heldOut = try #require(run.figures["compiled/clean/heldout"])
        #expect(heldOut.dialogs == 54 && heldOut.wer <= 0.42 && heldOut.right >= 19, "held out, clean: WER \(heldOut.wer), \(heldOut.right) right")
        // The compiled language hears better than the generic model, on the same turns.
        for condition in ["clean", "noisy"] {
            let compiled = try #require(run.figures["compiled/\(condition)/reference"]), generic = try #require(run.figures["generic/\(condition)"])
            #expect(compiled.wer + 0.25 < generic.wer, "\(condition): compiled WER \(compiled.wer), generic \(generic.wer)")
        }
        // The second synthesizer, flite (docs/voice.md, "A second synthesizer"): heard far better
        // clean than espeak-ng's speech, far worse at 10 dB SNR of white noise, whose energy is
        // where flite's speech has little.
        let material = try VoiceMaterial.shared.get()
        let espeakHigh = try #require(material.highShare[.espeak]), fliteHigh = try #require(material.highShare[.flite])
        print(String(format: "high frequencies (RMS of the first difference over RMS, clean turns): espeak-ng %.3f, flite %.3f", espeakHigh, fliteHigh))
        #expect(fliteHigh < 0.6 * espeakHigh, "flite \(fliteHigh), espeak-ng \(espeakHigh)")
        let fliteClean = try #require(run.figures["compiled/flite-clean"]), fliteNoisy = try #require(run.figures["compiled/flite-noisy"])
        #expect(fliteClean.dialogs == run.dialogs.count && fliteNoisy.dialogs == run.dialogs.count)
        #expect(fliteClean.wer <= 0.25, "flite, clean: WER \(fliteClean.wer)")
        #expect(fliteClean.right >= 50, "flite, clean: \(fliteClean.right) dialogs right")
        #expect(fliteClean.wer + 0.08 < clean.wer, "clean: flite WER \(fliteClean.wer), espeak-ng \(clean.wer)")
        #expect(run.needingHearing("compiled/flite-clean").right >= 17, "flite, clean: dialogs that need hearing, right")
        #expect(fliteNoisy.wer <= 0.95, "flite, 10 dB: WER \(fliteNoisy.wer)")
        #expect(fliteNoisy.right >= 30, "flite, 10 dB: \(fliteNoisy.right) dialogs right")
        #expect(fliteNoisy.wer > noisy.wer + 0.2, "10 dB: flite WER \(fliteNoisy.wer), espeak-ng \(noisy.wer)")
        // What flite's speech says about the gap: the acoustic confusions fall, the words the
        // language lacks and the insertions do not; the generic model comes near the compiled one.
        let espeakKinds = run.errorKinds["compiled/clean"] ?? [:], fliteKinds = run.errorKinds["compiled/flite-clean"] ?? [:]
        #expect((fliteKinds["other"] ?? 0) * 2 < espeakKinds["other"] ?? 0, "other words of the language: flite \(fliteKinds), espeak-ng \(espeakKinds)")
        #expect(abs((fliteKinds["not in the language"] ?? 0) - (espeakKinds["not in the language"] ?? 0)) <= 5)
        #expect((fliteKinds["insertion"] ?? 0) + 10 >= espeakKinds["insertion"] ?? 0)
        #expect((run.gateCounts["compiled/flite-clean"]?["passed"] ?? 0) >= (run.gateCounts["compiled/clean"]?["passed"] ?? 0) + 25, "exact hearings passed unasked")
        #expect(fliteNoisy.notCaught >= 60, "flite, 10 dB: \(fliteNoisy.notCaught) turns not caught")
        let compiledFlite = try #require(run.figures["compiled/flite-clean/reference"]), genericFlite = try #require(run.figures["generic/flite-clean"])
        #expect(abs(compiledFlite.wer - genericFlite.wer) < 0.08, "flite, clean, every sixth: compiled \(compiledFlite.wer), generic \(genericFlite.wer)")
        #expect(run.figures["generic/flite-clean"]?.dialogs == 18 && run.figures["generic/flite-noisy"] == nil, "the generic model hears flite's clean speech only")
        // The tasks domain by voice, with a language from its schema and its store alone.
        #expect(clean.tasksDialogs == 17)
        #expect(clean.tasksRight >= 4, "tasks dialogs right: \(clean.tasksRight)")
    }
}
