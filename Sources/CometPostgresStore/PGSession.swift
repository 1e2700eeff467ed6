import Foundation
import CometStore
import CometSchema

/// The store inside one transaction, for one owner (a read sees only `ReadingHalf`, its
/// reading half). Every statement names the owner.
final class PGSession: StoreWriter {
    let store: PostgresStore
    let writing: Bool
    /// The change feed's head as this write moves it: the head its lock read (`base`), and the
    /// changes it made since, each numbered from there. Written back at the end: one statement
    /// per write, not per change.
    private var base: Int64 = 0
    private var changeCount: Int64 = 0
    private var head: Int64 { base + changeCount }
    private var changed = false
    private var deletedSome = false
    /// The records this write saved or deleted: what its reads must not put in the cache.
    private var changedKeys = Set<RecordCache.Key>()
    /// The records this write saved, as saved: under the owner's lock nobody else changes them
    /// before the commit, so its own reads take them from here, not from the server (a
    /// create's check of its new event's day read the new record back: one of its four
    /// round trips). A record it deleted is in `changedKeys` and not here. At most as many as
    /// the cache holds (a long import keeps no more in memory); one past that is read from the
    /// server, where this write's own statements see it.
    private var savedRecords: [RecordCache.Key: EntityRecord] = [:]

    func hasChanged(_ key: RecordCache.Key) -> Bool { changedKeys.contains(key) }

    /// The records this write saved and did not delete after, as saved.
    var recordsSaved: Dictionary<RecordCache.Key, EntityRecord>.Values { savedRecords.values }

    /// Records this write saved, and at which count the tables it writes are analyzed next.
    private var saved = 0
    private var analyzeAt = PGSession.firstAnalyze

    /// A read, or a write (`openWrite`), learns its change head with its first round trip.
    init(store: PostgresStore, writing: Bool) {
        self.store = store
        self.writing = writing
    }

    // MARK: The opening

    /// Whether this transaction knows the owner's change head it sees, and so whether the
    /// record cache, brought to it, answers for it: once its first round trip, which carries
    /// its BEGIN (and a write's lock), is read.
    private(set) var knowsHead = false
    /// Records a read decoded before it knew its head: kept in the cache once it does.
    private var decodedBeforeHead: [EntityRecord] = []
    /// Whether the round trip carrying the read's opening found the connection gone.
    private(set) var openingLost = false

    /// Opens a read: its BEGIN, time limit and change head wait on the connection for the
    /// read's first statement (`PGConnection.Opening`). Until that round trip is read, the
    /// cache is not asked (`cached`), except for the longest occurrence, which a range query
    /// looks back by and checks after (`OccurrenceQuery.lookingBack`).
    func open(begin: String, timeLimit: String?, headQuery: String) {
        var head: Int64 = 0
        var statements = [PGConnection.PipelinedStatement(sql: begin, prepared: false)]
        if let timeLimit { statements.append(PGConnection.PipelinedStatement(sql: timeLimit, prepared: false)) }
        statements.append(PGConnection.PipelinedStatement(sql: headQuery) { row in head = row.integer(0) ?? 0 })
        let feed = feedStatements()
        statements += feed?.1 ?? []
        connection.opening = PGConnection.Opening(statements: statements, settle: { [unowned self] in
            try settle(at: head, feed: feed?.0)
        }, failed: { [unowned self] error in
            openingLost = error.code == .unavailable
        })
    }

    /// Once the opening's round trip is read: the cache is brought to the head the read sees,
    /// and what the read decoded before is kept in it (records of that head too).
    private func settle(at head: Int64, feed: FeedAhead?) throws {
        try bringCache(to: head, feed: feed)
        knowsHead = true
        keepDecodedBeforeHead()
    }

    /// What the transaction decoded before it knew its head, into the cache, except what a
    /// write changed itself (a read changes nothing).
    private func keepDecodedBeforeHead() {
        for record in decodedBeforeHead where !hasChanged(RecordCache.Key(entity: record.entity, id: record.id)) {
            store.cache.keep(record)
        }
        decodedBeforeHead = []
    }

