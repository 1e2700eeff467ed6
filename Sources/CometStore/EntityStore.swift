import Foundation
import CometSchema

/// What the engine needs from storage: transactions over entity records, text search,
/// occurrence ranges, and the undo journal. The embedded store implements it; a server database
/// can too, without the engine changing.
///
/// Reads and writes have separate types: a read's body gets a `StoreReader`, which has no
/// method that changes anything, so a write inside a read does not compile.
public protocol EntityStore: AnyObject {
    var registry: Registry { get }
    /// Runs `body` in one transaction that may write: all of its writes land, or none do.
    func transaction<T>(_ body: (any StoreWriter) throws -> T) throws -> T
    /// Runs `body` as a read: one consistent view, concurrent with other readers and with a
    /// writer, never taking the write lock.
    func readTransaction<T>(_ body: (any StoreReader) throws -> T) throws -> T
    /// Runs `body` with a time limit on the store's work (stores that cannot stop work ignore it).
    func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T
}

extension EntityStore {
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T { try body() }
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

extension StoreReader {
    /// Records matching every filter, by title (then id), at most `limit`.
    public func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], limit: Int?) throws -> [EntityRecord] {
        try fetchAll(entity, matching: filters, text: nil, limit: limit, offset: 0)
    }

    public func count(_ entity: QualifiedName) throws -> Int {
        try count(entity, matching: [], text: nil)
    }

    /// Full-text search over the entity's `@searchable` properties, best match first, at most `limit`.
    public func search(_ entity: QualifiedName, text: String, limit: Int) throws -> [EntityRecord] {
        try fetchAll(entity, matching: [], text: text, limit: limit, offset: 0)
    }

    public func page(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage {
        try pageThenCount(entity, matching: filters, text: text, limit: limit, offset: offset)
    }

    /// The default `page`: `fetchAll`, then `count` when the page does not tell the total.
    public func pageThenCount(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage {
        let records = try fetchAll(entity, matching: filters, text: text, limit: limit, offset: offset)
        // A page that came back short, and not empty, ends the results: its end is the total.
        let isLast = records.count < (limit ?? Int.max) && (offset == 0 || !records.isEmpty)
        return RecordPage(records: records, total: isLast ? offset + records.count : try count(entity, matching: filters, text: text))
    }

    public func occurrences(_ entity: QualifiedName, spans: [DateInterval], zone: TimeZone, matching filters: [RecordFilter]) throws -> [[Occurrence]] {
        try spans.map { try occurrences(entity, from: $0.start, to: $0.end, zone: zone, matching: filters) }
    }

    /// Every occurrence overlapping [from, to) of the records matching the filters.
    public func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter]) throws -> [Occurrence] {
        try occurrences(entity, from: from, to: to, zone: zone, matching: filters, text: nil, limit: nil, offset: 0).occurrences
    }
}

/// One page of occurrences, and how many the whole query has.
public struct OccurrencePage: Sendable, Hashable {
    public let occurrences: [Occurrence]
    public let total: Int

    public init(occurrences: [Occurrence], total: Int) {
        self.occurrences = occurrences
        self.total = total
    }
}

/// One page of records, and how many the whole query selects.
public struct RecordPage: Sendable, Hashable {
    public let records: [EntityRecord]
    public let total: Int

    public init(records: [EntityRecord], total: Int) {
        self.records = records
        self.total = total
    }
}

