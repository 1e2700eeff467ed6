import Foundation
import CometSchema

/// The reading half of a store's transaction, and nothing else: what a read transaction's body
/// gets. Its static type has no writes, and it is no `StoreWriter`, so a write inside a read
/// does not compile; each store still refuses one on its connection too.
public struct ReadingHalf: StoreReader {
    /// The transaction read through (a store's own session).
    public let reader: any StoreReader

    public init(_ reader: any StoreReader) {
        self.reader = reader
    }

    public func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try reader.fetch(entity, id: id) }

    public func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
        try reader.fetchAll(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    public func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
        try reader.count(entity, matching: filters, text: text)
    }

    public func page(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage {
        try reader.page(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    public func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                            text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        try reader.occurrences(entity, from: from, to: to, zone: zone, matching: filters, text: text, limit: limit, offset: offset)
    }

    public func occurrences(_ entity: QualifiedName, spans: [DateInterval], zone: TimeZone, matching filters: [RecordFilter]) throws -> [[Occurrence]] {
        try reader.occurrences(entity, spans: spans, zone: zone, matching: filters)
    }

    public func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        try reader.referencing(entity, id: id)
    }

    public func journalEntry(toUndo: Bool) throws -> JournalEntry? { try reader.journalEntry(toUndo: toUndo) }
    public func journal(limit: Int) throws -> [JournalEntry] { try reader.journal(limit: limit) }
    public func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] { try reader.journalHeads(limit: limit) }
    public func journalEntry(sequence: Int64) throws -> JournalEntry? { try reader.journalEntry(sequence: sequence) }
    public func alarmFired(_ key: AlarmKey) throws -> Bool { try reader.alarmFired(key) }
    public func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] { try reader.snoozedAlarms(from: from, to: to) }
    public func lastFiredOccurrence(of record: UUID) throws -> Int64? { try reader.lastFiredOccurrence(of: record) }
    public func meta(_ key: String) throws -> String? { try reader.meta(key) }
    public func metaEntries() throws -> [(key: String, value: String)] { try reader.metaEntries() }
    public func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] { try reader.firedAlarms() }
    public func changeHead() throws -> Int64 { try reader.changeHead() }
    public func changes(since: Int64) throws -> [StoreChange]? { try reader.changes(since: since) }
}
