import Foundation
import CometText
import CometArguments
import CometSchema
import CometIntents
import CometStore

/// Runs one parsed command. Each command prints for people by default and JSON with `--json`.
struct Dispatcher {
    let parsed: ParsedCommand
    let terminal: Terminal
    let root: CommandSpec
    let schemaPaths: [String]

    func run() -> ExitCode {
        if parsed.path.first == "schema" {
            let commands = SchemaCommands(parsed: parsed, terminal: terminal, schemaPaths: schemaPaths)
            switch parsed.path {
            case ["schema", "check"]: return commands.check()
            case ["schema", "show"]: return commands.show()
            default: return commands.dump()
            }
        }
        if parsed.path == ["completions"] {
            let shell = parsed.positional("shell") ?? ""
            guard let script = Completions.script(for: shell) else {
                terminal.err("error: no completions for '\(Terminal.printable(shell))'; choose bash, zsh or fish")
                return .usage
            }
            FileHandle.standardOutput.write(Data(script.utf8))
            return .success
        }
        if parsed.path == ["when"] { return WhenCommand(parsed: parsed, terminal: terminal).run() }
        if parsed.path.first == "user" { return UserCommands(parsed: parsed, terminal: terminal).run() }
        if parsed.path == ["understand"] { return UnderstandCommand(parsed: parsed, terminal: terminal, schemaPaths: schemaPaths).run() }
        if parsed.path == ["converse"] { return ConverseCommand(parsed: parsed, terminal: terminal, schemaPaths: schemaPaths).run() }
        do {
            try CalendarCommands.checkAgendaFlags(parsed)
            let context = try AppContext(parsed: parsed, terminal: terminal, schemaPaths: schemaPaths)
            return try CalendarCommands(context: context).run(parsed.path)
        } catch let failure as CommandFailure {
            // An empty message: what went wrong is already printed.
            if !failure.message.isEmpty {
                if failure.code == .success { terminal.out(failure.message) } else { terminal.err(failure.message) }
            }
            return failure.code
        } catch let error as StoreError {
            // As an intent's storage failure is said and exits (IntentRunner.exitCode).
            terminal.err("error: the calendar store could not do that: \(error)")
            return .ioError
        } catch {
            terminal.err("cometcal: internal error: \(error)")
            return .internalError
        }
    }
}

/// The commands that use the store: presets over intents, agenda, undo/redo, `intent run`.
struct CalendarCommands {
    let context: AppContext

    private var terminal: Terminal { context.terminal }
    private var parsed: ParsedCommand { context.parsed }

    func run(_ path: [String]) throws -> ExitCode {
        if let preset = Commands.presets.first(where: { $0.path == path }) {
            let intent = try engineIntent(preset.intent)
            if path == ["event", "edit"], !givesChanges(intent) {
                return try EditCommand(context: context, intent: intent).run(parsed, positional: preset.positional)
            }
            var runner = IntentRunner(context: context, intent: intent)
            let request = try runner.request(fromFlags: parsed, positional: preset.positional)
            // Given as the command's argument, the parameter is spoken of without a flag.
            if let positional = preset.positional, parsed.positional(positional.name) != nil { runner.argumentParameter = positional.parameter }
            return perform(request, with: runner)
        }
        switch path {
        case ["agenda"]: return try agenda()
        case ["today"]: return try agenda(today: true)
        case ["free"]: return try FreeCommand(context: context).run()
        case ["import"]: return try ICalCommands(context: context).importFiles()
        case ["export"]: return try ICalCommands(context: context).export()
        case ["chat"]: return try ChatCommand(context: context).run()
        case ["listen"]: return try ListenCommand(context: context).run()
        case ["add"]: return try AddCommand(context: context).run()
        case ["undo"]: return replay(context.backend.undo())
        case ["redo"]: return replay(context.backend.redo())
        case ["history"]: return try history()
        case ["alarms"]: return try AlarmCommands(context: context).list()
        case ["remind"]: return try AlarmCommands(context: context).remind()
        case ["snooze"], ["dismiss"]:
            // The schema's intents, with their parameters as the command's arguments.
            let intent = try engineIntent(path == ["snooze"] ? "snoozeAlarm" : "dismissAlarm")
            var pairs = ["event=" + (parsed.positional("event") ?? "")]
            if let duration = parsed.positional("duration") { pairs.append("duration=" + duration) }
            if let occurrence = parsed.value("occurrence") { pairs.append("occurrence=" + occurrence) }
            let runner = IntentRunner(context: context, intent: intent)
            return perform(try runner.request(fromPairs: pairs, clears: [], confirmed: parsed.flag("yes")), with: runner)
        case ["backup"]: return try backup()
        case ["migrate"]: return try MigrateCommand(context: context).run()
        case ["restore"]: return try restore()
        case ["intent", "list"]: return listIntents()
        case ["intent", "run"]:
            guard let name = parsed.positional("intent") else { throw CommandFailure(code: .usage, message: "error: name the intent to run") }
            let intent = try engineIntent(name)
            var runner = IntentRunner(context: context, intent: intent)
            runner.spellsParametersAsFlags = false
            let request = try runner.request(fromPairs: parsed.positionals("parameters"), clears: parsed.values("clear"), confirmed: parsed.flag("yes"),
                                             page: try PageFlags.page(from: parsed))
            return perform(request, with: runner)
        default:
            terminal.err("cometcal: internal error: no handler for '\(path.joined(separator: " "))'")
            return .internalError
        }
    }