/// The store as a read sees it: one consistent view of records, occurrences, the journal and
/// the alarm bookkeeping. Nothing here changes the store.
public protocol StoreReader {
    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord?
    /// Records matching every filter and, when `text` is given, the full-text search over the
    /// entity's `@searchable` properties: best match first for text, else by title (then id).
    /// `limit` of them (all when nil) after skipping `offset`; the order is total, so pages
    /// neither overlap nor leave gaps.
    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord]
    /// How many records `fetchAll` selects before limit and offset, counted without reading them.
    func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int
    /// `fetchAll`'s page with `count`'s total: what a search answers. A server store can count
    /// while it pages, in one request; the default pages, then counts unless the page ended
    /// the results.
    func page(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage
    /// Occurrences overlapping [from, to) of the records `fetchAll` would select, in start order
    /// (then record id): `limit` of them (all when nil) after skipping `offset`, with the total.
    /// Floating times are read in `zone`. `OccurrenceAssembly` holds the rules every store follows.
    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage
    /// The unpaged occurrences of each span, in order: what a check over many short spans (a
    /// series' own occurrences, each against everything else) asks. A server store answers all
    /// of them in one request; the default asks span by span.
    func occurrences(_ entity: QualifiedName, spans: [DateInterval], zone: TimeZone, matching filters: [RecordFilter]) throws -> [[Occurrence]]
    /// Every record, of any entity, with a property referring to this one.
    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)]

    /// The newest entry still done (to undo) or the oldest undone one (to redo).
    func journalEntry(toUndo: Bool) throws -> JournalEntry?
    /// The newest entries, newest first, for listing: their `changes` are left empty (an import
    /// holds thousands); `changeCount` says how many there are.
    func journal(limit: Int) throws -> [JournalEntry]
    /// The newest entries' sequence numbers and whether each is undone, without their changes
    /// (cheap: for watching the journal).
    func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)]
    func journalEntry(sequence: Int64) throws -> JournalEntry?

    /// Whether this alarm was fired already.
    func alarmFired(_ key: AlarmKey) throws -> Bool
    /// The snoozed alarms whose moment is in [from, to), with their occurrence as stored.
    func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)]
    /// The occurrence (seconds since 1970) of the alarm of a record fired last, if any.
    func lastFiredOccurrence(of record: UUID) throws -> Int64?
    /// Small facts the store keeps about itself (`alarms.checkedUntil`).
    func meta(_ key: String) throws -> String?
    /// Every fact set with `setMeta`, by key; not the store's own bookkeeping (its layout, its
    /// window), which belongs to the store and is not copied to another.
    func metaEntries() throws -> [(key: String, value: String)]
    /// Every alarm recorded as fired, with when and whether late, in key order.
    func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)]

    /// The newest number of the change feed (`ChangeFeed`); 0 before the first change.
    func changeHead() throws -> Int64
    /// Every record saved or deleted after `since`, each once with its newest change, in the
    /// order of those changes; nil when `since` is before what the feed still remembers or
    /// after its head (the caller starts over).
    func changes(since: Int64) throws -> [StoreChange]?
}

/// The store inside a transaction that may write: everything a reader has, and the changes.
public protocol StoreWriter: StoreReader {
    /// Inserts or replaces the record (validated against the registry first).
    func save(_ record: EntityRecord) throws
    /// Saves a record the caller made with a new id, never stored (an import's new records, a
    /// created event): a store may skip what only a record stored before needs. The default
    /// saves it as any record.
    func saveNew(_ record: EntityRecord) throws
    func delete(_ entity: QualifiedName, id: UUID) throws

    func appendJournal(_ entry: JournalEntry) throws -> Int64
    /// Marks an entry undone or done again, with its changes as they now stand: `changes` must
    /// hold in full the side that is no longer in the store (the before of an undone entry, the
    /// after of a redone one), so that the journal can put it back.
    func setJournal(_ sequence: Int64, undone: Bool, changes: [JournalEntry.Change]) throws

    /// Records an alarm as fired; false when it already was (so it is not fired again).
    func recordAlarm(_ key: AlarmKey, firedAt: Date, late: Bool) throws -> Bool
    /// A one-shot alarm of one occurrence, put off to a moment (a snooze), kept until it fires.
    func addSnoozedAlarm(_ key: AlarmKey, occurrence: String) throws
    func setMeta(_ key: String, _ value: String) throws
}

extension StoreWriter {
    public func saveNew(_ record: EntityRecord) throws { try save(record) }
}

/// One alarm of one occurrence: the record, the occurrence's start and the trigger's moment,
/// in seconds since 1970.
public struct AlarmKey: Sendable, Hashable {
    public let record: UUID
    public let occurrence: Int64
    public let trigger: Int64

