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
    /// The zone `--time-zone` names on this command: times given without a zone of their own
    /// are read as wall times there ("10:00 in New York"), not in the person's zone.
    private(set) var readingZone: TimeZone?

    /// Values read on the person's clock, in the zone the command names when it names one.
    var valueText: ValueText {
        readingZone.map { ValueText(registry: context.registry, zone: $0, now: context.now, dateOrder: context.config.dateOrder) } ?? context.valueText
    }

    /// The parameter given as the command's argument (`event show NAME`): messages about it
    /// name no flag the person did not type.
    var argumentParameter: String?

    var terminal: Terminal { context.terminal }

    // MARK: Building the request

    /// From preset flags: `--title X`, `--all-day`, `--attendee A --attendee B`, `--clear location`.
    mutating func request(fromFlags parsed: ParsedCommand, positional: (name: String, parameter: String)?) throws -> IntentRequest {
        var request = IntentRequest(intent: intent.name.description, confirmation: parsed.flag("yes") ? .confirmed : .pending)
        let flags = IntentFlags(intent: intent)
        var clockAlarms: (parameter: ParameterDefinition, leadCase: String, texts: [String], spelling: String)?
        if let zoneField = intent.entity.flatMap({ context.registry.entity($0)?.temporalFields?.timeZone }), let zoneFlag = flags.flag(for: zoneField),
           let name = parsed.value(zoneFlag.long) {
            readingZone = try? TimeZones.zone(name)  // an unknown zone is the engine's to refuse
        }
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
            // An end written as a length is read once the start is known (applyTimeForms).
            if parameter.name == endFieldName, texts.count == 1, try endLength(texts[0]) != nil { continue }
            // So is an update's start written as a shift (+1d): from the event's start, not from now.
            if parameter.name == startFieldName, intent.action == .update, texts.count == 1, try startShift(texts[0]) != nil { continue }
            // And a reminder at a time of day (9:00), which is on the day of each occurrence.
            if let leadCase = leadTimeCase(of: parameter), texts.contains(where: { ValueText.clockTime($0) != nil }) {
                clockAlarms = (parameter, leadCase, texts, "--\(flag.long)")
                continue
            }
            try assign(texts, to: parameter, in: &request, spelling: "--\(flag.long)")
        }
        if let positional, let text = parsed.positional(positional.name), let parameter = intent.parameter(positional.parameter) {
            if request.parameters[parameter.name] != .unset || request.references[parameter.name] != nil {
                throw usage("\(positional.name) is given twice (as an argument and as --\(IntentFlags.flagName(parameter))); give it once")
            }
            try assign([text], to: parameter, in: &request, spelling: "<\(positional.name)>")
        }
        try applyClears(parsed.values("clear"), flags: flags, to: &request)
        try applyTimeForms(parsed, flags: flags, to: &request)
        if let clockAlarms { try applyClockAlarms(clockAlarms, to: &request) }
        try applyConfigDefaults(to: &request)
        if PageFlags.apply(to: intent) { request.page = try PageFlags.page(from: parsed) }
        return request
    }

    /// Start and end as people write them: a day with no time (`--start friday`) makes an
    /// all-day event unless --no-all-day says otherwise, and then a day as the end is the last
    /// day (inclusive); an end written as a length (`--end +1h`, `--end 90m`) counts from the
    /// start — the one given, or on a change the event's own.
    private func applyTimeForms(_ parsed: ParsedCommand, flags: IntentFlags, to request: inout IntentRequest) throws {
        guard let entity = intent.entity.flatMap({ context.registry.entity($0) }), let fields = entity.temporalFields,
              let startFlag = flags.flag(for: fields.start) else { return }
        let startText = parsed.value(startFlag.long)
        if intent.action == .update, let startText, let shift = try startShift(startText), let target = intent.targetParameter {
            // One occurrence of a series shifts from its own start, the series from the first.
            let occurrence = intent.parameters.first { $0.role == .occurrence }.flatMap { parameter -> DateTimeValue? in
                if case .set(.dateTime(let value)) = request.parameters[parameter.name] { return value } else { return nil }
            }
            let current = try occurrence ?? currentStart(of: target, field: fields.start, in: &request)
            do {
                request.parameters[fields.start] = .set(.dateTime(try current.adding(days: shift.signedDays).checkedAdding(seconds: Int64(shift.signedTimeSeconds))))
            } catch {
                throw usage("--\(startFlag.long) \(startText): the start is out of range (CometCal holds years 1–9999)")
            }
        }
        var allDay = false
        if let allDayField = fields.isAllDay, flags.flag(for: allDayField) != nil {
            switch request.parameters[allDayField] {
            case .set(.bool(let on)): allDay = on
            case .unset:
                if let startText, valueText.dateOnly(startText) != nil {
                    request.parameters[allDayField] = .set(.bool(true))
                    allDay = true
                }
            default: break
            }
        }
        guard let endField = fields.end, let endFlag = flags.flag(for: endField), let endText = parsed.value(endFlag.long) else { return }
        if allDay, let last = valueText.dateOnly(endText), let next = LocalDateTime(date: last, hour: 0, minute: 0) {
            request.parameters[endField] = .set(.dateTime(next.dateTime(in: context.zone).adding(days: 1)))
            return
        }
        guard let length = try endLength(endText) else { return }
        let start: DateTimeValue
        if case .set(.dateTime(let given)) = request.parameters[fields.start] {
            start = given
        } else if intent.action == .update, let target = intent.targetParameter {
            start = try currentStart(of: target, field: fields.start, in: &request)
        } else {
            throw usage("--\(endFlag.long) \(endText) counts from the start; give --\(startFlag.long) too")
        }
        do {
            let end = try start.adding(days: length.signedDays).checkedAdding(seconds: Int64(length.signedTimeSeconds))
            request.parameters[endField] = .set(.dateTime(end))
        } catch {
            throw usage("--\(endFlag.long) \(endText): the end is out of range (CometCal holds years 1–9999)")
        }
    }

    /// The case of a reminder union counted from the start (`@leadTime`), when the parameter is one.
    private func leadTimeCase(of parameter: ParameterDefinition) -> String? {
        guard case .union(let name) = parameter.type.base, let union = context.registry.union(name) else { return nil }
        return union.cases.first { $0.annotations.contains(named: "leadTime") && $0.type.base == .builtin(.duration) }?.name
    }

    /// Reminders given as a time of day are kept as the time from the start to that time on the
    /// start's day (`9:00` on an all-day event is PT9H, on a 10:00 event -PT1H), so each
    /// occurrence of a series has its own at that time, and iCalendar writes it as a TRIGGER
    /// relative to the start, as other calendars do. The others are read as ever.
    private func applyClockAlarms(_ given: (parameter: ParameterDefinition, leadCase: String, texts: [String], spelling: String), to request: inout IntentRequest) throws {
        let start: DateTimeValue
        if let field = startFieldName, case .set(.dateTime(let value)) = request.parameters[field] {
            start = value
        } else if intent.action == .update, let target = intent.targetParameter, let field = startFieldName {
            start = try currentStart(of: target, field: field, in: &request)
        } else {
            throw usage("\(given.spelling) at a time of day is on the day of the start; give the start too")
        }
        var alarms: [Value] = []
        for text in given.texts {
            if let clock = ValueText.clockTime(text) {
                let local = start.localTime
                guard let target = LocalDateTime(date: local.date, hour: clock.hour, minute: clock.minute) else {
                    throw usage("\(given.spelling) \(text): not a time of day")
                }
                alarms.append(.union(given.leadCase, .duration(DurationValue(totalSeconds: Int(target.wallSeconds - local.wallSeconds)))))
            } else {
                do {
                    if case .array(let items) = try valueText.parseArray([text], as: given.parameter.type) { alarms += items }
                } catch let problem as ValueText.Problem {
                    throw usage("\(given.spelling): \(problem.message)")
                }
            }
        }
        request.parameters[given.parameter.name] = .set(.array(alarms))
    }

    /// The parameter that sets the start (DTSTART), when the intent's entity has one.
    private var startFieldName: String? {
        intent.entity.flatMap { context.registry.entity($0)?.temporalFields?.start }
    }

    /// `+1d`, `-30m`, `+PT2H`: a shift of the value it changes. A time without a sign is a moment.
    private func startShift(_ text: String) throws -> DurationValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let sign = trimmed.first, sign == "+" || sign == "-", trimmed.count > 1 else { return nil }
        if let iso = DurationValue(parsing: trimmed.uppercased()) { return iso }
        return try? ValueText.friendlyDuration(trimmed)
    }

    /// The parameter that sets the end (DTEND), when the intent's entity has one.
    private var endFieldName: String? {
        intent.entity.flatMap { context.registry.entity($0)?.temporalFields?.end }
    }

    /// The config file's defaults for a new record: its calendar, its length, its alarm. A flag
    /// given (or a field cleared) wins.
    private func applyConfigDefaults(to request: inout IntentRequest) throws {
        guard intent.action == .create else { return }
        let config = context.config
        if let calendar = config.calendar,
           let parameter = intent.parameters.first(where: { if case .entity(let name) = $0.type.base { return name.name == "Calendar" } else { return false } }),
           request.parameters[parameter.name] == .unset, request.references[parameter.name] == nil {
            request.references[parameter.name] = calendar
        }
        guard let entity = intent.entity.flatMap({ context.registry.entity($0) }), let fields = entity.temporalFields else { return }
        if let length = config.eventLength, let endField = fields.end, intent.parameter(endField) != nil, request.parameters[endField] == .unset,
           case .set(.dateTime(let start)) = request.parameters[fields.start],
           !(fields.isAllDay.map { request.parameters[$0] == .set(.bool(true)) } ?? false),
           let end = try? start.adding(days: length.signedDays).checkedAdding(seconds: Int64(length.signedTimeSeconds)) {
            request.parameters[endField] = .set(.dateTime(end))
        }
        if let alarm = config.alarm, let parameter = intent.parameters.first(where: { IntentFlags.flagName($0) == "alarm" }), request.parameters[parameter.name] == .unset {
            // A time of day is on each occurrence's day, as --alarm 9:00 is.
            if ValueText.clockTime(alarm) != nil, let leadCase = leadTimeCase(of: parameter) {
                try applyClockAlarms((parameter, leadCase, [alarm], "the config's alarm"), to: &request)
                return
            }
            do {
                request.parameters[parameter.name] = .set(try context.valueText.parseArray([alarm], as: parameter.type))
            } catch let problem as ValueText.Problem {
                throw CommandFailure(code: .config, message: "error: \(context.config.path ?? "config"): alarm: \(problem.message)")
            }
        }
    }

    /// `+1h`, `90m`, `1h30m`, `+P1D`: a length, not a moment. `-1h` is a moment (an hour ago).
    private func endLength(_ text: String) throws -> DurationValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.hasPrefix("-") else { return nil }
        let body = trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
        if let iso = DurationValue(parsing: body.uppercased()), trimmed.hasPrefix("+") || body.hasPrefix("p") { return iso }
        do {
            return try ValueText.friendlyDuration(body)
        } catch let problem as ValueText.Problem {
            throw usage("--end: \(problem.message)")
        }
    }

    /// The start an update's target has now (its record is then the target, by id).
    private func currentStart(of target: ParameterDefinition, field: String, in request: inout IntentRequest) throws -> DateTimeValue {
        let record = try currentRecord(of: target, in: &request)
        guard case .dateTime(let start)? = record[field] else { throw usage("the event has no start to count the end from") }
        return start
    }

    /// The record an update's target names, read through the open intent of its kind, so a
    /// title that matches several asks which one, once: the answer becomes the target, by id.
    func currentRecord(of target: ParameterDefinition, in request: inout IntentRequest) throws -> EntityRecord {
        guard let open = context.registry.domains.flatMap(\.intents).first(where: { $0.action == .open && $0.entity == intent.entity }),
              let openTarget = open.targetParameter else {
            throw usage("\(intent.name.name) has no open intent of its kind to read the record with")
        }
        var lookup = IntentRequest(intent: open.name.description)
        if let reference = request.references[target.name] { lookup.references[openTarget.name] = reference }
        lookup.parameters[openTarget.name] = request.parameters[target.name]
        let (outcome, _) = IntentRunner(context: context, intent: open).run(lookup)
        switch outcome {
        case .done(let result):
            guard let record = result.record else { throw usage("nothing was found to change") }
            request.references[target.name] = nil
            request.parameters[target.name] = .set(.reference(record.id))
            return record
        case .failed(let error):
            throw CommandFailure(code: exitCode(for: outcome), message: OutcomePrinter.message(error, runner: self, request: request))
        case .cancelled(let dialog):
            throw CommandFailure(code: .success, message: dialog.full)
        case .needsValue:
            throw usage("name the \(target.name) to change")
        default:
            // Without a terminal several matches are listed, as for any other command.
            OutcomePrinter(context: context).print(outcome, runner: IntentRunner(context: context, intent: open), request: lookup)
            throw CommandFailure(code: .dataError, message: "")
        }
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

    func assign(_ texts: [String], to parameter: ParameterDefinition, in request: inout IntentRequest, spelling: String) throws {
        if !parameter.type.isArray, texts.count > 1 {
            throw usage("\(spelling) is given \(texts.count) times, but \(parameter.name) takes one value")
        }
        if case .entity(let name) = parameter.type.base, context.registry.entity(name)?.kind == .indexed, !parameter.type.isArray {
            request.references[parameter.name] = texts[0]
            return
        }
        do {
            if parameter.type.isArray {
                request.parameters[parameter.name] = .set(try valueText.parseArray(texts, as: parameter.type))
            } else {
                request.parameters[parameter.name] = .set(try valueText.parse(texts[0], as: parameter.type))
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

    /// The answers an enum prompt takes, shown after it: " [this/future/all]".
    private func answerHint(_ parameter: ParameterDefinition) -> String {
        guard case .enumeration(let name) = parameter.type.base, let enumeration = context.registry.enumeration(name) else { return "" }
        return " [" + enumeration.cases.map(\.name).joined(separator: "/") + "]"
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
                guard let definition = intent.parameter(parameter), let answer = terminal.ask(prompt + answerHint(definition) + " "), !answer.isEmpty else {
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
                guard let chosen = pick(among: candidates, named: request.references[parameter]) else {
                    return (.cancelled(Dialog(full: "OK, I won't do that.", supporting: "Nothing was changed.")), .success)
                }
                request.references[parameter] = nil
                request.parameters[parameter] = .set(.reference(chosen.id))
            default:
                return (outcome, exitCode(for: outcome))
            }
        }
        return (.failed(IntentError(.invalidValue, "gave up after too many questions")), .dataError)
    }

    /// The "which one?" picker: a numbered list (the first `listedCandidates`, then how many
    /// more), answered with a number, or with more words to narrow the list down. A number out
    /// of range or words that match none ask again; Enter (or end of input) cancels.
    private func pick(among all: [Candidate], named text: String?) -> Candidate? {
        var candidates = all
        var filter: [String] = []
        while true {
            let heading = text.map { "“\(Terminal.printable($0))”" + (filter.isEmpty ? "" : " + “\(filter.joined(separator: " "))”") + " matches" } ?? "There are"
            terminal.out("\(heading) \(NumberText.grouped(candidates.count)) — which one?")
            let shown = candidates.prefix(OutcomePrinter.listedCandidates)
            let width = String(shown.count).count
            for (index, candidate) in shown.enumerated() {
                let number = String(index + 1)
                terminal.out("  " + String(repeating: " ", count: width - number.count) + "\(number). " + terminal.style(Terminal.printable(candidate.title), .bold)
                             + (candidate.subtitle.map { "  " + terminal.style(Terminal.printable($0), .dim) } ?? ""))
            }
            if candidates.count > shown.count {
                terminal.out("  …and \(NumberText.grouped(candidates.count - shown.count)) more: type more of the title to narrow them down.")
            }
            while true {
                guard let answer = terminal.ask("Number, or words to narrow down (Enter to cancel): "), !answer.isEmpty else { return nil }
                if let number = Int(answer) {
                    if shown.indices.contains(number - 1) { return shown[number - 1] }
                    terminal.out("Choose a number from 1 to \(shown.count).")
                    continue
                }
                // Each word starts a word of the title or the time: "1" is Party 1 or 10, and not
                // every party that ends at 21:00.
                func words(_ text: String) -> [Substring] { text.lowercased().split { !$0.isLetter && !$0.isNumber } }
                let said = words(answer)
                let narrowed = candidates.filter { candidate in
                    let known = words(candidate.title + " " + (candidate.subtitle ?? ""))
                    return said.allSatisfy { word in known.contains { $0.hasPrefix(word) } }
                }
                if narrowed.isEmpty {
                    terminal.out("None of them matches “\(Terminal.printable(answer))”.")
                    continue
                }
                if narrowed.count == 1 { return narrowed[0] }
                candidates = narrowed
                filter.append(answer)
                break
            }
        }
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
        if parameter == argumentParameter, let definition = intent.parameter(parameter) { return "<\(IntentFlags.flagName(definition))>" }
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
