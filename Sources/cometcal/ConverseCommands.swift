import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometConversation

/// `cometcal converse FILE…`: plays conversation scripts, each against a fresh store, and
/// reports each script and the total. Exits 1 when any script failed.
struct ConverseCommand {
    let parsed: ParsedCommand
    let terminal: Terminal
    let schemaPaths: [String]

    func run() -> ExitCode {
        let registry: Registry
        do {
            registry = try Registry.load(paths: schemaPaths)
        } catch let error as SchemaError {
            terminal.err(error.description + "error: the schemas have \(error.errorCount) error(s); run 'cometcal schema check'")
            return .dataError
        } catch {
            terminal.err("\(error)")
            return .noInput
        }
        let runner = ScriptRunner(registry: registry)
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
            return
        }
        terminal.out(terminal.style("FAIL", .red, .bold) + "  \(name)")
        for failure in result.failures {
            terminal.out("  \(failure.path):\(failure.line): expected \(failure.expected)")
            terminal.out("  " + String(repeating: " ", count: "\(failure.path):\(failure.line): ".count) + "got \(failure.got)")
        }
    }
}

/// `cometcal chat`: a conversation on the person's own store, one turn per line, with the
/// card of what each turn shows. `:history` lists the turns so far, `:quit` (or end of input) ends it.
struct ChatCommand {
    let context: AppContext

    func run() -> ExitCode {
        let terminal = context.terminal
        let conversation = Conversation(engine: context.engine, timeZone: context.zone)
        var said: [String] = []
        if terminal.isInteractive {
            terminal.out(terminal.style("CometCal — say what you want to do; :help for help, :quit to leave.", .dim))
        }
        while true {
            if terminal.isInteractive { FileHandle.standardOutput.write(Data(terminal.style("› ", .bold).utf8)) }
            guard let line = readLine() else { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            switch text {
            case ":quit", ":q", ":exit": return .success
            case ":history":
                for (index, turn) in said.enumerated() { terminal.out("\(index + 1)  \(turn)") }
                continue
            case ":help":
                terminal.out(conversation.capabilities())
                continue
            default: break
            }
            said.append(text)
            let turn = conversation.say(text)
            if context.wantsJSON {
                var object = JSONObject([("reply", .string(turn.reply)), ("outcome", .string(turn.outcome.name)), ("understood", .bool(turn.understood))])
                if let snippet = turn.snippet { object["snippet"] = context.engine.json(snippet) }
                terminal.out(JSONWriter.compact(.object(object)))
                continue
            }
            terminal.out(Terminal.printable(turn.reply))
            if let snippet = turn.snippet, terminal.isInteractive { OutcomePrinter(context: context).card(snippet) }
        }
        return .success
    }
}
