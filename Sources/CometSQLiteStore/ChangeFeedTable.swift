import Foundation
import CometStore
import CometSchema

/// The change feed (`ChangeFeed`) in `_changes`: a row per record, renumbered by each save or
/// delete (INSERT OR REPLACE on its unique key, AUTOINCREMENT so that numbers never come back),
/// the deleted record kept as a journal change whose before is the record.
extension Session {
    /// Deleted records past `ChangeFeed.goneKept` are looked for when a deletion's number enters
    /// a new block of this many numbers: often enough to bound the table, rarely enough that a
    /// mass deletion does not pay for a sweep each time.
    static let goneSweep: Int64 = 256

    func noteChange(_ entity: QualifiedName, id: UUID, gone: EntityRecord?) throws {
        var goneText: SQLValue = .null
        var previousGone: Int64 = 0
        if let gone {
            let change = JournalEntry.Change(entity: entity, id: id, before: gone, after: nil)
            goneText = .text(JSONWriter.compact(try JournalCoding.encode(change, inStore: .after, registry: store.registry)))
            if case .integer(let seq)? = try connection.prepare("SELECT max(seq) FROM _changes WHERE gone IS NOT NULL").scalar() { previousGone = seq }
        }
        try connection.prepare("INSERT OR REPLACE INTO _changes (entity, id, gone) VALUES (?, ?, ?)")
            .run([.text(entity.description), .text(id.lowercasedText), goneText])
        if gone != nil, connection.lastInsertRowID / Session.goneSweep != previousGone / Session.goneSweep { try forgetOldGone() }
    }

    /// Drops the deleted records past the newest `ChangeFeed.goneKept`, and remembers the newest
    /// number dropped: a point before it can no longer be answered.
    private func forgetOldGone() throws {
        guard case .integer(let cutoff)? = try connection.prepare(
            "SELECT seq FROM _changes WHERE gone IS NOT NULL ORDER BY seq DESC LIMIT 1 OFFSET ?").scalar([.integer(Int64(ChangeFeed.goneKept))]) else { return }
        try connection.prepare("DELETE FROM _changes WHERE gone IS NOT NULL AND seq <= ?").run([.integer(cutoff)])
        try setMeta(Session.forgottenKey, String(max(try forgottenChanges(), cutoff)))
    }

    static let forgottenKey = "changes.forgotten"

    private func forgottenChanges() throws -> Int64 {
        try meta(Session.forgottenKey).flatMap { Int64($0) } ?? 0
    }

    func changeHead() throws -> Int64 {
        // sqlite_sequence holds the largest number ever given, also when its row was replaced.
        let given = try connection.prepare("SELECT seq FROM sqlite_sequence WHERE name = '_changes'").scalar()
        if case .integer(let head)? = given { return max(head, try forgottenChanges()) }
        return try forgottenChanges()
    }

    func changes(since: Int64) throws -> [StoreChange]? {
        guard since >= (try forgottenChanges()), since <= (try changeHead()) else { return nil }
        var rows: [(Int64, String, String, String?)] = []
        try connection.prepare("SELECT seq, entity, id, gone FROM _changes WHERE seq > ? ORDER BY seq").query([.integer(since)]) { row in
            guard let seq = row.integer(0), let entity = row.text(1), let id = row.text(2) else { return }
            rows.append((seq, entity, id, row.text(3)))
        }
        return try rows.map { seq, entityText, idText, goneText in
            let parts = entityText.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let id = UUID(parsing: idText) else {
                throw StoreError(.invalidData, "change \(seq) of the change feed is damaged")
            }
            var gone: EntityRecord?
            if let goneText {
                gone = try JournalCoding.decode(try JSONParser.parse(goneText), registry: store.registry).before
            }
            return StoreChange(sequence: seq, entity: QualifiedName(domain: parts[0], name: parts[1]), id: id, gone: gone)
        }
    }
}

extension SQLiteStore {
    /// After a restore: every number the replaced store gave out is forgotten, so that a client
    /// holding one starts over instead of being told a history that is not this store's.
    static func forgetChangesBefore(_ newest: Int64, in connection: Connection) throws {
        try connection.prepare("DELETE FROM sqlite_sequence WHERE name = '_changes'").run()
        try connection.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('_changes', ?)").run([.integer(newest)])
        try connection.prepare("INSERT OR REPLACE INTO _meta (key, value) VALUES (?, ?)").run([.text(Session.forgottenKey), .text(String(newest))])
    }

    /// The change feed's head as a connection sees it (for a restore, which has no session).
    static func changeHead(of connection: Connection) throws -> Int64 {
        var head: Int64 = 0
        if case .integer(let given)? = try connection.prepare("SELECT seq FROM sqlite_sequence WHERE name = '_changes'").scalar() { head = given }
        if case .text(let text)? = try connection.prepare("SELECT value FROM _meta WHERE key = ?").scalar([.text(Session.forgottenKey)]), let forgotten = Int64(text) {
            head = max(head, forgotten)
        }
        return head
    }
}
