import CometStore
import Foundation
import CSQLite

/// A value as SQLite stores it.
enum SQLValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A prepared statement; owned by one connection, finalized in `deinit`.
final class Statement {
    private var handle: OpaquePointer?
    let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        SQLAudit.record(sql)
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, sql: sql)
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

    /// Binds values to `?` parameters in order (1-based in SQLite).
    func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let number): rc = sqlite3_bind_int64(handle, index, number)
            case .real(let number): rc = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                // With its length in bytes: a NUL inside the text is kept (as a C string it would
                // end the text there, and the rest would be lost in silence).
                let length = text.utf8.count
                guard let bytes = Int32(exactly: length) else {
                    throw StoreError(.invalidData, "a text of \(length) bytes is longer than SQLite takes")
                }
                rc = text.withCString { sqlite3_bind_text(handle, index, $0, bytes, cometcal_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
        }
    }

    /// How many times SQLite compiled this statement again since it was prepared.
    var reprepares: Int32 { sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) }

    /// A statement that would write, in a read transaction: refused, as SQLite refuses a write
    /// to a read-only database.
    private func refuseWriteInRead() throws {
        guard connection.readsOnly, sqlite3_stmt_readonly(handle) == 0 else { return }
        throw StoreError(.permissions, "a read transaction tried to write; writes go through a write transaction", detail: "SQLite code \(SQLITE_READONLY)", statement: sql)
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLValue] = []) throws {
        try refuseWriteInRead()
        reset()
        try bind(values)
        let rc = sqlite3_step(handle)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw connection.error(rc, sql: sql) }
        sqlite3_reset(handle)
    }

    /// Runs a query, calling `row` for each result row.
    func query(_ values: [SQLValue] = [], _ row: (Row) throws -> Void) throws {
        try refuseWriteInRead()
        reset()
        try bind(values)
        defer { sqlite3_reset(handle) }
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw connection.error(rc, sql: sql) }
            try row(Row(handle: handle))
        }
    }

    /// The first column of the first row, if any.
    func scalar(_ values: [SQLValue] = []) throws -> SQLValue? {
        var result: SQLValue?
        try query(values) { row in
            if result == nil { result = row[0] }
        }
        return result
    }
}

/// A result row; valid only inside the `query` callback.
struct Row {
    fileprivate let handle: OpaquePointer?

    var count: Int { Int(sqlite3_column_count(handle)) }

    subscript(index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_NULL: return .null
        default:
            guard let text = sqlite3_column_text(handle, column) else { return .null }
            // Read to its length, not to its first NUL.
            return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self))
        }
    }

    func text(_ index: Int) -> String? {
        if case .text(let value) = self[index] { return value }
        return nil
    }

    func integer(_ index: Int) -> Int64? {
        if case .integer(let value) = self[index] { return value }
        return nil
    }
}
