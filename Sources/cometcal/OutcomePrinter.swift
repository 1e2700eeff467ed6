import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometText

/// Prints engine outcomes for people (dialog, card, lists) or as JSON with `--json`.
struct OutcomePrinter {
    let context: AppContext

    var terminal: Terminal { context.terminal }

    func print(_ outcome: IntentOutcome, runner: IntentRunner?, request: IntentRequest? = nil) {
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(context.backend.json(outcome)))
            return
        }
        switch outcome {
        case .done(let result):
            if result.action == .search {
                printSearch(result)
                return
            }
            terminal.out(Terminal.printable(result.dialog.full))
            if let snippet = result.snippet, result.action != .delete {
                terminal.out()
                card(snippet)
            }
        case .needsValue(let parameter, let prompt):
            var hint = "give " + (runner?.flagSpelling(parameter) ?? parameter)
            if let definition = runner?.intent.parameter(parameter), case .enumeration(let name) = definition.type.base,
               let cases = context.registry.enumeration(name)?.cases.map(\.name) {
                hint += " " + cases.joined(separator: "|")
            }
            if runner?.intent.parameter(parameter)?.role == .occurrence { hint += " with the start of the occurrence, such as '2026-06-16 09:30', or just its day" }
            terminal.err("error: \(prompt) (\(hint))")
        case .needsConfirmation(let prompt, let snippet):
            card(snippet, to: .standardError)
            terminal.err("error: this needs confirmation: \(prompt)\nAdd --yes to confirm without a terminal.")
        case .needsDisambiguation(let parameter, _, let candidates):
            // One line each, said once; the engine's one-sentence question is for conversations.
            let noun = runner?.intent.parameter(parameter).flatMap { definition -> String? in
                guard case .entity(let name) = definition.type.base else { return nil }
                return context.backend.noun(name, count: candidates.count)
            } ?? "records"
            let named = request?.references[parameter].map { "'\(Terminal.printable($0))' matches" } ?? "There are"
            var lines = ["error: \(named) \(NumberText.grouped(candidates.count)) \(noun):"]
            let shown = candidates.prefix(OutcomePrinter.listedCandidates)
            for candidate in shown {
                lines.append("  \(candidate.id.uuidString.lowercased())  \(Terminal.printable(candidate.title))" + (candidate.subtitle.map { "  — \(Terminal.printable($0))" } ?? ""))
            }
            if candidates.count > shown.count {
                lines.append("  …and \(NumberText.grouped(candidates.count - shown.count)) more (use more of the title, or --json for all of them).")
            }
            lines.append("Name one by its id, or use more of its title.")
            terminal.err(lines.joined(separator: "\n"))
        case .cancelled(let dialog):
            terminal.out(Terminal.printable(dialog.full))
        case .failed(let error):
            terminal.err(Terminal.printable(OutcomePrinter.message(error, runner: runner, request: request)))
        }
    }

    enum Stream { case standardOutput, standardError }

    /// An engine error in the command line's spelling: the flag (or NAME=VALUE name) it is
    /// about, and the suggestion spelled the same way. The engine owns the check; this only
    /// words it.
    static func message(_ error: IntentError, runner: IntentRunner?, request: IntentRequest? = nil) -> String {
        let spell: (String) -> String = { name in
            if PageFlags.names.contains(name), runner?.intent.parameter(name) == nil { return "--" + name }
            return runner?.flagSpelling(name) ?? name
        }
        if error.code == .unknownParameter, let name = error.parameter, let runner {
            // Said in the words the person used: `--clear NAME`, or NAME=VALUE.
            if request?.parameters[name] == .cleared, runner.spellsParametersAsFlags {
                let fields = runner.intent.parameters.filter { !$0.isRequired && !$0.isTarget && $0.role == nil }.map { IntentFlags.flagName($0) }
                let hint = error.suggestion.flatMap { runner.intent.parameter($0) }.map { " Did you mean '\(IntentFlags.flagName($0))'?" } ?? ""
                return "error: --clear \(name): no such field.\(hint) Fields that can be cleared: \(fields.joined(separator: ", "))."
            }
            let hint = error.suggestion.map { " Did you mean '\(spell($0))'?" } ?? ""
            let names = runner.intent.parameters.map { spell($0.name) }
            return "error: '\(name)' is not a parameter of \(runner.intent.name.name).\(hint) Parameters: \(names.joined(separator: ", "))."
        }
        var text = "error: "
        if let parameter = error.parameter, parameter != runner?.argumentParameter { text += spell(parameter) + ": " }
        text += commandSpelling(of: error.message, registry: runner?.context.registry)
        if let suggestion = error.suggestion { text += "; did you mean '\(suggestion)'?" }
        return text
    }

    /// "create one first with the intent createCalendar" said as the command to type.
    static func commandSpelling(of message: String, registry: Registry?) -> String {
        let marker = " with the intent "
        guard let range = message.range(of: marker, options: .backwards) else { return message }
        let name = String(message[range.upperBound...])
        let command: String
        if let preset = Commands.presets.first(where: { $0.intent == name }) {
            command = "cometcal " + preset.path.joined(separator: " ") + " NAME"
        } else {
            let creator = registry?.domains.flatMap(\.intents).first { $0.name.name == name }
            let required: String? = creator?.parameters.first(where: \.isRequired)?.name
            command = "cometcal intent run \(name) " + (required.map { "\($0)=NAME" } ?? "NAME=VALUE")
        }
        return message[..<range.lowerBound] + ": " + command
    }

    /// A snippet as an aligned card.
    func card(_ snippet: Snippet, to stream: Stream = .standardOutput) {
        var lines = ["  " + terminal.style(Terminal.printable(snippet.title), .bold)]
        if let subtitle = snippet.subtitle { lines.append("  " + terminal.style(Terminal.printable(subtitle), .cyan)) }
        let width = snippet.fields.map(\.label.count).max() ?? 0
        // A long value (many attendees, a long note) wraps at a word, under where values start.
        let valueWidth = max(Terminal.columns - width - 4, 20)
        let hanging = String(repeating: " ", count: width + 4)
        for field in snippet.fields {
            let label = field.label.padding(toLength: width, withPad: " ", startingAt: 0)
            let wrapped = TextWrapper.wrap(Terminal.printable(field.value), width: valueWidth)
            lines.append("  " + terminal.style(label, .dim) + "  " + (wrapped.first ?? ""))
            lines += wrapped.dropFirst().map { hanging + $0 }
        }
        let text = lines.joined(separator: "\n")
        if stream == .standardOutput { terminal.out(text) } else { terminal.err(text) }
    }

    /// Candidates listed under a disambiguation error; the rest are counted.
    static let listedCandidates = 10

    /// The note under results a limit or offset cut: how many there are and how to get the rest.
    func pageNote(_ result: IntentResult) {
        guard let page = result.page, let entity = context.registry.intent(result.intent)?.entity else { return }
        if let note = PageFlags.note(page, noun: { context.backend.noun(entity, count: $0) }) {
            terminal.out(terminal.style(note, .dim))
        }
    }

    private func printSearch(_ result: IntentResult) {
        defer { pageNote(result) }
        if !result.occurrences.isEmpty {
            AgendaPrinter(context: context).print(result.occurrences)
            return
        }
        guard !result.records.isEmpty else {
            // Past the last page the note says what there is; otherwise "I didn't find any …".
            if (result.page?.total ?? 0) == 0 { terminal.out(Terminal.printable(result.dialog.full)) }
            return
        }
        let described = result.records.map(context.backend.describe).map { Candidate(id: $0.id, title: Terminal.printable($0.title), subtitle: $0.subtitle.map(Terminal.printable)) }
        let width = min(40, described.map(\.title.count).max() ?? 0)
        for (record, candidate) in zip(result.records, described) {
            let title = candidate.title.count < width ? candidate.title + String(repeating: " ", count: width - candidate.title.count) : candidate.title
            var line = terminal.swatch(AgendaPrinter.color(of: record, in: context.registry)) + terminal.style(title, .bold) + (candidate.subtitle.map { "  " + terminal.style($0, .dim) } ?? "")
            // Kinds with a default (calendars): which one it is, and the id that names each exactly.
            if let marker = context.registry.entity(record.entity)?.properties.first(where: { $0.annotations.contains(named: "marksDefault") }) {
                line += "  " + terminal.style(record.id.uuidString.lowercased(), .dim) + (record[marker.name] == .bool(true) ? "  " + terminal.style("default", .bold) : "")
            }
            terminal.out(line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
        }
    }
}
