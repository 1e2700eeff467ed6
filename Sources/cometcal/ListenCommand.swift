import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometVoice

/// `cometcal listen FILE.wav…`: each file is a turn of one conversation on the person's own
/// store (the conversation chat holds), heard through the language compiled from the schemas
/// and the store, behind the voice gate (docs/voice.md); with `--connect`, each is sent to the
/// daemon, which hears it with its language on one of its conversations. Prints what was heard
/// with its confidence, the gate's decision, the reply and the outcome.
struct ListenCommand {
    let context: AppContext

    func run() throws -> ExitCode {
        let terminal = context.terminal
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
        let ears: SpokenConversation
        if let engine = context.localEngine {
            ears = try LocalSpokenConversation(engine: engine, context: context, generic: generic, command: "listen")
        } else if let remote = context.backend as? RemoteBackend {
            if generic {
                throw CommandFailure(code: .usage, message: "error: --language generic: the daemon hears only with the language it compiled for its schemas and store; leave out --language with --connect, or run listen without --connect to hear with the generic model")
            }
            let daemon = try DaemonSpokenConversation(remote: remote)
            if let note = daemon.compileNote(command: "listen") { terminal.err(note) }
            ears = daemon
        } else {
            throw CommandFailure(code: .internalError, message: "error: no conversation is possible here")
        }
        if !context.wantsJSON { ears.tellUnpronounceable(terminal, command: "listen") }

        var turns: [JSONValue] = []
        for (index, file) in files.enumerated() {
            let turn = try ears.hear(file.samples, place: file.path)
            if context.wantsJSON {
                var object = turn.json(leading: [("file", .string(file.path))])
                if let spoken = speech.speak(turn.reply, turn: index + 1) { object["spoken"] = spoken }
                turns.append(.object(object))
            } else {
                terminal.out(terminal.style(turn.heardLine(place: file.path), .dim))
                terminal.out(Terminal.printable(turn.reply))
                terminal.out(terminal.style("(\(turn.outcome))", .dim))
                speech.speak(turn.reply, turn: index + 1)
            }
        }
        if context.wantsJSON {
            var object = JSONObject([("language", .string(generic ? "generic" : "compiled"))])
            object["compiled"] = ears.compiled
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
