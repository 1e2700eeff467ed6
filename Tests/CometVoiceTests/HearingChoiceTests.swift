import Foundation
import Testing
import CometSchema
@testable import CometConversation
@testable import CometVoice

/// What the recognizer listens with and which of its readings the gate takes
/// (docs/voice.md, "Decoder settings", "Other readings").
@Suite("Hearing choices")
struct HearingChoiceTests {
    static func compile(_ configure: (inout LanguageCompiler) -> Void = { _ in }) throws -> (CompiledLanguage, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-choice-\(UUID().uuidString)")
        var compiler = LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
        compiler.perClass = 20
        configure(&compiler)
        return (try compiler.compile(registry: LanguageCompilerTests.registry, store: LanguageCompilerTests.store, folder: folder.path), folder)
    }

    @Test("decoder settings are pocketsphinx's own options: an unknown flag, a value not of its type or a text option is refused naming it")
    func settingsRefused() throws {
        #expect(DecoderSettings(parsing: "-lw 10 -wip") == nil)
        #expect(DecoderSettings(parsing: "lw 10") == nil)
        #expect(DecoderSettings(parsing: "-lw 10 -bestpath no")?.description == "-lw 10 -bestpath no")
        let (language, folder) = try HearingChoiceTests.compile()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (flag, value) in [("-nosuchoption", "1"), ("-lw", "heavy"), ("-bestpath", "maybe"), ("-hmm", "/elsewhere")] {
            #expect {
                try Recognizer(language: language.files.with(DecoderSettings([(flag, value)])))
            } throws: { error in
                (error as? VoiceError)?.code == .decoder && (error as? VoiceError)?.place == flag
            }
        }
    }

    @Test("a decoder switched to a language with other settings hears as a new decoder with them does, and back")
    func settingsSwitched() throws {
        let (language, folder) = try HearingChoiceTests.compile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sound = try Speech.synthesize("move the crew lunch to one pm", voice: Speech.voices[1], folder: folder, name: "turn")
        let heavy = language.files.with(DecoderSettings([("-lw", "30"), ("-wip", "0.01")]))
        let fresh = try Recognizer(language: heavy, removeNoise: false).hear(sound)
        let plain = try Recognizer(language: language.files, removeNoise: false).hear(sound)
        #expect(fresh != plain, "the settings changed nothing, so this test shows nothing")
        let switched = try Recognizer(language: language.files, removeNoise: false)
        try switched.use(heavy)
        #expect(try switched.hear(sound) == fresh)
        try switched.use(language.files)
        #expect(try switched.hear(sound) == plain)
    }

    @Test("an enumeration's display and spoken phrases are in the language: the answers to a choice can be heard")
    func enumerationPhrases() throws {
        let (_, folder) = try HearingChoiceTests.compile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sentences = Set(try String(contentsOfFile: folder.appendingPathComponent("sentences.txt").path, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").dropFirst().joined(separator: " ")
        })
        for phrase in ["the whole series", "just this one", "only this event", "this and future events", "all of them"] {
            #expect(sentences.contains(phrase), "“\(phrase)”")
        }
    }

    static func alternative(_ text: String) -> Hearing { GateFixture.hearing(text, confidence: 0.02) }

    @Test("an unsure hearing that reads as nothing takes the first other reading that is a declared phrase word for word, and asks it back")
    func rerankAsked() throws {
        let fixture = try GateFixture()
        let before = try fixture.snapshot()
        let best = GateFixture.hearing("let me lunch out and earlier", confidence: 0.02)
        let hearing = Hearing(words: best.words, seconds: 2, alternatives: [HearingChoiceTests.alternative("picnic out and earlier"),
                                                                           HearingChoiceTests.alternative("move the picnic to noon")])
        #expect(!fixture.voice.conversation.interpret("let me lunch out and earlier").understood)
        let turn = fixture.voice.hear(hearing)
        #expect(turn.decision == .asked)
        #expect(turn.rank == 3)
        #expect(turn.taken == "move the picnic to noon")
        #expect(turn.reply == "Did you say “move the picnic to noon”?")
        #expect(turn.why?.contains("word for word") == true)
        guard case .object(let json) = turn.json(threshold: 0.3), case .object(let gate)? = json["gate"] else { Issue.record("no gate in the JSON"); return }
        #expect(gate["rank"] == .int(3))
        #expect(gate["why"]?.stringValue?.contains("word for word") == true)
        guard case .object(let heard)? = json["heard"], case .array(let others)? = heard["alternatives"] else { Issue.record("no alternatives in the JSON"); return }
        #expect(others.map { $0["text"]?.stringValue } == ["picnic out and earlier", "move the picnic to noon"])
        #expect(try fixture.snapshot() == before, "nothing is written before the yes")
        let yes = fixture.voice.hear(GateFixture.hearing("yes", confidence: 0.9))
        #expect(yes.decision == .confirmed)
        #expect(yes.said == "move the picnic to noon")
    }

    @Test("other readings are not read when the best one is sure or reads; one only the statistical reader reads is not taken")
    func rerankNot() throws {
        let sure = try GateFixture()
        let alternatives = [HearingChoiceTests.alternative("move the picnic to noon")]
        let passed = sure.voice.hear(Hearing(words: GateFixture.hearing("where is the picnic", confidence: 0.9).words, seconds: 2, alternatives: alternatives))
        #expect(passed.decision == .passed && passed.rank == 1 && passed.said == "where is the picnic")
        let reads = try GateFixture()
        let unsure = reads.voice.hear(Hearing(words: GateFixture.hearing("where is the picnic", confidence: 0.05).words, seconds: 2, alternatives: alternatives))
        #expect(unsure.decision == .passedUnsure && unsure.rank == 1)
        let loose = try GateFixture()
        let statistical = "list my lunch out on will you"
        let reading = loose.voice.conversation.interpret(statistical)
        #expect(reading.understood && reading.reader != "phrase", "the statistical reader reads it: \(reading.reader ?? "none")")
        let before = try loose.snapshot()
        let dropped = loose.voice.hear(Hearing(words: GateFixture.hearing("let me lunch out and earlier", confidence: 0.02).words, seconds: 2,
                                               alternatives: [HearingChoiceTests.alternative(statistical)]))
        #expect(dropped.decision == .notCaught && dropped.rank == 1)
        #expect(try loose.snapshot() == before)
    }

    @Test("the suite's second person takes two readings as the same only when they would do the same")
    func sameReading() throws {
        let fixture = try GateFixture()
        let reading = { (text: String) in fixture.voice.conversation.interpret(text) }
        #expect(VoicePlayer.readsTheSame(reading("move the picnic to noon"), reading("move my picnic to noon")))
        #expect(!VoicePlayer.readsTheSame(reading("move the picnic to noon"), reading("move the picnic to one pm")))
        #expect(!VoicePlayer.readsTheSame(reading("move the picnic to noon"), reading("move the crew lunch to noon")))
        #expect(!VoicePlayer.readsTheSame(reading("let me lunch out and earlier"), reading("let me lunch out and earlier")), "nothing read is never the same")
    }
}
