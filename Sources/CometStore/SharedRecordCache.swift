import Foundation
import CometSchema

/// Decoded records shared by several read-only connections to one store (the daemon's
/// readers), so that a record is decoded once, not once per connection. A perf profile of
/// `daemon-get` found decoding the larger part of an entity.get: each of four readers decoded
/// the records the others already had.
///
/// Each entry remembers the commit (the row of `_commits`) its connection had seen when it
/// read it, and each record the commits that the connections have taken in since: an entry
/// serves a connection only when the record's last known change is no later than both the
/// entry's commit and the connection's. Every commit up to either of them has been taken in by
/// some connection before (a connection takes in every commit up to its own before it reads),
/// so a change between the two is always known. Connections that write must not use it.
public final class SharedRecordCache: @unchecked Sendable {
    private struct Entry {
        let record: EntityRecord
        let commit: Int64
    }

    private let lock = NSLock()
    private var recent: [SQLiteStore.RecordKey: Entry] = [:]
    private var older: [SQLiteStore.RecordKey: Entry] = [:]
    /// The last commit known to have changed each record; past `changeLimit` records, the
    /// map is dropped and every record counts as changed at the newest of them.
    private var changedAt: [SQLiteStore.RecordKey: Int64] = [:]
    private var everythingChangedAt: Int64 = 0
    /// Records kept at most (two generations of half as many): twice one connection's cache.
    static let limit = 2 * SQLiteStore.recordCacheLimit
    static let changeLimit = 65_536

    public init() {}

    private func lastChange(_ key: SQLiteStore.RecordKey) -> Int64 {
        max(changedAt[key] ?? 0, everythingChangedAt)
    }

    func record(_ key: SQLiteStore.RecordKey, seenBy commit: Int64) -> EntityRecord? {
        lock.withLock {
            guard let entry = recent[key] ?? older[key], lastChange(key) <= min(entry.commit, commit) else { return nil }
            if recent[key] == nil { remember(entry, as: key) }
            return entry.record
        }
    }

    func store(_ record: EntityRecord, as key: SQLiteStore.RecordKey, seenBy commit: Int64) {
        lock.withLock {
            // Read from an older snapshot than a change already known: it would outlive it.
            guard lastChange(key) <= commit else { return }
            if let existing = recent[key] ?? older[key], existing.commit >= commit { return }
            remember(Entry(record: record, commit: commit), as: key)
        }
    }

    private func remember(_ entry: Entry, as key: SQLiteStore.RecordKey) {
        if recent.count >= SharedRecordCache.limit / 2 {
            older = recent
            recent = [:]
            recent.reserveCapacity(SharedRecordCache.limit / 2)
        }
        recent[key] = entry
    }

    /// A commit changed these records.
    func changed(_ keys: [SQLiteStore.RecordKey], at commit: Int64) {
        lock.withLock {
            for key in keys where (changedAt[key] ?? 0) < commit {
                changedAt[key] = commit
                if let entry = recent[key] ?? older[key], entry.commit < commit {
                    recent[key] = nil
                    older[key] = nil
                }
            }
            if changedAt.count > SharedRecordCache.changeLimit { dropEverything(at: changedAt.values.max() ?? commit) }
        }
    }

    /// A commit may have changed any record (the journal cannot say).
    func changedEverything(at commit: Int64) {
        lock.withLock { dropEverything(at: commit) }
    }

    private func dropEverything(at commit: Int64) {
        everythingChangedAt = max(everythingChangedAt, commit)
        changedAt.removeAll()
        recent.removeAll()
        older.removeAll()
    }

    func contains(_ key: SQLiteStore.RecordKey) -> Bool {
        lock.withLock { recent[key] != nil || older[key] != nil }
    }
}

extension SQLiteStore {
    /// Keeps decoded records in `cache`, shared with other connections that only read, instead
    /// of a cache of this connection's own.
    public func shareRecords(with cache: SharedRecordCache) {
        sharedRecords = cache
        forgetCachedRecords()
    }
}
