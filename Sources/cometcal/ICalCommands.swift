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
        var folders: [VdirTree] = []
        var sizes: [String: Int] = [:]
        var handles: [FileHandle] = []
        defer { handles.forEach { try? $0.close() } }
        for path in paths {
            if path == "-" {
                sources.append((name: "-", handle: .standardInput))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure(code: .noInput, message: "error: \(path): no such file")
            }
            if isDirectory.boolValue {
                folders.append(try VdirTree(path))
                continue
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
        options.label = ICalCommands.importLabel(paths, folders: Set(folders.map(\.path)))
        // A vdir is read here, file by file, into the one all-or-nothing import.
        let texts = try folders.flatMap { try $0.texts(registry: context.registry) }
        var report = try context.backend.importFiles(sources, texts: texts, options: options)
        report.warnings = folders.flatMap(\.warnings) + report.warnings
        bar.finish()
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(report.json))
        } else {
            for warning in report.warnings {
                let place = warning.line > 0 ? "\(warning.source):\(warning.line): " : "\(warning.source): "
                terminal.err(Terminal.printable(place + "warning: " + warning.message + (warning.uid.map { " [UID \($0)]" } ?? "")))
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
        if report.outcomeUnknown { return .ioError }
        return report.written ? .success : .dataError
    }

    /// What `history` says an import came from: "work.ics", "standard input", "the folder cal".
    static func importLabel(_ paths: [String], folders: Set<String>) -> String {
        let names = paths.map { path -> String in
            if path == "-" { return "standard input" }
            let name = URL(fileURLWithPath: path).lastPathComponent
            return folders.contains(path) ? "the folder \(name)" : name
        }
        return names.count <= 2 ? names.joined(separator: " and ") : "\(names[0]) and \(names.count - 1) more"
    }

    private func summary(_ report: ImportReport) -> String {
        if report.outcomeUnknown {
            return "The import may or may not have been kept: the database went away during its commit. See cometcal history before importing again."
        }
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
        if let folder = context.parsed.value("vdir") { return try exportVdir(to: folder) }
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

    /// `export --vdir DIR`: the whole store, into a folder that is new or empty, so that nothing
    /// is ever overwritten; when a write fails, what was written is taken away again.
    private func exportVdir(to path: String) throws -> ExitCode {
        for other in ["calendar", "from", "to", "event", "output"] where context.parsed.value(other) != nil {
            throw CommandFailure(code: .usage, message: "error: --vdir exports the whole store, a folder per calendar; it cannot be combined with --\(other)")
        }
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        let existed = files.fileExists(atPath: path, isDirectory: &isDirectory)
        if existed {
            guard isDirectory.boolValue else {
                throw CommandFailure(code: .ioError, message: "error: \(path) exists and is not a folder; export --vdir writes into a new or empty folder (nothing was written)")
            }
            let contents = (try? files.contentsOfDirectory(atPath: path)) ?? []
            guard contents.isEmpty else {
                throw CommandFailure(code: .ioError, message: "error: \(path) is not empty (\(contents.count) item\(contents.count == 1 ? "" : "s") in it); export --vdir writes only into a new or empty folder and never overwrites (nothing was written)")
            }
        }
        let export: VdirExport
        do {
            export = try context.backend.exportVdir()
        } catch let error as IntentError {
            throw CommandFailure(code: .dataError, message: "error: \(error.message)")
        }
        let root = URL(fileURLWithPath: path)
        var created: [URL] = []
        do {
            if !existed {
                try files.createDirectory(at: root, withIntermediateDirectories: false)
                created.append(root)
            }
            for collection in export.collections {
                let folder = root.appendingPathComponent(collection.folder, isDirectory: true)
                try files.createDirectory(at: folder, withIntermediateDirectories: false)
                created.append(folder)
                for file in collection.metadata + collection.items {
                    try Data(file.text.utf8).write(to: folder.appendingPathComponent(file.name), options: .atomic)
                }
            }
        } catch {
            for url in created.reversed() { try? files.removeItem(at: url) }
            throw CommandFailure(code: .ioError, message: "error: cannot write the vdir \(path): \(error.localizedDescription) (nothing was left behind)")
        }
        for warning in export.warnings { terminal.err(Terminal.printable("warning: " + warning)) }
        let items = export.collections.reduce(0) { $0 + $1.items.count }
        let names = export.collections.map { "\($0.title) in \($0.folder)" }.joined(separator: ", ")
        terminal.err(Terminal.printable("Wrote \(export.collections.count) calendar folder\(export.collections.count == 1 ? "" : "s") (\(names)) with \(items) event file\(items == 1 ? "" : "s") to \(path)."))
        return .success
    }
}

/// A vdir folder given to `import`: its calendar folders and the files in them, read in the
/// order of their names.
struct VdirTree {
    struct Folder {
        let path: String
        let title: String
        let metadata: [String: String]
        let items: [String]
    }

    let path: String
    let folders: [Folder]
    /// Files that are not part of the layout, each ignored and said.
    let warnings: [ImportReport.Problem]

    init(_ path: String) throws {
        self.path = path
        let files = FileManager.default
        func isFolder(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return files.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        func list(_ path: String) throws -> [String] {
            do {
                return try files.contentsOfDirectory(atPath: path).sorted()
            } catch {
                throw CommandFailure(code: .noInput, message: "error: \(path): cannot be read (check its permissions)")
            }
        }
        var folders: [Folder] = []
        var warnings: [ImportReport.Problem] = []
        func ignore(_ path: String, _ why: String) {
            warnings.append(.init(source: path, line: 0, uid: nil, message: why + "; ignored"))
        }
        let entries = try list(path)
        for entry in entries {
            let folder = (path as NSString).appendingPathComponent(entry)
            guard isFolder(folder), !entry.hasPrefix(".") else {
                ignore(folder, isFolder(folder) ? "a hidden folder is not a calendar" : "not in a calendar folder (a vdir holds a folder per calendar)")
                continue
            }
            var metadata: [String: String] = [:]
            var items: [String] = []
            for name in try list(folder) {
                let file = (folder as NSString).appendingPathComponent(name)
                if Vdir.metadataFiles.contains(where: { $0.file == name }), !isFolder(file) {
                    guard let data = files.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                        throw CommandFailure(code: .dataError, message: "error: \(file): cannot be read as UTF-8 text")
                    }
                    metadata[name] = text.trimmingCharacters(in: .whitespacesAndNewlines)
                } else if (name as NSString).pathExtension.lowercased() == "ics", !name.hasPrefix("."), !isFolder(file) {
                    items.append(file)
                } else {
                    ignore(file, isFolder(file) ? "a folder inside a calendar folder is not read" : "not a .ics file or a metadata file (\(Vdir.metadataFiles.map(\.file).joined(separator: ", ")))")
                }
            }
            let named = metadata["displayname"] ?? ""
            folders.append(Folder(path: folder, title: named.isEmpty ? entry : named, metadata: metadata, items: items))
        }
        guard !folders.isEmpty else {
            let loose = entries.contains { ($0 as NSString).pathExtension.lowercased() == "ics" }
            throw CommandFailure(code: .noInput, message: "error: \(path) holds no calendar folders: a vdir has a folder per calendar, with a .ics file per event"
                                 + (loose ? " (it holds .ics files itself, as one calendar's folder does: import its parent folder, or the files with --calendar NAME)" : ""))
        }
        self.folders = folders
        self.warnings = warnings
    }

    /// Each calendar folder as its metadata (read as a VCALENDAR) and then its files, each put in
    /// that calendar whatever calendar properties it has itself.
    func texts(registry: Registry) throws -> [ImportText] {
        var sources: [ImportText] = []
        for folder in folders {
            sources.append(ImportText(name: folder.path, text: Vdir.calendarHeader(title: folder.title, metadata: folder.metadata, registry: registry), calendar: nil))
            for item in folder.items {
                guard let data = FileManager.default.contents(atPath: item) else {
                    throw CommandFailure(code: .noInput, message: "error: \(item): cannot be read (check its permissions)")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw CommandFailure(code: .dataError, message: "error: \(item) is not UTF-8 text")
                }
                sources.append(ImportText(name: item, text: text, calendar: folder.title))
            }
        }
        return sources
    }
}
