import Foundation
import CLibPQ
import CometStore

/// Round trips, not statements, are what a write costs on a server store: each is a wake-up of
/// the server and of this process. Statements that do not wait for each other go in one round
/// trip (libpq's pipeline mode), and writes whose answer nothing reads (`runLater`) wait, in
/// order, for the next statement that is waited for. The server runs them in the order sent,
/// inside the open transaction, so every later statement sees them, exactly as if each had
/// been sent alone; only where a failure is reported moves (to the round trip that carried it,
/// and no caller goes on after a failed statement: the write rolls back).
extension PGConnection {
    /// One statement of a pipeline: its SQL (with `?` placeholders) and values, what reads its
    /// rows, what reads its final result (a row count, a command status), and how to word a
    /// failure of it for the caller (a constraint named in the caller's terms).
    struct PipelinedStatement {
        let sql: String
        var values: [PGValue] = []
        /// False for statements without values sent once (COMMIT, the closing bookkeeping):
        /// they are not prepared.
        var prepared = true
        var rows: ((PGRow) throws -> Void)?
        var finished: ((OpaquePointer) -> Void)?
        var failure: ((StoreError) -> StoreError)?
        /// Planned once for all its runs (`plannedOnce`).
        var planOnce = false

        init(sql: String, values: [PGValue] = [], prepared: Bool = true, planOnce: Bool = false, rows: ((PGRow) throws -> Void)? = nil,
             failure: ((StoreError) -> StoreError)? = nil, finished: ((OpaquePointer) -> Void)? = nil) {
            self.sql = sql
            self.values = values
            self.prepared = prepared
            self.planOnce = planOnce
            self.rows = rows
            self.failure = failure
            self.finished = finished
        }
    }

    /// How many writes may wait before they are sent anyway: a bound on memory, and on what the
    /// server answers before this process reads (a pipeline whose answers filled the socket's
    /// buffer while this process still sent would stall both sides).
    static let pendingWritesMost = 256

    /// A write whose answer nothing reads: sent with the next statement that is waited for (or
    /// the COMMIT). Its failure is thrown there, worded by `failure`.
    func runLater(_ sql: String, _ values: [PGValue] = [], planOnce: Bool = false, failure: ((StoreError) -> StoreError)? = nil) throws {
        pendingWrites.append(PipelinedStatement(sql: sql, values: values, planOnce: planOnce, failure: failure))
        if pendingWrites.count >= PGConnection.pendingWritesMost { try sendAhead(takePendingWrites()) }
    }

    /// Writes that filled `pendingWritesMost`, sent without waiting for their answers: the
    /// answers of the batch sent before are read after this one is sent, so the server is not
    /// left idle between batches while this process waits for the end of one and then makes
    /// the next (an import of 2,000 events: 7% faster on average in four A/B rounds). At most
    /// two batches' answers (a few dozen bytes per write) wait unread, far below what the
    /// socket holds. A batch needing the transaction's opening or a statement
    /// not yet prepared is sent as any pipeline. Everything else the connection does reads
    /// what was sent ahead first (`finishSentAhead`), where a failure in it is thrown.
    private func sendAhead(_ statements: [PipelinedStatement]) throws {
        let batch = plannedOnce(statements)
        guard opening == nil, batch.count > 1, batch.allSatisfy({ !$0.prepared || prepared[$0.sql] != nil }) else {
            return try pipeline(statements)
        }
        if sentAhead == nil {
            while let unread = PQgetResult(handle) { PQclear(unread) }
            guard PQenterPipelineMode(handle) == 1 else { return try pipeline(statements) }
        }
        let earlier = sentAhead
        sentAhead = sendBatch(batch, names: batch.map { $0.prepared ? prepared[$0.sql] : nil })
        batchesSentAhead += 1
        guard let earlier, let failure = readBatch(earlier) else { return }
        try finishSentAhead(after: failure)
    }

    /// Reads the answers of what was sent ahead (`sendAhead`) and leaves pipeline mode; the
    /// first failure among them (or `earlier`'s) is thrown, as a pipeline's is.
    func finishSentAhead(after earlier: Error? = nil) throws {
        guard let batch = sentAhead else { return }
        sentAhead = nil
        let read = readBatch(batch)
        if let failure = leavePipeline(failing: earlier ?? read, sql: batch.statements.first?.sql) {
            throw reported(failure)
        }
    }

