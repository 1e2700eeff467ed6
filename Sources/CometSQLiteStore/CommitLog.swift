import Foundation
import CometStore
import CometSchema

/// What one write transaction changed, gathered as it runs and written to `_commits` at its
/// end, so that other connections forget just those records from their caches.
struct CommitLog {
    /// Records saved or deleted. Past `keyLimit` only the fact that there were many is kept:
    /// a reader then forgets everything anyway (its cache holds fewer records than that).
    private(set) var written: Set<SQLiteStore.RecordKey> = []
    /// Records named by the journal entries this transaction wrote or turned around.
    private(set) var journalled: Set<SQLiteStore.RecordKey> = []
    private(set) var entries: [Int64] = []
    private(set) var tooMany = false

    static let keyLimit = SQLiteStore.recordCacheLimit

    mutating func wrote(_ key: SQLiteStore.RecordKey) {
        guard !tooMany else { return }
        written.insert(key)
        if written.count > CommitLog.keyLimit { tooMany = true }
    }

    mutating func journal(_ sequence: Int64, keys: [SQLiteStore.RecordKey]) {
        entries.append(sequence)
        guard !tooMany else { return }
        journalled.formUnion(keys)
        if journalled.count > CommitLog.keyLimit { tooMany = true }
    }

    mutating func reset() {
        written.removeAll()
        journalled.removeAll()
        entries.removeAll()
        tooMany = false
    }

    /// The journal entries other connections can read the changes from, or nil when they
    /// cannot say (a record written that no entry names, or too many to list).
    var describingEntries: [Int64]? {
        tooMany || !written.isSubset(of: journalled) ? nil : entries
    }
}

extension SQLiteStore {
    /// `_commits` keeps this many rows; a connection further behind forgets everything.
    static let commitLogLength: Int64 = 1_000

    /// Notes a journal entry this transaction appended or turned around (undo, redo).
    func noteJournal(_ sequence: Int64, changes: [JournalEntry.Change]) {
        commitLog.journal(sequence, keys: changes.compactMap { change in
            layouts[change.entity].map { RecordKey(table: $0.table, id: change.id) }
        })
    }

    /// At the end of a write transaction that changed records: one row per journal entry
    /// that names them all, or one row that says nothing can be told (NULL). The oldest rows
    /// go, so the table stays small. Returns the last row when this connection had seen every
    /// row before: its own rows need no reading back once committed.
    func logCommit() throws -> Int64? {
        guard !commitLog.written.isEmpty || commitLog.tooMany else { return nil }
        var newest: Int64 = 0
        if case .integer(let sequence)? = try connection.prepare("SELECT max(seq) FROM _commits").scalar() { newest = sequence }
        let entries: [Int64?] = commitLog.describingEntries ?? [nil]
        for entry in entries {
            try connection.prepare("INSERT INTO _commits (journal) VALUES (?)").run([entry.map(SQLValue.integer) ?? .null])
        }
        let last = connection.lastInsertRowID
        try connection.prepare("DELETE FROM _commits WHERE seq <= ?").run([.integer(last - SQLiteStore.commitLogLength)])
        return newest == lastSeenCommit ? last : nil
    }

    /// After another connection committed: forgets the cached records that the rows of
    /// `_commits` since the last look name through their journal entries. Everything is
    /// forgotten when they cannot say: a row without an entry, rows missing (this connection
    /// fell more than the table's length behind, or a restore replaced the file), an entry
    /// gone (undone, then dropped by a newer action), an entity this registry does not know.
    func forgetOthersChanges() throws {
        var rows: [(sequence: Int64, journal: Int64?)] = []
        try connection.prepare("SELECT seq, journal FROM _commits WHERE seq > ? ORDER BY seq")
            .query([.integer(lastSeenCommit ?? -1)]) { row in
                if let sequence = row.integer(0) { rows.append((sequence, row.integer(1))) }
            }
        guard let last = rows.last?.sequence else {
            if lastSeenCommit == nil { lastSeenCommit = 0 }  // the table is empty
            return
        }
        defer { lastSeenCommit = last }
        guard let seen = lastSeenCommit, rows[0].sequence == seen + 1 else { return forgetCachedRecords() }
        var keys: [RecordKey] = []
        for row in rows {
            guard let entry = row.journal, let named = try journalKeys(entry) else { return forgetCachedRecords() }
            keys += named
            if keys.count > CommitLog.keyLimit { return forgetCachedRecords() }
        }
        for key in keys {
            forget(key)
            try widenMaximumDuration(for: key)
        }
    }

    /// The records a journal entry names, or nil when it is gone or names an unknown entity.
    private func journalKeys(_ sequence: Int64) throws -> [RecordKey]? {
        var found = false
        var keys: [RecordKey] = []
        var known = true
        try connection.prepare("""
            SELECT j.seq, json_extract(c.value, '$.entity'), json_extract(c.value, '$.id')
            FROM _journal j LEFT JOIN json_each(j.changes) c WHERE j.seq = ?
            """).query([.integer(sequence)]) { row in
                found = true
                guard let entity = row.text(1), let idText = row.text(2) else { return }
                let parts = entity.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2, let table = layouts[QualifiedName(domain: parts[0], name: parts[1])]?.table,
                      let id = UUID(parsing: idText) else {
                    known = false
                    return
                }
                keys.append(RecordKey(table: table, id: id))
            }
        return found && known ? keys : nil
    }

    /// A record another connection changed may now be longer than the longest this
    /// connection knows of its table (a search's lookback): its rows say how long it is.
    private func widenMaximumDuration(for key: RecordKey) throws {
        guard maximumDurations[key.table] != nil, let layout = layouts.values.first(where: { $0.table == key.table }),
              let table = layout.occurrenceTable else { return }
        if case .integer(let seconds)? = try connection.prepare("SELECT max(end_key - start_key) FROM \(quote(table)) WHERE entity_id = ?")
            .scalar([.text(key.id.lowercasedText)]) {
            noteDuration(seconds, of: layout)
        }
    }
}