    /// Opens a write: its BEGIN, time limit and lock (`lockStatement`) wait on the connection
    /// and go with the write's first statement that is waited for, or with its COMMIT
    /// (`settleBeforeCommit`), in one round trip: waiting for the lock alone was one of a
    /// create's three round trips and a delete's three. The
    /// server runs the write's statements after the lock, so each sees the owner's rows as only
    /// this write changes them, as when the lock went alone.
    ///
    /// Until that round trip is read, the write takes records from the cache as the cache was
    /// (`cached`), and notes which: once the lock's head is known, a write that took a record
    /// changed since is stale (`readStale`), is rolled back, and runs again with its lock sent
    /// first (`PostgresStore.transaction`); a write whose opening goes with its COMMIT has the
    /// server check the same before its statements run (`headCheck`). Its saves number their
    /// changes from the head the server holds (`PGLayout.upsertSQL`), so they need not know it.
    func openWrite(begin: String, settings: [String], lockStatement: String) {
        takenAt = store.cache.head
        if store.writesAlone, let head = takenAt, let reservation = store.journalReservation, reservation.atHead == head {
            reservedNumber = reservation.number
        }
        var row: [String?]?
        var statements = [PGConnection.PipelinedStatement(sql: begin, prepared: false)]
        statements += settings.map { PGConnection.PipelinedStatement(sql: $0, prepared: false) }
        statements.append(PGConnection.PipelinedStatement(sql: lockStatement) { answer in
            row = [answer.text(0), answer.text(1)]
        })
        let feed = feedStatements()
        statements += feed?.1 ?? []
        connection.opening = PGConnection.Opening(statements: statements, settle: { [unowned self] in
            try locked(row, feed: feed?.0)
        }, failed: { [unowned self] error in
            openingLost = error.code == .unavailable
        })
    }

    /// The cache's head when the write began: what it takes from the cache before its lock
    /// answers is right at that head.
    private var takenAt: Int64?
    /// A journal number drawn under this store's last write's lock at `takenAt`
    /// (`PostgresStore.journalReservation`), for this write's entry before its lock answers;
    /// offered when that last write found nobody else had written (`PostgresStore.writesAlone`).
    private var reservedNumber: Int64?
    /// Whether this write's entry took the reserved number: its lock must then find the head
    /// still at `takenAt`, or the entry would be numbered before entries committed ahead of it.
    private var usedReservation = false
    /// Whether the write's opening goes with its COMMIT, the server checking the head first.
    private(set) var commitsWithOpening = false
    /// A journal number drawn with the COMMIT, for the store's next write (`closingStatements`).
    private var drawnAhead: Int64?

    /// Records this write took from the cache before it knew its head.
    private var takenBeforeHead = Set<RecordCache.Key>()
    /// Set when one of them had changed by the time the write's lock was granted: nothing the
    /// write decided on them may commit.
    private(set) var readStale = false

    /// Before a write's COMMIT, when the write did or read anything and its opening is still
    /// unsent, the opening goes with the COMMIT, in one round trip: the server checks, right
    /// after the lock and before any of the write's statements, that what the write took
    /// before the lock's answer still holds (`headCheck`). Without a head to check against, the
    /// opening goes now. Its pending writes wait for the COMMIT, whose failure says the write
    /// was rolled back. A write that neither read nor wrote sends nothing (`transactionBegan`).
    /// A stale write stops here, whatever its body made of the failure that said so.
    ///
    /// Waiting for the opening was one of an update's two round trips and a delete's two.
    func settleBeforeCommit(owner literal: String) throws {
        if connection.opening != nil, changed || !connection.pendingWrites.isEmpty || !takenBeforeHead.isEmpty {
            switch try headCheck(owner: literal) {
            case .unneeded:
                commitsWithOpening = true
            case .statement(let statement):
                commitsWithOpening = true
                connection.pendingWrites.insert(statement, at: 0)
            case .impossible:
                try connection.sendOpening()
            }
        }
        if readStale { throw PGSession.staleError }
    }

