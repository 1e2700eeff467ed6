import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometConversation
import CometDaemon
import CometVoice

/// `cometcal converse FILE…`: plays conversation scripts, each against a fresh store, and
/// reports each script and the total. Exits 1 when any script failed.
struct ConverseCommand {
    let parsed: ParsedCommand
    let terminal: Terminal
    let schemaPaths: [String]

    func run() -> ExitCode {
        let registry: Registry
        do {
            registry = try AppContext.loadRegistry(schemaPaths)
        } catch {
            terminal.err(error.message)
            return error.code
        }
        var runner: ScriptRunner
        if parsed.flag("connect") {
            // Through the daemon: every script on its store, which the daemon serves with its own registry.
            let socket = parsed.value("socket") ?? DaemonPaths.defaultSocket()
            let environment = ProcessInfo.processInfo.environment
            let zone = environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
            let remote: RemoteBackend
            do {
                remote = try RemoteBackend(socket: socket, registry: registry, zone: zone, now: Date())
            } catch let failure as CommandFailure {
                terminal.err(failure.message)
                return failure.code
            } catch {
                terminal.err("error: \(error)")
                return .ioError
            }
            runner = ScriptRunner(registry: registry) { _, _, _ in RemoteScriptWorld(backend: remote) }
            // `> @audio` turns are sent to the daemon, which hears them (docs/voice.md, "Scripts").
            runner.listener = RemoteScriptHearing()
        } else {
            runner = ScriptRunner(registry: registry, opener: StoreFactory.opener)
            // `> @audio` turns are heard on this machine (docs/voice.md, "Scripts").
            runner.listener = ScriptHearing()
        }
        var results: [ScriptRunner.Result] = []
        for path in parsed.positionals("files") {
            let result = runner.run(path: path)
            results.append(result)
            if !parsed.flag("json") { printResult(result) }
        }
        let failed = results.filter { !$0.passed }.count
        if parsed.flag("json") {
            let scripts: [JSONValue] = results.map { result in
                .object(JSONObject([
                    ("path", .string(result.path)), ("passed", .bool(result.passed)), ("turns", .int(result.turns)),
                    ("heard", .array(result.heard.map { heard in
                        .object(JSONObject([("line", .int(heard.line)), ("file", .string(heard.file)), ("text", .string(heard.text)),
                                            ("confidence", .double((heard.confidence * 1000).rounded() / 1000)), ("decision", .string(heard.decision))]))
                    })),
                    ("failures", .array(result.failures.map { failure in
                        .object(JSONObject([("line", .int(failure.line)), ("expected", .string(failure.expected)), ("got", .string(failure.got))]))
                    })),
                ]))
            }
            terminal.out(JSONWriter.pretty(.object(JSONObject([("scripts", .array(scripts)), ("passed", .int(results.count - failed)),
                                                               ("failed", .int(failed))]))))
        } else {
            terminal.out("\(results.count - failed) passed, \(failed) failed")
        }
        return failed == 0 ? .success : .scriptFailed
    }

    private func printResult(_ result: ScriptRunner.Result) {
        let name = result.path
        if result.passed {
            terminal.out(terminal.style("pass", .green) + "  \(name) (\(result.turns) turn\(result.turns == 1 ? "" : "s"))")
        } else {
            terminal.out(terminal.style("FAIL", .red, .bold) + "  \(name)")
        }
        // What each @audio turn was heard as, always shown.
        for heard in result.heard {
            let words = heard.text.isEmpty ? "nothing" : "“\(Terminal.printable(heard.text))”"
            terminal.out(terminal.style("  \(result.path):\(heard.line): \(heard.file): heard \(words) (confidence \(String(format: "%.2f", heard.confidence)); \(heard.decision))", .dim))
        }
        if result.passed { return }
        for failure in result.failures {
            // Line 0 is the script as a whole (it cannot be read): no line to name.
            let place = failure.line > 0 ? "\(failure.path):\(failure.line): " : "\(failure.path): "
            terminal.out("  \(place)expected \(failure.expected)")
            terminal.out("  " + String(repeating: " ", count: place.count) + "got \(failure.got)")
        }
    }
}

/// `cometcal chat`: a conversation on the person's own store (or through the daemon with
/// `--connect`), one turn per line, with the card of what each turn shows. `:history` lists the
/// turns so far, `:quit` (or end of input) ends it.
struct ChatCommand {
    let context: AppContext

