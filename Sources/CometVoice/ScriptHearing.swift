import Foundation
import CometConversation

/// Hears the `> @audio FILE.wav` turns of `.convo` scripts (docs/voice.md, "Scripts"): the file
/// is heard with the language compiled from the script's schemas and its store as it is at that
/// turn, and what was heard goes through the voice gate like any spoken turn.
///
/// Scripts are for checking, so a script must hear the same every run: the language is compiled
/// before the turn whenever the store's titles, people or places changed since the last compile
/// (the turn waits for it, unlike `listen`'s background rebuild), and each script gets a decoder
/// of its own (pocketsphinx's noise estimate carries over from turn to turn, so one script's
/// turns would otherwise change how the next script's are heard).
public final class ScriptHearing: ScriptListener {
    private let threshold: Double
    private let folder: URL
    private var pronunciations: Pronunciations?
    /// The script being heard (its world), its decoder, and the words its language was made from.
    private var world: ObjectIdentifier?
    private var recognizer: Recognizer?
    private var words: StoreWords?
    private var gate: (conversation: ObjectIdentifier, voice: VoiceConversation)?
    /// Seconds each compile took, in order (for `converse --json`).
    public private(set) var compileSeconds: [Double] = []

    public init(threshold: Double = VoiceConversation.defaultThreshold) {
        self.threshold = threshold
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-script-voice-\(UUID().uuidString)")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    public func play(audio path: String, conversation: any ScriptConversation, world: any ScriptWorld) -> Result<ScriptHeardTurn, ScriptListenerProblem> {
        guard let local = conversation as? Conversation else {
            return .failure(ScriptListenerProblem("@audio turns are heard on this machine; play the script without --connect"))
        }
        do {
            let file = try WAVFile(path: path)
            let recognizer = try ready(for: world)
            let hearing = try recognizer.hear(file.samples)
            let voice: VoiceConversation
            if let gate, gate.conversation == ObjectIdentifier(local) { voice = gate.voice } else {
                voice = VoiceConversation(conversation: local, threshold: threshold)
                gate = (ObjectIdentifier(local), voice)
            }
            let turn = voice.hear(hearing)
            let played = turn.turn ?? Conversation.Turn(reply: turn.reply, outcome: turn.outcome, snippet: nil, understood: false)
            return .success(ScriptHeardTurn(heard: hearing.text, confidence: hearing.confidence, decision: turn.decision.rawValue, turn: played))
        } catch let error as VoiceError {
            return .failure(ScriptListenerProblem(error.description))
        } catch {
            return .failure(ScriptListenerProblem("\(path): \(error)"))
        }
    }

    /// The decoder for `world`, with a language made from its store as it is now.
    private func ready(for world: any ScriptWorld) throws -> Recognizer {
        let now = try StoreWords.read(registry: world.registry, records: world.records)
        let sameWorld = self.world == ObjectIdentifier(world)
        if sameWorld, let recognizer, now == words { return recognizer }
        let pronunciations = try self.pronunciations ?? Pronunciations()
        self.pronunciations = pronunciations
        let language = try LanguageCompiler(pronunciations: pronunciations).compile(registry: world.registry, store: now,
                                                                                   folder: folder.appendingPathComponent(UUID().uuidString).path)
        compileSeconds.append(language.report.seconds)
        let recognizer: Recognizer
        if sameWorld, let known = self.recognizer {
            try known.use(language.files)
            recognizer = known
        } else {
            recognizer = try Recognizer(language: language.files)
        }
        self.world = ObjectIdentifier(world)
        self.recognizer = recognizer
        words = now
        return recognizer
    }
}
