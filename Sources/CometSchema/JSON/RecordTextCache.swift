import Foundation

/// The JSON text of records written before, kept with the record it was written from, so the
/// same record in the next answer is copied rather than written again (a week's agenda writes
/// the same few hundred records on every call). An entry serves only a record equal to the one
/// it was written from, so a changed record is always written afresh; nothing is ever stale.
///
/// Thread-safe: the daemon's engines share one, so its bound is the daemon's, not each
/// engine's (one each held up to five times the texts, and a daemon's memory grew until every
/// engine's had filled: docs/PERFORMANCE.md, "The soak on PostgreSQL"). Written for one
/// registry: whoever loads another makes a new one.
public final class RecordTextCache: @unchecked Sendable {
    private let lock = NSLock()
    /// Two generations, as the store's record cache keeps them: when the recent one is full,
    /// it becomes the older one and the oldest texts go.
    private var recent: [UUID: Entry] = [:]
    private var older: [UUID: Entry] = [:]
    private let generationSize: Int
    /// How many texts it keeps at most: by default as many as the store keeps decoded records.
    public let limit: Int

    struct Entry {
        let record: EntityRecord
        let bytes: [UInt8]
    }

    /// `limit` texts at most, in two generations of half as many.
    public init(limit: Int = 8_192) {
        generationSize = max(1, limit / 2)
        self.limit = 2 * generationSize
    }

    var count: Int { lock.withLock { recent.count + older.count } }

    func bytes(for record: EntityRecord) -> [UInt8]? {
        lock.withLock {
            if let entry = recent[record.id], entry.record == record { return entry.bytes }
            if let entry = older[record.id], entry.record == record {
                keep(entry)
                return entry.bytes
            }
            return nil
        }
    }

    func keep(_ record: EntityRecord, bytes: [UInt8]) {
        lock.withLock { keep(Entry(record: record, bytes: bytes)) }
    }

    private func keep(_ entry: Entry) {
        if recent.count >= generationSize {
            older = recent
            recent = [:]
            recent.reserveCapacity(generationSize)
        }
        recent[entry.record.id] = entry
    }

    public func removeAll() {
        lock.withLock {
            recent = [:]
            older = [:]
        }
    }
}
