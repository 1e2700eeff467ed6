import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometText

/// `cometcal event edit EVENT`: the event as a small text form in $VISUAL or $EDITOR, applied
/// as one update with value state. A line left as it was is *unset* (not part of the request), a
/// line changed or added is *set*, a line removed is *cleared*. A form that does not read, or a
/// change the engine refuses, sends the person back into the editor with the error on top, as
/// `git commit` does; saving it unchanged, or emptying it, changes nothing.
struct EditCommand {
    let context: AppContext
    let intent: IntentDefinition

    private var terminal: Terminal { context.terminal }

    /// A field of the form: a parameter of the update intent and its flag's name, which is the
    /// form's key.
    struct Field {
        let key: String
        let parameter: ParameterDefinition
    }

    var fields: [Field] {
        IntentFlags(intent: intent).flags.compactMap { flag in
            let parameter = flag.parameter
            guard !parameter.isTarget, parameter.role == nil else { return nil }
            return Field(key: flag.long, parameter: parameter)
        }
    }

    func run(_ parsed: ParsedCommand, positional: (name: String, parameter: String)?) throws -> ExitCode {
        var runner = IntentRunner(context: context, intent: intent)
        var base = try runner.request(fromFlags: parsed, positional: positional)
        guard let target = intent.targetParameter else { throw CommandFailure(code: .internalError, message: "error: \(intent.name.name) has no target") }
        if base.parameters[target.name] == .unset, base.references[target.name] == nil {
            throw CommandFailure(code: .usage, message: "error: name the event to edit: cometcal event edit EVENT")
        }
        let record = try runner.currentRecord(of: target, in: &base)
        let original = form(for: record)
        let file = try scratchFile()
        EditScratch.guardAgainstSignals(file)
        defer {
            try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
            EditScratch.release()
        }
        var text = header(for: record) + original.text
        while true {
            try Data(text.utf8).write(to: file)
            try openEditor(on: file)
            guard let edited = try? String(contentsOf: file, encoding: .utf8) else {
                throw CommandFailure(code: .ioError, message: "error: \(file.path) could not be read back; nothing was changed")
            }
            let entries: [(key: String, value: String, line: Int)]
            do {
                entries = try parse(edited)
            } catch let problem as FormProblem {
                try giveUpWithoutTerminal(problem.message)
                text = retry(edited, problems: [problem.message])
                continue
            }
            if entries.isEmpty {
                terminal.out("The form is empty: nothing was changed.")
                return .success
            }
            var request = base
            do {
                try apply(entries, against: original, to: &request, runner: runner)
            } catch let problem as FormProblem {
                try giveUpWithoutTerminal(problem.message)
                text = retry(edited, problems: [problem.message])
                continue
            }
            if request.parameters.mentionedNames.allSatisfy({ $0 == target.name || intent.parameter($0)?.role != nil }) {
                terminal.out("Nothing was changed.")
                return .success
            }
            let (outcome, code) = runner.run(request)
            if case .failed(let error) = outcome, error.code != .storage {
                let message = OutcomePrinter.message(error, runner: runner, request: request)
                try giveUpWithoutTerminal(message)
                text = retry(edited, problems: [message])
                continue
            }
            OutcomePrinter(context: context).print(outcome, runner: runner, request: request)
            return code
        }
    }

    // MARK: The form

    struct Form {
        /// Each key's value lines, as written; absent keys had no value.
        let values: [String: [String]]
        let text: String
    }

    private func header(for record: EntityRecord) -> String {
        let title = Terminal.printable(context.registry.title(of: record))
        return """
            # Editing “\(title)”. Save and close to apply; the change can be undone (cometcal undo).
            # A line left as it is changes nothing; a line removed clears that field; a line
            # changed or added sets it. Times are in \(context.zone.identifier). Lines that start
            # with # are ignored; an empty form (or the same form again) changes nothing.

            """
    }

    func form(for record: EntityRecord) -> Form {
        var values: [String: [String]] = [:]
        var lines: [String] = []
        var unsetKeys: [String] = []
        let allDay = record["isAllDay"] == .bool(true)
        for field in fields {
            let texts = render(record[field.parameter.name], as: field.parameter.type, field: field, allDay: allDay)
            if texts.isEmpty {
                unsetKeys.append(field.key)
                continue
            }
            values[field.key] = texts
            for value in texts {
                // A value of several lines continues on lines indented by two spaces.
                let parts = value.split(separator: "\n", omittingEmptySubsequences: false)
                lines.append("\(field.key): \(parts[0])")
                lines += parts.dropFirst().map { "  " + $0 }
            }
        }
        if !unsetKeys.isEmpty {
            lines.append("")
            lines.append("# Not set (add a line to set one): " + unsetKeys.joined(separator: ", "))
        }
        return Form(values: values, text: lines.joined(separator: "\n") + "\n")
    }

