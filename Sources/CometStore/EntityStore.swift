import Foundation
import CometSchema

/// What the engine needs from storage: transactions over entity records, text search,
/// occurrence ranges, and the undo journal. SQLite implements it; a server database can too,
/// without the engine changing.
public protocol EntityStore: AnyObject {
    var registry: Registry { get }
    /// Runs `body` in one transaction: all of its writes land, or none do.
    func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
}

/// A filter on stored records: property equals value (references compare by id).
public struct RecordFilter: Sendable, Hashable {
    public let property: String
    public let value: Value?

    /// `value` nil matches records where the property has no value.
    public static func equals(_ property: String, _ value: Value?) -> RecordFilter {
        RecordFilter(property: property, value: value)
    }
}

extension StoreTransaction {
    public func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter]) throws -> [Occurrence] {
        try occurrences(entity, from: from, to: to, zone: zone, matching: filters, limit: nil)
    }
}

public protocol StoreTransaction {
    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord?
    /// Records matching every filter, ordered by title (then id), at most `limit`.
    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], limit: Int?) throws -> [EntityRecord]
    func count(_ entity: QualifiedName) throws -> Int
    /// Full-text search over the entity's `@searchable` properties, best match first.
    func search(_ entity: QualifiedName, text: String, limit: Int) throws -> [EntityRecord]
    /// Occurrences overlapping [from, to), in start order, at most `limit`. Floating times are read in `zone`.
    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter], limit: Int?) throws -> [Occurrence]
    /// Inserts or replaces the record (validated against the registry first).
    func save(_ record: EntityRecord) throws
    func delete(_ entity: QualifiedName, id: UUID) throws
    /// Every record, of any entity, with a property referring to this one.
    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)]

    func appendJournal(_ entry: JournalEntry) throws -> Int64
    /// The newest entry still done (to undo) or the oldest undone one (to redo).
    func journalEntry(toUndo: Bool) throws -> JournalEntry?
    func setJournal(_ sequence: Int64, undone: Bool) throws
    func journal(limit: Int) throws -> [JournalEntry]
}

/// One performed intent as the undo journal keeps it: every record it touched, before and after.
public struct JournalEntry: Sendable, Hashable {
    public struct Change: Sendable, Hashable {
        public let entity: QualifiedName
        public let id: UUID
        public let before: EntityRecord?
        public let after: EntityRecord?

        public init(entity: QualifiedName, id: UUID, before: EntityRecord?, after: EntityRecord?) {
            self.entity = entity
            self.id = id
            self.before = before
            self.after = after
        }
    }

    public var sequence: Int64?
    public let intent: String
    public let summary: String
    public let created: Date
    public let changes: [Change]
    public var isUndone: Bool

    public init(sequence: Int64? = nil, intent: String, summary: String, created: Date, changes: [Change], isUndone: Bool = false) {
        self.sequence = sequence
        self.intent = intent
        self.summary = summary
        self.created = created
        self.changes = changes
        self.isUndone = isUndone
    }
}