    private enum HeadCheck {
        /// The write took nothing before the lock's answer.
        case unneeded
        case statement(PGConnection.PipelinedStatement)
        /// The write took something, with no head to check it against.
        case impossible
    }

    /// What the server checks for a write whose opening goes with its COMMIT, a statement that
    /// fails when the check does:
    /// - a write that numbered its entry with the reserved number: the owner's head is still
    ///   where the cache had it (nobody else wrote since the number was drawn);
    /// - a write that took records from the cache: none of them changed after that head, and
    ///   the feed since is whole.
    /// Plain SQL cannot raise an error, so the check's text saying what changed is cast to a
    /// number, which fails, aborting the round trip's remaining statements and the
    /// transaction; the write then runs again with its lock first. Values are written in
    /// (unprepared), since preparing is a round trip of its own.
    private func headCheck(owner literal: String) throws -> HeadCheck {
        guard usedReservation || !takenBeforeHead.isEmpty else { return .unneeded }
        guard let takenAt else { return .impossible }
        let sql: String
        if usedReservation {
            sql = """
                SELECT ('the change head moved to ' || coalesce(c.value::text, 'nothing') || ' from \(takenAt)')::bigint
                FROM (SELECT (SELECT value FROM _counters WHERE owner = \(literal) AND name = 'changes') AS value) c WHERE c.value IS DISTINCT FROM \(takenAt)
                """
        } else {
            let keys = try takenBeforeHead.map { "(\(try connection.literal($0.entity.description)), \(try connection.literal($0.id.lowercasedText)))" }
            sql = """
                SELECT ('changed at ' || seq::text || ': ' || entity || ' ' || id)::bigint FROM _changes
                WHERE owner = \(literal) AND (entity, id) IN (\(keys.joined(separator: ", "))) AND seq > \(takenAt)
                UNION ALL SELECT ('the change feed is forgotten up to ' || value)::bigint FROM _meta
                WHERE owner = \(literal) AND key = '\(PGSession.forgottenKey)' AND value::bigint > \(takenAt)
                """
        }
        return .statement(PGConnection.PipelinedStatement(sql: sql, prepared: false, failure: { [unowned self] _ in
            readStale = true
            store.writesAlone = false
            return PGSession.staleError
        }))
    }

    static let staleError = StoreError(.busy, "another process changed a record this write had read from the cache; the write was rolled back and runs again")

    /// Whether the read's opening was sent, so that a transaction is open on the server (or
    /// its round trip failed); an opening never sent is withdrawn: a read that asked the server
    /// nothing sends nothing.
    func transactionBegan() -> Bool {
        guard connection.opening == nil else {
            connection.opening = nil
            return false
        }
        return true
    }

    /// A record decoded before the read knew its head, to keep once it does.
    func keepOnceSettled(_ record: EntityRecord) { decodedBeforeHead.append(record) }

    /// The record for `key` this transaction knows without asking the server: one this write
    /// saved, else the cached one once the transaction knows its head; nil before.
    /// A write that does not know its head yet takes the cached record and notes it, to be
    /// checked against the head (`locked`).
    func cached(_ key: RecordCache.Key) -> EntityRecord? {
        if let saved = savedRecords[key] { return saved }
        guard !changedKeys.contains(key) else { return nil }
        if knowsHead { return store.cache[key] }
        guard writing, let record = store.cache[key] else { return nil }
        takenBeforeHead.insert(key)
        return record
    }

    var connection: PGConnection { store.connection }
    var owner: PGValue { .text(store.owner) }

    // MARK: The write's bookends

