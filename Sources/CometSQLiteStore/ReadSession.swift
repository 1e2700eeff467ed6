import Foundation
import CometStore
import CometSchema

/// The reading half of a `Session`, and nothing else: what a read transaction's body gets.
struct ReadSession: StoreReader {
    let session: Session

    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try session.fetch(entity, id: id) }

    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
        try session.fetchAll(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
        try session.count(entity, matching: filters, text: text)
    }

    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        try session.occurrences(entity, from: from, to: to, zone: zone, matching: filters, text: text, limit: limit, offset: offset)
    }

    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        try session.referencing(entity, id: id)
    }

    func journalEntry(toUndo: Bool) throws -> JournalEntry? { try session.journalEntry(toUndo: toUndo) }
    func journal(limit: Int) throws -> [JournalEntry] { try session.journal(limit: limit) }
    func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] { try session.journalHeads(limit: limit) }
    func journalEntry(sequence: Int64) throws -> JournalEntry? { try session.journalEntry(sequence: sequence) }

    func alarmFired(_ key: AlarmKey) throws -> Bool { try session.alarmFired(key) }
    func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] { try session.snoozedAlarms(from: from, to: to) }
    func lastFiredOccurrence(of record: UUID) throws -> Int64? { try session.lastFiredOccurrence(of: record) }
    func meta(_ key: String) throws -> String? { try session.meta(key) }
    func metaEntries() throws -> [(key: String, value: String)] { try session.metaEntries() }
    func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] { try session.firedAlarms() }
    func changeHead() throws -> Int64 { try session.changeHead() }
    func changes(since: Int64) throws -> [StoreChange]? { try session.changes(since: since) }
}
