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

/// What the change feed holds past the cache's head, asked in a transaction's first round trip
/// (`PGSession.feedStatements`), beside its BEGIN and change head: bringing the cache to the
/// head took two round trips of their own (the changes, then the changed records' longest
/// occurrence) in every transaction that followed another store's commit, a write's while it
/// held the owner's lock. Filled by the statements' row readers.
final class FeedAhead {
    /// The cache's head when the statements were sent: what they tell is past it.
    let from: Int64
    /// The entities whose longest occurrence they read.
    let widened: Set<QualifiedName>
    var forgotten: Int64 = 0
    var keys: [RecordCache.Key] = []
    var longest: [QualifiedName: Int64] = [:]

    init(from: Int64, widened: Set<QualifiedName>) {
        self.from = from
        self.widened = widened
    }
}

extension PGSession {
    /// The statements reading the change feed past the cache's head, for a transaction's opening
    /// (after its lock, for a write, so that they see what the lock waited for), and what they
    /// fill; nil before the cache knows a head. When the head has not moved they find no row.
    func feedStatements() -> (FeedAhead, [PGConnection.PipelinedStatement])? {
        guard let known = store.cache.head else { return nil }
        let widened = store.cache.maximumDurations.keys.compactMap { entity in store.layouts[entity]?.occurrenceTable.map { (entity, $0) } }
        let feed = FeedAhead(from: known, widened: Set(widened.map(\.0)))
        var statements = [PGConnection.PipelinedStatement(sql: PGSession.changesSQL, values: [owner, owner, .integer(known)]) { row in
            PGSession.readChange(row, into: feed)
        }]
        for (entity, table) in widened {
            statements.append(PGConnection.PipelinedStatement(sql: PGSession.changedLongestSQL(table), values: [owner, owner, .integer(known), .text(entity.description)]) { row in
                if let longest = row.integer(0) { feed.longest[entity] = longest }
            })
        }
        return (feed, statements)
    }

    /// The longest occurrence of the records of one entity changed after a head.
    static func changedLongestSQL(_ occurrenceTable: String) -> String {
        """
        SELECT max(o.end_key - o.start_key) FROM \(pgQuote(occurrenceTable)) o
        WHERE o.owner = ? AND o.entity_id IN (SELECT c.id FROM _changes c WHERE c.owner = ? AND c.seq > ? AND c.entity = ?)
        """
    }

    /// How far back the feed was forgotten, and what changed after a head.
    static let changesSQL = """
        SELECT NULL, NULL, value FROM _meta WHERE owner = ? AND key = '\(PGSession.forgottenKey)'
        UNION ALL SELECT entity, id, NULL FROM _changes WHERE owner = ? AND seq > ?
        """

    private static func readChange(_ row: PGRow, into feed: FeedAhead) {
        if let value = row.text(2) {
            feed.forgotten = Int64(value) ?? 0
            return
        }
        guard let entity = row.text(0), let id = row.text(1).flatMap(UUID.init(parsing:)) else { return }
        let parts = entity.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return }
        feed.keys.append(RecordCache.Key(entity: QualifiedName(domain: parts[0], name: parts[1]), id: id))
    }

    /// The records the cache forgot (nil: all of them). `feed`, read in the same round trip as
    /// `current`, answers when it was asked from the cache's head; else the feed is asked now.
    @discardableResult
    func bringCache(to current: Int64, feed: FeedAhead? = nil) throws -> Set<RecordCache.Key>? {
        let prefetched = feed.flatMap { $0.from == store.cache.head ? $0 : nil }
        return try store.cache.advance(to: current, changed: { known in
            if let prefetched { return known >= prefetched.forgotten ? prefetched.keys : nil }
            // One round trip.
            let asked = FeedAhead(from: known, widened: [])
            try connection.query(PGSession.changesSQL, [owner, owner, .integer(known)]) { row in PGSession.readChange(row, into: asked) }
            return known >= asked.forgotten ? asked.keys : nil
        }, widen: { keys in try widenMaximumDurations(keys, prefetched: prefetched) })
    }

    /// The longest occurrence known for an entity grows to the changed records' longest, read
    /// from their rows alone (forgetting it would make the next range query scan every
    /// occurrence row of the owner for it). A record that got shorter or went leaves it as it
    /// is: a range query then looks back further than it needs, and finds the same rows.
    private func widenMaximumDurations(_ keys: [RecordCache.Key], prefetched: FeedAhead?) throws {
        for (entity, known) in store.cache.maximumDurations {
            let ids = keys.filter { $0.entity == entity }.map(\.id.lowercasedText)
            guard !ids.isEmpty, let table = store.layouts[entity]?.occurrenceTable else { continue }
            let longest: Int64
            if let prefetched, prefetched.widened.contains(entity) {
                longest = prefetched.longest[entity] ?? 0
            } else {
                longest = try connection.scalarInteger("SELECT max(end_key - start_key) FROM \(pgQuote(table)) WHERE owner = ? AND entity_id = ANY(?::text[])",
                                                       [owner, .text("{" + ids.joined(separator: ",") + "}")]) ?? 0
            }
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