    /// The first statement of every write (sent with its BEGIN): the owner's change counter,
    /// locked until the commit, so that one owner's writes take turns (see `PostgresStore`).
    /// Only writes update the owner's counters, and each locks this row first.
    ///
    /// It also draws the number of the write's first journal entry from the journal's own
    /// sequence, so that the entry's INSERT needs no answer and goes with the COMMIT: asking
    /// for its number (`RETURNING seq`) was one of a create's five round trips. A write that
    /// journals nothing leaves its number unused, a gap in the journal's numbers, as a
    /// rolled-back write always did; the numbers of one owner still rise in the order of its
    /// writes, since each is drawn under the owner's lock.
    static func lockStatement(owner literal: String) -> String {
        "SELECT value, nextval(pg_get_serial_sequence('_journal', 'seq')) FROM _counters WHERE owner = \(literal) AND name = 'changes' FOR UPDATE"
    }

    /// The number drawn for this write's first journal entry (`lockStatement`), until used.
    private var journalNumber: Int64?

    /// The number for the write's first journal entry, once (a second entry asks for its own):
    /// before the lock answers, the reserved one if the write has it, else the lock's, asked
    /// for now.
    func takeJournalNumber() throws -> Int64? {
        if !knowsHead, let reserved = reservedNumber {
            reservedNumber = nil
            usedReservation = true
            store.journalReservation = nil
            return reserved
        }
        if !knowsHead { try connection.sendOpening() }
        defer { journalNumber = nil }
        return journalNumber
    }

    /// The journal number the store's next write may take, at the head this write reached:
    /// the lock's, if this write did not use it, or the one drawn with its COMMIT.
    var nextReservation: (number: Int64, atHead: Int64)? {
        (journalNumber ?? drawnAhead).map { ($0, head) }
    }

    /// The write changed something: it ends with the counters' update and its NOTIFY.
    func markChanged() { changed = true }

    /// The lock's answer: the change head the write starts from, and its first journal entry's
    /// number. The cache is brought to that head; a record the write took from it before, and
    /// that changed since, makes the write stale. What the write decoded before is kept, except
    /// what it changed itself.
    func locked(_ row: [String?]?, feed: FeedAhead? = nil) throws {
        guard let row, row.count == 2, let text = row[0], let current = Int64(text) else {
            // After a COMMIT nothing may throw: the write's change numbers, made from the missing
            // counter, were NULL and failed it, unless it noted no change; the cache starts again.
            if commitsWithOpening {
                store.cache.forgetAll()
                knowsHead = true
                return
            }
            throw StoreError(.invalidData, "the owner '\(store.owner)' has no counters in this database; open the store again to create them")
        }
        base = current
        journalNumber = row[1].flatMap { Int64($0) }
        store.writesAlone = store.cache.head == current
        if commitsWithOpening {
            // Read after the COMMIT, which the head check let through: nothing the write took
            // had changed, and nothing may throw now (the write is committed). The cache takes
            // what others changed before the lock; one that cannot starts again.
            knowsHead = true
            if (try? bringCache(to: current, feed: feed)) == nil { store.cache.forgetAll() }
            keepDecodedBeforeHead()
            return
        }
        let forgotten = try bringCache(to: current, feed: feed)
        knowsHead = true
        let reservationStale = usedReservation && current != takenAt
        if reservationStale || (!takenBeforeHead.isEmpty && forgotten.map({ !takenBeforeHead.isDisjoint(with: $0) }) ?? true) {
            readStale = true
            throw PGSession.staleError
        }
        keepDecodedBeforeHead()
    }

    /// The last statements of a write that changed anything, sent with its COMMIT: the feed's
    /// head and the commit count (the deletions the feed no longer keeps are dropped first),
    /// and word to other daemons (`PGWatcher`): a NOTIFY is transactional, delivered at the
    /// commit and only if it commits.
    /// A write that took the lock's journal number draws one more for the store's next write
    /// (`nextReservation`).
    func closingStatements(owner literal: String) throws -> [PGConnection.PipelinedStatement] {
        guard changed else { return [] }
        if deletedSome { try forgetOldGone() }
        // The head from the server's, which the lock holds: a write whose opening goes with its
        // COMMIT has not read it.
        var statements = ["UPDATE _counters SET value = value + CASE name WHEN 'changes' THEN \(changeCount) ELSE 1 END WHERE owner = \(literal)",
                          PGWatcher.notifyStatement(owner: literal)].map { PGConnection.PipelinedStatement(sql: $0, prepared: false) }
        if knowsHead, journalNumber == nil {
            statements.append(PGConnection.PipelinedStatement(sql: "SELECT nextval(pg_get_serial_sequence('_journal', 'seq'))", prepared: false) { [unowned self] row in
                drawnAhead = row.integer(0)
            })
        }
        return statements
    }

