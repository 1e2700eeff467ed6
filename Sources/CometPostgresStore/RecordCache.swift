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
    /// after a head (nil when the feed cannot say).
    func advance(to current: Int64, changed: (Int64) throws -> [Key]?) rethrows {
        defer { head = current }
        guard let known = head, current != known else { return }
        guard current > known, let keys = try changed(known), keys.count < RecordCache.limit else { return forgetAll() }
        for key in keys { records[key] = nil }
        // A record changed elsewhere may be longer than the longest known.
        if !keys.isEmpty { maximumDurations.removeAll() }
    }

    /// After this connection's own commit: its changes were forgotten as they were made, so the
    /// cache is true for the head the commit reached.
    func committed(at current: Int64) { head = current }
}

extension PGSession {
    func bringCache(to current: Int64) throws {
        try store.cache.advance(to: current) { known in
            guard known >= (try meta(PGSession.forgottenKey).flatMap { Int64($0) } ?? 0) else { return nil }
            var keys: [RecordCache.Key] = []
            try connection.query("SELECT entity, id FROM _changes WHERE owner = ? AND seq > ?", [owner, .integer(known)]) { row in
                guard let entity = row.text(0), let id = row.text(1).flatMap(UUID.init(parsing:)) else { return }
                let parts = entity.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return }
                keys.append(RecordCache.Key(entity: QualifiedName(domain: parts[0], name: parts[1]), id: id))
            }
            return keys
        }
    }

    /// A selected row as a record: from the cache when it is there (its id, first, says), else
    /// decoded, and kept when this is a read (a write's reads may be its own uncommitted changes).
    func record(from row: PGRow, layout: PGLayout) throws -> EntityRecord {
        if let id = row.text(0).flatMap(UUID.init(parsing:)), let cached = store.cache[RecordCache.Key(entity: layout.entity.name, id: id)] {
            return cached
        }
        let record = try store.coding.record(from: row, layout: layout)
        if !writing { store.cache.keep(record) }
        return record
    }
}
