import CometStore
import Foundation
import CometSchema
import CSQLite

/// The embedded store: one SQLite file (WAL, foreign keys, busy timeout), tables derived from
/// the registry, a full-text index, an occurrence index and the undo journal.
/// Not Sendable: use it from one thread, or behind an actor.
public final class SQLiteStore: OpenedStore {
    public let registry: Registry
    public let path: String
    let connection: Connection
    let layouts: [QualifiedName: TableLayout]
    let coding: ValueCoding
    /// The range in which series instances are materialized.
    private(set) var window: OccurrenceWindow
    var maximumDurations: [String: Int64] = [:]
    /// Records decoded by earlier reads, kept between transactions. Decoding a record is most
    /// of an agenda's time (a profile: 95%), and a daemon or a conversation asks for the same
    /// days again and again. See `beginTransaction` for how it stays true.
    ///
    /// Two generations, an approximate LRU that costs nothing per hit: new records go into
    /// `recentRecords`; when it holds half the limit it becomes `olderRecords` (the previous
    /// older ones are dropped), and a hit in the older generation moves the record back. A
    /// query over more records than the limit still keeps the most recent half, where a cache
    /// emptied when full dropped the records the query had just read.
    private var recentRecords: [RecordKey: EntityRecord] = [:]
    private var olderRecords: [RecordKey: EntityRecord] = [:]
    private var cachedDataVersion: Int64?
    /// What the open write transaction changed, for `_commits` (CommitLog.swift).
    var commitLog = CommitLog()
    /// The last row of `_commits` this connection has taken into account; nil before the first.
    var lastSeenCommit: Int64?
    /// Whether the open transaction may write: records it reads may be its own uncommitted
    /// changes, so they are not cached.
    private(set) var isWriting = false
    /// Series expanded outside the window, kept like the records they come from: a record's
    /// entry goes when the record is forgotten, all go when another connection commits.
    let expansions = SeriesExpansions()
    /// Records read by the open write transaction, kept once it commits (`cache`). Before, a
    /// write's reads were never kept: the daemon's writer decoded every record an overlap check
    /// read, again for each create (a quarter of the daemon's CPU on the bench's mixed load).
    /// At most as many as one generation of the cache holds (`readWhileWritingLimit`): a write
    /// that reads a whole calendar (an import reads each record it replaces) would otherwise
    /// keep all of them in memory until it commits, for a cache that keeps that many at most.
    private var readWhileWriting: [RecordKey: EntityRecord] = [:]
    var readWhileWritingLimit = SQLiteStore.recordCacheLimit / 2
    var recordsReadWhileWriting: Int { readWhileWriting.count }
    /// Records kept at most (two generations of half as many). A decoded event is about 3.7 KB
    /// (32,768 of them and the page cache took 120 MiB): 8,192 hold the busiest month of a 50,000-event calendar
    /// (3,376 records) in about 30 MiB per connection.
    public static let recordCacheLimit = 8_192