    /// The change head this write reached (for the cache, once it commits).
    var reachedHead: Int64 { head }

    /// Whether the write changed anything, and so counts itself among the owner's commits.
    var changedAnything: Bool { changed }

    // MARK: Writing

    func save(_ record: EntityRecord) throws { try save(record, new: false) }

    /// A record made with a new id has no occurrence rows to clean up: in an import of 2,000
    /// events, that cleanup was 82 ms of the server's 809 (`log_min_duration_statement`). One
    /// this write saved already is saved as any record.
    func saveNew(_ record: EntityRecord) throws {
        try save(record, new: !changedKeys.contains(RecordCache.Key(entity: record.entity, id: record.id)))
    }

    private func save(_ record: EntityRecord, new: Bool) throws {
        let layout = try store.layout(record.entity)
        do {
            try store.registry.validateObject(record.values, of: layout.entity)
        } catch {
            throw StoreError(.invalidData, "\(record.entity.name) \(record.id.lowercasedText): \(error)")
        }
        changed = true
        let key = RecordCache.Key(entity: record.entity, id: record.id)
        store.cache.forget(key)
        changedKeys.insert(key)
        if savedRecords[key] != nil || savedRecords.count < RecordCache.limit { savedRecords[key] = record }
        changeCount += 1
        let noted: [PGValue] = [owner, owner, .integer(changeCount), .text(record.entity.description), .text(record.id.lowercasedText)]
        // The occurrence rows first: their update looks for the record's stored row (a new
        // record has none, and then nothing more is looked at).
        if layout.temporal != nil { try PGOccurrenceIndex(store: store, layout: layout).update(record, new: new) }
        // Nothing waits for the row: it goes with the next statement that is waited for.
        try connection.runLater(layout.upsertSQL, store.coding.upsertValues(of: record, layout: layout, owner: store.owner) + noted) { error in
            guard error.code == .constraint else { return error }
            return StoreError(.constraint, "\(record.entity.name) refers to something that does not exist (check its references, such as its calendar)", detail: error.detail)
        }
        saved += 1
        if saved == analyzeAt {
            analyzeAt *= PGSession.analyzeGrowth
            try analyzeWhileWriting(layout)
        }
        if let temporal = layout.temporal {
            if let known = store.cache.maximumDurations[record.entity], let shape = SeriesShape(record: record, temporal: temporal),
               shape.durationSeconds > known {
                store.cache.maximumDurations[record.entity] = shape.durationSeconds
            }
        }
    }

    /// A write of many records (an import, a copy) is one transaction, which neither
    /// autovacuum nor anyone's ANALYZE sees until it commits: planned from statistics of the
    /// tables as they were (empty, for a new database, or without this owner's rows), the
    /// write's own statements chose indexes that read every row of the owner, and a
    /// 2,000-event import took a minute (auto_explain: `calendar__Event__uid` scanned for a
    /// key lookup, the occurrence restore driven from all the owner's rows). So the write
    /// analyzes the tables it fills itself, inside the transaction (ANALYZE counts the rows the
    /// running transaction inserted), after 200 records and then at every eightfold: a few
    /// times in all. A role that does not own the tables is skipped by PostgreSQL with a
    /// notice (the connection drops notices); its write goes on as before.
    static let firstAnalyze = 200
    static let analyzeGrowth = 8

