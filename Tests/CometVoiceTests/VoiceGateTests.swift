import Foundation
import Testing
import CometSchema
import CometIntents
import CometSQLiteStore
@testable import CometConversation
@testable import CometVoice

/// A store seeded with the picnic, a conversation on it behind the voice gate, and a way to
/// see whether anything in the store changed.
final class GateFixture {
    static let registry: Registry = try! Registry.load(paths: [Speech.root.appendingPathComponent("Schemas").path])
    static let now = LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 8)!, hour: 9, minute: 0)!.dateTime(in: VoiceRun.zone).instant!
    let world: LocalScriptWorld
    let voice: VoiceConversation

    init(seeds: [String] = ["picnic.ics", "crew.ics"]) throws {
        world = try LocalScriptWorld(registry: GateFixture.registry, now: GateFixture.now, timeZone: VoiceRun.zone, opener: SQLiteStore.opener)
        for seed in seeds {
            _ = world.importSeed(name: seed, text: try String(contentsOf: Speech.examples.appendingPathComponent(seed), encoding: .utf8))
        }
        guard let conversation = try world.openConversation(now: GateFixture.now, timeZone: VoiceRun.zone) as? Conversation else {
            throw Speech.ToolFailure(description: "no local conversation")
        }
        voice = VoiceConversation(conversation: conversation)
    }

    /// Every indexed record, to compare before and after.
    func snapshot() throws -> Set<EntityRecord> {
        var records = Set<EntityRecord>()
        for entity in GateFixture.registry.allEntities where entity.kind == .indexed { records.formUnion(try world.records(entity.name)) }
        return records
    }

    func picnicStart() throws -> String {
        let event = try world.records(QualifiedName(domain: "calendar", name: "Event")).first { GateFixture.registry.title(of: $0) == "Picnic" }
        return event.map { GateFixture.registry.displayText($0["startDate"] ?? .string("")) } ?? "none"
    }

    static func hearing(_ text: String, confidence: Double) -> Hearing {
        Hearing(words: text.split(separator: " ").enumerated().map { index, word in
            Hearing.Word(text: String(word), posterior: index == 0 ? confidence : 0.99, start: Double(index) * 0.3, end: Double(index) * 0.3 + 0.3)
        }, seconds: 2)
    }
}

@Suite("The voice gate")
struct VoiceGateTests {
    @Test("nothing heard is “I didn't catch that” and no turn")
    func nothingHeard() throws {
        let fixture = try GateFixture()
        let before = try fixture.snapshot()
        let turn = fixture.voice.hear(Hearing(words: [], seconds: 2))
        #expect(turn.decision == .notCaught)
        #expect(turn.reply == VoiceConversation.notCaught)
        #expect(turn.turn == nil)
        #expect(try fixture.snapshot() == before)
    }

    @Test("a sure hearing of a change is said to the conversation as typed text would be")
    func sureChange() throws {
        let fixture = try GateFixture()
        let typed = try GateFixture()
        let turn = fixture.voice.hear(GateFixture.hearing("move the picnic to noon", confidence: 0.8))
        #expect(turn.decision == .passed)
        let expected = typed.voice.conversation.say("move the picnic to noon")
        #expect(turn.reply == expected.reply)
        #expect(turn.outcome == expected.outcome)
        // The picnic has guests: the engine's policy asks first, and a sure yes moves it.
        let yes = fixture.voice.hear(GateFixture.hearing("yes", confidence: 0.9))
        #expect(yes.outcome == .done, "\(yes.reply)")
        #expect(try fixture.picnicStart().contains("12:00"))
    }

    @Test("an unsure hearing of a change is asked back, and only a yes plays it")
    func unsureChange() throws {
        let fixture = try GateFixture()
        let before = try fixture.snapshot()
        let asked = fixture.voice.hear(GateFixture.hearing("move the picnic to noon", confidence: 0.05))
        #expect(asked.decision == .asked)
        #expect(asked.reply == "Did you say “move the picnic to noon”?")
        #expect(try fixture.snapshot() == before, "nothing is written before the yes")
        let yes = fixture.voice.hear(GateFixture.hearing("yes", confidence: 0.9))
        #expect(yes.decision == .confirmed)
        #expect(yes.said == "move the picnic to noon")
        #expect(yes.reply.hasPrefix("Move “Picnic” to"), "then the engine's own question: \(yes.reply)")
        let again = fixture.voice.hear(GateFixture.hearing("yes", confidence: 0.9))
        #expect(again.outcome == .done)
        #expect(try fixture.picnicStart().contains("12:00"))

        let other = try GateFixture()
        let untouched = try other.snapshot()
        _ = other.voice.hear(GateFixture.hearing("delete the picnic", confidence: 0.02))
        let no = other.voice.hear(GateFixture.hearing("no", confidence: 0.9))
        #expect(no.decision == .declined)
        #expect(no.outcome == .cancelled)
        #expect(try other.snapshot() == untouched)
    }

