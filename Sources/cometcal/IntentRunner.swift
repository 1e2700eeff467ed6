import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometText

/// Runs one intent from the command line: builds the request from flags (or NAME=VALUE pairs),
/// then answers the engine's questions — on a terminal by asking, otherwise with a clear error.
struct IntentRunner {
    let context: AppContext
    let intent: IntentDefinition
    /// Presets take flags; `intent run` takes NAME=VALUE.
    var spellsParametersAsFlags = true

    var terminal: Terminal { context.terminal }

    // MARK: Building the request

    /// From preset flags: `--title X`, `--all-day`, `--attendee A --attendee B`, `--clear location`.
    func request(fromFlags parsed: ParsedCommand, positional: (name: String, parameter: String)?) throws -> IntentRequest {
        var request = IntentRequest(intent: intent.name.description, confirmation: parsed.flag("yes") ? .confirmed : .pending)
        let flags = IntentFlags(intent: intent)
        for flag in flags.flags {
            let parameter = flag.parameter
            if let negative = flag.negative {
                let on = parsed.flag(flag.long)
                let off = parsed.flag(negative)
                if on && off { throw usage("--\(flag.long) and --\(negative) contradict each other; give one") }
                if on || off { request.parameters[parameter.name] = .set(.bool(on)) }
                continue
            }
            let texts = parsed.values(flag.long)
            guard !texts.isEmpty else { continue }
            try assign(texts, to: parameter, in: &request, spelling: "--\(flag.long)")
        }
        if let positional, let text = parsed.positional(positional.name), let parameter = intent.parameter(positional.parameter) {
            if request.parameters[parameter.name] != .unset || request.references[parameter.name] != nil {
                throw usage("\(positional.name) is given twice (as an argument and as --\(IntentFlags.flagName(parameter))); give it once")
            }
            try assign([text], to: parameter, in: &request, spelling: "<\(positional.name)>")
        }
        try applyClears(parsed.values("clear"), flags: flags, to: &request)
        if PageFlags.apply(to: intent) { request.page = try PageFlags.page(from: parsed) }
        return request
    }

