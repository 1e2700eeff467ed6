import Foundation
import CLibPQ
import CometStore

/// A value bound to a statement or read from a row. Everything travels in libpq's text format;
/// text is escaped on the way in and out (`TextEscaping`), since PostgreSQL's text cannot hold NUL.
enum PGValue: Hashable, Sendable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)

    /// The value as libpq's text format writes it.
    var wire: String? {
        switch self {
        case .null: return nil
        case .text(let text): return TextEscaping.escape(text)
        case .integer(let number): return String(number)
        case .real(let number): return "\(number)"
        case .bool(let flag): return flag ? "t" : "f"
        }
    }
}

/// PostgreSQL's text type refuses NUL, and the store keeps every character it is given (the
/// conformance suite saves NUL). U+0001 is the escape: NUL is kept as U+0001 "0", U+0001 itself
/// as U+0001 "1"; text holding neither (nearly all) is stored as it is, so it reads naturally in
/// psql and pg_dump, sorts as before, and an equality filter compares escaped with escaped.
enum TextEscaping {
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 <= 1 }) else { return text }
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 4)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0: escaped.unicodeScalars.append("\u{1}"); escaped.unicodeScalars.append("0")
            case 1: escaped.unicodeScalars.append("\u{1}"); escaped.unicodeScalars.append("1")
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(1) else { return text }
        var plain = ""
        var pending = false
        for scalar in text.unicodeScalars {
            if pending {
                plain.unicodeScalars.append(scalar == "0" ? "\u{0}" : "\u{1}")
                pending = false
            } else if scalar.value == 1 {
                pending = true
            } else {
                plain.unicodeScalars.append(scalar)
            }
        }
        return plain
    }
}

/// One row of a result, read by column number.
struct PGRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int) -> Bool { PQgetisnull(result, row, Int32(column)) == 1 }

    /// The column as text (unescaped), nil when NULL. Built from its length, not a C string.
    func text(_ column: Int) -> String? {
        guard !isNull(column), let bytes = PQgetvalue(result, row, Int32(column)) else { return nil }
        let length = Int(PQgetlength(result, row, Int32(column)))
        let text = bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        return TextEscaping.unescape(text)
    }

    func integer(_ column: Int) -> Int64? { text(column).flatMap { Int64($0) } }
    func real(_ column: Int) -> Double? { text(column).flatMap { Double($0) } }
    func bool(_ column: Int) -> Bool? { text(column).map { $0 == "t" } }
}

/// One libpq connection: statements prepared once per connection (by their text) and run with
/// bound values, errors turned into `StoreError`s with PostgreSQL's message and SQLSTATE.
/// Not Sendable: one thread at a time, like the store over it.
final class PGConnection {
    let handle: OpaquePointer
    /// Prepared statements by their SQL (with `?` placeholders, numbered here); forgotten when
    /// the connection is made again (`reconnectIfLost`).
    var prepared: [String: String] = [:]
    /// The database as messages show it (the address without its password).
    let address: String
    /// Set when a statement found the connection gone (`isConnectionLoss`): the next
    /// transaction connects again before anything else.
    var lost = false
    /// What `setUpSession` ran, run again on every new connection.
    var sessionSetup: [String] = []
    /// How many times the connection was made again after a loss.
    var reconnections = 0
    /// Writes whose answers nothing waits for (`runLater`), sent with the next statement that
    /// is waited for, in one round trip.
    var pendingWrites: [PipelinedStatement] = []
    /// A read's opening, not sent yet: it goes ahead of the read's first statement
    /// (`PGConnection.Opening`).
    var opening: Opening?
    /// Writes sent without waiting for their answers (`sendAhead`), read before anything else.
    var sentAhead: SentBatch?
    /// How many batches went that way.
    var batchesSentAhead = 0
    /// The failure that aborted the open transaction: a later statement's refusal (SQLSTATE
    /// 25P02, "current transaction is aborted") is reported as it, since a write's failure may
    /// surface with a later statement (`runLater`), inside a caller that let a read fail.
    var abortedBy: StoreError?
    /// Whether the open transaction plans every statement once (`PGSession.longWriteSettings`).
    var plansOnce = false
    /// Round trips to the server so far (each waits for the server's answer): what a write
    /// costs here, counted by the tests that hold it down.
    private(set) var roundTrips = 0
    func countRoundTrip() { roundTrips += 1 }

