import Foundation
import CometStore
import CometSchema

/// The journal (undo and redo), the alarms' bookkeeping and the owner's settings, inside one
/// transaction of the owner (`PGSession`).
extension PGSession {
    func appendJournal(_ entry: JournalEntry) throws -> Int64 {
        markChanged()
        // A new action forgets what was undone: redo only follows undo.
        try connection.runLater("DELETE FROM _journal WHERE owner = ? AND state = 'undone'", [owner])
        let changes = try journalText(entry.changes, undone: false)
        if let number = try takeJournalNumber() {
            try connection.runLater("""
                INSERT INTO _journal (owner, seq, state, intent, summary, created, changes, change_count) OVERRIDING SYSTEM VALUE
                VALUES (?, ?, 'done', ?, ?, ?, ?, ?)
                """, [owner, .integer(number), .text(entry.intent), .text(entry.summary), .text(DateTimeValue.utc(entry.created).description),
                      .text(changes), .integer(Int64(entry.changes.count))])
            return number
        }
        // A second entry in one write (a copy of a whole journal) asks for its number.
        guard let sequence = try connection.scalarInteger("""
            INSERT INTO _journal (owner, state, intent, summary, created, changes, change_count) VALUES (?, 'done', ?, ?, ?, ?, ?) RETURNING seq
            """, [owner, .text(entry.intent), .text(entry.summary), .text(DateTimeValue.utc(entry.created).description), .text(changes),
                  .integer(Int64(entry.changes.count))]) else {
            throw StoreError(.engineFailure, "the journal entry was not given a number")
        }
        return sequence
    }

    func setJournal(_ sequence: Int64, undone: Bool, changes: [JournalEntry.Change]) throws {
        markChanged()
        let encoded = try journalText(changes, undone: undone)
        try connection.runLater("UPDATE _journal SET state = ?, changes = ?, change_count = ? WHERE owner = ? AND seq = ?",
                           [.text(undone ? "undone" : "done"), .text(encoded), .integer(Int64(changes.count)), owner, .integer(sequence)])
    }

    private static let entryColumns = "seq, state, intent, summary, created, changes"

    func journalEntry(toUndo: Bool) throws -> JournalEntry? {
        let sql = toUndo
            ? "SELECT \(PGSession.entryColumns) FROM _journal WHERE owner = ? AND state = 'done' ORDER BY seq DESC LIMIT 1"
            : "SELECT \(PGSession.entryColumns) FROM _journal WHERE owner = ? AND state = 'undone' ORDER BY seq ASC LIMIT 1"
        return try journalEntries(sql, [owner]).first
    }

    func journalEntry(sequence: Int64) throws -> JournalEntry? {
        try journalEntries("SELECT \(PGSession.entryColumns) FROM _journal WHERE owner = ? AND seq = ?", [owner, .integer(sequence)]).first
    }