    /// From `NAME=VALUE` pairs (`intent run`): names are parameter names.
    func request(fromPairs pairs: [String], clears: [String], confirmed: Bool, page: ResultPage = .all) throws -> IntentRequest {
        var request = IntentRequest(intent: intent.name.description, confirmation: confirmed ? .confirmed : .pending, page: page)
        var grouped: [String: [String]] = [:]
        var order: [String] = []
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw usage("'\(pair)' is not NAME=VALUE (for example title='Crew lunch')")
            }
            let name = String(pair[..<equals])
            if grouped[name] == nil { order.append(name) }
            grouped[name, default: []].append(String(pair[pair.index(after: equals)...]))
        }
        for name in order {
            guard let texts = grouped[name] else { continue }
            guard let parameter = intent.parameter(name) else {
                // Not ours to judge: the engine refuses it, with a suggestion, for every front end.
                request.parameters[name] = .set(.string(texts[0]))
                continue
            }
            try assign(texts, to: parameter, in: &request, spelling: name)
        }
        try applyClears(clears, flags: IntentFlags(intent: intent), to: &request)
        return request
    }

    private func assign(_ texts: [String], to parameter: ParameterDefinition, in request: inout IntentRequest, spelling: String) throws {
        if !parameter.type.isArray, texts.count > 1 {
            throw usage("\(spelling) is given \(texts.count) times, but \(parameter.name) takes one value")
        }
        if case .entity(let name) = parameter.type.base, context.registry.entity(name)?.kind == .indexed, !parameter.type.isArray {
            request.references[parameter.name] = texts[0]
            return
        }
        do {
            if parameter.type.isArray {
                request.parameters[parameter.name] = .set(try context.valueText.parseArray(texts, as: parameter.type))
            } else {
                request.parameters[parameter.name] = .set(try context.valueText.parse(texts[0], as: parameter.type))
            }
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: \(spelling): \(problem.message)")
        }
    }

    private func applyClears(_ names: [String], flags: IntentFlags, to request: inout IntentRequest) throws {
        for name in names {
            // A flag's name is the CLI's spelling of a parameter; what may be cleared, and what
            // exists at all, the engine says (with a suggestion).
            let parameterName = flags.parameter(forClearName: name)?.name ?? name
            if request.parameters[parameterName] != .unset {
                throw usage("\(parameterName) is both given a value and cleared; do one")
            }
            request.parameters[parameterName] = .cleared
        }
    }

    private func usage(_ message: String) -> CommandFailure {
        CommandFailure(code: .usage, message: "error: " + message)
    }

    // MARK: Running

    /// Performs the request, asking on a terminal when the engine needs something.
    func run(_ initial: IntentRequest) -> (IntentOutcome, ExitCode) {
        var request = initial
        let interactive = terminal.isInteractive && !context.wantsJSON
        for _ in 0..<8 {
            let outcome = context.backend.perform(request)
            switch outcome {
            case .needsConfirmation(let prompt, let snippet) where interactive:
                OutcomePrinter(context: context).card(snippet)
                request.confirmation = terminal.ask(prompt + " [y/N] ").map { ["y", "yes"].contains($0.lowercased()) } == true ? .confirmed : .declined
            case .needsValue(let parameter, let prompt) where interactive:
                guard let definition = intent.parameter(parameter), let answer = terminal.ask(prompt + " "), !answer.isEmpty else {
                    return (.cancelled(Dialog(full: "OK, I won't do that.", supporting: "Nothing was changed.")), .success)
                }
                do {
                    try assign([answer], to: definition, in: &request, spelling: parameter)
                } catch let failure as CommandFailure {
                    terminal.err(failure.message)
                } catch {
                    terminal.err("error: \(error)")
                }
            case .needsDisambiguation(let parameter, _, let candidates) where interactive:
                terminal.out("Which one?")
                let shown = candidates.prefix(OutcomePrinter.listedCandidates)
                for (index, candidate) in shown.enumerated() {
                    terminal.out("  \(index + 1). \(candidate.title)" + (candidate.subtitle.map { "  — \($0)" } ?? ""))
                }
                if candidates.count > shown.count {
                    terminal.out("  …and \(NumberText.grouped(candidates.count - shown.count)) more: cancel and use more of the title to narrow them down.")
                }
                guard let answer = terminal.ask("Number (Enter to cancel): "), let number = Int(answer), shown.indices.contains(number - 1) else {
                    return (.cancelled(Dialog(full: "OK, I won't do that.", supporting: "Nothing was changed.")), .success)
                }
                request.references[parameter] = nil
                request.parameters[parameter] = .set(.reference(candidates[number - 1].id))
            default:
                return (outcome, exitCode(for: outcome))
            }
        }
        return (.failed(IntentError(.invalidValue, "gave up after too many questions")), .dataError)
    }

    func exitCode(for outcome: IntentOutcome) -> ExitCode {
        switch outcome {
        case .done, .cancelled: return .success
        case .needsValue, .needsConfirmation: return .usage
        case .needsDisambiguation: return .dataError
        case .failed(let error):
            switch error.code {
            case .notFound, .noSuchOccurrence: return .noInput
            case .storage: return .ioError
            case .unknownParameter: return .usage
            default: return .dataError
            }
        }
    }

    /// How the command line spells a parameter in messages: its flag (`--start`), or its name
    /// for `intent run`, where parameters are given as NAME=VALUE.
    func flagSpelling(_ parameter: String) -> String {
        guard spellsParametersAsFlags else { return parameter }
        return intent.parameter(parameter).map { "--" + IntentFlags.flagName($0) } ?? parameter
    }
}

extension Terminal {
    /// Asks on the terminal; nil at end of input.
    func ask(_ prompt: String) -> String? {
        FileHandle.standardOutput.write(Data(prompt.utf8))
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }
}
