import Foundation
import CometSchema
import CometStore

/// Wraps a transaction and remembers every record it touches — its state before the first
/// touch and after the last — so the journal can undo exactly what happened.
///
/// It is a transaction itself, so that code written for one (the importer) journals what it
/// does without knowing.
///
/// An intent runs in a read or a write, chosen from its declaration at run time, so the recorder
/// wraps either: over a read it has no writer, and a change through it fails before it reaches
/// the store (which could not take it either: a read's `StoreReader` has no writes).
final class ChangeRecorder: StoreWriter {
    let transaction: any StoreReader
    /// The same transaction as a writer; nil in a read.
    private let writer: (any StoreWriter)?
    /// Keep only the digest of each record's last state, not the record: an import's records are
    /// in the store, and holding 10,000 of them here grew the import's memory by their size.
    private let digestsOnly: Registry?
    private var order: [Key] = []
    private var touched: [Key: Touched] = [:]

    /// A record's identity (a struct, not "entity|id" text: building that text for each save
    /// cost an import more than the lookups it served).
    private struct Key: Hashable {
        let entity: QualifiedName
        let id: UUID
    }

    private struct Touched {
        let entity: QualifiedName
        let id: UUID
        let before: EntityRecord?
        /// The digest of `before`, computed once, when only digests are kept.
        let beforeDigest: UInt64?
        var after: EntityRecord?
        var afterDigest: UInt64?
    }

    /// With `digestsOnly`, the states after are kept as digests computed with that registry.
    init(_ transaction: any StoreWriter, digestsOnly: Registry? = nil) {
        self.transaction = transaction
        self.writer = transaction
        self.digestsOnly = digestsOnly
    }

    /// Over a read: nothing it is asked to change reaches the store.
    init(reading transaction: any StoreReader) {
        self.transaction = transaction
        self.writer = nil
        self.digestsOnly = nil
    }

    private func writing() throws -> any StoreWriter {
        guard let writer else { throw StoreError(.permissions, "a read tried to change the store; nothing was changed") }
        return writer
    }

    private func key(_ entity: QualifiedName, _ id: UUID) -> Key { Key(entity: entity, id: id) }

    private func touch(_ entity: QualifiedName, _ id: UUID) throws {
        let key = key(entity, id)
        guard touched[key] == nil else { return }
        let before = try transaction.fetch(entity, id: id)
        let digest = digestsOnly.flatMap { registry in before.map { RecordDigest.of($0, registry: registry) } }
        touched[key] = Touched(entity: entity, id: id, before: before, beforeDigest: digest,
                               after: digestsOnly == nil ? before : nil, afterDigest: digest)
        order.append(key)
    }

    func save(_ record: EntityRecord) throws {
        try touch(record.entity, record.id)
        try writing().save(record)
        noteSaved(record)
    }

    private func noteSaved(_ record: EntityRecord) {
        let key = key(record.entity, record.id)
        if let registry = digestsOnly {
            touched[key]?.afterDigest = RecordDigest.of(record, registry: registry)
        } else {
            touched[key]?.after = record
        }
    }

    /// Saves a record the caller made with a new id, never stored: its state before is none,
    /// and nothing is read to learn it (an import's new records, a query each otherwise).
    func saveNew(_ record: EntityRecord) throws {
        let key = key(record.entity, record.id)
        if touched[key] == nil {
            touched[key] = Touched(entity: record.entity, id: record.id, before: nil, beforeDigest: nil, after: nil, afterDigest: nil)
            order.append(key)
        }
        try writing().saveNew(record)
        noteSaved(record)
    }

    func delete(_ entity: QualifiedName, id: UUID) throws {
        try touch(entity, id)
        try writing().delete(entity, id: id)
        touched[key(entity, id)]?.after = nil
        touched[key(entity, id)]?.afterDigest = nil
    }

    /// What changed, in the order records were first touched; untouched-in-effect records are left out.
    var changes: [JournalEntry.Change] {
        order.compactMap { key in
            guard let entry = touched[key] else { return nil }
            if digestsOnly != nil {
                guard entry.beforeDigest != entry.afterDigest else { return nil }
                return JournalEntry.Change(entity: entry.entity, id: entry.id, before: entry.before, after: nil, afterDigest: entry.afterDigest)
            }
            guard entry.before != entry.after else { return nil }
            return JournalEntry.Change(entity: entry.entity, id: entry.id, before: entry.before, after: entry.after)
        }
    }

    // MARK: Everything else is the transaction's

    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try transaction.fetch(entity, id: id) }

    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
        try transaction.fetchAll(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
        try transaction.count(entity, matching: filters, text: text)
    }

    func page(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage {
        try transaction.page(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        try transaction.occurrences(entity, from: from, to: to, zone: zone, matching: filters, text: text, limit: limit, offset: offset)
    }

    func occurrences(_ entity: QualifiedName, spans: [DateInterval], zone: TimeZone, matching filters: [RecordFilter]) throws -> [[Occurrence]] {
        try transaction.occurrences(entity, spans: spans, zone: zone, matching: filters)
    }

    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        try transaction.referencing(entity, id: id)
    }

    func appendJournal(_ entry: JournalEntry) throws -> Int64 { try writing().appendJournal(entry) }
    func journalEntry(toUndo: Bool) throws -> JournalEntry? { try transaction.journalEntry(toUndo: toUndo) }
    func setJournal(_ sequence: Int64, undone: Bool, changes: [JournalEntry.Change]) throws {
        try writing().setJournal(sequence, undone: undone, changes: changes)
    }
    func journal(limit: Int) throws -> [JournalEntry] { try transaction.journal(limit: limit) }
    func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] { try transaction.journalHeads(limit: limit) }
    func journalEntry(sequence: Int64) throws -> JournalEntry? { try transaction.journalEntry(sequence: sequence) }
    func alarmFired(_ key: AlarmKey) throws -> Bool { try transaction.alarmFired(key) }
    func recordAlarm(_ key: AlarmKey, firedAt: Date, late: Bool) throws -> Bool { try writing().recordAlarm(key, firedAt: firedAt, late: late) }
    func addSnoozedAlarm(_ key: AlarmKey, occurrence: String) throws { try writing().addSnoozedAlarm(key, occurrence: occurrence) }
    func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] { try transaction.snoozedAlarms(from: from, to: to) }
    func lastFiredOccurrence(of record: UUID) throws -> Int64? { try transaction.lastFiredOccurrence(of: record) }
    func meta(_ key: String) throws -> String? { try transaction.meta(key) }
    func metaEntries() throws -> [(key: String, value: String)] { try transaction.metaEntries() }
    func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] { try transaction.firedAlarms() }
    func changeHead() throws -> Int64 { try transaction.changeHead() }
    func changes(since: Int64) throws -> [StoreChange]? { try transaction.changes(since: since) }
    func setMeta(_ key: String, _ value: String) throws { try writing().setMeta(key, value) }
}
