import Foundation
import CometSchema
import CometStore

extension IntentEngine {
    /// Restores what the newest undoable intent changed: the same records with the same ids,
    /// values, overrides and everything it deleted. Refuses when a record changed since.
    public func undo() -> IntentOutcome { replay(undo: true) }

    /// Applies again what the last undo took back.
    public func redo() -> IntentOutcome { replay(undo: false) }

    /// The newest entries' sequence numbers and whether each is undone (no records decoded).
    public func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] {
        try store.readTransaction { try $0.journalHeads(limit: limit) }
    }

    public func journalEntry(sequence: Int64) throws -> JournalEntry? {
        try store.readTransaction { try $0.journalEntry(sequence: sequence) }
    }

    /// The newest journal entries, newest first.
    public func history(limit: Int = 20) throws -> [JournalEntry] {
        try store.readTransaction { try $0.journal(limit: limit) }
    }

    private func replay(undo: Bool) -> IntentOutcome {
        do {
            return try store.transaction { transaction in
                guard let entry = try transaction.journalEntry(toUndo: undo), let sequence = entry.sequence else {
                    return .failed(undo ? IntentError(.nothingToUndo, "there is nothing to undo")
                                        : IntentError(.nothingToRedo, "there is nothing to redo"))
                }
                // Only replay onto exactly the state the entry left (or found): never clobber later edits.
                // That state is in the store, so the journal may hold only its digest.
                var found: [EntityRecord?] = []
                found.reserveCapacity(entry.changes.count)
                for change in entry.changes {
                    let current = try transaction.fetch(change.entity, id: change.id)
                    let expected = undo ? change.after : change.before
                    let expectedDigest = undo ? change.afterDigest : change.beforeDigest
                    let matches: Bool
                    if let expectedDigest {
                        matches = current.map { RecordDigest.of($0, registry: registry) } == expectedDigest
                    } else {
                        matches = current == expected
                    }
                    guard matches else {
                        let name = (current ?? expected).map { registry.title(of: $0) } ?? change.id.lowercasedText
                        return .failed(IntentError(.undoConflict, "cannot \(undo ? "undo" : "redo") “\(entry.summary)”: “\(name)” has changed since; nothing was changed"))
                    }
                    let restoring = undo ? (change.before, change.existedBefore) : (change.after, change.existsAfter)
                    guard restoring.0 != nil || !restoring.1 else {
                        throw StoreError(.invalidData, "journal entry \(sequence) does not hold the record \(change.id.lowercasedText) it would restore")
                    }
                    found.append(current)
                }
                // The side written back now leaves the journal for the store; the side taken away
                // (just read) is kept in full, so that the journal can bring it back.
                var replayed: [JournalEntry.Change] = []
                replayed.reserveCapacity(entry.changes.count)
                for (change, current) in zip(entry.changes, found) {
                    replayed.append(undo ? JournalEntry.Change(entity: change.entity, id: change.id, before: change.before, after: current)
                                         : JournalEntry.Change(entity: change.entity, id: change.id, before: current, after: change.after))
                }
                let steps = undo ? replayed.reversed() : replayed
                for change in steps {
                    if let state = undo ? change.before : change.after {
                        try transaction.save(state)
                    } else {
                        try transaction.delete(change.entity, id: change.id)
                    }
                }
                try transaction.setJournal(sequence, undone: undo, changes: replayed)
                let verb = undo ? "Undone" : "Redone"
                let summary = entry.summary.prefix(1).lowercased() + entry.summary.dropFirst()
                let dialog = Dialog(full: "\(verb): \(summary).", supporting: "\(verb): \(summary)")
                let restored = steps.compactMap { undo ? $0.before : $0.after }
                let record = restored.first { $0.entity.name == replayed.first?.entity.name } ?? restored.first
                return .done(IntentResult(intent: QualifiedName(domain: "", name: undo ? "undo" : "redo"), action: nil, record: record,
                                          records: restored, occurrences: [], dialog: dialog, snippet: nil, journalSequence: sequence))
            }
        } catch let error as StoreError {
            return .failed(IntentError(.storage, error.message))
        } catch {
            return .failed(IntentError(.storage, "\(error)"))
        }
    }
}
