import Testing
import Foundation
import CometSchema

/// What docs/security.md promises, checked: the daemon's socket only where others cannot reach
/// it, store files private, and no SQL built from what people type.
@Suite("security")
struct SecurityTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func startDaemon(socket: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = try CLIRunner.binary("cometcald")
        process.arguments = ["--db", scratch.url.appendingPathComponent("store/cal.sqlite").path, "--socket", socket,
                             "--schemas", CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // A daemon that starts is stopped at once: only refusals are under test here.
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline {
            if FileManager.default.fileExists(atPath: socket) { process.terminate() }
            usleep(20_000)
        }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test("the daemon refuses a socket folder others can write to, or a link another user owns")
    func socketFolder() throws {
        let open = scratch.url.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        for mode in [0o770, 0o777, 0o755] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: open.path)
            let result = try startDaemon(socket: open.appendingPathComponent("d.sock").path)
            #expect(result.status != 0 && result.stderr.contains("must belong to you and be closed to others"), "mode \(String(mode, radix: 8)): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: open.appendingPathComponent("d.sock").path))
        }
        let mine = scratch.url.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let link = scratch.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: mine)
        // A link placed by someone else: as root, one we hand to nobody, pointing at a folder of
        // ours; as anyone else, root's /bin (a link to usr/bin on a merged-/usr Debian).
        let foreign: String
        if getuid() == 0 {
            #expect(lchown(link.path, 65534, 65534) == 0)
            foreign = link.path
        } else {
            var bin = stat()
            try #require(lstat("/bin", &bin) == 0 && bin.st_mode & S_IFMT == S_IFLNK && bin.st_uid == 0, "/bin is root's link here")
            foreign = "/bin"
        }
        let refused = try startDaemon(socket: foreign + "/d.sock")
        #expect(refused.status != 0 && refused.stderr.contains("is a symbolic link owned by another user"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: foreign + "/d.sock"))
        // The socket itself is the owner's alone.
        let daemon = try DaemonHarness()
        defer { _ = daemon.stop() }
        let mode = (try FileManager.default.attributesOfItem(atPath: daemon.socket)[.posixPermissions] as? Int) ?? -1
        #expect(mode == 0o600)
    }

    @Test("store files are 0600, in a folder of 0700 when cometcal makes it, and after a restore")
    func storeModes() throws {
        let home = scratch.url.appendingPathComponent("home")
        let made = try CLIRunner.run(["calendar", "add", "Home"], environment: ["XDG_DATA_HOME": home.path, "COMETCAL_DB": ""])
        #expect(made.status == 0, "\(made.stderr)")
        let store = home.appendingPathComponent("cometcal/cometcal.sqlite").path
        func mode(_ path: String) throws -> Int { (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1 }
        #expect(try mode(store) == 0o600)
        #expect(try mode((store as NSString).deletingLastPathComponent) == 0o700)
        try run(["calendar", "add", "Work"])
        let backup = scratch.url.appendingPathComponent("b.sqlite").path
        try run(["backup", backup])
        #expect(try mode(backup) == 0o600)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: environment["COMETCAL_DB"]!)
        try run(["restore", backup, "--yes"])
        #expect(try mode(environment["COMETCAL_DB"]!) == 0o600, "a restore leaves the store private")
    }

    @Test("SQL in what people type is data: titles, notes, searches and names", arguments: [
        "x'); DROP TABLE _journal; --", "\" OR 1=1 --", "Robert'); DELETE FROM _meta;--", "%' OR '1'='1", "a\\' ; SELECT *",
    ])
    func injection(text: String) throws {
        try run(["calendar", "add", text])
        try run(["event", "add", text, "--start", "2026-06-10 10:00", "--note", text, "--location", text, "--calendar", text])
        #expect(try json(["event", "show", text])["entity"]?["title"] == .string(text))
        #expect(try json(["search", text])["total"] == 1)
        #expect(try run(["history"]).stdout.contains("Created event"))
        try run(["undo"])
        #expect(try json(["event", "list"])["total"] == 0)
    }

    /// Every SQL text the store prepares or executes, with what it interpolates.
    static func interpolations() throws -> [(file: String, expression: String)] {
        let root = CLIRunner.repositoryRoot.appendingPathComponent("Sources/CometSQLiteStore")
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return [] }
        let call = try NSRegularExpression(pattern: #"(?:prepare|execute)\(\s*(?:"""([\s\S]*?)"""|"((?:[^"\\]|\\.)*)")"#)
        let interpolation = try NSRegularExpression(pattern: #"\\\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)"#)
        var found: [(String, String)] = []
        for case let name as String in files where name.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            let whole = NSRange(text.startIndex..., in: text)
            for match in call.matches(in: text, range: whole) {
                for group in 1...2 {
                    guard let range = Range(match.range(at: group), in: text) else { continue }
                    let sql = String(text[range])
                    for inner in interpolation.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)) {
                        if let expression = Range(inner.range(at: 1), in: sql) { found.append((name, String(sql[expression]))) }
                    }
                }
            }
        }
        return found
    }

    @Test("no SQL is built from input: what the store's SQL interpolates is identifiers from the schema, quoted, or its own SQL fragments")
    func noSQLFromInput() throws {
        let found = try Self.interpolations()
        #expect(found.count > 20, "the scan found the store's SQL: \(found.count)")
        // Identifiers from the registry, through quote(…), and the fragments the store builds
        // itself from such identifiers and placeholders, by their exact names: a new name is a
        // new review. (SQL built in a variable first is not read here; SQLAuditTests watches
        // every statement at run time.)
        let fragments: Set<String> = ["Migrator.formatVersion", "assignments", "columns", "layout.columnDefinition(column)", "layout.selectList",
                                      "placeholders", "selection.from", "selection.whereClause"]
        let suspicious = found.filter { item in !(item.expression.hasPrefix("quote(") && item.expression.hasSuffix(")")) && !fragments.contains(item.expression) }
        #expect(suspicious.isEmpty, "SQL that interpolates something not known to be an identifier or the store's own SQL: \(suspicious.map { "\($0.file): \\(\($0.expression))" })")
    }

    @Test("a command that only reads leaves the store file byte for byte as it was")
    func readsDoNotWrite() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00", "--repeat", "weekly"])
        let path = environment["COMETCAL_DB"]!
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for command in [["calendar", "list"], ["agenda"], ["agenda", "--month"], ["event", "list"], ["event", "show", "Picnic"], ["search", "picnic"],
                        ["history"], ["export"], ["today"]] {
            try run(command)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0, "nothing was written to the WAL either")
    }
}
