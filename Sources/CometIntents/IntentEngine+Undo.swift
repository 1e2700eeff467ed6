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
                for change in entry.changes {
                    let current = try transaction.fetch(change.entity, id: change.id)
                    let expected = undo ? change.after : change.before
                    guard current == expected else {
                        let name = (current ?? expected).map { registry.title(of: $0) } ?? change.id.lowercasedText
                        return .failed(IntentError(.undoConflict, "cannot \(undo ? "undo" : "redo") “\(entry.summary)”: “\(name)” has changed since; nothing was changed"))
                    }
                }
                let steps = undo ? entry.changes.reversed() : entry.changes
                for change in steps {
                    if let state = undo ? change.before : change.after {
                        try transaction.save(state)
                    } else {
                        try transaction.delete(change.entity, id: change.id)
                    }
                }
                try transaction.setJournal(sequence, undone: undo)
                let verb = undo ? "Undone" : "Redone"
                let summary = entry.summary.prefix(1).lowercased() + entry.summary.dropFirst()
                let dialog = Dialog(full: "\(verb): \(summary).", supporting: "\(verb): \(summary)")
                let restored = steps.compactMap { undo ? $0.before : $0.after }
                let record = restored.first { $0.entity.name == entry.changes.first?.entity.name } ?? restored.first
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