    ///
    /// Only the columns rows are found by are analyzed (`PGLayout.lookupColumns`, and the
    /// occurrence tables' keys and flags): what the write's own statements are planned on. An
    /// ANALYZE of every column of three tables beside 10,000 events took 270–290 ms; of these
    /// columns, 70–80 ms (psql, the bench's database), and an import analyzes twice. The other
    /// columns (the search vector, the texts) keep the statistics they had until autovacuum
    /// analyzes the tables after the commit.
    private func analyzeWhileWriting(_ layout: PGLayout) throws {
        var tables = [(layout.table, layout.lookupColumns)]
        if let occurrences = layout.occurrenceTable {
            tables.append((occurrences, PGOccurrenceIndex.lookupColumns))
            tables.append((occurrences + "_series", PGOccurrenceIndex.seriesLookupColumns))
        }
        let analyze = "ANALYZE " + tables.map { table, columns in
            pgQuote(table) + " (" + columns.map(pgQuote).joined(separator: ", ") + ")"
        }.joined(separator: ", ")
        var statements = PGSession.longWriteSettings
        statements += [analyze]
        try connection.pipeline(connection.takePendingWrites() + statements.map { PGConnection.PipelinedStatement(sql: $0, prepared: false) })
        connection.plansOnce = true
    }

    /// Settings a long write takes at its first ANALYZE, until it ends (`SET LOCAL`):
    /// - Its ANALYZE samples 3,000 rows, not 30,000: it only has to tell the planner that the
    ///   owner's rows are there. In the bench's import beside 10,000 events, its two ANALYZEs
    ///   took 300–380 ms of 1.0–1.7 s (`log_min_duration_statement`). Autovacuum analyzes the
    ///   tables at the default target after the commit.
    /// - Its statements are planned once (`plan_cache_mode`), not at each of their thousands of
    ///   runs: PostgreSQL kept planning the occurrence rows' removal anew (a custom plan) in
    ///   one import of three, 626 ms of binding for 2,000 records, against 17 ms where it had
    ///   chosen the generic plan itself. Every statement of a long write finds rows by keys
    ///   and owner, so one plan serves all of its runs; an ANALYZE makes the plans again.
    static let longWriteSettings = ["SET LOCAL default_statistics_target = 10", "SET LOCAL plan_cache_mode = force_generic_plan"]

    func delete(_ entity: QualifiedName, id: UUID) throws {
        let layout = try store.layout(entity)
        let key = RecordCache.Key(entity: entity, id: id)
        let table = pgQuote(layout.table)
        let values: [PGValue] = [owner, .text(id.lowercasedText)]
        func referred(_ error: StoreError) -> StoreError {
            guard error.code == .constraint else { return error }
            return StoreError(.constraint, "\(entity.name) \(id.lowercasedText) is still referred to by other records; delete or move those first", detail: error.detail)
        }
        var gone: EntityRecord?
        if let known = cached(key) {
            // Under the owner's lock, the record this write knows (it saved it, read it, or the
            // cache holds it at the lock's head, checked there: `locked`) is the row the DELETE
            // removes, so nothing waits for the DELETE: it goes with the next round trip, the
            // COMMIT in an intent's delete, where waiting for its RETURNING was one of a
            // delete's three round trips. A refusal (still referred to) fails the write there.
            try connection.runLater("DELETE FROM \(table) WHERE owner = ? AND id = ?", values, failure: referred)
            gone = known
        } else {
            // One round trip: the row goes, and comes back as what the change feed keeps of it.
            // A refusal fails the write, as any failed statement does here
            // (`PGConnection.commit`); no caller goes on after one.
            do {
                try connection.query("DELETE FROM \(table) WHERE owner = ? AND id = ? RETURNING \(layout.selectList)", values) { row in
                    gone = try store.coding.record(from: row, layout: layout)
                }
            } catch let error as StoreError {
                throw referred(error)
            }
        }
        guard let gone else { return }
        changed = true
        store.cache.forget(key)
        changedKeys.insert(key)
        savedRecords[key] = nil
        if layout.temporal != nil { try PGOccurrenceIndex(store: store, layout: layout).remove(id) }
        try noteChange(entity, id: id, gone: gone)
    }

