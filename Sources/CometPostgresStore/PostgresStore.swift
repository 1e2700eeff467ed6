import Foundation
import CLibPQ
import CometStore
import CometSchema

/// The server store: one PostgreSQL database shared by several owners and several processes,
/// tables derived from the registry, opened for one owner (docs/postgresql.md).
///
/// - Owners: every query names the owner (`owner = …`), and row-level security on every table
///   holding owners' rows is the second line (`cometcal.owner`, set once per connection).
/// - Writes: READ COMMITTED, and the first statement of every write locks the owner's row of
///   `_counters` (SELECT … FOR UPDATE). One owner's writes so take turns, as the embedded
///   store's single writer does: every statement of a write sees the owner's rows as only that
///   write changes them, so checks made in the body (an overlap, a journal digest) still hold at
///   commit, and no write has to run again because another of the same owner got there first.
///   Different owners write in parallel. A deadlock or serialization failure (SQLSTATE 40P01,
///   40001) rolls back and the body runs again, up to `writeAttempts` times.
/// - Reads: REPEATABLE READ READ ONLY, one snapshot, never waiting for a writer.
/// Not Sendable: use it from one thread, or behind an actor.
public final class PostgresStore: OpenedStore {
    public let registry: Registry
    public let location: StoreLocation
    /// Whose rows this store reads and writes.
    public let owner: String
    let connection: PGConnection
    let layouts: [QualifiedName: PGLayout]
    let coding: PGCoding
    private(set) var window: OccurrenceWindow
    private let readOnly: Bool
    /// Write transactions this connection committed (their count is in `_counters` too).
    private var ownCommits: Int64 = 0
    /// The owner as an SQL literal, for statements sent with BEGIN or COMMIT (which take no values).
    private let ownerLiteral: String
    /// The owner's change head, as SQL with the owner written in (sent with a read's BEGIN).
    private let headQuery: String
    /// Records decoded by earlier reads, kept true by the change feed.
    let cache = RecordCache()
    /// Whether this store's last write found the owner's change head where the cache had it:
    /// nobody else had written since. Its next write then expects the same, and one that waits
    /// for nothing commits in one round trip (`PGSession.settleBeforeCommit`).
    var writesAlone = false
    /// A journal number drawn under this store's last write's lock, and the change head that
    /// write reached: the next write may number its entry with it before its own lock answers,
    /// if the head is still there at its lock (drawn under the lock, it is then above every
    /// number of an entry committed before, and below every later one).
    var journalReservation: (number: Int64, atHead: Int64)?
    /// The time limit of the work running now (`withTimeLimit`), in milliseconds.
    private var timeLimitMilliseconds: Int?

    /// The setting row-level security compares each row's owner with.
    static let ownerSetting = "cometcal.owner"
    /// How many times a write runs before a conflict with other writers is reported.
    public static let writeAttempts = 5

    /// The libpq the store runs on, for `--version`.
    public static var libraryVersion: String {
        let version = PQlibVersion()
        return "\(version / 10_000).\(version % 10_000)"
    }

    /// Opens PostgreSQL stores (`postgresql://` and `postgres://` locations).
    public static let opener = StoreOpener(engineDescription: "PostgreSQL, libpq \(libraryVersion)", watcher: { location in
        guard case .postgres(let address) = location else { return nil }
        return try PGWatcher(address: address)
    }) { location, registry, now, creating, access in
        guard case .postgres(let address) = location else {
            throw StoreError(.unsupportedLocation, "'\(location)' is not a PostgreSQL address (postgresql://…)")
        }
        return try PostgresStore(address: address, registry: registry, now: now, creating: creating, access: access)
    }