    @Test("an unsure hearing that only asks is answered, marked unsure; one that reads as nothing is not caught")
    func unsureQuestion() throws {
        let fixture = try GateFixture()
        let question = fixture.voice.hear(GateFixture.hearing("who's coming to my picnic", confidence: 0.05))
        #expect(question.decision == .passedUnsure)
        #expect(question.reply.contains("Ada Lovelace"))
        let nonsense = fixture.voice.hear(GateFixture.hearing("purple elephant banana", confidence: 0.05))
        #expect(nonsense.decision == .notCaught)
    }

    @Test("the JSON of a turn shows what was heard with each word's posterior, and the gate's decision")
    func json() throws {
        let fixture = try GateFixture()
        let turn = fixture.voice.hear(GateFixture.hearing("move the picnic to noon", confidence: 0.05))
        let json = turn.json(threshold: VoiceConversation.defaultThreshold)
        #expect(json["heard"]?["text"] == .string("move the picnic to noon"))
        #expect(json["heard"]?["confidence"] == .double(0.05))
        #expect(json["gate"]?["decision"] == .string("asked"))
        #expect(json["gate"]?["threshold"] == .double(0.3))
        if case .array(let words)? = json["heard"]?["words"] { #expect(words.count == 5) } else { Issue.record("no words") }
    }
}

/// Speech that is not for CometCal, silence and noise, heard with the compiled language: never
/// a store change.
@Suite("Voice out of grammar")
struct VoiceOutOfGrammarTests {
    /// Requests to some other assistant, written for this test (none is an example dialog's).
    static let outOfGrammar = [
        "what's the weather like in paris", "play some jazz music", "order a large pepperoni pizza", "turn off the kitchen lights",
        "how tall is mount everest", "tell me a joke", "send a text to my brother", "what's the capital of australia",
        "set the thermostat to seventy degrees", "navigate to the nearest gas station", "how do you spell necessary",
        "call a taxi to the airport", "translate good morning into french", "what's the score of the game", "buy more milk and eggs",
        "read me the news headlines",
    ]

    @Test("sixteen requests to another assistant, silence and noise change nothing in the store")
    func nothingChanges() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-oog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let seeded = try GateFixture()
        let store = try StoreWords.read(registry: GateFixture.registry, records: seeded.world.records)
        let language = try LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
            .compile(registry: GateFixture.registry, store: store, folder: folder.appendingPathComponent("language").path)
        let recognizer = try Recognizer(language: language.files)

        var sounds: [(String, [Int16])] = []
        for (index, text) in VoiceOutOfGrammarTests.outOfGrammar.enumerated() {
            sounds.append((text, try Speech.synthesize(text, voice: Speech.voices[index % Speech.voices.count], folder: folder, name: "oog\(index)")))
        }
        sounds.append(("(two seconds of silence)", [Int16](repeating: 0, count: 32_000)))
        let noise = try Speech.noise(seconds: 3, folder: folder)
        sounds.append(("(two seconds of white noise)", Array(noise.prefix(32_000))))

        var accepted: [String] = []
        for (text, samples) in sounds {
            let fixture = try GateFixture()
            let before = try fixture.snapshot()
            let turn = fixture.voice.hear(try recognizer.hear(samples))
            if turn.decision == .passed, turn.turn?.understood == true { accepted.append("\(text) → “\(turn.hearing.text)”") }
            #expect(try fixture.snapshot() == before, "“\(text)” heard as “\(turn.hearing.text)” (\(turn.decision.rawValue)) changed the store: \(turn.reply)")
            if text.hasPrefix("(two seconds of silence") { #expect(turn.decision == .notCaught, "silence was heard as “\(turn.hearing.text)”") }
        }
        print("out of grammar: \(accepted.count) of \(sounds.count) passed the gate as understood: \(accepted.joined(separator: "; "))")
    }
}
