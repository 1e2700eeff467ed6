import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// What the iCalendar scenarios share: the generated files (one per size), the libical and
/// python references, and the store the main file was imported into (for re-import, export
/// and the agenda). Files live in one temporary directory, removed at the end of the run.
final class ICalWorkspace {
    let directory: String
    /// The C harness built from scripts/bench-references, or nil when no C compiler or libical
    /// headers are there (the report then says the reference is missing).
    let libicalHarness: String?
    /// python3 with `icalendar` importable, or nil.
    let python: String?
    private var files: [Int: (path: String, summary: CalendarFileGenerator.Summary)] = [:]
    /// The store holding an import of the main file.
    var mainStore: String?

    static func shared(_ run: BenchRun) throws -> ICalWorkspace {
        try run.shared("ical") { try ICalWorkspace(run: run) }
    }

    private init(run: BenchRun) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cometcal-bench-ical-\(ProcessInfo.processInfo.processIdentifier)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        libicalHarness = ICalWorkspace.buildHarness(into: directory, progress: run.progress)
        python = ICalWorkspace.findPython(progress: run.progress)
        run.onCleanUp { [directory] in try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The generated file of `events` VEVENTs (written on first use).
    func file(events: Int, run: BenchRun) throws -> (path: String, summary: CalendarFileGenerator.Summary) {
        if let made = files[events] { return made }
        let path = (directory as NSString).appendingPathComponent("calendar-\(events).ics")
        var generator = CalendarFileGenerator(frame: run.frame, events: events, seed: run.options.seed)
        let (summary, timing) = try Stopwatch.time { try generator.write(to: path) }
        run.progress(String(format: "generated %@: %d events (%d series, %d overrides), %.1f MB in %.1f s", path, summary.events,
                            summary.series, summary.overrides, Double(summary.bytes) / 1e6, Double(timing.wall) / 1e9))
        files[events] = (path, summary)
        return (path, summary)
    }

    /// The store the main file was imported into; imported now (once) when the import scenario
    /// did not run.
    func importedStore(_ run: BenchRun) throws -> String {
        if let mainStore { return mainStore }
        let file = try file(events: run.options.events, run: run)
        let store = newStorePath("imported")
        run.progress("importing \(file.summary.events) events for the scenarios that need the store")
        let imported = try childImport(file.path, into: store, run: run)
        guard imported.added == file.summary.events else { throw BenchError("the import added \(imported.added) events of \(file.summary.events)") }
        mainStore = store
        return store
    }

    /// A fresh store path (nothing there yet).
    func newStorePath(_ name: String) -> String {
        let path = (directory as NSString).appendingPathComponent("\(name).sqlite")
        ICalWorkspace.removeStore(path)
        return path
    }

    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // MARK: libical

    struct LibicalTimes {
        let parse: Double
        let serialize: Double
        let events: Int
    }

    /// One parse and one serialization of the file by libical itself, in seconds.
    func libical(_ file: String) throws -> LibicalTimes {
        guard let libicalHarness else { throw BenchError("the libical reference harness is not built") }
        let output = try ICalWorkspace.run(libicalHarness, [file, "1"])
        guard case .object(let object) = try JSONParser.parse(output),
              case .array(let parses)? = object["parse"], let parse = parses.first?.number,
              case .array(let serializations)? = object["serialize"], let serialize = serializations.first?.number,
              case .int(let events)? = object["events"] else {
            throw BenchError("the libical reference printed something unexpected: \(output.prefix(200))")
        }
        return LibicalTimes(parse: parse, serialize: serialize, events: events)
    }

    private static func buildHarness(into directory: String, progress: (String) -> Void) -> String? {
        let source = sourceTree.appendingPathComponent("scripts/bench-references/libical_reference.c").path
        let binary = (directory as NSString).appendingPathComponent("libical_reference")
        do {
            let flags = try run("/usr/bin/env", ["pkg-config", "--cflags", "--libs", "libical"])
                .split(whereSeparator: \.isWhitespace).map(String.init)
            // cc where there is one; otherwise the clang that comes with Swift.
            let compiler = (try? run("/usr/bin/env", ["sh", "-c", "command -v cc || command -v clang"]))?
                .split(separator: "\n").first.map(String.init) ?? "cc"
            _ = try run(compiler, ["-O2", "-o", binary, source] + flags)
            // Executable whatever the umask the compiler ran under (a test suite may narrow it).
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: binary)
            return binary
        } catch {
            progress("warning: cannot build the libical reference (\(error)); its figures are left out")
            return nil
        }
    }

    // MARK: python

    struct PythonTimes {
        let parse: Double
        let events: Int
        let range: Double?
        let occurrences: Int?
        let version: String
    }