    /// One turn as chat prints it, from a local conversation or the daemon's.
    struct Reply {
        let text: String
        let outcome: String
        let understood: Bool
        let snippet: Snippet?
        /// How the words were read (docs/json.md), as the conversation or the daemon gave it.
        let interpretation: JSONValue
    }

    func run() throws -> ExitCode {
        if context.parsed.flag("voice") { return try VoiceChat(context: context).run() }
        if context.parsed.value("turns") != nil {
            throw CommandFailure(code: .usage, message: "error: --turns counts spoken turns: use it with --voice")
        }
        let terminal = context.terminal
        let speech = try ReplySpeech(context: context, command: "chat")
        let say: (String) throws -> Reply
        let capabilities: () throws -> String
        if let engine = context.localEngine {
            let conversation = Conversation(engine: engine, timeZone: context.zone)
            say = { text in
                let turn = conversation.say(text)
                return Reply(text: turn.reply, outcome: turn.outcome.name, understood: turn.understood, snippet: turn.snippet,
                             interpretation: turn.interpretation?.json ?? .null)
            }
            capabilities = { conversation.capabilities() }
        } else if let remote = context.backend as? RemoteBackend {
            let session = try remote.openConversation()
            say = { text in try remote.say(text, in: session) }
            capabilities = { try remote.say("what can you do", in: session).text }
        } else {
            throw CommandFailure(code: .internalError, message: "error: no conversation is possible here")
        }
        var said: [String] = []
        if terminal.isInteractive {
            terminal.out(terminal.style("CometCal — say what you want to do; :help for help, :quit to leave.", .dim))
        }
        let editor = LineEditor(interactive: terminal.isInteractive)
        var toldHistory = false
        while true {
            guard let line = editor.line(prompt: "› ") else { break }
            if let problem = editor.historyProblem, !toldHistory {
                terminal.err(problem)
                toldHistory = true
            }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            switch text {
            case ":quit", ":q", ":exit": return .success
            case ":history":
                for (index, turn) in said.enumerated() { terminal.out("\(index + 1)  \(turn)") }
                continue
            case ":help":
                terminal.out(Terminal.printable(try capabilities()))
                continue
            default: break
            }
            said.append(text)
            let turn = try say(text)
            if context.wantsJSON {
                var object = JSONObject([("reply", .string(turn.text)), ("outcome", .string(turn.outcome)), ("understood", .bool(turn.understood))])
                if let snippet = turn.snippet { object["snippet"] = context.backend.json(snippet) }
                object["interpretation"] = turn.interpretation
                if let spoken = speech.speak(turn.text, turn: said.count) { object["spoken"] = spoken }
                if let problem = speech.problem { object["speechProblem"] = .string(problem) }
                terminal.out(JSONWriter.compact(.object(object)))
                continue
            }
            terminal.out(Terminal.printable(turn.text))
            if let snippet = turn.snippet, terminal.isInteractive { OutcomePrinter(context: context).card(snippet) }
            speech.speak(turn.text, turn: said.count)
        }
        return .success
    }
}

extension RemoteBackend {
    /// A conversation held by the daemon, on this person's clock and zone.
    func openConversation() throws -> String {
        var params = JSONObject([("timeZone", .string(zone.identifier))])
        if ProcessInfo.processInfo.environment["COMETCAL_NOW"] != nil { params["now"] = .string(ISO8601DateFormatter().string(from: now)) }
        let answer: Result<JSONValue, RPCError>
        do { answer = try client.call("conversation.open", params) } catch { throw CommandFailure(code: .ioError, message: "error: \(error.description)") }
        guard case .success(let json) = answer, let session = json["session"]?.stringValue else {
            throw CommandFailure(code: .ioError, message: "error: the daemon did not open a conversation")
        }
        return session
    }

    func say(_ text: String, in session: String) throws -> ChatCommand.Reply {
        let answer: Result<JSONValue, RPCError>
        do { answer = try client.call("conversation.say", JSONObject([("session", .string(session)), ("text", .string(text))])) } catch {
            throw CommandFailure(code: .ioError, message: "error: \(error.description)")
        }
        switch answer {
        case .success(let json):
            return ChatCommand.Reply(text: json["reply"]?.stringValue ?? "", outcome: json["outcome"]?.stringValue ?? "failed",
                                     understood: json["understood"] == .bool(true), snippet: Snippet(json: json["snippet"]),
                                     interpretation: json["interpretation"] ?? .null)
        case .failure(let error):
            throw CommandFailure(code: .dataError, message: "error: \(error.message)")
        }
    }
}