    /// Connects, migrates the database to the registry (unless `access` reads only: then a
    /// database that would need a migration is refused), and moves the owner's window when due.
    /// The database must exist; its tables are made on first use, unless `creating` is
    /// `.nothing` (a command that only reads creates no store).
    public init(address: String, registry: Registry, now: Date = Date(), creating: StoreCreation = .fileOnly, access: StoreAccess = .readWrite) throws {
        let parsed = PostgresAddress(address)
        self.registry = registry
        location = .postgres(address)
        readOnly = access == .readOnlyNoMigration
        connection = try PGConnection(conninfo: parsed.conninfo, describing: parsed.shown)
        let owner = parsed.owner ?? connection.user
        guard !owner.isEmpty else {
            throw StoreError(.cannotOpen, "the address \(parsed.shown) names an empty \(PostgresAddress.ownerParameter); give the owner's name, or leave the parameter out to use the login role's")
        }
        self.owner = owner
        ownerLiteral = try connection.literal(owner)
        headQuery = "SELECT value FROM _counters WHERE owner = \(ownerLiteral) AND name = 'changes'"
        coding = PGCoding(registry: registry)
        var layouts: [QualifiedName: PGLayout] = [:]
        for entity in registry.allEntities where entity.kind == .indexed {
            layouts[entity.name] = PGLayout(entity: entity, registry: registry)
        }
        self.layouts = layouts
        window = OccurrenceWindow(now: now)
        // The session's setup, run again whenever the connection is made again after a loss.
        try connection.setUpSession("SELECT set_config('\(PostgresStore.ownerSetting)', \(ownerLiteral), false)")
        try connection.setUpSession("SET TIME ZONE 'UTC'")
        let migrator = PGMigrator(connection: connection, layouts: layouts.values.sorted { $0.table < $1.table }, coding: coding)
        if creating == .nothing || readOnly, try !migrator.hasStore() {
            throw StoreError(.notFound, "there is no CometCal store in the database at \(parsed.shown) yet, and reading creates none; add a calendar or an event to start one")
        }
        if readOnly {
            try connection.setUpSession("SET default_transaction_read_only = on")
            guard try migrator.isCurrent() else {
                throw StoreError(.needsMigration, "the database at \(parsed.shown) needs a migration to these schemas, and it was opened to read only")
            }
            if let text = try connection.scalar("SELECT value FROM _meta WHERE owner = ? AND key = 'window'", [.text(owner)]), let stored = OccurrenceWindow(text) {
                window = stored
            }
            try prepareFeedStatements()
            return
        }
        if try !migrator.isCurrent() {
            try inTransaction("BEGIN") { try migrator.migrate() }
        }
        // The owner's counters: the row every write of this owner locks first.
        try connection.run("INSERT INTO _counters (owner, name, value) VALUES (?, 'changes', 0), (?, 'commits', 0) ON CONFLICT DO NOTHING",
                           [.text(owner), .text(owner)])
        try refreshWindowIfNeeded()
        try prepareFeedStatements()
    }

    /// The statements every transaction's opening may carry to read the change feed
    /// (`PGSession.feedStatements`), prepared now: in a pipeline, preparing one is a round trip
    /// of its own, which would fall to whichever transaction first followed another's commit.
    private func prepareFeedStatements() throws {
        _ = try connection.statementName(PGSession.changesSQL)
        for layout in layouts.values {
            if let table = layout.occurrenceTable { _ = try connection.statementName(PGSession.changedLongestSQL(table)) }
        }
    }