    /// A value as a flag takes it, so the line reads back as it was written.
    private func render(_ value: Value?, as type: TypeExpression, field: Field, allDay: Bool) -> [String] {
        guard let value else { return [] }
        switch value {
        case .array(let items): return items.flatMap { render($0, as: type.element, field: field, allDay: allDay) }
        case .string(let text): return [text]
        case .bool(let flag): return [flag ? "yes" : "no"]
        case .int(let number): return [String(number)]
        case .double(let number): return [String(number)]
        case .enumCase(let name): return [name]
        case .url(let url): return [url.absoluteString]
        case .recurrence(let rule): return [rule.description]
        case .duration(let duration): return [EditCommand.friendly(duration)]
        case .person(let person): return [person.displayText]
        case .date(let date): return [date.description]
        case .dateTime(let dateTime):
            if allDay, field.parameter.name == "endDate" {
                // An all-day end is exclusive; the form shows the last day, as --end takes it.
                return [LocalDateTime(wallSeconds: dateTime.localTime.wallSeconds - 86_400).date.description]
            }
            return [moment(dateTime, dateOnly: allDay)]
        case .reference(let id):
            if case .entity(let name) = type.base, let referenced = try? context.backend.record(name, id: id) {
                return [context.registry.title(of: referenced)]
            }
            return [id.uuidString.lowercased()]
        case .union(let name, let inner):
            if case .duration(let duration) = inner, field.key == "alarm" { return [EditCommand.alarm(duration)] }
            if case .dateTime(let moment) = inner { return [self.moment(moment, dateOnly: false)] }
            if case .string(let text) = inner, !text.hasPrefix("{"), !text.hasPrefix("["), !text.hasPrefix("\"") { return [text] }
            return [JSONWriter.compact(context.registry.encode(.union(name, inner)))]
        case .object(let properties):
            // A record of defaults but its title (an attendee who has not answered) reads as
            // its title, as a flag takes it; anything more is JSON.
            if case .entity(let name) = type.base, let entity = context.registry.entity(name), let title = entity.titleProperty,
               let titleValue = properties[title.name],
               entity.properties.allSatisfy({ $0.name == title.name || properties[$0.name] == nil || properties[$0.name] == $0.defaultValue }) {
                return render(titleValue, as: title.type, field: field, allDay: allDay)
            }
            return [JSONWriter.compact(context.registry.encode(value))]
        default:
            return [JSONWriter.compact(context.registry.encode(value))]
        }
    }

    private func moment(_ value: DateTimeValue, dateOnly: Bool) -> String {
        let local = value.isFloating ? value.localTime : value.wallTime(in: context.zone)
        if dateOnly { return local.date.description }
        return local.date.description + String(format: " %02d:%02d", local.hour, local.minute) + (local.second == 0 ? "" : String(format: ":%02d", local.second))
    }

    /// `1h30m`, `2d`, `45s`.
    static func friendly(_ duration: DurationValue) -> String {
        var text = duration.isNegative ? "-" : ""
        if duration.weeks > 0 { text += "\(duration.weeks)w" }
        if duration.days > 0 { text += "\(duration.days)d" }
        if duration.hours > 0 { text += "\(duration.hours)h" }
        if duration.minutes > 0 { text += "\(duration.minutes)m" }
        if duration.seconds > 0 { text += "\(duration.seconds)s" }
        return text == "" || text == "-" ? "0m" : text
    }

    /// `15m before`, `5m after`, `0m` (at the start).
    static func alarm(_ duration: DurationValue) -> String {
        let length = friendly(DurationValue(weeks: duration.weeks, days: duration.days, hours: duration.hours, minutes: duration.minutes, seconds: duration.seconds))
        if duration.approximateSeconds == 0 { return length }
        return length + (duration.isNegative ? " before" : " after")
    }

    // MARK: Reading it back

    struct FormProblem: Error {
        let message: String
    }

