import Foundation
import CSQLite

/// A bare SQLite connection for the reference measurements (and for counting rows in the
/// store): the least work SQLite itself can do, with no layer of ours in between.
final class RawDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw BenchError("cannot open \(path): \(message)")
        }
        handle = db
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    static var version: String { String(cString: sqlite3_libversion()) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw BenchError("SQLite error \(rc): \(text) in: \(sql.prefix(200))")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        try RawStatement(database: self, sql: sql)
    }

    /// The first column of the first row as an integer (0 when there is none).
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement: bind by 1-based index, step, read columns.
final class RawStatement {
    private var handle: OpaquePointer?
    private unowned let database: RawDatabase
    let sql: String

    init(database: RawDatabase, sql: String) throws {
        self.database = database
        self.sql = sql
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw BenchError("cannot prepare (\(rc): \(database.errorMessage)): \(sql.prefix(200))")
        }
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ text: String?) {
        if let text {
            sqlite3_bind_text(handle, index, text, -1, cometcal_sqlite_transient())
        } else {
            sqlite3_bind_null(handle, index)
        }
    }

    func bind(_ index: Int32, _ number: Int64) {
        sqlite3_bind_int64(handle, index, number)
    }

    /// True when a row is ready, false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw BenchError("SQLite error \(rc): \(database.errorMessage) in: \(sql.prefix(200))")
    }

    /// Steps to the end (a statement without rows), then resets.
    func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }
}
