import Foundation
import CLibPQ
import CometStore

/// Other daemons' commits, heard through LISTEN/NOTIFY on a connection of its own
/// (docs/postgresql.md, "Several daemons").
///
/// - Every write that changed an owner's rows sends `NOTIFY cometcal_changes` with the owner's
///   name, in its transaction: PostgreSQL delivers it at the commit, and only if it commits.
///   A write's own process hears it too, unless it asked to hear only other processes
///   (`hearOnlyOtherProcesses`): the notification names the sending backend, and this
///   process's connections' backends are known (`OwnBackends`).
/// - `relay` sends a message on `cometcal_relay`, prefixed by the owner and a newline.
/// - A lost connection is said once (`.lost`); each later wait tries to connect again, and
///   `.back` says it did, so the caller looks at what it missed.
///
/// `wait` runs on one thread; `relay` may be called from another, and takes the same lock
/// around the connection (libpq's connections are not thread-safe). The wait itself, a `poll`
/// on the socket, holds no lock.
final class PGWatcher: StoreWatcher, @unchecked Sendable {
    static let changesChannel = "cometcal_changes"
    static let relayChannel = "cometcal_relay"

    private let address: PostgresAddress
    let owner: String
    private let lock = NSLock()
    private var connection: PGConnection?
    /// Why the connection was lost, while it is.
    private var lostBecause: String?
    /// Whether this process's own commits are skipped (`hearOnlyOtherProcesses`).
    private var onlyOthers = false

    func hearOnlyOtherProcesses() { lock.withLock { onlyOthers = true } }

    init(address text: String) throws {
        address = PostgresAddress(text)
        let connection = try PGWatcher.listening(address)
        owner = address.owner ?? connection.user
        self.connection = connection
    }

    /// The statement a write sends before its COMMIT: word to every watcher of `owner`.
    static func notifyStatement(owner literal: String) -> String {
        "SELECT pg_notify('\(changesChannel)', \(literal)); "
    }

    private static func listening(_ address: PostgresAddress) throws -> PGConnection {
        let connection = try PGConnection(conninfo: address.conninfo, describing: address.shown)
        try connection.execute("LISTEN \(changesChannel); LISTEN \(relayChannel)")
        return connection
    }

    func wait(seconds: Double) -> [StoreSignal] {
        let current = lock.withLock { connection }
        guard let current else { return reconnect(after: seconds) }
        // What libpq read already (during a relay) is not on the socket any more.
        let waiting = lock.withLock { heard(on: current) }
        if !waiting.isEmpty { return waiting }
        var descriptor = pollfd(fd: PQsocket(current.handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { return lose("the connection has no socket") }
        let ready = poll(&descriptor, 1, Int32(max(0, seconds * 1_000)))
        guard ready > 0 else { return [] }
        return lock.withLock { () -> [StoreSignal]? in
            guard PQconsumeInput(current.handle) == 1, PQstatus(current.handle) == CONNECTION_OK else { return nil }
            return heard(on: current)
        } ?? lose(PGConnection.trimmed(PQerrorMessage(current.handle)))
    }

    /// The notifications libpq holds, as signals: one `.changed` however many commits came.
    private func heard(on connection: PGConnection) -> [StoreSignal] {
        var changed = false
        var relayed: [StoreSignal] = []
        let prefix = owner + "\n"
        while let notification = PQnotifies(connection.handle) {
            defer { PQfreemem(notification) }
            let channel = String(cString: notification.pointee.relname)
            let payload = String(cString: notification.pointee.extra)
            if channel == PGWatcher.changesChannel, payload == owner {
                if !onlyOthers || !OwnBackends.shared.contains(notification.pointee.be_pid) { changed = true }
            } else if channel == PGWatcher.relayChannel, payload.hasPrefix(prefix) {
                relayed.append(.relayed(String(payload.dropFirst(prefix.count))))
            }
        }
        return (changed ? [.changed] : []) + relayed
    }

    private func lose(_ reason: String) -> [StoreSignal] {
        lock.withLock {
            connection = nil
            lostBecause = reason
        }
        return [.lost("the database at \(address.shown) stopped answering (\(reason))")]
    }

    /// Connects again; waits `seconds` first when it cannot, so an outage is not a busy loop.
    private func reconnect(after seconds: Double) -> [StoreSignal] {
        do {
            let fresh = try PGWatcher.listening(address)
            lock.withLock {
                connection = fresh
                lostBecause = nil
            }
            return [.back]
        } catch {
            usleep(useconds_t(max(0, seconds) * 1_000_000))
            return []
        }
    }

    func relay(_ message: String) throws {
        try lock.withLock {
            guard let connection else {
                throw StoreError(.unavailable, "the database at \(address.shown) cannot be reached (\(lostBecause ?? "the connection was lost")); the message was not relayed")
            }
            try connection.run("SELECT pg_notify(?, ?)", [.text(PGWatcher.relayChannel), .text(owner + "\n" + message)])
        }
    }
}
