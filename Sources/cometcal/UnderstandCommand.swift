import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometStore
import CometConversation

/// `cometcal understand TEXT…`: how each utterance reads as a new request, acted on by nothing.
/// The measuring instrument of the conversation layer (scripts/nlu-eval reads its --json).
struct UnderstandCommand {
    let parsed: ParsedCommand
    let terminal: Terminal
    let schemaPaths: [String]

    /// --reader, else COMETCAL_READER (what scripts/nlu-eval --phrases sets), else all.
    private var reader: String? { parsed.value("reader") ?? ProcessInfo.processInfo.environment["COMETCAL_READER"] }

    func run() -> ExitCode {
        let clock: (now: Date, zone: TimeZone)
        do throws(UsageError) {
            if parsed.flag("connect") {
                throw UsageError(code: .invalidValue, message: "understand reads on this machine, with the schemas given here; drop --connect")
            }
            clock = try WhenCommand.readClock(parsed)
            if let reader = reader, !["all", "phrases"].contains(reader) {
                throw UsageError(code: .invalidValue, message: "--reader (or COMETCAL_READER) takes all or phrases, not '\(reader)'")
            }
        } catch {
            terminal.err(error.rendered)
            return .usage
        }
        let registry: Registry
        do {
            registry = try AppContext.loadRegistry(schemaPaths)
        } catch {
            terminal.err(error.message)
            return error.code
        }
        let store: any OpenedStore
        let path = StoreLocation.resolve(given: parsed.value("db")).location
        do {
            if case .file(let file) = path, !FileManager.default.fileExists(atPath: file) {
                // Reading needs no store; what a mention names is then nothing, and that is said.
                terminal.err("note: there is no store at \(path); mentions are read against an empty store")
                store = try StoreFactory.opener.open(.memory, registry: registry, now: clock.now)
            } else {
                store = try StoreFactory.opener.open(path, registry: registry, now: clock.now, creating: .nothing)
            }
        } catch let error as StoreError where error.code == .unsupportedLocation {
            terminal.err("error: cannot use the store at \(path): \(error.message)")
            return .usage
        } catch {
            terminal.err("error: cannot use the store at \(path): \(error)")
            return .ioError
        }
        let fixed = clock.now
        let engine = IntentEngine(store: store, timeZone: clock.zone, clock: { fixed })
        let conversation = Conversation(engine: engine, now: clock.now, timeZone: clock.zone)
        conversation.statisticalReading = reader != "phrases"
        for text in parsed.positionals("text") {
            let interpretation = conversation.interpret(text)
            if parsed.flag("json") {
                terminal.out(JSONWriter.compact(interpretation.json))
            } else {
                print(interpretation)
            }
        }
        return .success
    }

    /// The reading for people: the text, then one aligned line per fact.
    private func print(_ interpretation: Interpretation) {
        terminal.out(terminal.style("“" + Terminal.printable(interpretation.text) + "”", .bold))
        var rows: [(String, String)] = []
        let confidence = String(format: "%.1f", interpretation.confidence)
        let reader = interpretation.reader.map { ", by the \($0 == "phrase" ? "declared phrases" : "statistical reader")" } ?? ""
        rows.append(("understood", (interpretation.understood ? "yes" : "no") + ", \(interpretation.kind.rawValue), confidence \(confidence)" + reader))
        if let runnerUp = interpretation.runnerUp { rows.append(("next best", runnerUp.label + String(format: " (%.2f)", runnerUp.confidence))) }
        if let intent = interpretation.intent { rows.append(("intent", intent + (interpretation.action.map { " (\($0))" } ?? ""))) }
        if interpretation.kind == .command, let action = interpretation.action { rows.append(("command", action)) }
        if let question = interpretation.question { rows.append(("asks", "\(question.property) of \(question.entity)")) }
        for parameter in interpretation.parameters {
            var line = parameter.state.rawValue + " " + parameter.entity
            line += parameter.raw.map { " from “\(Terminal.printable($0))”" } ?? " by the phrase"
            if let value = parameter.value { line += ": " + Terminal.printable(JSONWriter.compact(value)) }
            rows.append((parameter.name, line))
        }
        for mention in interpretation.mentions {
            var line = "“\(Terminal.printable(mention.raw))” by \(mention.by)"
            if mention.by == "words" {
                line += mention.matches.isEmpty ? ", names nothing in the store"
                    : ", names " + mention.matches.map { "“\(Terminal.printable($0.title))”" }.joined(separator: " or ")
            }
            if mention.by == "description" {
                for key in ["words", "timeText", "person", "position"] {
                    if case .string(let value)? = mention.details[key] { line += ", \(key == "timeText" ? "time" : key) “\(Terminal.printable(value))”" }
                }
            }
            rows.append(("mention " + mention.slot, line))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            terminal.out("  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
    }
}
