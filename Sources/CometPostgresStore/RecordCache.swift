import Foundation
import CometStore
import CometSchema

/// Records decoded by earlier reads, kept between transactions (decoding is most of a read's
/// work), and kept true by the change feed: every save and delete, by any process, gives its
/// record the owner's next change number (`_changes`). The cache is valid as of one number (its
/// `head`); a transaction that sees a later head first forgets the records changed since, read
/// from the feed, or everything when the feed no longer reaches back that far.
final class RecordCache {
    struct Key: Hashable {
        let entity: QualifiedName
        let id: UUID
    }

    private var records: [Key: EntityRecord] = [:]
    /// The longest occurrence of each entity's table, as of `head` (a range query's lookback).
    var maximumDurations: [QualifiedName: Int64] = [:]
    /// The change number the cache is true for; nil before the first transaction.
    private(set) var head: Int64?
    /// Records kept at most; past it the cache starts again (a query over more records than
    /// that gains nothing from it).
    static let limit = 8_192

    subscript(key: Key) -> EntityRecord? { records[key] }

    func keep(_ record: EntityRecord) {
        if records.count >= RecordCache.limit { records.removeAll(keepingCapacity: true) }
        records[Key(entity: record.entity, id: record.id)] = record
    }

    func forget(_ key: Key) { records[key] = nil }

    func forgetAll() {
        records.removeAll(keepingCapacity: true)
        maximumDurations.removeAll()
    }

    /// Brings the cache to `current`, the head the transaction sees: `changed` lists what changed
    /// after a head (nil when the feed cannot say); `widen` is told the changed records, since
    /// one of them may now be longer than the longest known. Returns the records forgotten, nil
    /// when it forgot everything.
    @discardableResult
    func advance(to current: Int64, changed: (Int64) throws -> [Key]?, widen: ([Key]) throws -> Void) rethrows -> Set<Key>? {
        defer { head = current }
        guard let known = head, current != known else { return [] }
        guard current > known, let keys = try changed(known), keys.count < RecordCache.limit else {
            forgetAll()
            return nil
        }
        for key in keys { forget(key) }
        if !keys.isEmpty { try widen(keys) }
        return Set(keys)
    }

    /// After this connection's own commit: its changes were forgotten as they were made, so the
    /// cache is true for the head the commit reached.
    func committed(at current: Int64) { head = current }
}

extension PGSession {
    /// The records the cache forgot (nil: all of them).
    @discardableResult
    func bringCache(to current: Int64) throws -> Set<RecordCache.Key>? {
        try store.cache.advance(to: current, changed: { known in
            // One round trip: how far back the feed was forgotten, and what changed after `known`.
            var forgotten: Int64 = 0
            var keys: [RecordCache.Key] = []
            try connection.query("""
                SELECT NULL, NULL, value FROM _meta WHERE owner = ? AND key = '\(PGSession.forgottenKey)'
                UNION ALL SELECT entity, id, NULL FROM _changes WHERE owner = ? AND seq > ?
                """, [owner, owner, .integer(known)]) { row in
                if let value = row.text(2) {
                    forgotten = Int64(value) ?? 0
                    return
                }
                guard let entity = row.text(0), let id = row.text(1).flatMap(UUID.init(parsing:)) else { return }
                let parts = entity.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return }
                keys.append(RecordCache.Key(entity: QualifiedName(domain: parts[0], name: parts[1]), id: id))
            }
            return known >= forgotten ? keys : nil
        }, widen: widenMaximumDurations)
    }

    /// The longest occurrence known for an entity grows to the changed records' longest, read
    /// from their rows alone (forgetting it would make the next range query scan every
    /// occurrence row of the owner for it). A record that got shorter or went leaves it as it
    /// is: a range query then looks back further than it needs, and finds the same rows.
    private func widenMaximumDurations(_ keys: [RecordCache.Key]) throws {
        for (entity, known) in store.cache.maximumDurations {
            let ids = keys.filter { $0.entity == entity }.map(\.id.lowercasedText)
            guard !ids.isEmpty, let table = store.layouts[entity]?.occurrenceTable else { continue }
            let longest = try connection.scalarInteger("SELECT max(end_key - start_key) FROM \(pgQuote(table)) WHERE owner = ? AND entity_id = ANY(?::text[])",
                                                       [owner, .text("{" + ids.joined(separator: ",") + "}")]) ?? 0
            if longest > known { store.cache.maximumDurations[entity] = longest }
        }
    }

    /// A selected row as a record: from the cache when it is there (its id, first, says), else
    /// decoded and kept. A write keeps only what it has not changed itself: the owner's lock
    /// means that is the committed record, true whether the write commits or not; what it
    /// changed is its own, kept by nobody until it commits (`save` and `delete` forget it).
    func record(from row: PGRow, layout: PGLayout) throws -> EntityRecord {
        if let id = row.text(0).flatMap(UUID.init(parsing:)), let cached = cached(RecordCache.Key(entity: layout.entity.name, id: id)) {
            return cached
        }
        let record = try store.coding.record(from: row, layout: layout)
        if !knowsHead {
            keepOnceSettled(record)
        } else if !writing || !hasChanged(RecordCache.Key(entity: record.entity, id: record.id)) {
            store.cache.keep(record)
        }
        return record
    }
}
