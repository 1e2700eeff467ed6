import CometStore
import Foundation
import CSQLite
import CometSchema

/// Consistent copies of a store: a backup reads one snapshot (VACUUM INTO) while the daemon and
/// other commands go on writing; a restore checks the copy first and then replaces the store's
/// content in one transaction (the online backup API), after keeping the old content.
extension SQLiteStore {
    /// Copies the store to a new file at `destination` (0600), consistent as of one moment.
    /// An existing file is not overwritten.
    public func backup(to destination: String) throws {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: destination) else {
            throw StoreError(.invalidData, "'\(destination)' already exists; choose a new file name (a backup never overwrites)")
        }
        guard manager.createFile(atPath: destination, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw StoreError(.cannotOpen, "cannot create '\(destination)'; check that its folder exists and is writable")
        }
        do {
            // VACUUM INTO reads one snapshot of the store (a read transaction, beside writers in
            // other processes) and has SQLite itself write a fresh file from it. The online backup
            // API, used here before, now and then left a copy that failed its integrity check when
            // the daemon wrote and checkpointed during the copy (1 run in 6 of BackupTests).
            try connection.prepare("VACUUM INTO ?").run([.text(destination)])
            let target = try Connection(path: destination)
            guard try SQLiteStore.integrity(of: target) == nil else {
                throw StoreError(.corrupt, "the backup at '\(destination)' does not pass SQLite's integrity check")
            }
        } catch {
            try? manager.removeItem(atPath: destination)
            throw error
        }
    }

    /// Replaces this store's content with the backup at `source`, after checking it is a sound
    /// CometCal store these schemas can open. The old content is kept first, as a backup at
    /// `keeping` (returned); the replacement is one transaction, so an interrupted restore
    /// leaves the old store as it was.
    @discardableResult
    public func restore(from source: String, keeping: String) throws -> String {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StoreError(.notFound, "there is no backup at '\(source)'")
        }
        // Checked on a private copy: opening a store migrates it, and the backup itself stays as it was.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: scratch) }
        let checked = scratch.appendingPathComponent("checked.sqlite").path
        do {
            let original: Connection
            let problems: String?
            do {
                original = try Connection(path: source, readOnly: true)
                problems = try SQLiteStore.integrity(of: original)
            } catch {
                throw StoreError(.corrupt, "'\(source)' is not an SQLite database (nothing was changed)")
            }
            if let problems { throw StoreError(.corrupt, "'\(source)' fails SQLite's integrity check: \(problems) (nothing was changed)") }
            guard FileManager.default.createFile(atPath: checked, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StoreError(.cannotOpen, "cannot make a scratch copy in \(scratch.path)")
            }
            let copy = try Connection(path: checked)
            try SQLiteStore.copy(from: original, to: copy, describing: checked)
        }
        let candidate: SQLiteStore
        do {
            // Its tables must be a CometCal store's (with _meta); opening migrates it to these schemas.
            let probe = try Connection(path: checked, readOnly: true)
            guard try probe.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_meta'").scalar() == .integer(1) else {
                throw StoreError(.invalidData, "'\(source)' is an SQLite database but not a CometCal store (it has no _meta table); nothing was changed")
            }
            candidate = try SQLiteStore(path: checked, registry: registry, creating: .nothing)
        } catch let error as StoreError where error.code != .invalidData {
            throw StoreError(error.code, "'\(source)' cannot be opened as a store with these schemas: \(error.message) (nothing was changed)")
        }
        try backup(to: keeping)
        // Past every row of `_commits` other connections may have seen (with room for commits
        // made between this look and the copy), a row that tells them to forget every record:
        // the copy replaces the file, its own rows included.
        var newest: Int64 = 0
        for log in [connection, candidate.connection] {
            if case .integer(let sequence)? = try log.prepare("SELECT max(seq) FROM _commits").scalar() { newest = max(newest, sequence) }
        }
        try candidate.connection.prepare("INSERT INTO _commits (seq, journal) VALUES (?, NULL)").run([.integer(newest + SQLiteStore.commitLogLength)])
        // The same for the change feed: numbers past both stores' heads.
        let newestChange = max(try SQLiteStore.changeHead(of: connection), try SQLiteStore.changeHead(of: candidate.connection))
        try SQLiteStore.forgetChangesBefore(newestChange + 1, in: candidate.connection)
        try SQLiteStore.copy(from: candidate.connection, to: connection, describing: path)
        forgetCachedRecords()
        if let problems = try integrityProblems() {
            throw StoreError(.corrupt, "after the restore the store fails its integrity check: \(problems); the old content is at '\(keeping)'")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return keeping
    }

    /// sqlite3_backup of every page in one step, so the copy is one snapshot of the source and
    /// one write transaction on the destination.
    static func copy(from source: Connection, to target: Connection, describing name: String) throws {
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard step == SQLITE_DONE, finish == SQLITE_OK else {
            let code = step == SQLITE_DONE ? finish : step
            throw StoreError(.engineFailure, "copying the store to '\(name)' failed: \(String(cString: sqlite3_errstr(code)))", detail: "SQLite code \(code)")
        }
    }

    /// nil when sound, else SQLite's own account; throws when the file is not a database.
    static func integrity(of connection: Connection) throws -> String? {
        var lines: [String] = []
        try connection.prepare("PRAGMA integrity_check(20)").query { row in lines.append(row.text(0) ?? "") }
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }
}