/// A script's world through the daemon: seeds imported into its store, the conversation held
/// there, the store read back through `entity.search` and `entity.get`.
final class RemoteScriptWorld: ScriptWorld {
    let backend: RemoteBackend
    var registry: Registry { backend.registry }

    init(backend: RemoteBackend) { self.backend = backend }

    func importSeed(name: String, text: String) -> ImportReport {
        let params = JSONObject([("name", .string(name)), ("content", .string(text))])
        guard case .success(let json)? = try? backend.client.call("ical.import", params) else {
            var report = ImportReport(json: .null)
            report.written = false
            return report
        }
        return ImportReport(json: json)
    }

    func openConversation(now: Date, timeZone: TimeZone) throws -> any ScriptConversation {
        let params = JSONObject([("now", .string(ISO8601DateFormatter().string(from: now))), ("timeZone", .string(timeZone.identifier))])
        guard case .success(let json) = try backend.client.call("conversation.open", params), let session = json["session"]?.stringValue else {
            throw CommandFailure(code: .ioError, message: "error: the daemon did not open a conversation")
        }
        return RemoteScriptConversation(client: backend.client, session: session)
    }

    func records(_ entity: QualifiedName) throws -> [EntityRecord] {
        guard case .success(let json) = try backend.client.call("entity.search", JSONObject([("entity", .string(entity.description))])),
              case .done(let result) = try IntentOutcome.decode(json, registry: registry) else { return [] }
        return result.records
    }

    func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try backend.record(entity, id: id) }
}

final class RemoteScriptConversation: ScriptConversation {
    let client: DaemonClient
    let session: String

    init(client: DaemonClient, session: String) {
        self.client = client
        self.session = session
    }

    func say(_ text: String) -> Conversation.Turn {
        guard case .success(let json)? = try? client.call("conversation.say", JSONObject([("session", .string(session)), ("text", .string(text))])) else {
            return Conversation.Turn(reply: "(the daemon did not answer)", outcome: .failed, snippet: nil, understood: false)
        }
        return RemoteScriptConversation.turn(json)
    }

    /// A turn as `conversation.say` answers it.
    static func turn(_ json: JSONValue) -> Conversation.Turn {
        let outcome: TurnOutcome
        switch json["outcome"]?.stringValue {
        case "done": outcome = .done
        case "needsValue": outcome = .needsValue(parameter: json["parameter"]?.stringValue ?? "")
        case "needsConfirmation": outcome = .needsConfirmation
        case "needsDisambiguation": outcome = .needsDisambiguation(count: { if case .int(let count)? = json["candidates"] { return count } else { return 0 } }())
        case "cancelled": outcome = .cancelled
        default: outcome = .failed
        }
        return Conversation.Turn(reply: json["reply"]?.stringValue ?? "", outcome: outcome, snippet: Snippet(json: json["snippet"]),
                                 understood: json["understood"] == .bool(true))
    }
}

/// `> @audio` turns through the daemon: the file goes as `conversation.say`'s `audio`, and the
/// daemon hears it with its own language and the conversation's gate (docs/voice.md, "Scripts").
final class RemoteScriptHearing: ScriptListener {
    func play(audio path: String, conversation: any ScriptConversation, world: any ScriptWorld) -> Result<ScriptHeardTurn, ScriptListenerProblem> {
        guard let remote = conversation as? RemoteScriptConversation else {
            return .failure(ScriptListenerProblem("@audio turns through --connect need the daemon's conversation"))
        }
        guard let bytes = FileManager.default.contents(atPath: path) else {
            return .failure(ScriptListenerProblem("\(path): cannot read the file"))
        }
        let params = JSONObject([("session", .string(remote.session)), ("audio", .string(bytes.base64EncodedString()))])
        let answer: Result<JSONValue, RPCError>
        do { answer = try remote.client.call("conversation.say", params) } catch {
            return .failure(ScriptListenerProblem("\(path): the daemon did not answer: \(error.description)"))
        }
        switch answer {
        case .success(let json):
            var confidence = 0.0
            if case .double(let value)? = json["heard"]?["confidence"] { confidence = value }
            return .success(ScriptHeardTurn(heard: json["heard"]?["text"]?.stringValue ?? "", confidence: confidence,
                                            decision: json["gate"]?["decision"]?.stringValue ?? "", turn: RemoteScriptConversation.turn(json)))
        case .failure(let error):
            return .failure(ScriptListenerProblem("\(path): \(error.message)"))
        }
    }
}