    /// python `icalendar` parsing the file, and `recurring_ical_events` listing [from, to) when given.
    func python(_ file: String, days: (from: String, to: String)?) throws -> PythonTimes? {
        guard let python else { return nil }
        var arguments = [ICalWorkspace.sourceTree.appendingPathComponent("scripts/bench-references/python_reference.py").path, file]
        if let days { arguments += [days.from, days.to] }
        let output = try ICalWorkspace.run(python, arguments)
        guard case .object(let object) = try JSONParser.parse(output), let parse = object["parse"]?.number,
              case .int(let events)? = object["events"] else {
            throw BenchError("the python reference printed something unexpected: \(output.prefix(200))")
        }
        let occurrences: Int? = { if case .int(let count)? = object["occurrences"] { return count } else { return nil } }()
        let version: String = { if case .string(let text)? = object["version"] { return text } else { return "?" } }()
        return PythonTimes(parse: parse, events: events, range: object["range"]?.number, occurrences: occurrences, version: version)
    }

    private static func findPython(progress: (String) -> Void) -> String? {
        guard (try? run("/usr/bin/env", ["python3", "-c", "import icalendar"])) != nil else {
            progress("warning: python3 with icalendar is not there (scripts/bootstrap installs it); the python reference is left out")
            return nil
        }
        return "/usr/bin/env python3"
    }

    // MARK: The import, in a process of its own

    struct ChildImport {
        let seconds: Double
        let cpuSeconds: Double
        let peakRSSMiB: Double
        let added: Int
        let updated: Int
        let unchanged: Int
    }

    /// Imports `file` into the store at `store` in a child process (this program, with
    /// --child-import), so its peak RSS is the import's alone. The time is the child's own,
    /// from opening the file to the commit.
    func childImport(_ file: String, into store: String, run: BenchRun) throws -> ChildImport {
        var arguments = ["--child-import", file, "--db", store]
        for path in run.options.schemaPaths { arguments += ["--schemas", path] }
        let output = try ICalWorkspace.run("/proc/self/exe", arguments)
        guard case .object(let object) = try JSONParser.parse(output),
              let seconds = object["seconds"]?.number, let cpu = object["cpuSeconds"]?.number, let rss = object["peakRSSMiB"]?.number,
              case .int(let added)? = object["added"], case .int(let updated)? = object["updated"], case .int(let unchanged)? = object["unchanged"] else {
            throw BenchError("the import child printed something unexpected: \(output.prefix(300))")
        }
        return ChildImport(seconds: seconds, cpuSeconds: cpu, peakRSSMiB: rss, added: added, updated: updated, unchanged: unchanged)
    }

    /// The child's side of `childImport`: prints one JSON object, exits 0 only when it was written.
    static func runChild(file: String, database: String, registry: Registry, frame: TimeFrame) -> Int32 {
        do {
            let store = try SQLiteStore(path: database, registry: registry, now: frame.now)
            let now = frame.now
            let engine = IntentEngine(store: store, timeZone: frame.zone, clock: { now })
            // The process's CPU, not this thread's: the file is read on a second thread.
            func processCPU() -> UInt64 {
                var spec = timespec()
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
                return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
            }
            let cpuStart = processCPU()
            let start = Stopwatch.now()
            guard let handle = FileHandle(forReadingAtPath: file) else { throw BenchError("cannot open \(file)") }
            let report = engine.importCalendars([ImportSource(name: file, handle: handle, registry: registry)])
            let seconds = Double(Stopwatch.now() - start) / 1e9
            let cpu = Double(processCPU() - cpuStart) / 1e9
            guard report.written else {
                printError("error: the import wrote nothing: \(report.problems.prefix(3).map(\.message).joined(separator: "; "))")
                return 70
            }
            print(JSONWriter.compact(.object(JSONObject([
                ("seconds", .double(seconds)), ("cpuSeconds", .double(cpu)), ("peakRSSMiB", .double(peakRSSMiB())),
                ("added", .int(report.added)), ("updated", .int(report.updated)), ("unchanged", .int(report.unchanged)),
            ]))))
            return 0
        } catch {
            printError("error: \(error)")
            return 70
        }
    }

    /// VmHWM of this process, from /proc.
    static func peakRSSMiB() -> Double { statusMiB("VmHWM:") }

    /// VmRSS of this process, from /proc.
    static func residentMiB() -> Double { statusMiB("VmRSS:") }

    private static func statusMiB(_ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kib = Double(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }

    // MARK: Processes

    /// The project's root (this file is Sources/cometcal-bench/ICalWorkspace.swift).
    static let sourceTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a program (a "/usr/bin/env NAME" string runs NAME from PATH) and returns its stdout;
    /// throws with its stderr when it fails.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        let words = program.split(separator: " ").map(String.init)
        process.executableURL = URL(fileURLWithPath: words[0])
        process.arguments = Array(words.dropFirst()) + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both to the end before waiting, so neither pipe fills and blocks the child.
        final class Collected: @unchecked Sendable { var data = Data() }
        let errorData = Collected()
        let errorsRead = DispatchSemaphore(value: 0)
        let errorReader = Thread {
            errorData.data = errors.fileHandleForReading.readDataToEndOfFile()
            errorsRead.signal()
        }
        errorReader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorsRead.wait()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchError("\(([program] + arguments).joined(separator: " ")) exited \(process.terminationStatus): \(message.suffix(500))")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

private extension JSONValue {
    var number: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }
}