    // MARK: The change feed

    static let forgottenKey = "changes.forgotten"

    /// A change's number, as SQL taking the owner and the change's place in its write: the
    /// head the write's lock read, plus that place. The write locks the counters' row and
    /// writes it only in its closing statements, so every statement before reads the lock's
    /// head; a save sent before the lock's answer is read need not know it (`openWrite`).
    static let changeNumber = "(SELECT value FROM _counters WHERE owner = ? AND name = 'changes') + ?::bigint"

    private func noteChange(_ entity: QualifiedName, id: UUID, gone: EntityRecord?) throws {
        changeCount += 1
        var goneText = PGValue.null
        if let gone {
            deletedSome = true
            let change = JournalEntry.Change(entity: entity, id: id, before: gone, after: nil)
            goneText = .text(JSONWriter.compact(try JournalCoding.encode(change, inStore: .after, registry: store.registry)))
        }
        try connection.runLater("""
            INSERT INTO _changes (owner, seq, entity, id, gone) VALUES (?, \(PGSession.changeNumber), ?, ?, ?)
            ON CONFLICT (owner, entity, id) DO UPDATE SET seq = EXCLUDED.seq, gone = EXCLUDED.gone
            """, [owner, owner, .integer(changeCount), .text(entity.description), .text(id.lowercasedText), goneText])
    }

    /// Drops the deletions past the newest `ChangeFeed.goneKept`, and remembers the newest
    /// number dropped: a point before it can no longer be answered. One statement, sent with
    /// the COMMIT (nothing waits for it).
    private func forgetOldGone() throws {
        try connection.runLater("""
            WITH cutoff AS (
                SELECT seq FROM _changes WHERE owner = ? AND gone IS NOT NULL ORDER BY seq DESC LIMIT 1 OFFSET ?
            ), dropped AS (
                DELETE FROM _changes WHERE owner = ? AND gone IS NOT NULL AND seq <= (SELECT seq FROM cutoff)
            )
            INSERT INTO _meta (owner, key, value) SELECT ?, '\(PGSession.forgottenKey)', seq::text FROM cutoff
            ON CONFLICT (owner, key) DO UPDATE SET value = greatest(_meta.value::bigint, EXCLUDED.value::bigint)::text
            """, [owner, .integer(Int64(ChangeFeed.goneKept)), owner, owner])
    }

    private func forgottenChanges() throws -> Int64 {
        try meta(PGSession.forgottenKey).flatMap { Int64($0) } ?? 0
    }

    func changeHead() throws -> Int64 {
        if writing {
            try connection.sendOpening()
            return head
        }
        return try connection.scalarInteger("SELECT value FROM _counters WHERE owner = ? AND name = 'changes'", [owner]) ?? 0
    }

    func changes(since: Int64) throws -> [StoreChange]? {
        guard since >= (try forgottenChanges()), since <= (try changeHead()) else { return nil }
        var rows: [(Int64, String, String, String?)] = []
        try connection.query("SELECT seq, entity, id, gone FROM _changes WHERE owner = ? AND seq > ? ORDER BY seq", [owner, .integer(since)]) { row in
            guard let seq = row.integer(0), let entity = row.text(1), let id = row.text(2) else { return }
            rows.append((seq, entity, id, row.text(3)))
        }
        return try rows.map { seq, entityText, idText, goneText in
            let parts = entityText.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let id = UUID(parsing: idText) else {
                throw StoreError(.invalidData, "change \(seq) of the change feed is damaged")
            }
            let gone = try goneText.map { try JournalCoding.decode(try JSONParser.parse($0), registry: store.registry).before } ?? nil
            return StoreChange(sequence: seq, entity: QualifiedName(domain: parts[0], name: parts[1]), id: id, gone: gone)
        }
    }
}
