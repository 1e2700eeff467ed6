import Foundation
import CometSchema

/// Copies everything a store holds for its user into another, empty store, through the seam
/// alone: what `cometcal migrate` does between the embedded store and PostgreSQL, either way.
///
/// Copied: every record of every entity, the journal in order (undone entries stay undone, so
/// redo works on the copy), the facts set with `setMeta` (CalDAV's resource names, segments and
/// client properties, the alarm watch's progress), fired and snoozed alarms. Not copied: the
/// change feed, which is the source store's own history (sync clients of the copy start over
/// with a full sync), and each store's bookkeeping (layout, window), made by the destination.
/// The destination is written in one transaction: a failure leaves it as it was.
public enum StoreCopy {
    public struct Report: Sendable {
        /// Records copied, by entity, in the order they were written.
        public var records: [(entity: QualifiedName, count: Int)] = []
        public var journalEntries = 0
        public var undoneEntries = 0
        public var metaEntries = 0
        public var firedAlarms = 0
        public var snoozedAlarms = 0

        public var recordCount: Int { records.reduce(0) { $0 + $1.count } }
    }

    public static func copy(from source: any EntityStore, to destination: any EntityStore) throws -> Report {
        let registry = source.registry
        return try source.readTransaction { reader in
            try destination.transaction { writer in
                try refuseUnlessEmpty(writer, registry: registry)
                var report = Report()
                for entity in referencedFirst(registry) {
                    let records = try reader.fetchAll(entity.name, matching: [], text: nil, limit: nil, offset: 0)
                    for record in records { try writer.save(record) }
                    if !records.isEmpty { report.records.append((entity.name, records.count)) }
                }
                // Oldest first, each appended as done; the undone ones (always the newest: a new
                // action forgets them) are marked undone afterwards, with their changes as kept.
                let heads = try reader.journalHeads(limit: Int.max).reversed()
                var undone: [(sequence: Int64, changes: [JournalEntry.Change])] = []
                for head in heads {
                    guard let entry = try reader.journalEntry(sequence: head.sequence) else { continue }
                    let copied = JournalEntry(intent: entry.intent, summary: entry.summary, created: entry.created, changes: entry.changes)
                    let sequence = try writer.appendJournal(copied)
                    if head.undone { undone.append((sequence, entry.changes)) }
                    report.journalEntries += 1
                }
                for entry in undone.reversed() {
                    try writer.setJournal(entry.sequence, undone: true, changes: entry.changes)
                }
                report.undoneEntries = undone.count
                for (key, value) in try reader.metaEntries() {
                    try writer.setMeta(key, value)
                    report.metaEntries += 1
                }
                for alarm in try reader.firedAlarms() {
                    _ = try writer.recordAlarm(alarm.key, firedAt: alarm.firedAt, late: alarm.late)
                    report.firedAlarms += 1
                }
                for snoozed in try reader.snoozedAlarms(from: .min, to: .max) {
                    try writer.addSnoozedAlarm(snoozed.key, occurrence: snoozed.occurrence)
                    report.snoozedAlarms += 1
                }
                return report
            }
        }
    }

    /// A copy goes only into a store with nothing of a user's in it: merging two calendars'
    /// histories is not a copy.
    static func refuseUnlessEmpty(_ store: any StoreReader, registry: Registry) throws {
        var held: [String] = []
        for entity in registry.allEntities where entity.kind == .indexed {
            let count = try store.count(entity.name, matching: [], text: nil)
            if count > 0 { held.append("\(count) \(entity.name.name) record\(count == 1 ? "" : "s")") }
        }
        if try !store.journalHeads(limit: 1).isEmpty { held.append("a journal") }
        if !held.isEmpty {
            throw StoreError(.invalidData, "the destination is not empty (it holds \(held.joined(separator: ", "))); migrate copies into an empty store only: give a new one, or empty it first")
        }
    }

    /// The stored entities, each after those its references point at (calendars before events),
    /// then by name: a store that checks references finds every target written.
    static func referencedFirst(_ registry: Registry) -> [EntityDefinition] {
        let stored = registry.allEntities.filter { $0.kind == .indexed }.sorted { $0.name.description < $1.name.description }
        var placed: [EntityDefinition] = []
        var done = Set<QualifiedName>()
        func place(_ entity: EntityDefinition, visiting: Set<QualifiedName>) {
            guard !done.contains(entity.name), !visiting.contains(entity.name) else { return }
            for property in entity.properties {
                if case .entity(let target) = property.type.base, target != entity.name, let definition = registry.entity(target), definition.kind == .indexed {
                    place(definition, visiting: visiting.union([entity.name]))
                }
            }
            done.insert(entity.name)
            placed.append(entity)
        }
        for entity in stored { place(entity, visiting: []) }
        return placed
    }
}