    /// A statement without values that is not kept prepared (a utility statement), after the
    /// pending writes, in one round trip.
    func runUnprepared(_ sql: String) throws {
        try pipeline(takePendingWrites() + [PipelinedStatement(sql: sql, prepared: false)])
    }

    func takePendingWrites() -> [PipelinedStatement] {
        defer { pendingWrites.removeAll(keepingCapacity: true) }
        return pendingWrites
    }

    /// Queries that do not depend on each other, in one round trip with the pending writes,
    /// each handing its rows to its body in order: a range query's series and its occurrence
    /// rows go together.
    func queries(_ batch: [PipelinedStatement]) throws {
        try pipeline(takePendingWrites() + batch)
    }

    /// A read's opening (its BEGIN, its time limit, the statement reading the owner's change
    /// head), sent ahead of the read's first statement, in the same round trip: waiting for
    /// BEGIN alone was one of a day agenda's three round trips. `settle` runs once that round
    /// trip is read, before anything else: what the read's first statement did before the read
    /// knew its head is checked there (`PGSession.settle`). `failed` hears a failure of that
    /// round trip (nothing of the read had reached the server before it).
    struct Opening {
        let statements: [PipelinedStatement]
        let settle: () throws -> Void
        let failed: (StoreError) -> Void
    }

    /// Sends the read's opening alone, if it is still to be sent.
    func sendOpening() throws {
        if opening != nil { try pipeline([]) }
    }

    /// Runs `statements` in one round trip, in order, inside the transaction that is open (or
    /// that the read's opening, when it is still to be sent, opens ahead of them). The
    /// first failure is thrown once every answer is read (PostgreSQL skips the statements after
    /// it until the round trip's end, and the transaction is aborted as after any failed
    /// statement). One statement goes alone; when the connection cannot enter pipeline mode
    /// (it is not idle), the statements run one after the other.
    func pipeline(_ statements: [PipelinedStatement]) throws {
        let opening = self.opening
        self.opening = nil
        do {
            try finishSentAhead()
            try runPipeline(plannedOnce((opening?.statements ?? []) + statements))
        } catch let error as StoreError {
            opening?.failed(error)
            throw reported(error)
        }
        try opening?.settle()
    }

    /// A failure as the caller hears it: the transaction's first failure stands for a later
    /// statement's refusal (SQLSTATE 25P02), and is kept (`abortedBy`).
    private func reported(_ error: Error) -> Error {
        guard let error = error as? StoreError else { return error }
        if PGConnection.state(of: error) == "25P02", let abortedBy { return abortedBy }
        if error.code != .unavailable, abortedBy == nil { abortedBy = error }
        return error
    }

    /// A statement PostgreSQL would plan anew at each run goes between two settings that make
    /// it take one plan for all its runs (`plan_cache_mode`, `SET LOCAL`, then back to the
    /// database's default). PostgreSQL plans a prepared statement for its values (a custom
    /// plan) until it judges its generic plan no worse, and some it never does: a create's
    /// occurrence cleanup (`PGOccurrenceIndex.remove`) spent 0.49 ms of each create binding
    /// (`log_min_duration_statement`, the bench's 300 creates) and 0.01 ms running. Nothing
    /// is added where the transaction plans every statement once already (a long write).
    private func plannedOnce(_ statements: [PipelinedStatement]) -> [PipelinedStatement] {
        guard !plansOnce, statements.contains(where: \.planOnce) else { return statements }
        var result: [PipelinedStatement] = []
        result.reserveCapacity(statements.count + 2)
        for statement in statements {
            guard statement.planOnce else {
                result.append(statement)
                continue
            }
            result += [PipelinedStatement(sql: "SET LOCAL plan_cache_mode = force_generic_plan"), statement,
                       PipelinedStatement(sql: "SET LOCAL plan_cache_mode TO DEFAULT")]
        }
        return result
    }

    private func runPipeline(_ statements: [PipelinedStatement]) throws {
        guard !statements.isEmpty else { return }
        if statements.count == 1, let only = statements.first { return try runAlone(only) }
        // Preparing is a round trip of its own, once per statement text and connection.
        let names = try statements.map { $0.prepared ? try statementName($0.sql) : nil }
        // A read's COMMIT is not waited for (`commitReadOnly`); its answer is read, and
        // dropped, here: pipeline mode starts only on an idle connection.
        while let unread = PQgetResult(handle) { PQclear(unread) }
        guard PQenterPipelineMode(handle) == 1 else {
            for statement in statements { try runAlone(statement) }
            return
        }
        let batch = sendBatch(statements, names: names)
        if let failure = leavePipeline(failing: readBatch(batch), sql: statements.first?.sql) { throw failure }
    }