    public init(record: UUID, occurrence: Int64, trigger: Int64) {
        self.record = record
        self.occurrence = occurrence
        self.trigger = trigger
    }
}

/// One performed intent or import as the undo journal keeps it: every record it touched, before
/// and after.
///
/// A record's state that is in the store's tables anyway (the after of a done entry, the before of
/// an undone one) is kept as a digest only, enough to see whether the record changed since: an
/// import of 10,000 events does not store each event a second time in the journal.
public struct JournalEntry: Sendable, Hashable {
    public struct Change: Sendable, Hashable {
        public let entity: QualifiedName
        public let id: UUID
        /// The record before, when the journal holds it in full.
        public let before: EntityRecord?
        /// The record after, when the journal holds it in full.
        public let after: EntityRecord?
        /// The digest of the record before, when only that is kept (it is in the store).
        public let beforeDigest: UInt64?
        /// The digest of the record after, when only that is kept (it is in the store).
        public let afterDigest: UInt64?

        public init(entity: QualifiedName, id: UUID, before: EntityRecord?, after: EntityRecord?,
                    beforeDigest: UInt64? = nil, afterDigest: UInt64? = nil) {
            self.entity = entity
            self.id = id
            self.before = before
            self.after = after
            self.beforeDigest = before == nil ? beforeDigest : nil
            self.afterDigest = after == nil ? afterDigest : nil
        }

        /// Whether the record existed before the change (a nil before alone does not say so).
        public var existedBefore: Bool { before != nil || beforeDigest != nil }
        /// Whether the record exists after the change.
        public var existsAfter: Bool { after != nil || afterDigest != nil }
    }

    public var sequence: Int64?
    public let intent: String
    public let summary: String
    public let created: Date
    public let changes: [Change]
    public var isUndone: Bool
    /// How many records the entry changed (also when `changes` was not read, in a listing).
    public let changeCount: Int

    public init(sequence: Int64? = nil, intent: String, summary: String, created: Date, changes: [Change], isUndone: Bool = false,
                changeCount: Int? = nil) {
        self.sequence = sequence
        self.intent = intent
        self.summary = summary
        self.created = created
        self.changes = changes
        self.isUndone = isUndone
        self.changeCount = changeCount ?? changes.count
    }
}

/// The digest the journal keeps of a record that is in the store: 64-bit FNV-1a over its JSON
/// shape (type marks, keys and values in schema order). It only has to notice a change made since
/// (not resist an attacker). It walks the JSON value instead of writing it out as text: writing
/// the text made the digest 11% of a 10,000-event import.
public enum RecordDigest {
    public static func of(_ record: EntityRecord, registry: Registry) -> UInt64 {
        var digest = FNV1a()
        digest.add(.object(registry.encode(record)))
        return digest.value
    }

    /// 64-bit FNV-1a, for digests that only have to notice a change (ETags too).
    public struct FNV1a {
        public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        public init() {}

        public mutating func add(byte: UInt8) {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }

        public mutating func add(bits: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }

        /// The text, then 0xFF, a byte UTF-8 never has: "ab" + "c" and "a" + "bc" differ.
        public mutating func add(text: String) {
            for byte in text.utf8 { add(byte: byte) }
            add(byte: 0xFF)
        }

        /// A mark for each kind, so that `1`, `1.0`, `"1"` and `true` all differ.
        mutating func add(_ json: JSONValue) {
            switch json {
            case .null: add(byte: 0)
            case .bool(let flag): add(byte: flag ? 2 : 1)
            case .int(let number): add(byte: 3); add(bits: UInt64(bitPattern: Int64(number)))
            case .double(let number): add(byte: 4); add(bits: number.bitPattern)
            case .string(let text): add(byte: 5); add(text: text)
            case .array(let items):
                add(byte: 6)
                for item in items { add(item) }
                add(byte: 7)
            case .object(let object):
                add(byte: 8)
                for (key, item) in object {
                    add(text: key)
                    add(item)
                }
                add(byte: 9)
            }
        }
    }
}