    func journal(limit: Int) throws -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try connection.query("SELECT seq, state, intent, summary, created, change_count FROM _journal WHERE owner = ? ORDER BY seq DESC LIMIT ?",
                             [owner, .integer(Int64(max(0, limit)))]) { row in
            guard let seq = row.integer(0), let state = row.text(1), let intent = row.text(2), let summary = row.text(3),
                  let created = row.text(4), let count = row.integer(5) else { return }
            entries.append(JournalEntry(sequence: seq, intent: intent, summary: summary, created: try JournalCoding.entryTime(created, of: seq),
                                        changes: [], isUndone: state == "undone", changeCount: Int(count)))
        }
        return entries
    }

    func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] {
        var heads: [(Int64, Bool)] = []
        try connection.query("SELECT seq, state FROM _journal WHERE owner = ? ORDER BY seq DESC LIMIT ?", [owner, .integer(Int64(max(0, limit)))]) { row in
            guard let seq = row.integer(0), let state = row.text(1) else { return }
            heads.append((seq, state == "undone"))
        }
        return heads
    }

    private func journalEntries(_ sql: String, _ values: [PGValue]) throws -> [JournalEntry] {
        var rows: [(Int64, String, String, String, String, String)] = []
        try connection.query(sql, values) { row in
            guard let seq = row.integer(0), let state = row.text(1), let intent = row.text(2), let summary = row.text(3),
                  let created = row.text(4), let changes = row.text(5) else { return }
            rows.append((seq, state, intent, summary, created, changes))
        }
        return try rows.map { seq, state, intent, summary, created, changes in
            try JournalCoding.entry(sequence: seq, state: state, intent: intent, summary: summary, created: created, changes: changes) {
                try JournalCoding.decode($0, registry: store.registry)
            }
        }
    }

    /// The changes as one compact JSON array, written a change at a time.
    private func journalText(_ changes: [JournalEntry.Change], undone: Bool) throws -> String {
        var text = "["
        for (index, change) in changes.enumerated() {
            if index > 0 { text += "," }
            text += JSONWriter.compact(try JournalCoding.encode(change, inStore: JournalCoding.storedSide(undone: undone), registry: store.registry))
        }
        return text + "]"
    }

    // MARK: Alarms and meta

    func alarmFired(_ key: AlarmKey) throws -> Bool {
        try connection.scalar("SELECT 1 FROM _alarms_fired WHERE owner = ? AND record = ? AND occurrence = ? AND trigger_at = ?",
                              [owner, .text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger)]) != nil
    }

    /// The claim is the row: whichever daemon inserts it first fires the alarm; any other finds
    /// it there (ON CONFLICT DO NOTHING) and does not.
    func recordAlarm(_ key: AlarmKey, firedAt: Date, late: Bool) throws -> Bool {
        markChanged()
        return try connection.run("""
            INSERT INTO _alarms_fired (owner, record, occurrence, trigger_at, fired_at, late) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, [owner, .text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger),
                  .integer(Int64(firedAt.timeIntervalSince1970.rounded(.down))), .bool(late)]) == 1
    }

    func addSnoozedAlarm(_ key: AlarmKey, occurrence: String) throws {
        markChanged()
        try connection.runLater("INSERT INTO _alarms_snoozed (owner, record, occurrence, trigger_at, occurrence_text) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           [owner, .text(key.record.lowercasedText), .integer(key.occurrence), .integer(key.trigger), .text(occurrence)])
    }

    func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] {
        var found: [(key: AlarmKey, occurrence: String)] = []
        try connection.query("SELECT record, occurrence, trigger_at, occurrence_text FROM _alarms_snoozed WHERE owner = ? AND trigger_at >= ? AND trigger_at < ? ORDER BY trigger_at, record",
                             [owner, .integer(from), .integer(to)]) { row in
            guard let record = row.text(0).flatMap(UUID.init(parsing:)), let occurrence = row.integer(1), let trigger = row.integer(2),
                  let text = row.text(3) else { return }
            found.append((AlarmKey(record: record, occurrence: occurrence, trigger: trigger), text))
        }
        return found
    }

    func lastFiredOccurrence(of record: UUID) throws -> Int64? {
        try connection.scalarInteger("SELECT occurrence FROM _alarms_fired WHERE owner = ? AND record = ? ORDER BY fired_at DESC, trigger_at DESC LIMIT 1",
                                     [owner, .text(record.lowercasedText)])
    }

    func meta(_ key: String) throws -> String? {
        // The layout is the database's, shared by every owner (`PGMigrator`), so it is in
        // `_cometcal_schema`, not in the owner's `_meta`; the engine's health asks for it.
        if key == "layout" { return try connection.scalar("SELECT value FROM _cometcal_schema WHERE key = 'layout'") }
        return try connection.scalar("SELECT value FROM _meta WHERE owner = ? AND key = ?", [owner, .text(key)])
    }

    func metaEntries() throws -> [(key: String, value: String)] {
        var entries: [(key: String, value: String)] = []
        try connection.query("SELECT key, value FROM _meta WHERE owner = ? ORDER BY key", [owner]) { row in
            guard let key = row.text(0), let value = row.text(1), !PGSession.isBookkeeping(key) else { return }
            entries.append((key, value))
        }
        return entries
    }

    /// The store's own keys in `_meta`: its window and how far the change feed was forgotten.
    static func isBookkeeping(_ key: String) -> Bool {
        key == "window" || key == forgottenKey
    }

    func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] {
        var fired: [(key: AlarmKey, firedAt: Date, late: Bool)] = []
        try connection.query("SELECT record, occurrence, trigger_at, fired_at, late FROM _alarms_fired WHERE owner = ? ORDER BY record, occurrence, trigger_at", [owner]) { row in
            guard let record = row.text(0).flatMap(UUID.init(parsing:)), let occurrence = row.integer(1), let trigger = row.integer(2),
                  let firedAt = row.integer(3) else { return }
            fired.append((AlarmKey(record: record, occurrence: occurrence, trigger: trigger), Date(timeIntervalSince1970: TimeInterval(firedAt)), row.bool(4) == true))
        }
        return fired
    }

    func setMeta(_ key: String, _ value: String) throws {
        markChanged()
        try connection.runLater("INSERT INTO _meta (owner, key, value) VALUES (?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET value = EXCLUDED.value",
                           [owner, .text(key), .text(value)])
    }
}