    /// Runs `body` in a transaction opened by `begin` (the migration's).
    private func inTransaction<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        _ = try openReturningRow(begin)
        do {
            let result = try body()
            try connection.commit()
            return result
        } catch {
            connection.rollback()
            throw error
        }
    }

    public func transaction<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        guard !readOnly else {
            throw StoreError(.permissions, "the store at \(PostgresAddress(locationText).shown) was opened to read only; nothing was changed")
        }
        let begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
        let settings = timeLimitMilliseconds.map { ["SET LOCAL statement_timeout = \($0)"] } ?? []
        let lock = PGSession.lockStatement(owner: ownerLiteral)
        // Once: a write whose lock went with its first question and that found itself stale, or
        // found the connection gone in that round trip, runs again with its lock sent first
        // (with the feed's news, in one round trip), and that opening may find the connection
        // gone once more.
        var lockFirst = false
        var reopened = false
        let (result, head, saved, counted) = try PostgresStore.retryingConflicts {
            while true {
                try reconnectIfLost()
                let session = PGSession(store: self, writing: true)
                do {
                    session.openWrite(begin: begin, settings: settings, lockStatement: lock)
                    if lockFirst { try connection.sendOpening() }
                    let result = try body(session)
                    try session.settleBeforeCommit(owner: ownerLiteral)
                    // The writes nothing waited for, the counters and COMMIT in one round trip.
                    // A write that neither read nor wrote sent nothing: the cache stays at its head.
                    guard session.commitsWithOpening || session.transactionBegan() else { return (result, nil as Int64?, session.recordsSaved, false) }
                    try connection.commit(after: try session.closingStatements(owner: ownerLiteral))
                    if let next = session.nextReservation { journalReservation = next }
                    return (result, session.reachedHead, session.recordsSaved, session.changedAnything)
                } catch {
                    if session.transactionBegan() {
                        // A write running again sends its ROLLBACK ahead of its opening.
                        if session.readStale { connection.rollbackUnanswered() } else { connection.rollback() }
                    } else {
                        connection.dropPendingWrites()
                    }
                    // A round trip that carried the COMMIT and lost the connection has an unknown
                    // outcome (`commitOutcomeUnknown`): running the write again could apply it twice.
                    let lost = session.openingLost && !session.commitsWithOpening
                    guard session.readStale && !lockFirst || lost && !reopened else { throw error }
                    if lost { reopened = true }
                    lockFirst = true
                }
            }
        }
        // What the write saved is what the database now holds, at the head it reached.
        if let head { cache.committed(at: head) }
        for record in saved { cache.keep(record) }
        // Only a write that changed something counts itself in `_counters` (`closingStatements`).
        if counted { ownCommits += 1 }
        return result
    }

    /// Sends a write's first round trip (its BEGIN and first statements) on a live connection,
    /// with the first row of the last statement's answer, each column as text. A connection
    /// lost in an earlier transaction is made again first. When this round trip is what finds
    /// the connection gone (the server restarted while the store was idle), the connection is
    /// made again and the round trip sent once more: nothing of the transaction had run, so
    /// nothing can be applied twice. A second loss, or a server that still does not answer, is
    /// `unavailable`.
    private func openReturningRow(_ sql: String) throws -> [String?]? {
        try reconnectIfLost()
        do {
            return try connection.executeReturningRow(sql)
        } catch let error as StoreError where error.code == .unavailable {
            guard try reconnectIfLost() else { throw error }
            return try connection.executeReturningRow(sql)
        }
    }

    /// Connects again after a loss (`PGConnection.reconnectIfLost`), and empties the record
    /// cache: what happened to the database while the store was away (a commit whose answer
    /// was lost, a restore) is not known, so nothing decoded before is trusted.
    @discardableResult
    private func reconnectIfLost() throws -> Bool {
        guard try connection.reconnectIfLost() else { return false }
        cache.forgetAll()
        journalReservation = nil
        writesAlone = false
        return true
    }

    /// Runs `attempt` again when it failed on a conflict between writers (a deadlock, 40P01,
    /// or a serialization failure, 40001: the transaction was rolled back, so nothing of it is
    /// kept and running it again applies it once), up to `writeAttempts` times, waiting a little
    /// longer each time; then says it gave up, with PostgreSQL's word on the last conflict.
    static func retryingConflicts<T>(_ attempt: () throws -> T) throws -> T {
        var attempts = 1
        while true {
            do {
                return try attempt()
            } catch let error as StoreError where ["40001", "40P01"].contains(PGConnection.state(of: error) ?? "") {
                guard attempts < PostgresStore.writeAttempts else {
                    throw StoreError(.busy, "the write conflicted with other writers \(attempts) times and was given up (nothing of it was kept); try again",
                                     detail: error.detail, statement: error.statement)
                }
                attempts += 1
                usleep(useconds_t(1_000 * attempts * attempts))
            }
        }
    }

    /// A read's BEGIN and the owner's change head (its first statement, which fixes the
    /// snapshot) go with the read's first question, in one round trip (`PGSession.open`). When
    /// that round trip is what finds the connection gone (the server restarted while the store
    /// was idle), the connection is made again and the read runs once more: nothing of it had
    /// reached the server, and the body had had no answer.
    public func readTransaction<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        try reconnectIfLost()
        let session = PGSession(store: self, writing: false)
        do {
            return try read(in: session, body)
        } catch where session.openingLost {
            // Whatever the body made of the failure (it may have worded it its own way), the
            // round trip that carried the opening found the connection gone.
            guard try reconnectIfLost() else { throw error }
            return try read(in: PGSession(store: self, writing: false), body)
        }
    }

    private func read<T>(in session: PGSession, _ body: (any StoreReader) throws -> T) throws -> T {
        session.open(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                     timeLimit: timeLimitMilliseconds.map { "SET LOCAL statement_timeout = \($0)" }, headQuery: headQuery)
        do {
            let result = try body(ReadingHalf(session))
            if session.transactionBegan() { try connection.commitReadOnly() }
            return result
        } catch {
            if session.transactionBegan() { connection.rollback() }
            throw error
        }
    }

    /// Runs `body` with a time limit on each statement (`statement_timeout`): PostgreSQL stops
    /// what runs past it, the transaction rolls back, and the error is `timedOut`.
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        timeLimitMilliseconds = max(1, Int(seconds * 1_000))
        defer { timeLimitMilliseconds = nil }
        return try body()
    }

    private var locationText: String {
        if case .postgres(let address) = location { return address }
        return location.description
    }

    /// Backups are the database's own: pg_dump copies one consistent snapshot beside writers.
    public func backup(to destination: String) throws {
        throw StoreError(.unsupportedLocation, "a PostgreSQL store is backed up with PostgreSQL's own tools, not cometcal backup: "
                         + "pg_dump --format=custom --file=\(destination) '\(PostgresAddress(locationText).conninfo)' (and pg_restore to restore it; see docs/postgresql.md)")
    }

    public func restore(from source: String, keeping: String) throws -> String {
        throw StoreError(.unsupportedLocation, "a PostgreSQL store is restored with pg_restore from a pg_dump archive, not cometcal restore (see docs/postgresql.md)")
    }

    /// Round trips to the server this store's connection made so far (each a wait for the
    /// server's answer; a write's cost here is mostly these).
    public var roundTrips: Int { connection.roundTrips }

    /// The owner's count of committed writes, less this connection's own.
    public func othersVersion() throws -> Int64 {
        try reconnectIfLost()
        let commits = try connection.scalarInteger("SELECT value FROM _counters WHERE owner = ? AND name = 'commits'", [.text(owner)]) ?? 0
        return commits - ownCommits
    }

    func layout(_ entity: QualifiedName) throws -> PGLayout {
        guard let layout = layouts[entity] else {
            throw StoreError(.notFound, "'\(entity)' is not an indexed entity; only indexed entities are stored")
        }
        return layout
    }

    /// Keeps the owner's stored window while `OccurrenceWindow.keeps` it; else moves it and
    /// expands every series of the owner again, in one write.
    private func refreshWindowIfNeeded() throws {
        let stored = try connection.scalar("SELECT value FROM _meta WHERE owner = ? AND key = 'window'", [.text(owner)])
        if let stored, let kept = OccurrenceWindow(stored), window.keeps(kept) {
            window = kept
            return
        }
        try transaction { writer in
            guard let session = writer as? PGSession else { return }
            for layout in layouts.values.sorted(by: { $0.table < $1.table }) {
                guard let table = layout.occurrenceTable else { continue }
                var ids: [UUID] = []
                try connection.query("SELECT entity_id FROM \(pgQuote(table + "_series")) WHERE owner = ?", [.text(owner)]) { row in
                    if let id = row.text(0).flatMap(UUID.init(parsing:)) { ids.append(id) }
                }
                for id in ids {
                    guard let record = try session.fetch(layout.entity.name, id: id) else { continue }
                    try PGOccurrenceIndex(store: self, layout: layout).update(record)
                }
            }
            try session.setMeta("window", window.description)
        }
    }
}
