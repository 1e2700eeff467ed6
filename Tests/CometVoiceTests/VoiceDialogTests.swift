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
        print("right with nothing heard: \(run.silentRight.count) of \(run.dialogs.count) dialogs (they only ask, or wait for a yes)")
        for key in ["compiled/clean", "compiled/noisy", "generic/clean", "generic/noisy"] {
            let (right, of) = run.needingHearing(key)
            print("\(key): \(right) of the \(of) dialogs that need hearing ended right")
        }
        for (key, names) in run.wrong.sorted(by: { $0.key < $1.key }) { print("wrong (\(key)): \(names.joined(separator: ", "))") }
        for (reference, heard) in run.misheard { print("misheard: “\(reference)” → “\(heard)”") }
        print("phases (s): " + run.phaseSeconds.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", "))
        print("decoder seconds: " + run.decodeSpent.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", ")
              + String(format: "; speech: %.1f s per condition (all dialogs)", run.audioSeconds))
        print("languages: \(run.languages.count), compiled in \(run.compileSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ")) s; clipped samples: \(run.clipped)")
        #expect(run.dialogs.count >= 100)
    }
}