    /// Whether `event edit` was given flags that change fields (then it is `event update`).
    private func givesChanges(_ intent: IntentDefinition) -> Bool {
        if !parsed.values("clear").isEmpty { return true }
        return IntentFlags(intent: intent).flags.contains { flag in
            guard !flag.parameter.isTarget, flag.parameter.role == nil else { return false }
            return !parsed.values(flag.long).isEmpty || parsed.flag(flag.long) || flag.negative.map { parsed.flag($0) } == true
        }
    }

    /// The engine finds intents, by the one rule every front end uses.
    private func engineIntent(_ name: String) throws -> IntentDefinition {
        do {
            return try context.backend.intent(named: name)
        } catch let error as IntentError {
            throw CommandFailure(code: .usage, message: "error: \(error.description)")
        }
    }

    private func perform(_ request: IntentRequest, with runner: IntentRunner) -> ExitCode {
        let (outcome, code) = runner.run(request)
        OutcomePrinter(context: context).print(outcome, runner: runner, request: request)
        return code
    }

    /// Undo and redo. Nothing to take back is not a failure: it is said plainly (as an editor
    /// says "already at oldest change") and exits 0; JSON keeps the engine's outcome and code.
    private func replay(_ outcome: IntentOutcome) -> ExitCode {
        if case .failed(let error) = outcome, error.code == .nothingToUndo || error.code == .nothingToRedo {
            if context.wantsJSON {
                OutcomePrinter(context: context).print(outcome, runner: nil)
            } else {
                terminal.out(error.code == .nothingToUndo ? "Nothing to undo." : "Nothing to redo.")
            }
            return .success
        }
        OutcomePrinter(context: context).print(outcome, runner: nil)
        if case .failed = outcome { return .dataError }
        return .success
    }

