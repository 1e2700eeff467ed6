import Testing
import Foundation
import CometSchema

/// The hostile-input catalogue (issue 12): for every entry point (CLI flags, .ics, schema files,
/// scripts, JSON, JSON-RPC) an input meant to break it, and what must happen instead: a clear
/// error or a bounded result, in bounded time and memory, with nothing lost. Bounds are
/// generous ceilings against hangs and blow-ups, not speed targets (scripts/bench measures).
@Suite("hostile input")
struct HostileInputTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    var storePath: String { environment["COMETCAL_DB"]! }

    /// Runs the CLI with a ceiling on its time, and returns its result and peak memory (MiB).
    func bounded(_ arguments: [String], seconds: Double = 120, stdin: String? = nil, extra: [String: String] = [:],
                 sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> (result: CLIResult, peakMiB: Int) {
        let started = Date()
        let result = try CLIRunner.run(["--no-color"] + arguments, environment: environment.merging(extra) { $1 }, stdin: stdin)
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < seconds, "cometcal \(arguments.prefix(3).joined(separator: " ")) took \(elapsed) s", sourceLocation: sourceLocation)
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return (result, usage.ru_maxrss / 1024)
    }

    func file(_ name: String, _ text: String) throws -> String {
        let url = scratch.url.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func calendar(_ body: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\nX-WR-CALNAME:Home\r\n" + body + "END:VCALENDAR\r\n"
    }

    func event(_ uid: String, _ lines: String) -> String {
        "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260610T100000Z\r\nSUMMARY:\(uid)\r\n" + lines + "END:VEVENT\r\n"
    }

    /// The store, as SQLite sees it: sound, and how many events it holds.
    func storeState() throws -> (ok: Bool, events: Int) {
        let check = try CLIRunner.integrity(of: storePath)
        let events = try json(["event", "list"])["total"]
        guard case .int(let total)? = events else { return (check == "ok\n", -1) }
        return (check == "ok\n", total)
    }

    // MARK: .ics

    @Test("a 50 MB line (an inline ATTACH) imports in linear time, kept for export")
    func fiftyMegabyteLine() throws {
        let payload = String(repeating: "QUJD", count: 50 * 1024 * 1024 / 4)
        let path = try file("photo.ics", calendar(event("photo@h", "ATTACH;ENCODING=BASE64;VALUE=BINARY;FMTTYPE=image/jpeg:\(payload)\r\n")))
        let (result, peak) = try bounded(["import", path])
        #expect(result.status == 0, "\(result.stderr.prefix(500))")
        #expect(peak < 1_500, "peak \(peak) MiB")
        let exported = try CLIRunner.run(["export", "--event", "photo@h"], environment: environment)
        #expect(exported.stdout.contains("ATTACH;ENCODING=BASE64"), "the attachment is kept")
    }

    @Test("20,000 nested components: refused with the line, not a stack overflow")
    func deepNesting() throws {
        let nested = String(repeating: "BEGIN:X-A\r\n", count: 20_000) + String(repeating: "END:X-A\r\n", count: 20_000)
        let path = try file("nested.ics", calendar(event("nest@h", nested) + event("fine@h", "")))
        let (result, _) = try bounded(["import", path])
        #expect(result.status == 65, "\(result.stderr.prefix(500))")
        // VEVENT starts on line 5, its 32nd X-A on line 41: the 33rd level is the one refused.
        #expect(result.stderr.contains("nested.ics:41: error: components are nested more than 32 deep"), "\(result.stderr.prefix(500))")
        let skipped = try bounded(["import", path, "--skip-invalid"]).result
        #expect(skipped.status == 0)
        #expect(try json(["event", "list"])["total"] == 1, "the sound event is imported")
    }

    @Test("100,000 attendees on one event: imported, shown and exported in bounded memory")
    func hundredThousandAttendees() throws {
        let attendees = (0..<100_000).map { "ATTENDEE;CN=Person \($0):mailto:p\($0)@example.org\r\n" }.joined()
        let path = try file("crowd.ics", calendar(event("crowd@h", attendees)))
        let (result, peak) = try bounded(["import", path])
        #expect(result.status == 0, "\(result.stderr.prefix(300))")
        #expect(peak < 2_000, "peak \(peak) MiB")
        #expect(try bounded(["event", "show", "crowd@h"]).result.stdout.contains("Person 99999"))
    }

    @Test("RRULE COUNT=10^9 and FREQ=SECONDLY with no end: bounded by the query")
    func enormousRules() throws {
        try run(["calendar", "add", "Home"])
        // Moments (--end +0m), so an occurrence is in the day it starts in and no other.
        try run(["event", "add", "Tick", "--start", "2026-06-01 09:00", "--end", "+0m", "--repeat", "FREQ=SECONDLY"])
        try run(["event", "add", "Tock", "--start", "2026-06-01 09:00", "--end", "+0m", "--repeat", "FREQ=MINUTELY;COUNT=1000000000"])
        for from in ["2026-06-02", "2027-06-02"] {
            let day = try json(["agenda", "--from", from, "--days", "1", "--limit", "1"])
            // Every second and every minute of the day: a year later too, not cut off anywhere.
            #expect(day["total"] == .int(86_400 + 1_440), "\(from): \(String(describing: day["total"]))")
        }
        let tooMuch = try bounded(["agenda", "--from", "2026-06-02", "--days", "30", "--limit", "1"]).result
        #expect(tooMuch.status != 0)
        #expect(tooMuch.stderr.contains("more than 1,000,000 occurrences in this range; ask for a shorter range"), "\(tooMuch.stderr)")
        let file = try self.file("ticks.ics", calendar(event("tick@h", "RRULE:FREQ=SECONDLY\r\n")))
        let refused = try bounded(["import", file]).result
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("give it a COUNT or UNTIL"), "\(refused.stderr)")
    }

    @Test("NUL, escape sequences and invalid UTF-8: escapes never reach the terminal raw; bad bytes are refused with the line")
    func controlCharacters() throws {
        let escape = "Evil \u{1B}[2J\u{1B}]0;pwned\u{07} title"
        let path = try file("escape.ics", calendar(event("esc@h", "DESCRIPTION:bell\u{07} and NUL\\n\r\n").replacingOccurrences(of: "SUMMARY:esc@h", with: "SUMMARY:\(escape)")))
        #expect(try bounded(["import", path]).result.status == 0)
        for command in [["agenda", "--from", "2026-06-10", "--days", "1"], ["event", "show", "Evil"], ["event", "list"], ["search", "evil"], ["history"]] {
            let output = try bounded(command).result.stdout
            #expect(!output.contains("\u{1B}"), "\(command) printed an escape: \(output.debugDescription)")
            #expect(!output.contains("\u{07}"), "\(command) printed a bell")
        }
        let invalid = scratch.url.appendingPathComponent("latin1.ics")
        var bytes = Array(calendar(event("latin@h", "LOCATION:Caf\u{00E9}\r\n")).utf8)
        if let index = bytes.firstIndex(of: 0xC3) { bytes.replaceSubrange(index...index + 1, with: [0xE9]) }
        try Data(bytes).write(to: invalid)
        let refused = try bounded(["import", invalid.path]).result
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("latin1.ics:10: error: the line is not valid UTF-8"), "\(refused.stderr)")
        let nul = scratch.url.appendingPathComponent("nul.ics")
        try Data(Array(calendar(event("nul@h", "LOCATION:a\u{0}b\r\n")).utf8)).write(to: nul)
        #expect([0, 65].contains(try bounded(["import", nul.path]).result.status))
        #expect(try storeState().ok)
    }

    // MARK: paths and the store

    @Test("a directory as the store or as a file to import: a clear error, nothing created")
    func directories() throws {
        let folder = scratch.url.appendingPathComponent("a-folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try bounded(["--db", folder.path, "calendar", "add", "X"]).result
        #expect(store.status == 74 && store.stderr.contains("is a folder, not a store"), "\(store.stderr)")
        try run(["calendar", "add", "Home"])
        let imported = try bounded(["import", folder.path]).result
        #expect(imported.status != 0 && imported.stderr.hasPrefix("error: "), "\(imported.stderr)")
    }

    @Test("a store file that is not a database: refused, and left byte for byte as it was")
    func notADatabase() throws {
        let path = scratch.url.appendingPathComponent("store/notes.sqlite")
        let text = "my shopping list, not a calendar\n"
        try text.write(to: path, atomically: true, encoding: .utf8)
        for command in [["calendar", "add", "X"], ["agenda"], ["import", try file("e.ics", calendar(event("e@h", "")))]] {
            let result = try bounded(["--db", path.path] + command).result
            #expect(result.status == 74, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is not a CometCal store (nor any SQLite database)"), "\(result.stderr)")
        }
        #expect(try String(contentsOf: path, encoding: .utf8) == text)
        // A calendar file given as the store: said so, with the command that reads it.
        let ics = try file("week.ics", calendar(event("w@h", "")))
        let given = try bounded(["--db", ics, "agenda"]).result
        #expect(given.status == 74 && given.stderr.contains("is not a CometCal store: it is an iCalendar file; to read its events into your store, use cometcal import"), "\(given.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path.path + "-wal"))
    }

    @Test("a read-only store: reads work, a write is refused clearly and changes nothing")
    func readOnlyStore() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Kept", "--start", "2026-06-10 10:00"])
        let folder = scratch.url.appendingPathComponent("store")
        // As a user who may not write there (root ignores modes, so the test drops to nobody when it can).
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: storePath)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: storePath) }
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: storePath)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath + suffix) }
            let write = try shell("/usr/sbin/runuser", ["-u", "nobody", "--", try CLIRunner.binary().path, "--db", storePath, "--schemas",
                                                       CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path, "event", "add", "New", "--start", "2026-06-11 10:00"], allowFailure: true)
            #expect(write.contains("error: "), "\(write)")
        } else {
            let write = try bounded(["event", "add", "New", "--start", "2026-06-11 10:00"]).result
            #expect(write.status == 74 && write.stderr.hasPrefix("error: "), "\(write.stderr)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: storePath)
        #expect(try json(["event", "list"])["total"] == 1)
    }

    @Test("a full disk in the middle of an import: the import is rolled back whole, the store stays sound")
    func fullDisk() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Before", "--start", "2026-06-10 10:00"])
        let events = (0..<20_000).map { event("full-\($0)@h", "DESCRIPTION:\(String(repeating: "x", count: 400))\r\n") }.joined()
        let path = try file("big.ics", calendar(events))
        // RLIMIT_FSIZE as a disk that is full at 2 MB more than the store has: writes past it fail
        // with EFBIG (SIGXFSZ ignored, so the write fails instead of killing the process).
        let size = (try FileManager.default.attributesOfItem(atPath: storePath)[.size] as? Int) ?? 0
        let blocks = (size + 2_000_000) / 1024
        let binary = try CLIRunner.binary().path
        let output = try shell("/bin/bash", ["-c", "trap '' XFSZ; ulimit -f \(blocks); exec '\(binary)' --schemas '\(CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path)' import '\(path)'; "],
                               allowFailure: true)
        #expect(output.contains("error: "), "\(output.prefix(600))")
        let state = try storeState()
        #expect(state.ok)
        #expect(state.events == 1, "all or nothing: \(state.events)")
    }

    // MARK: CLI flags and search

    @Test("FTS5 syntax in search text is searched as words", arguments: ["\"", "NEAR(", "*", "OR", "-", "cake OR", "\"unclosed", "title:cake", "a AND", "^x", "(", "NOT"])
    func searchSyntax(text: String) throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Cake OR pie", "--start", "2026-06-10 10:00"])
        let result = try bounded(["search", text]).result
        #expect(result.status == 0, "\(text): \(result.stderr)")
        #expect(!result.stderr.lowercased().contains("fts5") && !result.stderr.lowercased().contains("sql"), "\(result.stderr)")
    }

    @Test("absurd flag values: clear errors, not crashes", arguments: [
        ["event", "add", "X", "--start", "99999-01-01"], ["event", "add", "X", "--start", "+100000000d"], ["agenda", "--days", "99999999999999999999"],
        ["event", "add", "X", "--start", "2026-06-10 10:00", "--alarm", "99999999999999999999m"], ["agenda", "--limit", "-1"],
        ["event", "add", String(repeating: "T", count: 100_000), "--start", "2026-06-10 10:00"], ["search", String(repeating: "(", count: 50_000)],
        ["event", "add", "X", "--start", "2026-06-10 10:00", "--repeat", "FREQ=DAILY;" + String(repeating: "BYDAY=MO;", count: 1000)],
    ])
    func absurdFlags(arguments: [String]) throws {
        try run(["calendar", "add", "Home"])
        let result = try bounded(arguments).result
        #expect([0, 64, 65].contains(result.status), "\(arguments.map { $0.prefix(30) }): \(result.status) \(result.stderr.prefix(300))")
        if result.status != 0 {
            #expect(result.stderr.hasPrefix("error: "))
            #expect(result.stderr.count < 2_000, "the error repeats the input: \(result.stderr.count) characters")
        }
    }

    // MARK: schema files, scripts, JSON

    @Test("a garbage schema file: at most 50 diagnostics shown, the rest counted")
    func garbageSchema() throws {
        let junk = (0..<20_000).map { "entity { @ical( \"x : String? } intent ( \($0)" }.joined(separator: "\n")
        let path = try file("junk.cal", junk)
        let (result, _) = try bounded(["schema", "check", path])
        #expect(result.status == 65)
        #expect(result.stderr.components(separatedBy: ": error: ").count - 1 <= 50)
        #expect(result.stderr.contains("more errors not shown; fix these first, or see them all with --json"), "\(result.stderr.suffix(300))")
        #expect(result.stderr.utf8.count < 100_000, "\(result.stderr.utf8.count) bytes")
    }

    @Test("a conversation script over the size limit is refused naming the limit, without being read")
    func hugeScript() throws {
        let path = try file("huge.convo", "@now 2026-06-10T10:00:00Z\n" + String(repeating: "> hello\n", count: 200_000))
        let result = try bounded(["converse", path]).result
        #expect(result.status != 0)
        #expect(result.stdout.contains("scripts are limited to 1000000 bytes") || result.stderr.contains("scripts are limited to 1000000 bytes"), "\(result.stdout)\(result.stderr)")
    }

    @Test("JSON nested 60,000 deep in a flag value: refused at 512 levels, the value not repeated whole")
    func deepJSON() throws {
        try run(["calendar", "add", "Home"])
        let deep = String(repeating: "[", count: 60_000) + String(repeating: "]", count: 60_000)
        let result = try bounded(["event", "add", "X", "--start", "2026-06-10 10:00", "--attendee", deep]).result
        #expect(result.status == 64)
        #expect(result.stderr.contains("nested more than 512 levels deep"), "\(result.stderr.prefix(300))")
        #expect(result.stderr.count < 1_000)
    }

    // MARK: JSON-RPC

    @Test("JSON-RPC: deep nesting, a huge request, NUL and garbage get errors; thousands of connections at once are all served")
    func daemonHostility() throws {
        let daemon = try DaemonHarness(arguments: ["--max-request", "1000000"])
        defer { _ = daemon.stop() }
        let client = try daemon.client()
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        client.sendRaw(Array("Content-Length: \(deep.utf8.count)\r\n\r\n\(deep)".utf8))
        let parseError = try client.receive()
        #expect(parseError["error"]?["code"] == -32700, "\(parseError)")
        let big = String(repeating: "x", count: 2_000_000)
        client.sendRaw(Array("Content-Length: \(big.utf8.count)\r\n\r\n\(big)".utf8))
        let tooLarge = try client.receive()
        #expect(tooLarge["error"]?["code"] == -32001, "\(tooLarge)")
        let nul = try client.call("intent.perform", ["intent": "createCalendar", "parameters": ["title": "Nul\u{0}\u{1B}[2J"]])
        #expect(nul["outcome"] == "done", "a title with NUL and an escape is data: \(nul)")
        #expect(try client.call("health")["status"] == "ok", "the connection still works")

        // 2,000 connections opened at once, past the daemon's 1,024: the first 1,024 (less the
        // one above) are served, each later one is told why it is closed, and the daemon goes on.
        // They are opened by a child process: 2,000 descriptors in this process would make every
        // other test's Process.run read past glibc's buffer (swift-corelibs-foundation#5472).
        let script = """
            import socket, json, sys
            def frame(b): return b"Content-Length: %d\\r\\n\\r\\n" % len(b) + b
            socks = []
            for _ in range(2000):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(30); socks.append(s)
            served = refused = other = 0
            limits = set()
            resets = []
            for s in socks:
                try: s.sendall(frame(b'{"jsonrpc":"2.0","id":1,"method":"health"}'))
                except OSError: pass
                data = b''
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        data += chunk
                        head, _, body = data.partition(b"\\r\\n\\r\\n")
                        if _ and len(body) >= int(head.split(b":")[1]): break
                except OSError as error:
                    resets.append(str(error)); continue
                body = data.split(b"\\r\\n\\r\\n", 1)[-1]
                try: answer = json.loads(body)
                except ValueError: answer = {}
                error = answer.get("error") or {}
                if (answer.get("result") or {}).get("status") == "ok": served += 1
                elif error.get("code") == -32004:
                    refused += 1
                    limits.add((error.get("data") or {}).get("limit"))
                else: other += 1
            for s in socks: s.close()
            print(json.dumps({"served": served, "refused": refused, "other": other, "limits": sorted(limits, key=str), "resets": resets[:3], "reset": len(resets)}))
            """
        let counter = Process()
        counter.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        counter.arguments = ["python3", "-c", script, daemon.socket]
        let out = Pipe()
        counter.standardOutput = out
        counter.standardError = out
        try counter.run()
        var data = Data()
        while counter.isRunning {
            daemon.readLog()  // the harness keeps the daemon's log in a pipe: drained, so logging never blocks it
            usleep(50_000)
        }
        data = out.fileHandleForReading.readDataToEndOfFile()
        guard let counts = try? JSONParser.parse(String(decoding: data, as: UTF8.self)),
              case .int(let served)? = counts["served"], case .int(let refused)? = counts["refused"] else {
            Issue.record("no counts: \(String(decoding: data, as: UTF8.self))")
            return
        }
        let said = "served \(served), refused \(refused), other \(String(describing: counts["other"]))"
        #expect(served + refused == 2_000, "every connection got an answer: \(said), resets \(String(describing: counts["reset"])) \(String(describing: counts["resets"]))")
        #expect(served >= 1_000 && served <= 1_024, "up to the limit are served: \(said)")
        #expect(refused >= 2_000 - 1_024, "the ones past the limit are refused with -32004: \(said)")
        #expect(counts["limits"] == .array([.int(1_024)]), "each refusal says the limit in data.limit: \(String(describing: counts["limits"]))")
        for _ in 0..<20 {
            daemon.readLog()
            usleep(50_000)
        }
        #expect(try daemon.client().call("health")["status"] == "ok", "still serving after they all closed")
    }

    private func shell(_ program: String, _ arguments: [String], allowFailure: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        env["NO_COLOR"] = "1"
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
