import CometStore
import Foundation
import CSQLite

/// One SQLite connection. It owns its handle and closes it in `deinit`. Not Sendable: a
/// connection is used from one thread at a time; servers put it behind an actor.
final class Connection {
    private(set) var handle: OpaquePointer?
    let path: String
    /// When set (uptime nanoseconds), SQLite stops the statement running past it.
    var deadline: UInt64?
    private var statementCache: [String: Statement] = [:]
    /// Writes refused for the connection's whole life (`query_only`), not only in reads.
    private(set) var refusesWrites = false
    /// What the WAL hook calls after each commit (kept alive here: SQLite holds a raw pointer).
    private var walHook: WALHook?

    final class WALHook {
        let committed: @Sendable (Int) -> Void
        init(_ committed: @escaping @Sendable (Int) -> Void) { self.committed = committed }
    }

    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError(.cannotOpen, "cannot open store '\(path)': \(message)", detail: "SQLite code \(rc)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Every few thousand steps SQLite asks whether to go on: past the deadline it stops.
        sqlite3_progress_handler(db, 20_000, { context in
            guard let context else { return 0 }
            let connection = Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue()
            guard let deadline = connection.deadline else { return 0 }
            return DispatchTime.now().uptimeNanoseconds > deadline ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
        try execute("PRAGMA busy_timeout = 5000")
        try execute("PRAGMA foreign_keys = ON")
        // 16 MiB of page cache (SQLite's default is 2 MB), taken only as pages are read: a
        // 50,000-event store's hot pages stay in memory between reads instead of being read
        // again with a system call each, and a bulk import does not spill to the WAL mid-way.
        try execute("PRAGMA cache_size = -16384")
        if !readOnly, path != ":memory:" {
            try execute("PRAGMA journal_mode = WAL")
            try execute("PRAGMA synchronous = NORMAL")
        }
    }

    /// Replaces SQLite's automatic checkpoint (itself a WAL hook) with `committed`, told after
    /// each commit how many pages the WAL holds.
    func setWALHook(_ committed: @escaping @Sendable (Int) -> Void) {
        let hook = WALHook(committed)
        walHook = hook
        sqlite3_wal_hook(handle, { context, _, _, pages in
            if let context { Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().committed(Int(pages)) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (DDL, pragmas). Never for SQL built from input: use `prepare`.
    func execute(_ sql: String) throws {
        SQLAudit.record(sql)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw error(rc, message, sql: sql)
        }
    }

    /// A prepared statement, cached by SQL text so hot paths prepare once.
    func prepare(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` as a read: a deferred transaction that never takes the write lock (WAL lets
    /// it read beside a writer), with writes refused (`readsOnly`), so a read that tried to
    /// write would fail loudly instead of queueing behind writers.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        readsOnly = true
        defer { readsOnly = false }
        return try run("BEGIN DEFERRED", body)
    }

    /// While true, a statement that would write is refused before it runs (`Statement`). Not
    /// `PRAGMA query_only` per read: setting that flag expires every prepared statement of the
    /// connection, so each read transaction compiled its SQL again (a fifth of the CPU of an
    /// entity.get through the daemon in a perf profile, in sqlite3Reprepare).
    var readsOnly = false

    /// Refuses every write from now on, for good (`query_only`, set once). The connection is
    /// opened to write all the same: a connection opened read-only to a WAL store leaves its
    /// -wal and -shm files behind (it may not checkpoint them away when it closes); one that
    /// writes nothing leaves none.
    func refuseWrites() throws {
        try execute("PRAGMA query_only = ON")
        refusesWrites = true
    }

    private func run<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }
    var changes: Int { Int(sqlite3_changes(handle)) }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func error(_ rc: Int32, _ message: String? = nil, sql: String?) -> StoreError {
        let primary = rc & 0xFF
        let code: StoreError.Code
        switch primary {
        case SQLITE_CONSTRAINT: code = .constraint
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupt
        case SQLITE_CANTOPEN: code = .cannotOpen
        case SQLITE_READONLY, SQLITE_PERM: code = .permissions
        case SQLITE_INTERRUPT where deadline != nil:
            return StoreError(.timedOut, "it took longer than its time limit and was stopped; nothing was changed", detail: "SQLite code \(rc)", statement: sql)
        default: code = .engineFailure
        }
        return StoreError(code, message ?? lastErrorMessage, detail: "SQLite code \(rc)", statement: sql)
    }
}