    /// `agenda` (a range, default the next 7 days), `today`, `agenda --week` (every day of the
    /// week, empty ones too) and `agenda --month` (a grid).
    private func agenda(today: Bool = false) throws -> ExitCode {
        let intent = try engineIntent("searchEvents")
        let runner = IntentRunner(context: context, intent: intent)
        let view: AgendaView = today ? .day : parsed.flag("month") ? .month : parsed.flag("week") ? .week : .range
        var anchor = DateTimeValue.utc(context.now).wallTime(in: context.zone).date
        var from: DateTimeValue
        do {
            if let text = parsed.value("from") {
                from = try context.valueText.dateTime(text)
                anchor = from.wallTime(in: context.zone).date
            } else {
                from = try midnight(anchor)
            }
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: --from: \(problem.message)")
        }
        var to: DateTimeValue
        var grid: MonthGrid?
        switch view {
        case .day:
            from = try midnight(anchor)
            to = from.adding(days: 1)
        case .week:
            let first = CalendarViews.weekStart(containing: anchor, weekStart: context.config.weekStart)
            from = try midnight(first)
            to = from.adding(days: 7)
        case .month:
            let month = MonthGrid(year: anchor.year, month: anchor.month, weekStart: context.config.weekStart, today: DateTimeValue.utc(context.now).wallTime(in: context.zone).date)
            grid = month
            from = try midnight(month.firstShown)
            to = try midnight(month.lastShown).adding(days: 1)
        case .range:
            if let text = parsed.value("to") {
                do { to = try context.valueText.dateTime(text) } catch let problem as ValueText.Problem {
                    throw CommandFailure(code: .usage, message: "error: --to: \(problem.message)")
                }
                if parsed.value("days") != nil { throw CommandFailure(code: .usage, message: "error: give --to or --days, not both") }
            } else {
                var days = 7
                if let text = parsed.value("days") {
                    guard let number = Int(text), number > 0, number <= 3660 else {
                        throw CommandFailure(code: .usage, message: "error: --days takes a number of days from 1 to 3660, not '\(text)'")
                    }
                    days = number
                }
                to = from.adding(days: days)
            }
        }
        var request = IntentRequest(intent: intent.name.description)
        guard let fromParameter = intent.parameter(role: .from), let toParameter = intent.parameter(role: .to) else {
            throw CommandFailure(code: .internalError, message: "error: searchEvents has no parameters with @role(from) and @role(to), so the agenda cannot ask for a range")
        }
        request.parameters[fromParameter.name] = .set(.dateTime(from))
        request.parameters[toParameter.name] = .set(.dateTime(to))
        if let calendar = parsed.value("calendar") { request.references["calendar"] = calendar }
        request.page = try PageFlags.page(from: parsed)
        // A text agenda without --limit stops at a screenful of screenfuls, and says so below: a
        // repeat every second fills a week with 604,800 lines. The month grid shows three a day.
        let cutByDefault = request.page.limit == nil && !context.wantsJSON && view != .month
        if cutByDefault { request.page.limit = Self.agendaLimit }
        let (outcome, code) = runner.run(request)
        if !context.wantsJSON, case .done(let result) = outcome {
            if let grid {
                CalendarViews(context: context).printMonth(grid, occurrences: result.occurrences)
            } else if view == .week {
                // A cut week lists only the days it reached: the days after are not empty.
                AgendaPrinter(context: context).print(result.occurrences, from: from.instant, to: to.instant, everyDay: !(result.page?.isTruncated ?? false))
            } else if !result.occurrences.isEmpty || (result.page?.total ?? 0) == 0 {
                // An empty page past the end is not an empty agenda: the note says what there is.
                AgendaPrinter(context: context).print(result.occurrences, from: from.instant, to: to.instant)
            }
            // The agenda counts occurrences: one weekly event is 157 of them in three years.
            if let page = result.page, let note = PageFlags.note(page, noun: { $0 == 1 ? "occurrence" : "occurrences" }) {
                let why = cutByDefault && page.isTruncated ? " Without --limit the agenda shows at most \(NumberText.grouped(Self.agendaLimit))." : ""
                terminal.out(terminal.style(note + why, .dim))
            }
            return code
        }
        OutcomePrinter(context: context).print(outcome, runner: runner)
        return code
    }

    /// The most occurrences a text agenda shows when not given --limit.
    static let agendaLimit = 1_000

    private enum AgendaView { case range, day, week, month }

    /// The view flags' conflicts: a mistake in the command line, said before any store is opened.
    static func checkAgendaFlags(_ parsed: ParsedCommand) throws {
        guard parsed.path == ["agenda"] else { return }
        if parsed.flag("week") && parsed.flag("month") { throw CommandFailure(code: .usage, message: "error: give --week or --month, not both") }
        if parsed.flag("week") || parsed.flag("month"), parsed.value("to") != nil || parsed.value("days") != nil {
            throw CommandFailure(code: .usage, message: "error: --\(parsed.flag("month") ? "month" : "week") sets the range itself; leave out --to and --days")
        }
    }