    /// The SQLite library the store runs on, for `--version`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    struct RecordKey: Hashable {
        let table: String
        let id: UUID
    }

    /// What opening a store may create (the neutral `StoreCreation`).
    public typealias Creation = StoreCreation

    /// Opens SQLite stores for the composition roots: a file, or `:memory:`.
    public static let opener = StoreOpener(engineDescription: "SQLite \(libraryVersion)", maintainer: { location in
        // Checkpoints need a file: a store in memory has no WAL.
        try location.filePath.map { try WALCheckpointer(path: $0) }
    }) { location, registry, now, creating, access in
        switch location {
        case .file(let path):
            return try SQLiteStore(path: path, registry: registry, now: now, creating: creating, access: access)
        case .memory:
            return try SQLiteStore(path: ":memory:", registry: registry, now: now, creating: creating, access: access)
        case .postgres:
            throw location.unsupported ?? StoreError(.unsupportedLocation, "'\(location)' is not a SQLite store")
        }
    }

    public var location: StoreLocation { path == ":memory:" ? .memory : .file(path) }

    /// Opens (creating if needed, as `creating` allows) the store at `path` and migrates it to
    /// the registry. `now` fixes the materialization window (tests pass a fixed clock).
    /// With `.readOnlyNoMigration`, nothing is created, migrated or moved: the connection
    /// refuses every write for its life (`Connection.refuseWrites`), a store that would need a
    /// migration is refused (`needsMigration`), and the window is the one stored.
    public init(path: String, registry: Registry, now: Date = Date(), creating: Creation = .fileAndFolders, access: StoreAccess = .readWrite) throws {
        self.registry = registry
        self.path = path
        let readOnly = access == .readOnlyNoMigration
        if path != ":memory:" { try SQLiteStore.prepareFile(at: path, creating: readOnly ? .nothing : creating) }
        do {
            connection = try Connection(path: path)
        } catch {
            // Only now, when SQLite could not use it, are the file's first bytes read to say what
            // it is: a descriptor of our own closed while another connection of this process has
            // the store open drops that connection's POSIX locks, and then another process
            // finishing with the store deletes the write-ahead log still in use here.
            if path != ":memory:" { try SQLiteStore.refuseIfNotDatabase(path) }
            throw error
        }
        coding = ValueCoding(registry: registry)
        var layouts: [QualifiedName: TableLayout] = [:]
        for entity in registry.allEntities where entity.kind == .indexed {
            layouts[entity.name] = TableLayout(entity: entity, registry: registry)
        }
        self.layouts = layouts
        window = OccurrenceWindow(now: now)
        let ordered = layouts.values.sorted { $0.table < $1.table }
        var migrator = Migrator(connection: connection, layouts: ordered, coding: coding)
        let (connection, coding, window) = (self.connection, self.coding, self.window)
        migrator.rebuildOccurrences = { layout in
            let index = OccurrenceIndex(connection: connection, layout: layout, window: window)
            let reader = RecordReader(layout: layout, coding: coding)
            // One record at a time: reading the entity table while writing its occurrence table.
            try connection.prepare("SELECT \(layout.selectList) FROM \(quote(layout.table))").query { row in
                try index.update(try reader.record(from: row), isNew: true)
            }
        }
        if readOnly {
            try connection.refuseWrites()
            guard try migrator.isCurrent() else {
                throw StoreError(.needsMigration, "the store at '\(path)' needs a migration to these schemas, and it was opened to read only")
            }
            try readStoredWindow()
            return
        }
        if try !migrator.isCurrent() { try migrator.migrate() }
        try refreshWindowIfNeeded()
    }

    /// The store holds personal data: its directory is private to the owner (0700) and the file
    /// readable and writable by the owner only (0600). SQLite gives -wal/-shm the file's mode.
    /// A file that is not empty and does not start as every SQLite database does is not a store:
    /// said plainly (SQLite would say "file is not a database"), with what it seems to be.
    private static func refuseIfNotDatabase(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }  // unreadable: opening says why
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        guard !head.isEmpty, head != Data("SQLite format 3\u{0}".utf8) else { return }
        let calendar = String(decoding: head, as: UTF8.self).uppercased().hasPrefix("BEGIN:VCALENDAR")
        throw StoreError(.cannotOpen, "'\(path)' is not a CometCal store" + (calendar
            ? ": it is an iCalendar file; to read its events into your store, use cometcal import \(path)"
            : " (nor any SQLite database); give the path of a store, or a new file name to start one"))
    }

    private static func prepareFile(at path: String, creating: Creation) throws {
        let manager = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isFolder) {
            guard !isFolder.boolValue else {
                throw StoreError(.cannotOpen, "'\(path)' is a folder, not a store; give the path of a store file in it")
            }
        } else if creating == .nothing {
            throw StoreError(.notFound, "there is no store at '\(path)' yet, and reading creates none; check the path, or add a calendar or an event to start one")
        } else if creating == .fileOnly, !directory.isEmpty, !manager.fileExists(atPath: directory) {
            throw StoreError(.cannotOpen, "the folder '\(directory)' does not exist, so '\(path)' cannot be a store (nothing was created); check the path, or create the folder first")
        }
        if !directory.isEmpty, !manager.fileExists(atPath: directory) {
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(.cannotOpen, "cannot create the store's directory '\(directory)': \(error.localizedDescription)")
            }
        }
        if !manager.fileExists(atPath: path) {
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StoreError(.cannotOpen, "cannot create the store '\(path)'; check that the directory is writable")
            }
        }
    }

    public func transaction<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        guard !connection.refusesWrites else {
            throw StoreError(.permissions, "the store at '\(path)' was opened to read only; nothing was changed")
        }
        var ownLastCommit: Int64?
        var committed = false
        defer { keepReadWhileWriting(committed: committed) }
        let result = try connection.transaction {
            try beginTransaction()
            isWriting = true
            defer {
                isWriting = false
                pendingSearchChanges.removeAll()
                commitLog.reset()
            }
            let result = try body(Session(store: self))
            try flushSearchChanges()
            ownLastCommit = try logCommit()
            return result
        }
        committed = true
        // Committed: this connection's own rows of _commits are not read back.
        if let ownLastCommit { lastSeenCommit = ownLastCommit }
        return result
    }

    /// A change to a full-text index, waiting for the end of the transaction (or for a search
    /// in it, or for the queue to fill).
    enum SearchChange {
        case insert(entity: QualifiedName, rowid: Int64, texts: [SQLValue])
        case remove(entity: QualifiedName, rowid: Int64)
    }

    /// Why they wait: FTS5 writes its pending terms to disk at every statement savepoint, and
    /// each record's INSERT (foreign keys, several indexes) opens one, so an index written
    /// record by record was flushed record by record, into thousands of tiny segments to merge
    /// (the flushes alone: 5.8% of an import's instructions). Written together, they are flushed
    /// once. The queue is bounded, so a large import holds a few thousand texts at most.
    private var pendingSearchChanges: [SearchChange] = []
    public static let searchQueueLimit = 4_096

    func queueSearchChange(_ change: SearchChange) throws {
        pendingSearchChanges.append(change)
        if pendingSearchChanges.count >= SQLiteStore.searchQueueLimit { try flushSearchChanges() }
    }

    /// Writes the waiting changes in the order they were made.
    func flushSearchChanges() throws {
        guard !pendingSearchChanges.isEmpty else { return }
        let changes = pendingSearchChanges
        pendingSearchChanges.removeAll(keepingCapacity: true)
        for change in changes {
            switch change {
            case .insert(let entity, let rowid, let texts):
                try SearchIndex(connection: connection, layout: try layout(entity), coding: coding).insert(rowid: rowid, texts: texts)
            case .remove(let entity, let rowid):
                try SearchIndex(connection: connection, layout: try layout(entity), coding: coding).remove(rowid: rowid)
            }
        }
    }

    /// SQLite's `PRAGMA integrity_check`: nil when the file is sound, else what is wrong
    /// (its first lines). Reads only.
    public func integrityProblems() throws -> String? {
        var lines: [String] = []
        try connection.readTransaction {
            try connection.prepare("PRAGMA integrity_check(20)").query { row in lines.append(row.text(0) ?? "") }
        }
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }

    /// The body gets a `ReadingHalf`: its static type has no writes, and it is no `StoreWriter`
    /// to cast to either. The connection also refuses writes for the read (`query_only`), a
    /// second line should a write reach SQLite some other way.
    public func readTransaction<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try connection.readTransaction {
            try beginTransaction()
            return try body(ReadingHalf(Session(store: self)))
        }
    }

    /// A number that changes whenever another connection (another process) commits: a
    /// watcher's cue to read again. This connection's own commits leave it as it is.
    public func othersVersion() throws -> Int64 {
        guard case .integer(let version)? = try connection.prepare("PRAGMA data_version").scalar() else { return 0 }
        return version
    }

    /// Forgets what other connections changed. `PRAGMA data_version` changes when any other
    /// connection (another process, the daemon's other engines) has committed since this
    /// connection last looked; it is read after a first read has fixed the transaction's
    /// snapshot, so it describes exactly what this transaction sees. What they changed is then
    /// read from `_commits` and the journal (`forgetOthersChanges`). This connection's own
    /// writes drop their records from the cache as they are saved (`forget`), and records read
    /// while writing are never cached, so a rolled-back transaction leaves nothing behind.
    private func beginTransaction() throws {
        _ = try connection.prepare("SELECT 1 FROM _meta LIMIT 1").scalar()
        guard case .integer(let version)? = try connection.prepare("PRAGMA data_version").scalar() else { return }
        if version != cachedDataVersion {
            cachedDataVersion = version
            try forgetOthersChanges()
        }
    }

    /// Drops every cached record (after the whole content was replaced under this connection).
    func forgetCachedRecords() {
        recentRecords.removeAll(keepingCapacity: true)
        olderRecords.removeAll(keepingCapacity: true)
        maximumDurations.removeAll()
        readWhileWriting.removeAll(keepingCapacity: true)
        expansions.forgetAll()
    }

    /// Whether a record is in this connection's cache (for the tests of what a commit forgets).
    func hasCachedRecord(_ entity: QualifiedName, id: UUID) -> Bool {
        guard let table = layouts[entity]?.table else { return false }
        let key = RecordKey(table: table, id: id)
        return recentRecords[key] != nil || olderRecords[key] != nil
    }

    func cachedRecord(_ key: RecordKey) -> EntityRecord? {
        if let record = recentRecords[key] { return record }
        if isWriting, let record = readWhileWriting[key] { return record }
        guard let record = olderRecords[key] else { return nil }
        if !isWriting { remember(record, as: key) }
        return record
    }

    /// Keeps a record just read. A record read while writing may be this transaction's own
    /// change, which a rollback takes back: it waits in `readWhileWriting` until the commit.
    func cache(_ record: EntityRecord, as key: RecordKey) {
        if isWriting {
            if readWhileWriting.count < readWhileWritingLimit || readWhileWriting[key] != nil { readWhileWriting[key] = record }
        } else {
            remember(record, as: key)
        }
    }

    /// After a commit, what the transaction read is what the store holds (a record it changed
    /// after reading was forgotten at the change): kept like any other read.
    private func keepReadWhileWriting(committed: Bool) {
        if committed {
            for (key, record) in readWhileWriting { remember(record, as: key) }
        }
        readWhileWriting.removeAll(keepingCapacity: true)
    }

    private func remember(_ record: EntityRecord, as key: RecordKey) {
        if recentRecords.count >= SQLiteStore.recordCacheLimit / 2 {
            olderRecords = recentRecords
            recentRecords = [:]
            recentRecords.reserveCapacity(SQLiteStore.recordCacheLimit / 2)
        }
        recentRecords[key] = record
    }

    func forget(_ key: RecordKey) {
        recentRecords[key] = nil
        olderRecords[key] = nil
        readWhileWriting[key] = nil
        expansions.forget(key.id)
    }

    func layout(_ entity: QualifiedName) throws -> TableLayout {
        guard let layout = layouts[entity] else {
            throw StoreError(.notFound, "'\(entity)' is not an indexed entity; only indexed entities are stored")
        }
        return layout
    }

    func occurrenceIndex(_ layout: TableLayout) -> OccurrenceIndex {
        OccurrenceIndex(connection: connection, layout: layout, window: window)
    }

    func maximumDuration(_ layout: TableLayout) throws -> Int64 {
        if let cached = maximumDurations[layout.table] { return cached }
        guard let table = layout.occurrenceTable else { return 0 }
        var value: Int64 = 0
        if case .integer(let found)? = try connection.prepare("SELECT max(end_key - start_key) FROM \(quote(table))").scalar() { value = found }
        maximumDurations[layout.table] = value
        return value
    }

    func noteDuration(_ seconds: Int64, of layout: TableLayout) {
        if let current = maximumDurations[layout.table], current >= seconds { return }
        maximumDurations[layout.table] = max(seconds, maximumDurations[layout.table] ?? 0)
    }

    /// Takes the window stored, as it is (a read-only store moves nothing): the instances
    /// materialized are those in it, whatever the date.
    private func readStoredWindow() throws {
        if case .text(let text)? = try connection.prepare("SELECT value FROM _meta WHERE key = 'window'").scalar(), let stored = OccurrenceWindow(text) {
            window = stored
        }
    }

    /// Keeps the stored window while `OccurrenceWindow.keeps` it; else moves it to the proposed
    /// one and expands every series again.
    private func refreshWindowIfNeeded() throws {
        let stored = try connection.prepare("SELECT value FROM _meta WHERE key = 'window'").scalar()
        let proposed = window
        if case .text(let text)? = stored, let kept = OccurrenceWindow(text), proposed.keeps(kept) {
            window = kept
            return
        }
        let current = proposed.description
        try connection.transaction {
            for layout in layouts.values where layout.occurrenceTable != nil {
                guard let table = layout.occurrenceTable else { continue }
                var ids: [String] = []
                try connection.prepare("SELECT entity_id FROM \(quote(table + "_series"))").query { row in
                    if let id = row.text(0) { ids.append(id) }
                }
                let session = Session(store: self)
                for text in ids {
                    guard let id = UUID(parsing: text), let record = try session.fetch(layout.entity.name, id: id) else { continue }
                    try occurrenceIndex(layout).update(record)
                }
            }
            try connection.prepare("INSERT OR REPLACE INTO _meta (key, value) VALUES ('window', ?)").run([.text(current)])
        }
    }
}

extension SQLiteStore {
    /// Runs `body` with a time limit: SQLite stops what runs past it, the transaction rolls
    /// back, and the error is `timedOut`.
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        connection.deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        defer { connection.deadline = nil }
        return try body()
    }
}
