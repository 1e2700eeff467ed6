import Foundation
import CometSchema
import CSQLite

/// The embedded store: one SQLite file (WAL, foreign keys, busy timeout), tables derived from
/// the registry, a full-text index, an occurrence index and the undo journal.
/// Not Sendable: use it from one thread, or behind an actor.
public final class SQLiteStore: EntityStore {
    public let registry: Registry
    public let path: String
    let connection: Connection
    let layouts: [QualifiedName: TableLayout]
    let coding: ValueCoding
    /// The range (epoch seconds) in which series instances are materialized.
    private(set) var window: ClosedRange<Int64>
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

    /// Where the store lives when no path is given: `$COMETCAL_DB`, else
    /// `$XDG_DATA_HOME/cometcal/cometcal.sqlite`, else `~/.local/share/cometcal/cometcal.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["COMETCAL_DB"], !path.isEmpty { return path }
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return ((base as NSString).appendingPathComponent("cometcal") as NSString).appendingPathComponent("cometcal.sqlite")
    }

    /// What opening a store may create.
    public enum Creation: Sendable {
        /// The file and its folders (the default location, made on first use).
        case fileAndFolders
        /// The file, in a folder that must exist (a path someone typed: a typo is not a store).
        case fileOnly
        /// Nothing: the store must exist (a read has nothing to read otherwise).
        case nothing
    }

    /// Opens (creating if needed, as `creating` allows) the store at `path` and migrates it to
    /// the registry. `now` fixes the materialization window (tests pass a fixed clock).
    public init(path: String, registry: Registry, now: Date = Date(), creating: Creation = .fileAndFolders) throws {
        self.registry = registry
        self.path = path
        if path != ":memory:" { try SQLiteStore.prepareFile(at: path, creating: creating) }
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
        let nowSeconds = Int64(now.timeIntervalSince1970)
        window = (nowSeconds - 366 * 86_400)...(nowSeconds + 2 * 366 * 86_400)
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

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        var ownLastCommit: Int64?
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

    public func readTransaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try connection.readTransaction {
            try beginTransaction()
            return try body(Session(store: self))
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
    }

    /// Whether a record is in this connection's cache (for the tests of what a commit forgets).
    func hasCachedRecord(_ entity: QualifiedName, id: UUID) -> Bool {
        guard let table = layouts[entity]?.table else { return false }
        let key = RecordKey(table: table, id: id)
        return recentRecords[key] != nil || olderRecords[key] != nil
    }

    func cachedRecord(_ key: RecordKey) -> EntityRecord? {
        if let record = recentRecords[key] { return record }
        guard let record = olderRecords[key] else { return nil }
        if !isWriting { remember(record, as: key) }
        return record
    }

    func cache(_ record: EntityRecord, as key: RecordKey) {
        guard !isWriting else { return }
        remember(record, as: key)
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

    /// Series are materialized in a window from a year before "now" to two years after. The
    /// stored window is kept while it still reaches a year ahead; then it moves and every series
    /// is expanded again.
    private func refreshWindowIfNeeded() throws {
        let stored = try connection.prepare("SELECT value FROM _meta WHERE key = 'window'").scalar()
        let proposed = window
        if case .text(let text)? = stored {
            let bounds = text.split(separator: ":").compactMap { Int64($0) }
            if bounds.count == 2, bounds[0] <= bounds[1], bounds[1] >= proposed.lowerBound + 2 * 366 * 86_400, bounds[0] <= proposed.lowerBound + 366 * 86_400 {
                window = bounds[0]...bounds[1]
                return
            }
        }
        let current = "\(proposed.lowerBound):\(proposed.upperBound)"
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
