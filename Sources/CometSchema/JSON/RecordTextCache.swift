import Foundation

/// The JSON text of records written before, kept with the record it was written from, so the
/// same record in the next answer is copied rather than written again (a week's agenda writes
/// the same few hundred records on every call). An entry serves only a record equal to the one
/// it was written from, so a changed record is always written afresh; nothing is ever stale.
///
/// Not thread-safe: each of the daemon's engines has its own, used on its queue. Written for
/// one registry: whoever loads another empties it.
public final class RecordTextCache {
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

    var count: Int { recent.count + older.count }

    func bytes(for record: EntityRecord) -> [UInt8]? {
        if let entry = recent[record.id], entry.record == record { return entry.bytes }
        if let entry = older[record.id], entry.record == record {
            keep(entry)
            return entry.bytes
        }
        return nil
    }

    func keep(_ record: EntityRecord, bytes: [UInt8]) {
        keep(Entry(record: record, bytes: bytes))
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
        recent = [:]
        older = [:]
    }
}
