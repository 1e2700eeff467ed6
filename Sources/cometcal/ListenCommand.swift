import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometVoice

/// `cometcal listen FILE.wav…`: each file is a turn of one conversation on the person's own
/// store (the conversation chat holds), heard through the language compiled from the schemas
/// and the store, behind the voice gate (docs/voice.md). Prints what was heard with its
/// confidence, the gate's decision, the reply and the outcome.
struct ListenCommand {
    let context: AppContext

    func run() throws -> ExitCode {
        let terminal = context.terminal
        guard let engine = context.localEngine else {
            throw CommandFailure(code: .usage, message: "error: listen hears on this machine's store; without --connect, or use chat through the daemon")
        }
        // Every file is read before any turn: a bad one stops the conversation before it starts.
        var files: [WAVFile] = []
        for path in context.parsed.positionals("files") {
            do { files.append(try WAVFile(path: path)) } catch {
                throw CommandFailure(code: error.code == .unreadable ? .noInput : .dataError, message: "error: \(error.description)")
            }
        }
        let generic = context.parsed.value("language") == "generic"
        if let language = context.parsed.value("language"), !["compiled", "generic"].contains(language) {
            throw CommandFailure(code: .usage, message: "error: --language takes compiled or generic, not '\(language)'")
        }
        let speech = try ReplySpeech(context: context, command: "listen")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-listen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }

        let recognizer: Recognizer
        var report: LanguageReport?
        var compiler: LanguageCompiler?
        do {
            if generic {
                recognizer = try Recognizer(language: SpeechModels.generic)
            } else {
                let made = LanguageCompiler(pronunciations: try Pronunciations())
                let language = try made.compile(registry: engine.registry, store: try StoreWords.read(engine), folder: folder.appendingPathComponent("0").path)
                report = language.report
                compiler = made
                recognizer = try Recognizer(language: language.files)
            }
        } catch let error as VoiceError {
            throw CommandFailure(code: error.code == .missingModel ? .noInput : .internalError, message: "error: \(error.description)")
        }
        if let report, !report.unpronounceable.isEmpty, !context.wantsJSON {
            terminal.err("listen: \(report.unpronounceable.count) word(s) have no pronunciation and cannot be heard: " + report.unpronounceable.keys.sorted().joined(separator: ", "))
        }

        let voice = VoiceConversation(conversation: Conversation(engine: engine, timeZone: context.zone))
        let rebuild = LanguageRebuild()
        var turns: [JSONValue] = []
        for (index, file) in files.enumerated() {
            // A rebuild that finished since the last change is taken; one still running is not waited for.
            switch rebuild.take() {
            case .success(let fresh)?:
                do { try recognizer.use(fresh.files) } catch { terminal.err("listen: the rebuilt language could not be loaded (\(error.description)); the previous one is kept") }
            case .failure(let error)?:
                terminal.err("listen: the language could not be rebuilt after the change (\(error.description)); the previous one is kept")
            case nil:
                break
            }
            let hearing: Hearing
            do { hearing = try recognizer.hear(file.samples) } catch {
                throw CommandFailure(code: .internalError, message: "error: \(file.path): \(error.description)")
            }
            let turn = voice.hear(hearing)
            if context.wantsJSON {
                var object = JSONObject([("file", .string(file.path))])
                if case .object(let fields) = turn.json(threshold: voice.threshold) { for (key, value) in fields { object[key] = value } }
                if let spoken = speech.speak(turn.reply, turn: index + 1) { object["spoken"] = spoken }
                turns.append(.object(object))
            } else {
                let heard = hearing.isEmpty ? "nothing" : "“\(Terminal.printable(hearing.text))”"
                terminal.out(terminal.style("\(file.path): heard \(heard) (confidence \(String(format: "%.2f", hearing.confidence)); \(turn.decision.rawValue)\(hearing.floorNote))", .dim))
                terminal.out(Terminal.printable(turn.reply))
                terminal.out(terminal.style("(\(turn.outcome.name))", .dim))
                speech.speak(turn.reply, turn: index + 1)
            }
            // What the store is called may have changed: the next turns should hear it.
            if turn.outcome == .done, let compiler, let words = try? StoreWords.read(engine) {
                rebuild.start(compiler, registry: engine.registry, store: words, folder: folder.appendingPathComponent(UUID().uuidString).path)
            }
        }
        if context.wantsJSON {
            var object = JSONObject([("language", .string(generic ? "generic" : "compiled"))])
            object["compiled"] = report?.json ?? .null
            if let summary = speech.json { object["speech"] = summary }
            object["turns"] = .array(turns)
            terminal.out(JSONWriter.pretty(.object(object)))
        }
        return .success
    }
}

/// The language rebuilt in the background after a change: the newest one finished, taken once.
final class LanguageRebuild: @unchecked Sendable {
    private let lock = NSLock()
    private var finished: Result<CompiledLanguage, VoiceError>?

    func start(_ compiler: LanguageCompiler, registry: Registry, store: StoreWords, folder: String) {
        compiler.compileInBackground(registry: registry, store: store, folder: folder) { [self] result in
            lock.withLock { finished = result }
        }
    }

    /// The last rebuild's result, once; nil while none has finished since the last take.
    func take() -> Result<CompiledLanguage, VoiceError>? {
        lock.withLock {
            defer { finished = nil }
            return finished
        }
    }
}
