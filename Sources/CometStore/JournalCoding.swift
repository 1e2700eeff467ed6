import Foundation
import CometSchema

/// The journal's rules that are not about where it is kept: an entry's changes as JSON, the
/// side of each change that is in the store's tables kept as a digest only (the after of a done
/// entry, the before of an undone one: `storedSide`), the other side in full so that undo and
/// redo can put it back. A new entry forgets the undone ones (redo only follows undo): each
/// store's `appendJournal` does that.
public enum JournalCoding {
    /// Which side of a change the store holds in its tables for an entry done or undone.
    public static func storedSide(undone: Bool) -> StoredSide { undone ? .before : .after }

    /// Which side of a change is in the store's tables, and so kept as a digest only.
    public enum StoredSide: Sendable { case before, after }

    /// The change as the journal keeps it: the side in the store's tables (`side`) as a digest
    /// only, the other in full; a side known only by its digest where it must be in full is
    /// refused (the journal could not put it back).
    public static func encode(_ change: JournalEntry.Change, inStore side: StoredSide, registry: Registry) throws -> JSONValue {
        var object = JSONObject()
        object["entity"] = .string(change.entity.description)
        object["id"] = .string(change.id.lowercasedText)
        func put(_ name: String, _ record: EntityRecord?, _ digest: UInt64?, inStore: Bool) throws {
            if inStore {
                if let digest = record.map({ RecordDigest.of($0, registry: registry) }) ?? digest {
                    object[name + "Digest"] = .string(String(digest, radix: 16))
                }
            } else if let record {
                object[name] = .object(registry.encode(record))
            } else if digest != nil {
                throw StoreError(.invalidData, "the journal would lose the \(name) of \(change.entity.name) \(change.id.lowercasedText): only its digest is known")
            }
        }
        try put("before", change.before, change.beforeDigest, inStore: side == .before)
        try put("after", change.after, change.afterDigest, inStore: side == .after)
        return .object(object)
    }

    /// A change read back with the schemas as they are now; damage and records that no longer
    /// fit are said, never dropped.
    public static func decode(_ json: JSONValue, registry: Registry) throws -> JournalEntry.Change {
        guard let entityText = json["entity"]?.stringValue, let idText = json["id"]?.stringValue, let id = UUID(parsing: idText) else {
            throw StoreError(.invalidData, "a journal change is damaged")
        }
        let parts = entityText.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let definition = registry.entity(QualifiedName(domain: parts[0], name: parts[1])) else {
            throw StoreError(.invalidData, "the journal refers to '\(entityText)', which the schema no longer has")
        }
        func record(_ value: JSONValue?) throws -> EntityRecord? {
            guard case .object(var object)? = value else { return nil }
            object["id"] = nil
            do {
                return EntityRecord(entity: definition.name, id: id, values: try registry.decodeProperties(object, of: definition))
            } catch {
                throw StoreError(.invalidData, "a journal record of \(definition.name.name) no longer fits the schema: \(error)")
            }
        }
        func digest(_ value: JSONValue?) throws -> UInt64? {
            guard let value else { return nil }
            guard let text = value.stringValue, let digest = UInt64(text, radix: 16) else {
                throw StoreError(.invalidData, "a journal change of \(definition.name.name) \(idText) has a damaged digest")
            }
            return digest
        }
        // Entries written before digests hold both sides in full (and no digest keys).
        return JournalEntry.Change(entity: definition.name, id: id, before: try record(json["before"]), after: try record(json["after"]),
                                   beforeDigest: try digest(json["beforeDigest"]), afterDigest: try digest(json["afterDigest"]))
    }
}

extension JournalCoding {
    /// An entry's time as both stores keep it (UTC text), read back; a damaged one names the entry.
    public static func entryTime(_ text: String, of sequence: Int64) throws -> Date {
        guard let instant = (try? DateTimeValue(parsing: text))?.instant else {
            throw StoreError(.invalidData, "journal entry \(sequence) is damaged: its time '\(text.prefix(40))' is not a date and time")
        }
        return instant
    }
}

extension JournalCoding {
    /// An entry from its stored row, as both stores keep it: the changes as one JSON array,
    /// each read by `decode`; a damaged array names the entry.
    public static func entry(sequence: Int64, state: String, intent: String, summary: String, created: String, changes: String,
                             decode: (JSONValue) throws -> JournalEntry.Change) throws -> JournalEntry {
        guard case .array(let items) = try JSONParser.parse(changes) else {
            throw StoreError(.invalidData, "journal entry \(sequence) is damaged")
        }
        return JournalEntry(sequence: sequence, intent: intent, summary: summary, created: try entryTime(created, of: sequence),
                            changes: try items.map(decode), isUndone: state == "undone")
    }
}