    /// `key: value` lines, a value continued on lines indented by two spaces; `#` comments and
    /// blank lines skipped.
    func parse(_ text: String) throws -> [(key: String, value: String, line: Int)] {
        var entries: [(key: String, value: String, line: Int)] = []
        let keys = fields.map(\.key)
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).replacingOccurrences(of: "\r", with: "")
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
            if line.hasPrefix("  "), !entries.isEmpty, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                entries[entries.count - 1].value += "\n" + line.dropFirst(2)
                continue
            }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw FormProblem(message: "line \(index + 1): '\(Terminal.printable(line))' is not 'field: value'")
            }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else {
                let suggestion = EditDistance.closest(to: key, among: keys).map { " Did you mean '\($0)'?" } ?? ""
                throw FormProblem(message: "line \(index + 1): '\(Terminal.printable(key))' is not a field.\(suggestion)")
            }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            entries.append((key, value, index + 1))
        }
        return entries
    }

    /// Compares each field with the form as it was written: the same lines are unset, no lines
    /// (where there were some) cleared, anything else set, read as its flag reads it.
    private func apply(_ entries: [(key: String, value: String, line: Int)], against original: Form, to request: inout IntentRequest,
                       runner: IntentRunner) throws {
        var edited: [String: [String]] = [:]
        var firstLine: [String: Int] = [:]
        for entry in entries {
            edited[entry.key, default: []].append(entry.value)
            if firstLine[entry.key] == nil { firstLine[entry.key] = entry.line }
        }
        let allDayField = fields.first { $0.parameter.name == "isAllDay" }
        let allDayNow: Bool = {
            if let key = allDayField?.key, let texts = edited[key] { return ["yes", "true", "y", "1", "on"].contains(texts[0].lowercased()) }
            return false
        }()
        for field in fields {
            let before = original.values[field.key] ?? []
            let after = (edited[field.key] ?? []).filter { !$0.isEmpty }
            if before == after { continue }
            if after.isEmpty {
                request.parameters[field.parameter.name] = .cleared
                continue
            }
            if !field.parameter.type.isArray, after.count > 1 {
                throw FormProblem(message: "line \(firstLine[field.key] ?? 0): '\(field.key)' is given \(after.count) times; it takes one value")
            }
            var texts = after
            if field.parameter.name == "endDate", allDayNow, let last = context.valueText.dateOnly(after[0]) {
                texts = [CalendarViews.day(last.dayNumber + 1).description]
            }
            do {
                try runner.assign(texts, to: field.parameter, in: &request, spelling: field.key)
            } catch let failure as CommandFailure {
                let message = failure.message.hasPrefix("error: ") ? String(failure.message.dropFirst(7)) : failure.message
                throw FormProblem(message: "line \(firstLine[field.key] ?? 0): \(message)")
            }
        }
    }

    /// A refused form goes back into the editor only when a person is at a terminal to fix
    /// it; a script as the editor would be sent back for ever.
    private func giveUpWithoutTerminal(_ problem: String) throws {
        guard !terminal.isInteractive else { return }
        let text = problem.hasPrefix("error: ") ? String(problem.dropFirst(7)) : problem
        throw CommandFailure(code: .dataError, message: "error: the edited form was refused: \(text); nothing was changed (without a terminal the editor is not opened again)")
    }

    /// The form again, with what went wrong on top.
    private func retry(_ edited: String, problems: [String]) -> String {
        let kept = edited.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("# error:") || $0.hasPrefix("#   ") }.map(String.init)
        let notes = problems.flatMap { problem -> [String] in
            let text = problem.hasPrefix("error: ") ? String(problem.dropFirst(7)) : problem
            return ["# error: " + text.replacingOccurrences(of: "\n", with: "\n#   ")]
        }
        return (notes + ["#   Fix it and save, or empty the form to cancel."] + kept).joined(separator: "\n")
    }

    // MARK: The editor

    private func scratchFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder.appendingPathComponent("event.txt")
    }

    /// $VISUAL, else $EDITOR, else vi, run through the shell (so `EDITOR="code --wait"` works)
    /// on this terminal. It is spawned in cometcal's own process group, the terminal's
    /// foreground group (Foundation's `Process` starts a session of its own, where a terminal
    /// editor is stopped or finds no terminal). While it runs, cometcal ignores Ctrl-C and
    /// Ctrl-\ as `system()` does: they are the editor's to handle.
    private func openEditor(on file: URL) throws {
        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let arguments = ["/bin/sh", "-c", editor + " \"$1\"", "sh", file.path]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let oldInterrupt = signal(SIGINT, SIG_IGN)
        let oldQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, oldInterrupt)
            signal(SIGQUIT, oldQuit)
        }
        var pid: pid_t = 0
        let started = EditCommand.withCStrings(arguments) { argv in
            posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ)
        }
        guard started == 0 else {
            throw CommandFailure(code: .ioError, message: "error: cannot start the editor '\(editor)': \(String(cString: strerror(started))); set $EDITOR")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = status & 0x7F == 0
        if !exited {
            throw CommandFailure(code: .ioError, message: "error: the editor '\(editor)' was stopped by signal \(status & 0x7F); nothing was changed")
        }
        let code = (status >> 8) & 0xFF
        guard code == 0 else {
            throw CommandFailure(code: .ioError, message: "error: the editor '\(editor)' exited with status \(code); nothing was changed")
        }
    }

    /// NUL-terminated C strings for argv, alive for the call.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

/// The form's scratch file, removed when a signal ends cometcal while the editor has it (the
/// terminal closed, a kill): nothing personal is left in the temporary folder. Only
/// async-signal-safe calls (unlink, rmdir, raise) run in the handler.
enum EditScratch {
    nonisolated(unsafe) private static var file: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var folder: UnsafeMutablePointer<CChar>?

    static func guardAgainstSignals(_ url: URL) {
        file = strdup(url.path)
        folder = strdup(url.deletingLastPathComponent().path)
        for number in [SIGHUP, SIGTERM] {
            signal(number) { number in
                if let file = EditScratch.file { unlink(file) }
                if let folder = EditScratch.folder { rmdir(folder) }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    static func release() {
        for number in [SIGHUP, SIGTERM] { signal(number, SIG_DFL) }
        free(file)
        free(folder)
        file = nil
        folder = nil
    }
}
