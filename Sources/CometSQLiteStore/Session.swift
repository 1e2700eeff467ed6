import CometStore
import Foundation
import CometSchema

/// The store inside one transaction (a write; a read sees only its reading half, `ReadingHalf`).
struct Session: StoreWriter {
    let store: SQLiteStore

    var connection: Connection { store.connection }

    private func reader(_ layout: TableLayout) -> RecordReader {
        RecordReader(layout: layout, coding: store.coding)
    }

    private func rowid(of id: UUID, in layout: TableLayout) throws -> Int64? {
        if case .integer(let rowid)? = try connection.prepare("SELECT rowid FROM \(quote(layout.table)) WHERE id = ?").scalar([.text(id.lowercasedText)]) {
            return rowid
        }
        return nil
    }

    // MARK: Reading

    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        let layout = try store.layout(entity)
        let key = SQLiteStore.RecordKey(table: layout.table, id: id)
        if let cached = store.cachedRecord(key) { return cached }
        var result: EntityRecord?
        try connection.prepare("SELECT \(layout.selectList) FROM \(quote(layout.table)) WHERE id = ?")
            .query([.text(id.lowercasedText)]) { row in result = try reader(layout).record(from: row) }
        if let result { store.cache(result, as: key) }
        return result
    }

    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
        let layout = try store.layout(entity)
        if text != nil { try store.flushSearchChanges() }
        let selection = try RecordSelection(layout: layout, coding: store.coding, filters: filters, text: text)
        guard selection.canMatch else { return [] }
        if text != nil {
            // Ranked by bm25: SQLite sorts every match before the page is cut, so it sorts ids,
            // not whole rows (8,846 wide rows for "lunch" in 50,000 events), and the page's
            // records are read after, from the cache where they are.
            var ids: [UUID] = []
            let ranked = "SELECT r.id \(selection.from) \(selection.whereClause) \(selection.orderBy) \(RecordSelection.pageClause)"
            try connection.prepare(ranked).query(selection.values + RecordSelection.pageValues(limit: limit, offset: offset)) { row in
                if let text = row.text(0), let id = UUID(parsing: text) { ids.append(id) }
            }
            return try ids.compactMap { try fetch(entity, id: $0) }
        }
        let sql = "SELECT \(layout.aliasedSelectList) \(selection.from) \(selection.whereClause) \(selection.orderBy) \(RecordSelection.pageClause)"
        var records: [EntityRecord] = []
        try connection.prepare(sql).query(selection.values + RecordSelection.pageValues(limit: limit, offset: offset)) { row in
            records.append(try cachedOrRead(row, layout))
        }
        return records
    }

    /// The record of a selected row: from the record cache when it is there (only the id column
    /// is read then), else decoded and cached.
    private func cachedOrRead(_ row: Row, _ layout: TableLayout) throws -> EntityRecord {
        if let text = row.text(0), let id = UUID(parsing: text), let cached = store.cachedRecord(SQLiteStore.RecordKey(table: layout.table, id: id)) {
            return cached
        }
        let record = try reader(layout).record(from: row)
        store.cache(record, as: SQLiteStore.RecordKey(table: layout.table, id: record.id))
        return record
    }

    func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
        let layout = try store.layout(entity)
        if text != nil { try store.flushSearchChanges() }
        let selection = try RecordSelection(layout: layout, coding: store.coding, filters: filters, text: text)
        guard selection.canMatch else { return 0 }
        if case .integer(let number)? = try connection.prepare("SELECT count(*) \(selection.from) \(selection.whereClause)").scalar(selection.values) {
            return Int(number)
        }
        return 0
    }

    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        try records(referringTo: entity, id: id, through: store.layouts.values.sorted { $0.table < $1.table }.map { ($0.entity.name, $0.columns) })
    }

    // MARK: Writing

    func save(_ record: EntityRecord) throws {
        let layout = try store.layout(record.entity)
        store.forget(SQLiteStore.RecordKey(table: layout.table, id: record.id))
        store.commitLog.wrote(SQLiteStore.RecordKey(table: layout.table, id: record.id))
        do {
            try store.registry.validateObject(record.values, of: layout.entity)
        } catch {
            throw StoreError(.invalidData, "\(record.entity.name) \(record.id.lowercasedText): \(error)")
        }
        let values = reader(layout).sqlValues(of: record)
        let savedRowid: Int64
        // A new record has no index rows to take away first (an import is mostly new records).
        let isNew: Bool
        do {
            if let existing = try rowid(of: record.id, in: layout) {
                try connection.prepare(layout.updateSQL).run(Array(values.dropFirst()) + [.integer(existing)])
                savedRowid = existing
                isNew = false
            } else {
                try connection.prepare(layout.insertSQL).run(values)
                savedRowid = connection.lastInsertRowID
                isNew = true
            }
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.constraint, "\(record.entity.name) refers to something that does not exist (check its references, such as its calendar)", detail: error.detail)
        }
        let search = SearchIndex(connection: connection, layout: layout, coding: store.coding)
        if layout.searchTable != nil {
            if !isNew { try store.queueSearchChange(.remove(entity: record.entity, rowid: savedRowid)) }
            try store.queueSearchChange(.insert(entity: record.entity, rowid: savedRowid, texts: search.texts(of: record)))
        }
        if let temporal = layout.temporal {
            try store.occurrenceIndex(layout).update(record, isNew: isNew)
            if let shape = SeriesShape(record: record, temporal: temporal) { store.noteDuration(shape.durationSeconds, of: layout) }
        }
        try noteChange(record.entity, id: record.id, gone: nil)
    }

    func delete(_ entity: QualifiedName, id: UUID) throws {
        let layout = try store.layout(entity)
        // What the change feed keeps of it, read before the cache forgets it (a read after
        // would cache it again).
        let gone = try fetch(entity, id: id)
        store.forget(SQLiteStore.RecordKey(table: layout.table, id: id))
        store.commitLog.wrote(SQLiteStore.RecordKey(table: layout.table, id: id))
        guard let rowid = try rowid(of: id, in: layout) else { return }
        if let gone { try noteChange(entity, id: id, gone: gone) }
        if layout.searchTable != nil { try store.queueSearchChange(.remove(entity: entity, rowid: rowid)) }
        if layout.temporal != nil { try store.occurrenceIndex(layout).remove(id) }
        do {
            try connection.prepare("DELETE FROM \(quote(layout.table)) WHERE rowid = ?").run([.integer(rowid)])
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.constraint, "\(entity.name) \(id.lowercasedText) is still referred to by other records; delete or move those first", detail: error.detail)
        }
    }

    // MARK: Journal

    func appendJournal(_ entry: JournalEntry) throws -> Int64 {
        // A new action forgets what was undone: redo only follows undo.
        if case .integer(let undone)? = try connection.prepare("SELECT count(*) FROM _journal WHERE state = 'undone'").scalar(), undone > 0 {
            try connection.prepare("DELETE FROM _journal WHERE state = 'undone'").run()
        }
        let changes = try journalText(entry.changes, undone: false)
        try connection.prepare("INSERT INTO _journal (state, intent, summary, created, changes) VALUES ('done', ?, ?, ?, ?)")
            .run([.text(entry.intent), .text(entry.summary), .text(Session.utcText(entry.created)), .text(changes)])
        let sequence = connection.lastInsertRowID
        store.noteJournal(sequence, changes: entry.changes)
        return sequence
    }

    func journalEntry(toUndo: Bool) throws -> JournalEntry? {
        let sql = toUndo
            ? "SELECT seq, state, intent, summary, created, changes FROM _journal WHERE state = 'done' ORDER BY seq DESC LIMIT 1"
            : "SELECT seq, state, intent, summary, created, changes FROM _journal WHERE state = 'undone' ORDER BY seq ASC LIMIT 1"
        return try journalEntries(sql, []).first
    }

    func setJournal(_ sequence: Int64, undone: Bool, changes: [JournalEntry.Change]) throws {
        let encoded = try journalText(changes, undone: undone)
        try connection.prepare("UPDATE _journal SET state = ?, changes = ? WHERE seq = ?")
            .run([.text(undone ? "undone" : "done"), .text(encoded), .integer(sequence)])
        store.noteJournal(sequence, changes: changes)
    }

    func alarmFired(_ key: AlarmKey) throws -> Bool {
        try connection.prepare("SELECT 1 FROM _alarms_fired WHERE record = ? AND occurrence = ? AND trigger_at = ?")
            .scalar([.text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger)]) != nil
    }

    func recordAlarm(_ key: AlarmKey, firedAt: Date, late: Bool) throws -> Bool {
        try connection.prepare("INSERT OR IGNORE INTO _alarms_fired (record, occurrence, trigger_at, fired_at, late) VALUES (?, ?, ?, ?, ?)")
            .run([.text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger),
                  .integer(Int64(firedAt.timeIntervalSince1970.rounded(.down))), .integer(late ? 1 : 0)])
        return connection.changes == 1
    }

    func addSnoozedAlarm(_ key: AlarmKey, occurrence: String) throws {
        try connection.prepare("INSERT OR IGNORE INTO _alarms_snoozed (record, occurrence, trigger_at, occurrence_text) VALUES (?, ?, ?, ?)")
            .run([.text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger), .text(occurrence)])
    }

    func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] {
        var found: [(key: AlarmKey, occurrence: String)] = []
        try connection.prepare("SELECT record, occurrence, trigger_at, occurrence_text FROM _alarms_snoozed WHERE trigger_at >= ? AND trigger_at < ?")
            .query([.integer(from), .integer(to)]) { row in
                guard let text = row.text(0), let record = UUID(uuidString: text), let occurrence = row.integer(1),
                      let trigger = row.integer(2), let occurrenceText = row.text(3) else { return }
                found.append((AlarmKey(record: record, occurrence: occurrence, trigger: trigger), occurrenceText))
            }
        return found
    }

    func lastFiredOccurrence(of record: UUID) throws -> Int64? {
        let value = try connection.prepare("SELECT occurrence FROM _alarms_fired WHERE record = ? ORDER BY fired_at DESC, trigger_at DESC LIMIT 1")
            .scalar([.text(record.lowercasedText)])
        if case .integer(let occurrence)? = value { return occurrence }
        return nil
    }

    func meta(_ key: String) throws -> String? {
        if case .text(let value)? = try connection.prepare("SELECT value FROM _meta WHERE key = ?").scalar([.text(key)]) { return value }
        return nil
    }

    func metaEntries() throws -> [(key: String, value: String)] {
        var entries: [(key: String, value: String)] = []
        try connection.prepare("SELECT key, value FROM _meta ORDER BY key").query([]) { row in
            guard let key = row.text(0), let value = row.text(1), !Session.isBookkeeping(key) else { return }
            entries.append((key, value))
        }
        return entries
    }

    /// The store's own keys in `_meta`: the layout's fingerprint, the window, the occurrence
    /// index's format and how far the change feed was forgotten.
    static func isBookkeeping(_ key: String) -> Bool {
        key == "layout" || key == "window" || key.hasPrefix("occurrences:") || key == forgottenKey
    }

    func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] {
        var fired: [(key: AlarmKey, firedAt: Date, late: Bool)] = []
        try connection.prepare("SELECT record, occurrence, trigger_at, fired_at, late FROM _alarms_fired ORDER BY record, occurrence, trigger_at").query([]) { row in
            guard let text = row.text(0), let record = UUID(uuidString: text), let occurrence = row.integer(1), let trigger = row.integer(2),
                  let firedAt = row.integer(3) else { return }
            fired.append((AlarmKey(record: record, occurrence: occurrence, trigger: trigger), Date(timeIntervalSince1970: TimeInterval(firedAt)), row.integer(4) == 1))
        }
        return fired
    }

    func setMeta(_ key: String, _ value: String) throws {
        try connection.prepare("INSERT OR REPLACE INTO _meta (key, value) VALUES (?, ?)").run([.text(key), .text(value)])
    }

    func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] {
        var heads: [(Int64, Bool)] = []
        try connection.prepare("SELECT seq, state FROM _journal ORDER BY seq DESC LIMIT ?").query([.integer(Int64(limit))]) { row in
            guard let seq = row.integer(0), let state = row.text(1) else { return }
            heads.append((seq, state == "undone"))
        }
        return heads
    }

    func journalEntry(sequence: Int64) throws -> JournalEntry? {
        try journalEntries("SELECT seq, state, intent, summary, created, changes FROM _journal WHERE seq = ?", [.integer(sequence)]).first
    }

    func journal(limit: Int) throws -> [JournalEntry] {
        // SQLite counts the changes in its own JSON parser: decoding an import's thousands of
        // records only to list its summary made `history` slow.
        var rows: [(Int64, String, String, String, String, Int64?)] = []
        try connection.prepare("""
            SELECT seq, state, intent, summary, created, CASE WHEN json_valid(changes) THEN json_array_length(changes) END
            FROM _journal ORDER BY seq DESC LIMIT ?
            """).query([.integer(Int64(limit))]) { row in
                guard let seq = row.integer(0), let state = row.text(1), let intent = row.text(2), let summary = row.text(3),
                      let created = row.text(4) else { return }
                rows.append((seq, state, intent, summary, created, row.integer(5)))
            }
        return try rows.map { seq, state, intent, summary, created, count in
            guard let count else { throw StoreError(.invalidData, "journal entry \(seq) is damaged") }
            return JournalEntry(sequence: seq, intent: intent, summary: summary, created: try JournalCoding.entryTime(created, of: seq),
                         changes: [], isUndone: state == "undone", changeCount: Int(count))
        }
    }

    private func journalEntries(_ sql: String, _ values: [SQLValue]) throws -> [JournalEntry] {
        var rows: [(Int64, String, String, String, String, String)] = []
        try connection.prepare(sql).query(values) { row in
            guard let seq = row.integer(0), let state = row.text(1), let intent = row.text(2), let summary = row.text(3),
                  let created = row.text(4), let changes = row.text(5) else { return }
            rows.append((seq, state, intent, summary, created, changes))
        }
        return try rows.map { seq, state, intent, summary, created, changes in
            try JournalCoding.entry(sequence: seq, state: state, intent: intent, summary: summary, created: created, changes: changes, decode: decodeChange)
        }
    }

    /// `2026-06-10T10:00:00Z`, without a formatter object per call.
    static func utcText(_ date: Date) -> String {
        DateTimeValue.utc(date).description
    }

    /// The changes as the compact JSON array the journal keeps, written one change at a time:
    /// an import's entry holds a change per record, and building them all as one tree before
    /// writing it out held every one of them in memory at once.
    func journalText(_ changes: [JournalEntry.Change], undone: Bool) throws -> String {
        var text = "["
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += JSONWriter.compact(try encode(change, inStore: JournalCoding.storedSide(undone: undone)))
        }
        return text + "]"
    }

    private func encode(_ change: JournalEntry.Change, inStore side: JournalCoding.StoredSide) throws -> JSONValue {
        try JournalCoding.encode(change, inStore: side, registry: store.registry)
    }

    private func decodeChange(_ json: JSONValue) throws -> JournalEntry.Change {
        try JournalCoding.decode(json, registry: store.registry)
    }
}
