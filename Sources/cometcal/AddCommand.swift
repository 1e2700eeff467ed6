import Foundation
import CometSchema
import CometConversation

/// `cometcal add WORDS…`: quick add. The words are read as chat reads them, the reading is
/// shown, and a request to create something is performed as chat would; anything else is
/// refused before a write.
struct AddCommand {
    let context: AppContext

    func run() throws -> ExitCode {
        let terminal = context.terminal
        let text = context.parsed.positionals("text").joined(separator: " ")
        guard let engine = context.localEngine else {
            throw CommandFailure(code: .usage, message: "error: add reads on this machine's store; with --connect, say it to cometcal chat")
        }
        let conversation = Conversation(engine: engine, timeZone: context.zone)
        // The words as said ("remind me to …"), or as what follows "add" ("lunch with Bob at 1").
        let said = conversation.interpret(text)
        let isCreate: (Interpretation) -> Bool = { $0.understood && $0.kind == .request && $0.action == "create" }
        // Words that read as something else (a change, a deletion, a question) are refused as such.
        let reading = isCreate(said) || !said.understood ? (isCreate(said) ? said : conversation.interpret("add " + text)) : said
        guard isCreate(reading) else { return refuse(said, text: text) }
        let spoken = reading.text
        if !context.wantsJSON { show(reading) }
        if context.parsed.flag("dry-run") {
            if context.wantsJSON { terminal.out(JSONWriter.compact(result(reading, reply: nil, outcome: "dry-run", written: false))) }
            else { terminal.out("Nothing written (--dry-run).") }
            return .success
        }
        let turn = conversation.say(spoken)
        let written = turn.outcome == .done
        if context.wantsJSON {
            terminal.out(JSONWriter.compact(result(reading, reply: turn.reply, outcome: turn.outcome.name, written: written)))
        } else if written {
            terminal.out(Terminal.printable(turn.reply))
            if let snippet = turn.snippet, terminal.isInteractive { OutcomePrinter(context: context).card(snippet) }
        } else {
            // A question back ("What's the event called?") cannot be answered here: nothing is written.
            terminal.err("cometcal add: nothing written: \(Terminal.printable(turn.reply)) Say it all in one go, or use cometcal chat.")
        }
        return written ? .success : .dataError
    }

    /// What was read, one line per value, with the words it came from.
    private func show(_ reading: Interpretation) {
        let terminal = context.terminal
        terminal.out(terminal.style("Understood “\(Terminal.printable(reading.text))” as \(reading.intent ?? "a request")", .dim)
                     + terminal.style(String(format: " (confidence %.2f, %@)", reading.confidence, reading.reader == "statistical" ? "statistical reader" : "declared phrase"), .dim))
        for parameter in reading.parameters {
            let value = parameter.value.map { Terminal.printable(JSONWriter.compact($0)) } ?? "cleared"
            let words = parameter.raw.map { " from “\(Terminal.printable($0))”" } ?? ""
            terminal.out("  \(parameter.name): \(value)\(words)")
        }
    }

    private func refuse(_ reading: Interpretation, text: String) -> ExitCode {
        let what: String
        switch (reading.understood, reading.kind) {
        case (false, _):
            what = "I couldn't read it as something to add" + (reading.closest.map { String(format: " (closest: %@, %.2f, %@)", $0.label, $0.confidence, $0.reason) } ?? "")
        case (_, .question): what = "it reads as a question"
        case (_, .command): what = "it reads as the command \(reading.action ?? "")"
        default: what = "it reads as \(reading.action.map { "a \($0)" } ?? "a request") (\(reading.intent ?? "")), not an add"
        }
        if context.wantsJSON {
            guard case .object(var object) = result(reading, reply: nil, outcome: "refused", written: false) else { return .dataError }
            object["problem"] = .string(what)
            context.terminal.out(JSONWriter.compact(.object(object)))
        }
        context.terminal.err("cometcal add: nothing written: \(what). Say what to add and when, for example: cometcal add 'lunch with Bob tomorrow at 1pm'; or use cometcal chat.")
        return .dataError
    }

    private func result(_ reading: Interpretation, reply: String?, outcome: String, written: Bool) -> JSONValue {
        .object(JSONObject([("interpretation", reading.json), ("reply", reply.map(JSONValue.string) ?? .null), ("outcome", .string(outcome)),
                            ("written", .bool(written))]))
    }
}