    /// Statements sent in pipeline mode, with the sync that ends them (`sendBatch`).
    struct SentBatch {
        let statements: [PipelinedStatement]
        /// How many were sent before a send failed.
        let sent: Int
        let failure: Error?
    }

    /// Sends `statements` (each under its prepared name, if any) and a sync: one round trip.
    private func sendBatch(_ statements: [PipelinedStatement], names: [String?]) -> SentBatch {
        var failure: Error?
        var sent = 0
        for (statement, name) in zip(statements, names) {
            guard send(statement, name: name) else {
                failure = sendFailure(sql: statement.sql)
                break
            }
            sent += 1
        }
        countRoundTrip()
        if PQpipelineSync(handle) != 1, failure == nil {
            failure = sendFailure(sql: statements.first?.sql)
        }
        return SentBatch(statements: statements, sent: sent, failure: failure)
    }

    /// Reads a batch's answers through its sync, handing rows to their statements; the first
    /// failure, if any. Each statement's results end with a null; the sync's own result comes
    /// last. A connection that broke stops the reading: libpq in pipeline mode may answer
    /// every later call with the same error instead of a null.
    private func readBatch(_ batch: SentBatch) -> Error? {
        var failure = batch.failure
        reading: for statement in batch.statements.prefix(batch.sent) {
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                if failure == nil, PQresultStatus(result) != PGRES_PIPELINE_ABORTED {
                    do {
                        try described(statement) { try check(result, sql: statement.sql) }
                        try read(result, of: statement)
                    } catch {
                        failure = error
                    }
                }
                if PQstatus(handle) != CONNECTION_OK { break reading }
            }
        }
        while PQstatus(handle) == CONNECTION_OK, let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        return failure
    }

    /// Leaves pipeline mode once every answer is read; the failure to throw, if any.
    private func leavePipeline(failing failure: Error?, sql: String?) -> Error? {
        if PQstatus(handle) != CONNECTION_OK {
            // Made again by the next transaction (`reconnectIfLost`), which also leaves the
            // pipeline mode this one could not.
            lost = true
            if (failure as? StoreError)?.code != .unavailable {
                return lostError(state: "08006", message: PGConnection.trimmed(PQerrorMessage(handle)), sql: sql)
            }
        } else if PQexitPipelineMode(handle) != 1 {
            lost = true
            return failure ?? StoreError(.unavailable, "libpq could not leave pipeline mode: \(PGConnection.trimmed(PQerrorMessage(handle))); the connection is made again for the next request",
                                         statement: sql)
        }
        return failure
    }

    /// One statement in a round trip of its own, outside pipeline mode.
    private func runAlone(_ statement: PipelinedStatement) throws {
        let result = try described(statement) { () throws -> OpaquePointer in
            if statement.prepared { return try exec(statement.sql, statement.values) }
            countRoundTrip()
            let result = PQexec(handle, statement.sql)
            do {
                try check(result, sql: statement.sql)
            } catch {
                PQclear(result)
                throw error
            }
            guard let result else { throw StoreError(.engineFailure, "libpq returned no result", statement: statement.sql) }
            return result
        }
        defer { PQclear(result) }
        try read(result, of: statement)
    }

    private func send(_ statement: PipelinedStatement, name: String?) -> Bool {
        guard let name else {
            return PQsendQueryParams(handle, statement.sql, 0, nil, nil, nil, nil, 0) == 1
        }
        let wires = statement.values.map(\.wire)
        var pointers: [UnsafeMutablePointer<CChar>?] = wires.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(1, buffer.count)) { base in
                PQsendQueryPrepared(handle, name, Int32(statement.values.count), statement.values.isEmpty ? nil : base, nil, nil, 0)
            }
        } == 1
    }

    private func read(_ result: OpaquePointer, of statement: PipelinedStatement) throws {
        if let rows = statement.rows {
            for row in 0..<PQntuples(result) { try rows(PGRow(result: result, row: row)) }
        }
        statement.finished?(result)
    }

    /// Runs `body`, wording a failure it throws as the statement asks.
    private func described<T>(_ statement: PipelinedStatement, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw statement.failure?(error) ?? error
        }
    }
}
