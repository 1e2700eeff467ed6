import Foundation
import CometSchema
import CometIntents

/// `cometcal import` and `cometcal export`.
struct ICalCommands {
    let context: AppContext

    private var terminal: Terminal { context.terminal }

    func importFiles() throws -> ExitCode {
        let paths = context.parsed.positionals("files")
        var sources: [(name: String, handle: FileHandle)] = []
        var sizes: [String: Int] = [:]
        var handles: [FileHandle] = []
        defer { handles.forEach { try? $0.close() } }
        for path in paths {
            if path == "-" {
                sources.append((name: "-", handle: .standardInput))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw CommandFailure(code: .noInput, message: "error: \(path): no such file")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure(code: .noInput, message: "error: \(path): cannot be read (check its permissions)")
            }
            handles.append(handle)
            sizes[path] = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            sources.append((name: path, handle: handle))
        }
        let bar = ProgressBar(enabled: terminal.isInteractive && isatty(STDERR_FILENO) == 1 && !context.wantsJSON)
        var options = ImportOptions(calendar: context.parsed.value("calendar"), skipInvalid: context.parsed.flag("skip-invalid"))
        options.progress = { name, bytes in bar.update(name, bytes: bytes, of: sizes[name]) }
        let report = try context.backend.importFiles(sources, options: options)
        bar.finish()
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(report.json))
        } else {
            for warning in report.warnings {
                terminal.err(Terminal.printable("\(warning.source):\(warning.line): warning: " + warning.message + (warning.uid.map { " [UID \($0)]" } ?? "")))
            }
            // With --skip-invalid an invalid component is left out, as asked: said as such.
            let label = report.written ? "skipped: " : "error: "
            for problem in report.problems {
                let place = problem.line > 0 ? "\(problem.source):\(problem.line): " : "\(problem.source): "
                terminal.err(Terminal.printable(place + label + problem.message + (problem.uid.map { " [UID \($0)]" } ?? "")))
            }
            terminal.out(summary(report))
        }
        // Written means it did what was asked: everything, or with --skip-invalid the valid rest.
        return report.written ? .success : .dataError
    }

    private func summary(_ report: ImportReport) -> String {
        guard report.written else {
            return "Nothing was imported: \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") (fix them, or use --skip-invalid to import the rest)."
        }
        var parts = ["\(report.added) added", "\(report.updated) updated", "\(report.unchanged) unchanged"]
        if report.olderVersions > 0 { parts.append("\(report.olderVersions) skipped (the stored version is as new)") }
        if report.skippedMessages > 0 { parts.append("\(report.skippedMessages) iTIP message\(report.skippedMessages == 1 ? "" : "s") skipped (see the warnings)") }
        if !report.problems.isEmpty {
            let uids = Set(report.problems.compactMap(\.uid))
            let components = uids.isEmpty ? "" : " in \(uids.count) component\(uids.count == 1 ? "" : "s")"
            parts.append("\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")\(components) left out (each named above with its line and UID)")
        }
        var text = "Imported into \(report.calendars.isEmpty ? "no calendar" : report.calendars.joined(separator: ", ")): " + parts.joined(separator: ", ") + "."
        let ignored = report.ignoredComponents.keys.sorted().map { "\(report.ignoredComponents[$0] ?? 0) \($0)" }
        if !ignored.isEmpty { text += " Ignored: " + ignored.joined(separator: ", ") + " (no entity maps them)." }
        return text
    }

    func export() throws -> ExitCode {
        func time(_ option: String) throws -> Date? {
            guard let text = context.parsed.value(option) else { return nil }
            do {
                return try context.valueText.dateTime(text).instant
            } catch let problem as ValueText.Problem {
                throw CommandFailure(code: .usage, message: "error: --\(option): \(problem.message)")
            }
        }
        let text: String
        do {
            text = try context.backend.exportCalendar(calendar: context.parsed.value("calendar"), from: try time("from"), to: try time("to"),
                                                     event: context.parsed.value("event"))
        } catch let error as IntentError {
            throw CommandFailure(code: error.code == .notFound ? .noInput : .dataError, message: "error: \(error.message)")
        }
        guard let output = context.parsed.value("output") else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return .success
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CommandFailure(code: .ioError, message: "error: cannot write \(output): \(error.localizedDescription)")
        }
        terminal.err("Wrote \(output).")
        return .success
    }
}
