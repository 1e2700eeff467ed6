import Foundation
import CLibPQ
import CometStore

/// The connection's life across a server restart (docs/postgresql.md, "Failure behaviour"): a
/// statement that finds the server gone marks the connection lost and fails as `unavailable`;
/// the next transaction connects again (`reconnectIfLost`), once, and runs the session's setup
/// again. Nothing here runs a statement a second time after it may have reached the server.
extension PGConnection {
    /// How long a connection attempt waits for the server, unless the address's own
    /// `connect_timeout` says otherwise: a request during an outage is answered within it, and
    /// the daemon's writer is not held longer (libpq's least is 2 seconds).
    static let connectSeconds = 3

    /// A new libpq connection (nil only when libpq cannot allocate one), bounded by
    /// `connectSeconds`: the address is expanded after it, so its own `connect_timeout` wins.
    static func connect(_ conninfo: String) -> OpaquePointer? {
        let keywords: [UnsafeMutablePointer<CChar>?] = ["connect_timeout", "dbname"].map { (text: String) in strdup(text) }
        let values: [UnsafeMutablePointer<CChar>?] = [String(connectSeconds), conninfo].map { (text: String) in strdup(text) }
        defer { for pointer in keywords + values { free(pointer) } }
        let keywordList: [UnsafePointer<CChar>?] = keywords.map { $0.map { UnsafePointer($0) } } + [nil]
        let valueList: [UnsafePointer<CChar>?] = values.map { $0.map { UnsafePointer($0) } } + [nil]
        return PQconnectdbParams(keywordList, valueList, 1)
    }

    /// Whether a failure means the server is gone rather than that it refused a statement:
    /// libpq found the connection broken; or the failure has no SQLSTATE, so libpq made it, not
    /// the server (a statement sent on a socket the server had closed fails so, "server closed
    /// the connection unexpectedly", while libpq still calls the connection fine; libpq's
    /// other errors of its own are about COPY, which the store does not use, or a pipeline
    /// misused, which `pipeline` does not do); or the server said so
    /// (class 08, connection exceptions; 57P01 admin shutdown, 57P02 crash shutdown, 57P03
    /// cannot connect now).
    static func isConnectionLoss(state: String, status: ConnStatusType) -> Bool {
        status != CONNECTION_OK || state == PGConnection.noState || state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// The error of a statement that found the server gone. The transaction it belonged to
    /// never reached its COMMIT, so the server rolled it back.
    func lostError(state: String, message: String, sql: String?) -> StoreError {
        StoreError(.unavailable, "the connection to the database at \(address) was lost (\(message)): is the server running? "
                   + "The request was not carried out, and nothing was changed; try again",
                   detail: "SQLSTATE \(state): \(message)", statement: sql)
    }

    /// The error of a COMMIT whose answer never came: the server may have committed before it
    /// went away, or not. The write is not run again (that could apply it twice).
    func commitOutcomeUnknown(_ lost: StoreError) -> StoreError {
        var error = StoreError(.unavailable, "the database at \(address) went away during the commit: the change may or may not have been kept "
                               + "(it was not tried again); see `cometcal history` before trying again", detail: lost.detail, statement: lost.statement)
        error.mayHaveCommitted = true
        return error
    }

    /// A read-only transaction's COMMIT that could not be sent: on a lost connection the read
    /// still stands (it saw one snapshot, and changed nothing), and the connection is made
    /// again by the next transaction; else the COMMIT is sent the ordinary way.
    func endReadOnlyUnsent() throws {
        guard PQstatus(handle) == CONNECTION_OK else {
            lost = true
            return
        }
        try commit()
    }

    /// Runs a statement that sets up the session (the owner, the time zone, read only), and
    /// remembers it for every later connection.
    func setUpSession(_ sql: String) throws {
        try execute(sql)
        sessionSetup.append(sql)
    }

    /// Whether the server closed the connection while it was idle (a restart does), asked of
    /// the socket without waiting: a write whose first round trip carries its COMMIT would
    /// otherwise find out only there, with its outcome unknown, where a write's opening alone
    /// could be sent again.
    private func closedByServer() -> Bool {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | PGConnection.peerClosed, revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return false }
        return descriptor.revents & (PGConnection.peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// POLLRDHUP (Linux): the other end closed its side.
    private static let peerClosed: Int16 = 0x2000

    /// Connects again when the connection was lost (or libpq says it is broken), with the same
    /// address: one attempt, bounded by `connectSeconds`. The prepared statements are
    /// forgotten (they were the old session's) and the session's setup runs again; the
    /// migration does not (the schema is the database's, and was current when the store
    /// opened). True when it connected again; `unavailable` when the server still does not
    /// answer.
    @discardableResult
    func reconnectIfLost() throws -> Bool {
        guard lost || PQstatus(handle) != CONNECTION_OK || closedByServer() else { return false }
        lost = true
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = PGConnection.trimmed(PQerrorMessage(handle))
            throw StoreError(.unavailable, "cannot reach the database at \(address) (\(message)): is the server running? "
                             + "The request was not carried out, and nothing was changed; try again", detail: message)
        }
        // A connection lost inside a pipeline may keep libpq's pipeline mode across the reset;
        // the new session starts outside it, with nothing of the old transaction pending.
        if PQpipelineStatus(handle) != PQ_PIPELINE_OFF, PQexitPipelineMode(handle) != 1 {
            throw StoreError(.unavailable, "the connection to the database at \(address) was made again but libpq kept it in pipeline mode "
                             + "(\(PGConnection.trimmed(PQerrorMessage(handle)))); try again", detail: nil)
        }
        pendingWrites.removeAll()
        sentAhead = nil
        abortedBy = nil
        prepared.removeAll()
        lost = false
        OwnBackends.shared.note(self)
        for statement in sessionSetup { try execute(statement) }
        reconnections += 1
        return true
    }
}