    private func midnight(_ date: CalendarDate) throws -> DateTimeValue {
        guard let local = LocalDateTime(date: date, hour: 0, minute: 0) else {
            throw CommandFailure(code: .usage, message: "error: \(date) has no midnight")
        }
        return local.dateTime(in: context.zone)
    }

    private func localStore(for command: String) throws -> any OpenedStore {
        guard let store = context.localStore else {
            throw CommandFailure(code: .usage, message: "error: \(command) works on the store file itself, not through --connect; run it without --connect (it is safe while cometcald runs)")
        }
        return store
    }

    private func backup() throws -> ExitCode {
        let store = try localStore(for: "backup")
        guard let path = parsed.positional("path") else { throw CommandFailure(code: .usage, message: "error: give the backup's file name: cometcal backup PATH") }
        do {
            try store.backup(to: path)
        } catch let error as StoreError {
            throw CommandFailure(code: error.code == .invalidData ? .dataError : .ioError, message: "error: \(error.message)")
        }
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(["backup": .string(path), "store": .string(store.location.description)]))
        } else {
            terminal.out("Backed up \(store.location.description) to \(path).")
        }
        return .success
    }

    private func restore() throws -> ExitCode {
        let store = try localStore(for: "restore")
        guard let path = parsed.positional("path") else { throw CommandFailure(code: .usage, message: "error: give the backup to restore: cometcal restore PATH") }
        if !parsed.flag("yes") {
            guard terminal.isInteractive else {
                throw CommandFailure(code: .usage, message: "error: this needs confirmation: replace everything in \(store.location.description) with \(path)?\nAdd --yes to confirm without a terminal.")
            }
            guard terminal.ask("Replace everything in \(store.location.description) with \(path)? The current content is kept beside it. [y/N] ").map({ ["y", "yes"].contains($0.lowercased()) }) == true else {
                terminal.out("OK, nothing was changed.")
                return .success
            }
        }
        let stamp = DateTimeValue.utc(context.now).wallTime(in: context.zone)
        let keeping = store.location.description + String(format: ".before-restore-%04d%02d%02d-%02d%02d%02d", stamp.date.year, stamp.date.month, stamp.date.day, stamp.hour, stamp.minute, stamp.second)
        do {
            try store.restore(from: path, keeping: keeping)
        } catch let error as StoreError {
            let code: ExitCode = error.code == .notFound ? .noInput : error.code == .corrupt || error.code == .invalidData || error.code == .newerStore || error.code == .destructiveMigration ? .dataError : .ioError
            throw CommandFailure(code: code, message: "error: \(error.message)")
        }
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(["restored": .string(path), "store": .string(store.location.description), "kept": .string(keeping)]))
        } else {
            terminal.out("Restored \(store.location.description) from \(path). The content it had is kept in \(keeping).")
        }
        return .success
    }

    private func history() throws -> ExitCode {
        var limit = 20
        if let text = parsed.value("limit") {
            guard let number = Int(text), number > 0 else { throw CommandFailure(code: .usage, message: "error: --limit takes a positive number, not '\(text)'") }
            limit = number
        }
        let entries = try context.backend.history(limit: limit)
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(.array(entries.map { $0.listing })))
            return .success
        }
        if entries.isEmpty { terminal.out("No changes yet.") }
        for entry in entries {
            let mark = entry.isUndone ? terminal.style(" (undone)", .dim) : ""
            let local = DateTimeValue.utc(entry.created).wallTime(in: context.zone)
            let when = local.date.description + " " + context.config.timeFormat.text(local)
            terminal.out(String(format: "%4d  ", entry.sequence ?? 0) + when + "  " + Terminal.printable(entry.summary) + mark)
        }
        return .success
    }

    private func listIntents() -> ExitCode {
        for domain in context.registry.domains {
            terminal.out(terminal.style("domain \(domain.name)", .bold))
            for intent in domain.intents {
                let required = intent.parameters.filter(\.isRequired).map(\.name).joined(separator: ", ")
                terminal.out("  \(intent.name.name)" + (required.isEmpty ? "" : "  (requires \(required))"))
            }
        }
        return .success
    }
}
