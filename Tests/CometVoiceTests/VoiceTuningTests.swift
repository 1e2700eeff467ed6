import Foundation
import Testing
@testable import CometVoice

/// Decoder settings tried against each other on the voice suite's speech (docs/voice.md,
/// "Decoder settings"). Opt-in: COMETCAL_VOICE_TUNE holds settings in pocketsphinx's spelling,
/// separated by ";" ("-lw 6.5; -lw 10 -wip 0.2"); an empty item is pocketsphinx's defaults.
/// Each is heard by the compiled languages, clean (and at 10 dB with COMETCAL_VOICE_TUNE_NOISY=1),
/// and the dialogs played; the line printed gives the tuning half (odd dialogs), the held-out
/// half (even) and all, so a choice made on the first can be checked on the second.
@Suite("Voice decoder tuning")
struct VoiceTuningTests {
    static let candidates = ProcessInfo.processInfo.environment["COMETCAL_VOICE_TUNE"]

    @Test("decoder settings compared on the tuning half and the held-out half", .enabled(if: candidates != nil))
    func tune() throws {
        let material = try VoiceMaterial.shared.get()
        let conditions: [VoiceRun.Condition] = ProcessInfo.processInfo.environment["COMETCAL_VOICE_TUNE_NOISY"] == "1" ? [.clean, .noisy] : [.clean]
        let items = (VoiceTuningTests.candidates ?? "").split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        print("settings | condition | WER tuning / held out / all | dialogs right tuning / held out / all | asked | not caught | decoder s")
        for item in items {
            let settings = try #require(DecoderSettings(parsing: item), "not flag-value pairs: \(item)")
            let files = material.languages.mapValues { $0.files.with(settings) }
            let (box, spent) = try VoiceRun.hear(material, files: files, models: [.compiled], conditions: conditions, dialogs: Array(material.dialogs.indices))
            let bank = AnswerBank(samples: material.answers, languages: files)
            for condition in conditions {
                let scored = VoiceRun.score(material, box: box, model: .compiled, condition: condition, bank: bank)
                let all = try #require(scored.figures[""]), tuning = try #require(scored.figures["/tuning"]), held = try #require(scored.figures["/heldout"])
                #expect(all.dialogs == material.dialogs.count, "\(item): every dialog heard")
                print(String(format: "%@ | %@ | %.1f%% / %.1f%% / %.1f%% | %d/%d / %d/%d / %d/%d | %d | %d | %.1f", (item.isEmpty ? "(defaults)" : item) as NSString,
                             condition.rawValue as NSString, tuning.wer * 100, held.wer * 100, all.wer * 100, tuning.right, tuning.dialogs, held.right,
                             held.dialogs, all.right, all.dialogs, all.asked, all.notCaught, spent[VoiceRun.key(.compiled, condition)] ?? 0))
            }
        }
    }
}
