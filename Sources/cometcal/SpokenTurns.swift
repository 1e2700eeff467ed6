import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometVoice

/// One spoken turn as `listen` and `chat --voice` show it, whether this machine heard it or the
/// daemon did (`--connect`): what was heard, the gate's decision, the reply and the outcome.
struct SpokenTurn {
    /// {heard, gate, reply, outcome, understood, interpretation}, as `listen --json` gives a turn
    /// (`VoiceConversation.Turn.json`; the daemon's `conversation.say` answers the same fields).
    let fields: JSONObject
    let snippet: Snippet?

    /// Read from the fields alone, so that a turn heard here and one heard by the daemon are
    /// printed from the same values (the confidence as `--json` rounds it).
    var heard: String { fields["heard"]?["text"]?.stringValue ?? "" }
    var confidence: Double { SpokenTurn.number(fields["heard"]?["confidence"]) ?? 0 }
    var noiseFloorAdded: Bool { fields["heard"]?["noiseFloorAdded"] == .bool(true) }
    var decision: String { fields["gate"]?["decision"]?.stringValue ?? "" }
    var reply: String { fields["reply"]?.stringValue ?? "" }
    var outcome: String { fields["outcome"]?.stringValue ?? "failed" }

    /// A JSON number as a Double (a whole one is written as an integer: 0, 1).
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .double(let number)?: return number
        case .int(let number)?: return Double(number)
        default: return nil
        }
    }

    /// The line that says what was heard: `PLACE: heard “…” (confidence 0.62; passed)`.
    func heardLine(place: String?) -> String {
        let words = heard.isEmpty ? "nothing" : "“\(Terminal.printable(heard))”"
        return (place.map { "\($0): " } ?? "") + "heard \(words) (confidence \(String(format: "%.2f", confidence)); \(decision)\(noiseFloorAdded ? "; noise floor added" : ""))"
    }

    /// The turn's fields for `--json`, after `leading` (the file, or the utterance's length).
    func json(leading: [(String, JSONValue)]) -> JSONObject {
        var object = JSONObject(leading)
        for (key, value) in fields { object[key] = value }
        return object
    }
}

/// Where spoken turns are heard and played: this machine's recognizer and conversation, or the
/// daemon's (`--connect`). One conversation for all the turns of a command.
protocol SpokenConversation: AnyObject {
    /// The compile report of the language turns are heard with (`--json`'s `compiled`); null for
    /// pocketsphinx's generic model.
    var compiled: JSONValue { get }
    /// Hears 16 kHz mono samples and plays them through the voice gate as the next turn. `place`
    /// (the file) names the turn in errors.
    func hear(_ samples: [Int16], place: String?) throws -> SpokenTurn
}

extension SpokenConversation {
    /// The words of the language that cannot be heard, said once on standard error by `command`.
    func tellUnpronounceable(_ terminal: Terminal, command: String) {
        guard case .object(let words)? = compiled["unpronounceable"], !words.keys.isEmpty else { return }
        terminal.err("\(command): \(words.keys.count) word(s) have no pronunciation and cannot be heard: " + words.keys.sorted().joined(separator: ", "))
    }
}

/// Spoken turns heard on this machine: the language compiled from the schemas and the local
/// store (or the generic model), rebuilt in the background after each change; the gate and the
/// conversation on the local engine.
final class LocalSpokenConversation: SpokenConversation {
    private let engine: IntentEngine
    private let command: String
    private let terminal: Terminal
    private let folder: URL
    private let recognizer: Recognizer
    private let compiler: LanguageCompiler?
    private let voice: VoiceConversation
    private let rebuild = LanguageRebuild()
    let compiled: JSONValue

    init(engine: IntentEngine, context: AppContext, generic: Bool, command: String) throws {
        self.engine = engine
        self.command = command
        terminal = context.terminal
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-\(command)-voice-\(UUID().uuidString)")
        do {
            if generic {
                recognizer = try Recognizer(language: SpeechModels.generic)
                compiler = nil
                compiled = .null
            } else {
                let made = LanguageCompiler(pronunciations: try Pronunciations())
                let language = try made.compile(registry: engine.registry, store: try StoreWords.read(engine), folder: folder.appendingPathComponent("0").path)
                recognizer = try Recognizer(language: language.files)
                compiler = made
                compiled = language.report.json
            }
        } catch let error as VoiceError {
            try? FileManager.default.removeItem(at: folder)
            throw CommandFailure(code: error.code == .missingModel ? .noInput : .internalError, message: "error: \(error.description)")
        }
        voice = VoiceConversation(conversation: Conversation(engine: engine, timeZone: context.zone))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func hear(_ samples: [Int16], place: String?) throws -> SpokenTurn {
        // A rebuild that finished since the last change is taken; one still running is not waited for.
        switch rebuild.take() {
        case .success(let fresh)?:
            do { try recognizer.use(fresh.files) } catch { terminal.err("\(command): the rebuilt language could not be loaded (\(error.description)); the previous one is kept") }
        case .failure(let error)?:
            terminal.err("\(command): the language could not be rebuilt after the change (\(error.description)); the previous one is kept")
        case nil:
            break
        }
        let hearing: Hearing
        do { hearing = try recognizer.hear(samples) } catch {
            throw CommandFailure(code: .internalError, message: "error: " + (place.map { "\($0): " } ?? "") + error.description)
        }
        let turn = voice.hear(hearing)
        // What the store is called may have changed: the next turns should hear it.
        if turn.outcome == .done, let compiler, let words = try? StoreWords.read(engine) {
            rebuild.start(compiler, registry: engine.registry, store: words, folder: folder.appendingPathComponent(UUID().uuidString).path)
        }
        return SpokenTurn(fields: turn.json(threshold: voice.threshold).objectValue ?? JSONObject(), snippet: turn.turn?.snippet)
    }
}
