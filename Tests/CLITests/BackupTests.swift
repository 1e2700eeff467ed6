import Testing
import Foundation
import CometSchema

/// `cometcal backup` and `restore` with writes going on: a backup is one consistent moment of
/// the store while the daemon and other commands write; a restore checks the backup before it
/// touches anything, keeps the old content, and leaves the store private (0600).
@Suite("backup and restore")
struct BackupTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    var storePath: String { environment["COMETCAL_DB"]! }

    func total(_ extra: [String] = []) throws -> Int {
        guard case .int(let count)? = try json(extra + ["event", "list", "--limit", "1"])["total"] else { return -1 }
        return count
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    func integrity(_ path: String) throws -> String { try CLIRunner.integrity(of: path) }

    @Test("backups taken while the daemon writes are each sound and hold a whole prefix of the writes")
    func backupDuringWrites() throws {
        let daemon = try DaemonHarness()
        defer { _ = daemon.stop() }
        let client = try daemon.client()
        _ = try client.call("intent.perform", ["intent": "createCalendar", "parameters": ["title": "Home"]])
        nonisolated(unsafe) let writingClient = client
        let writer = Thread {
            let client = writingClient
            for index in 0..<300 {
                _ = try? client.call("intent.perform", ["intent": "createEvent",
                                                        "parameters": ["title": .string("Write \(index)"), "startDate": "2026-06-10T10:00:00Z"]])
            }
        }
        writer.start()
        var counts: [Int] = []
        for index in 0..<5 {
            usleep(150_000)
            let backup = scratch.url.appendingPathComponent("b\(index).sqlite").path
            let result = try CLIRunner.run(["--db", daemon.store, "backup", backup], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try integrity(backup) == "ok\n")
            #expect(try mode(backup) == 0o600)
            counts.append(try total(["--db", backup]))
            daemon.readLog()
        }
        while writer.isExecuting { usleep(50_000) }
        // Each backup is a moment: the titles it holds are Write 0 … Write n-1, none missing.
        for (index, count) in counts.enumerated() {
            let listed = try json(["--db", scratch.url.appendingPathComponent("b\(index).sqlite").path, "event", "list"])
            guard case .array(let entities)? = listed["entities"] else { continue }
            let numbers = Set(entities.compactMap { entity -> Int? in
                guard case .string(let title)? = entity["title"] else { return nil }
                return Int(title.dropFirst("Write ".count))
            })
            #expect(numbers == Set(0..<count), "backup \(index) holds \(count) events, but not writes 0..<\(count)")
        }
        #expect(counts == counts.sorted(), "later backups hold at least as much: \(counts)")
    }

    @Test("restore replaces the content, keeps the old content, and leaves the store 0600; undo history is the backup's")
    func restoreKeepsTheOld() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Kept", "--start", "2026-06-10 10:00"])
        let backup = scratch.url.appendingPathComponent("backup.sqlite").path
        try run(["backup", backup])
        #expect(try run(["backup", backup], expect: 65).stderr.contains("already exists"), "a backup never overwrites")
        try run(["event", "add", "Later", "--start", "2026-06-11 10:00"])
        #expect(try run(["restore", backup], expect: 64).stderr.contains("Add --yes"))
        #expect(try total() == 2, "nothing changed without a yes")
        let restored = try run(["restore", backup, "--yes"]).stdout
        #expect(try total() == 1)
        #expect(try mode(storePath) == 0o600)
        let kept = restored.components(separatedBy: "is kept in ").last?.trimmingCharacters(in: CharacterSet(charactersIn: ".\n")) ?? ""
        #expect(FileManager.default.fileExists(atPath: kept), "\(restored)")
        #expect(try mode(kept) == 0o600)
        #expect(try total(["--db", kept]) == 2, "the old content is kept whole")
        // The journal came with the backup: undo takes back the backup's last change.
        try run(["undo"])
        #expect(try total() == 0)
    }

    @Test("a backup that is not sound, not a store, or missing is refused and nothing changes")
    func restoreRefusals() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Kept", "--start", "2026-06-10 10:00"])
        let before = try Data(contentsOf: URL(fileURLWithPath: storePath))
        let garbage = scratch.url.appendingPathComponent("garbage.sqlite")
        try Data("not a database at all".utf8).write(to: garbage)
        #expect(try run(["restore", garbage.path, "--yes"], expect: 65).stderr.contains("is not an SQLite database (nothing was changed)"))
        let foreign = scratch.url.appendingPathComponent("foreign.sqlite")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["sqlite3", foreign.path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"]
        try make.run()
        make.waitUntilExit()
        #expect(try run(["restore", foreign.path, "--yes"], expect: 65).stderr.contains("not a CometCal store"))
        // A store damaged in the middle: SQLite's integrity check finds it.
        let damaged = scratch.url.appendingPathComponent("damaged.sqlite").path
        try run(["backup", damaged])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        // The header of every b-tree page after the first: SQLite's check cannot miss that.
        for page in stride(from: 4096, to: bytes.count, by: 4096) {
            for index in page..<page + 12 { bytes[index] = 0xFF }
        }
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let refused = try CLIRunner.run(["restore", damaged, "--yes"], environment: environment)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(try run(["restore", scratch.url.appendingPathComponent("nope.sqlite").path, "--yes"], expect: 66).stderr.contains("there is no backup"))
        #expect(try total() == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: storePath)) == before, "the store is byte for byte as it was")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (storePath as NSString).deletingLastPathComponent).filter { $0.contains("before-restore") }
        #expect(leftovers.isEmpty, "a refused restore keeps no copy: \(leftovers)")
    }

    @Test("a restore while another process writes: the writes after it land on the restored content")
    func restoreDuringWrites() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Base", "--start", "2026-06-10 10:00"])
        let backup = scratch.url.appendingPathComponent("base.sqlite").path
        try run(["backup", backup])
        for index in 0..<20 { try run(["event", "add", "Old \(index)", "--start", "2026-06-10 10:00"]) }
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/bash")
        let binary = try CLIRunner.binary().path
        writer.arguments = ["-c", "for i in $(seq 1 15); do '\(binary)' --schemas '\(CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path)' event add \"New $i\" --start '2026-06-12 10:00' >/dev/null 2>&1 || echo failed $i; done"]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        writer.environment = env
        let out = Pipe()
        writer.standardOutput = out
        try writer.run()
        usleep(200_000)
        try run(["restore", backup, "--yes"])
        let failures = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        writer.waitUntilExit()
        #expect(failures.isEmpty, "a write failed during the restore: \(failures)")
        #expect(try integrity(storePath) == "ok\n")
        let listed = try json(["event", "list"])
        guard case .array(let entities)? = listed["entities"] else { Issue.record("no list"); return }
        let titles = entities.compactMap { entity -> String? in if case .string(let title)? = entity["title"] { return title } else { return nil } }
        #expect(titles.contains("Base"))
        #expect(!titles.contains { $0.hasPrefix("Old ") }, "the restore replaced what came after the backup")
        #expect(titles.filter { $0.hasPrefix("New ") }.count >= 1, "writes after the restore are there: \(titles)")
    }
}
