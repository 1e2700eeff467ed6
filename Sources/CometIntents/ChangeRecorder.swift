import Foundation
import CometSchema
import CometStore

/// Wraps a transaction and remembers every record it touches — its state before the first
/// touch and after the last — so the journal can undo exactly what happened.
final class ChangeRecorder {
    let transaction: any StoreTransaction
    private var order: [String] = []
    private var touched: [String: (entity: QualifiedName, id: UUID, before: EntityRecord?, after: EntityRecord?)] = [:]

    init(_ transaction: any StoreTransaction) {
        self.transaction = transaction
    }

    private func key(_ entity: QualifiedName, _ id: UUID) -> String { "\(entity)|\(id)" }

    private func touch(_ entity: QualifiedName, _ id: UUID) throws {
        let key = key(entity, id)
        guard touched[key] == nil else { return }
        let before = try transaction.fetch(entity, id: id)
        touched[key] = (entity, id, before, before)
        order.append(key)
    }

    func save(_ record: EntityRecord) throws {
        try touch(record.entity, record.id)
        try transaction.save(record)
        touched[key(record.entity, record.id)]?.after = record
    }

    func delete(_ entity: QualifiedName, id: UUID) throws {
        try touch(entity, id)
        try transaction.delete(entity, id: id)
        touched[key(entity, id)]?.after = nil
    }

    /// What changed, in the order records were first touched; untouched-in-effect records are left out.
    var changes: [JournalEntry.Change] {
        order.compactMap { key in
            guard let entry = touched[key], entry.before != entry.after else { return nil }
            return JournalEntry.Change(entity: entry.entity, id: entry.id, before: entry.before, after: entry.after)
        }
    }
}