    /// Connects with a libpq connection string or URI, waiting at most `connectSeconds` for the
    /// server unless the address says otherwise. A refusal names where it tried.
    init(conninfo: String, describing address: String) throws {
        self.address = address
        guard let connection = PGConnection.connect(conninfo) else {
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL at \(address): libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = PGConnection.trimmed(PQerrorMessage(connection))
            let host = PQhost(connection).map { String(cString: $0) } ?? "the default socket"
            let port = PQport(connection).map { String(cString: $0) } ?? ""
            PQfinish(connection)
            throw StoreError(.cannotOpen, "cannot connect to PostgreSQL at \(address) (host \(host), port \(port)): \(message); "
                             + "check that the server runs and that the address names its host or socket folder, port, database and user",
                             detail: message)
        }
        handle = connection
        // libpq prints the server's notices on standard error by default ("policy … does not
        // exist, skipping" from a migration's DROP POLICY IF EXISTS, "there is no transaction in
        // progress" from a ROLLBACK after a failed COMMIT): chatter, never a result, and the
        // command line's standard error is the user's. Failures come back as errors.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        OwnBackends.shared.note(self)
    }

    deinit {
        OwnBackends.shared.forget(self)
        PQfinish(handle)
    }

    static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
    }

    /// The role this connection logged in as.
    var user: String { PQuser(handle).map { String(cString: $0) } ?? "" }

    /// Runs statements without values (DDL, BEGIN, COMMIT): several may be given at once.
    func execute(_ sql: String) throws {
        try finishSentAhead()
        countRoundTrip()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs statements without values in one round trip; the last one's first row, each column
    /// as text, if any (a transaction's BEGIN and its first query go together).
    func executeReturningRow(_ sql: String) throws -> [String?]? {
        try finishSentAhead()
        countRoundTrip()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
        guard let result, PQntuples(result) > 0 else { return nil }
        let row = PGRow(result: result, row: 0)
        return (0..<Int(PQnfields(result))).map { row.text($0) }
    }

    /// A text as an SQL literal, quoted and escaped by libpq for this connection.
    func literal(_ text: String) throws -> String {
        guard let escaped = PQescapeLiteral(handle, text, text.utf8.count) else {
            throw StoreError(.invalidData, "libpq cannot quote '\(text.prefix(40))': \(PGConnection.trimmed(PQerrorMessage(handle)))")
        }
        defer { PQfreemem(escaped) }
        return String(cString: escaped)
    }

    /// Ends a read-only transaction without waiting for the answer: PostgreSQL ends the snapshot
    /// when the COMMIT arrives, and libpq reads the answer, and drops it, before the next
    /// statement (a read-only transaction's COMMIT has nothing to report). Saves a round trip
    /// per read.
    func commitReadOnly() throws {
        try finishSentAhead()
        abortedBy = nil
        guard PQsendQuery(handle, "COMMIT") == 1 else { return try endReadOnlyUnsent() }
    }

    /// Commits, after the writes still pending and `statements`, all in one round trip.
    /// PostgreSQL answers COMMIT of a transaction a failed statement aborted with a ROLLBACK,
    /// not an error: that is turned into one, so a write that did not land never looks as if it
    /// had. A connection lost on the way leaves the outcome
    /// unknown (`commitOutcomeUnknown`).
    func commit(after statements: [PipelinedStatement] = []) throws {
        defer {
            abortedBy = nil
            plansOnce = false
        }
        var rolledBack = false
        let commit = PipelinedStatement(sql: "COMMIT", prepared: false, finished: { result in
            rolledBack = PQcmdStatus(result).map { String(cString: $0) } == "ROLLBACK"
        })
        do {
            try pipeline(takePendingWrites() + statements + [commit])
        } catch let error as StoreError where error.code == .unavailable {
            throw commitOutcomeUnknown(error)
        } catch let error as StoreError {
            throw PGConnection.rolledBack(by: error)
        }
        if rolledBack {
            if let abortedBy { throw PGConnection.rolledBack(by: abortedBy) }
            throw StoreError(.engineFailure, "the transaction was rolled back, not committed: a statement in it had failed (nothing of it was kept)",
                             detail: "SQLSTATE 25P02: current transaction is aborted", statement: "COMMIT")
        }
    }

    /// A failure of a write's last round trip (its pending writes, or the COMMIT), saying that
    /// the write is rolled back.
    static func rolledBack(by failure: StoreError) -> StoreError {
        StoreError(failure.code, failure.message + " (the write was rolled back: nothing of it was kept)", detail: failure.detail, statement: failure.statement)
    }

    /// Ends a write that failed: the pending writes are dropped (they belonged to it), and the
    /// transaction rolled back, if the connection still holds it.
    func rollback() {
        dropPendingWrites()
        try? execute("ROLLBACK")
    }

    /// Ends a failed write that runs again at once: its ROLLBACK is sent and not waited for
    /// (its answer is read, and dropped, before the next statement, as a read's COMMIT is), so
    /// it costs the write no round trip of its own.
    func rollbackUnanswered() {
        dropPendingWrites()
        if PQsendQuery(handle, "ROLLBACK") != 1 { try? execute("ROLLBACK") }
    }

    /// Forgets what a transaction that failed had not sent: its pending writes, and its opening.
    func dropPendingWrites() {
        try? finishSentAhead()
        pendingWrites.removeAll()
        opening = nil
        abortedBy = nil
        plansOnce = false
    }

    /// Runs a statement with values; `?` marks each, in order. Returns the rows' count changed.
    @discardableResult
    func run(_ sql: String, _ values: [PGValue] = []) throws -> Int {
        var changed = 0
        try pipeline(takePendingWrites() + [PipelinedStatement(sql: sql, values: values, finished: { result in
            changed = Int(String(cString: PQcmdTuples(result))) ?? 0
        })])
        return changed
    }

    /// Runs a query and hands each row to `body`.
    func query(_ sql: String, _ values: [PGValue] = [], _ body: (PGRow) throws -> Void) throws {
        // The statement lives only as long as this call: the pipeline is read to its end here.
        try withoutActuallyEscaping(body) { body in
            try pipeline(takePendingWrites() + [PipelinedStatement(sql: sql, values: values, rows: body)])
        }
    }

    /// The first column of the first row, as text; nil when there is no row or it is NULL.
    func scalar(_ sql: String, _ values: [PGValue] = []) throws -> String? {
        var found: String?
        var first = true
        try query(sql, values) { row in
            if first { found = row.text(0) }
            first = false
        }
        return found
    }

    func scalarInteger(_ sql: String, _ values: [PGValue] = []) throws -> Int64? {
        try scalar(sql, values).flatMap { Int64($0) }
    }

    func exec(_ sql: String, _ values: [PGValue]) throws -> OpaquePointer {
        try finishSentAhead()
        let name = try statementName(sql)
        let wires = values.map(\.wire)
        var pointers: [UnsafeMutablePointer<CChar>?] = wires.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in pointers { free(pointer) } }
        countRoundTrip()
        let result = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(1, buffer.count)) { base in
                PQexecPrepared(handle, name, Int32(values.count), values.isEmpty ? nil : base, nil, nil, 0)
            }
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw StoreError(.engineFailure, "libpq returned no result", statement: sql) }
        return result
    }

    /// The name of the statement prepared for `sql` on this connection, preparing it the first time.
    func statementName(_ sql: String) throws -> String {
        if let name = prepared[sql] { return name }
        try finishSentAhead()
        let name = "cometcal_\(prepared.count + 1)"
        countRoundTrip()
        let result = PQprepare(handle, name, PGConnection.numbered(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// `?` placeholders as PostgreSQL's `$1, $2, …`, outside quoted names and literals.
    static func numbered(_ sql: String) -> String {
        var text = ""
        var number = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                text.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                text.append(character)
            } else if character == "?" {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        return text
    }

    func check(_ result: OpaquePointer?, sql: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK else { return }
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? PGConnection.noState
        let message = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
            ?? PGConnection.trimmed(PQerrorMessage(handle))
        if PGConnection.isConnectionLoss(state: state, status: PQstatus(handle)) {
            lost = true
            throw lostError(state: state, message: message, sql: sql)
        }
        throw PGConnection.error(state: state, message: message, sql: sql)
    }

    /// libpq refused to send: the connection is lost (then marked so, to be made again by the
    /// next transaction), or libpq says why it refused.
    func sendFailure(sql: String?) -> StoreError {
        let message = PGConnection.trimmed(PQerrorMessage(handle))
        guard PQstatus(handle) == CONNECTION_OK else {
            lost = true
            return lostError(state: "08006", message: message, sql: sql)
        }
        return PGConnection.error(state: PGConnection.noState, message: message, sql: sql)
    }

    /// The neutral error for a PostgreSQL failure: its code from the SQLSTATE's class, the
    /// message and the SQLSTATE in `detail`.
    static func error(state: String, message: String, sql: String?) -> StoreError {
        let detail = "SQLSTATE \(state): \(message)"
        if state == "25P02" {
            // A failure the caller went on after (`try?`): PostgreSQL refuses every later
            // statement of the transaction, and the write cannot commit.
            return StoreError(.engineFailure, "a statement earlier in this write failed and the write went on; PostgreSQL refuses the rest of it, so it is rolled back (nothing of it was kept)",
                              detail: detail, statement: sql)
        }
        let code: StoreError.Code
        switch state {
        case "40001", "40P01", "55P03": code = .busy
        case "57014": code = .timedOut
        case "42501": code = .permissions
        case _ where state.hasPrefix("23"): code = .constraint
        case _ where state.hasPrefix("22"): code = .invalidData
        case _ where state.hasPrefix("XX"): code = .corrupt
        default: code = .engineFailure
        }
        return StoreError(code, "PostgreSQL refused a statement: \(message)", detail: detail, statement: sql)
    }

    /// What stands for the SQLSTATE of a failure that has none (libpq's own).
    static let noState = "?????"

    /// The SQLSTATE of an error from this connection, read back from its detail.
    static func state(of error: StoreError) -> String? {
        guard let detail = error.detail, detail.hasPrefix("SQLSTATE ") else { return nil }
        return String(detail.dropFirst(9).prefix(5))
    }
}

/// The server processes (backend PIDs) serving this process's connections now: PostgreSQL
/// names the sender of each notification by its backend, so a watcher can tell this process's
/// own commits (`PGWatcher.hearOnlyOtherProcesses`). A connection made again gets a new one.
final class OwnBackends: @unchecked Sendable {
    static let shared = OwnBackends()
    private let lock = NSLock()
    private var pids: [ObjectIdentifier: Int32] = [:]

    func note(_ connection: PGConnection) {
        let pid = PQbackendPID(connection.handle)
        lock.withLock { pids[ObjectIdentifier(connection)] = pid }
    }

    func forget(_ connection: PGConnection) {
        _ = lock.withLock { pids.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    func contains(_ pid: Int32) -> Bool {
        lock.withLock { pids.values.contains(pid) }
    }
}
