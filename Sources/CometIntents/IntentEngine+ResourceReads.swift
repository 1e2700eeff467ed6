import Foundation
import CometSchema
import CometStore
import CometICal

/// Reading a collection's resources as a sync client sees them: by name, by UID, or all, with
/// their ETags and texts, through the engine's `ResourceCache` when it has one.
extension IntentEngine {
    /// Every resource of a collection, by name.
    public func resources(in calendar: UUID) throws -> [CalendarResource] {
        try reading(calendar) { reading in try reading.all(withText: false).map { reading.resource($0.uid, $0.entry) } }
    }

    /// The resources with these names and their text, as a GET returns it; a name with no
    /// resource is left out.
    public func resourceTexts(in calendar: UUID, named names: [String]) throws -> [(resource: CalendarResource, text: String)] {
        try reading(calendar) { reading in
            try names.compactMap { name in try reading.uid(named: name).flatMap { try reading.withText($0) } }
        }
    }

    /// Every resource of a collection with its text, by name, or those of these UIDs: the
    /// calendar's records read once, each text and ETag made once (or taken from the cache).
    /// What a calendar-query answers from.
    public func resourceTexts(in calendar: UUID, uids: Set<String>? = nil) throws -> [(resource: CalendarResource, text: String)] {
        try reading(calendar) { reading in
            let found: [(resource: CalendarResource, text: String)] = if let uids {
                try uids.compactMap { try reading.withText($0) }
            } else {
                try reading.all(withText: true).compactMap { uid, entry in entry.text.map { (resource: reading.resource(uid, entry), text: $0) } }
            }
            return found.sorted { $0.resource.name < $1.resource.name }
        }
    }

    /// Reads every collection whole into the cache (a daemon does it once at start, off the
    /// request path, so that a client's first full read is as fast as the next ones): how many
    /// resources it holds then. Nothing without a cache.
    @discardableResult
    public func fillResourceCache() throws -> Int {
        guard resourceCache != nil else { return 0 }
        return try calendarCollections().reduce(0) { $0 + (try resources(in: $1.id).count) }
    }

    /// What a front end made of this resource before (its `key` says of what, such as a CalDAV
    /// response with some properties), while the resource is unchanged; nil without a cache.
    public func keptRendering(of resource: CalendarResource, in calendar: UUID, key: String) -> [UInt8]? {
        resourceCache?.entry(resource.uid, in: calendar, etag: resource.etag)?.renderings.withLock { $0[key] }
    }

    /// Keeps what a front end made of this resource, until the resource changes.
    public func keepRendering(_ bytes: [UInt8], of resource: CalendarResource, in calendar: UUID, key: String) {
        guard let entry = resourceCache?.entry(resource.uid, in: calendar, etag: resource.etag) else { return }
        entry.renderings.withLock { kept in
            if kept[key] == nil, kept.count >= ResourceCache.renderingsKept { return }
            kept[key] = bytes
        }
    }

    /// How many resources the cache holds, for tests (0 without one).
    var cachedResourceCount: Int { resourceCache?.count ?? 0 }

    private func reading<T>(_ calendar: UUID, _ body: (inout ResourceReading) throws -> T) throws -> T {
        try store.readTransaction { transaction in
            var reading = try ResourceReading(engine: self, transaction: transaction, collection: calendar)
            let result = try body(&reading)
            reading.finish()
            return result
        }
    }

    /// Drops from the cache's state what one change of the feed made stale: the resource the
    /// record was in, and the one it is in now.
    func follow(_ change: StoreChange, in state: inout ResourceCache.State, exported: [QualifiedName], _ transaction: any StoreReader) throws {
        guard exported.contains(change.entity), let entity = registry.entity(change.entity) else { return }
        if let place = state.places[change.id] { state.drop(place) }
        guard let record = try change.gone ?? transaction.fetch(change.entity, id: change.id),
              let collection = collectionID(of: record, entity: entity) else { return }
        state.drop(ResourceCache.Place(collection: collection, uid: uid(of: record, entity: entity) ?? record.id.lowercasedText))
    }
}

/// One read transaction's view of a collection's resources. With a cache, its state is brought up
/// to the transaction's point first and kept at the end with what this read added.
struct ResourceReading {
    private let engine: IntentEngine
    private let transaction: any StoreReader
    private let collection: UUID
    private let names: [String: String]
    private let uidsByName: [String: String]
    private var state: ResourceCache.State
    private let cache: ResourceCache?

    init(engine: IntentEngine, transaction: any StoreReader, collection: UUID) throws {
        self.engine = engine
        self.transaction = transaction
        self.collection = collection
        names = try engine.resourceNames(collection, transaction)
        uidsByName = Dictionary(names.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        let head = try transaction.changeHead()
        let exported = engine.exportedEntities.map(\.name)
        if let cache = engine.resourceCache,
           let state = try cache.state(at: head, changes: { try transaction.changes(since: $0) },
                                       follow: { change, state in try engine.follow(change, in: &state, exported: exported, transaction) }) {
            self.state = state
            self.cache = cache
        } else {
            state = ResourceCache.State(head: head)
            cache = nil
        }
    }

    func finish() { cache?.keep(state) }

    func resource(_ uid: String, _ entry: ResourceCache.Entry) -> CalendarResource {
        CalendarResource(name: names[uid] ?? entry.standardName, uid: uid, etag: entry.etag, components: entry.components)
    }

    /// The resource of this UID with its text, if the collection has it.
    mutating func withText(_ uid: String) throws -> (resource: CalendarResource, text: String)? {
        guard let entry = try entry(uid, withText: true), let text = entry.text else { return nil }
        return (resource(uid, entry), text)
    }

    /// The UID a name stands for: a name a client chose (kept per calendar), else the name made
    /// from its UID; nil when the collection has no such resource.
    mutating func uid(named name: String) throws -> String? {
        if let uid = uidsByName[name] { return try entry(uid, withText: false) == nil ? nil : uid }
        guard name.hasSuffix(".ics") else { return nil }
        let stem = String(name.dropLast(4))
        if !stem.contains("~"), let uid = stem.removingPercentEncoding, Vdir.safeName(uid) == stem {
            guard names[uid] == nil else { return nil }
            return try entry(uid, withText: false) == nil ? nil : uid
        }
        // A long UID's name ends in a hash and cannot be read back: look among the calendar's.
        return try all(withText: false).first { Vdir.safeName($0.uid) == stem && names[$0.uid] == nil }?.uid
    }

    /// The resource of this UID, from the cache when it is there (with its text when asked).
    mutating func entry(_ uid: String, withText: Bool) throws -> ResourceCache.Entry? {
        let kept = state.collections[collection]
        if let entry = kept?.entries[uid], !(kept?.stale.contains(uid) ?? false), entry.text != nil || !withText { return entry }
        if kept?.isComplete == true, kept?.entries[uid] == nil, !(kept?.stale.contains(uid) ?? false) { return nil }
        let records = try engine.members(uid: uid, of: collection, transaction)
        guard !records.isEmpty else {
            state.forget(uid, in: collection)
            return nil
        }
        let entry = try make(uid, records, withText: withText)
        state.keep(entry, at: ResourceCache.Place(collection: collection, uid: uid))
        return entry
    }

    /// Every resource of the collection. A complete collection in the cache reads only what
    /// changed since; otherwise the collection's records are read once and made into resources.
    mutating func all(withText: Bool) throws -> [(uid: String, entry: ResourceCache.Entry)] {
        if let kept = state.collections[collection], kept.isComplete {
            for uid in kept.stale { _ = try entry(uid, withText: withText) }
            if withText {
                for (uid, entry) in state.collections[collection]?.entries ?? [:] where entry.text == nil { _ = try self.entry(uid, withText: true) }
            }
            return (state.collections[collection]?.entries ?? [:]).map { ($0.key, $0.value) }
        }
        let previous = state.collections[collection]?.entries ?? [:]
        for uid in previous.keys { state.forget(uid, in: collection) }
        var found: [(uid: String, entry: ResourceCache.Entry)] = []
        for (uid, records) in try engine.members(of: collection, transaction) {
            let reusable = previous[uid].flatMap { kept in
                kept.recordIDs == records.map(\.id) && (kept.text != nil || !withText) ? kept : nil
            }
            let entry = try reusable ?? make(uid, records, withText: withText)
            state.keep(entry, at: ResourceCache.Place(collection: collection, uid: uid))
            found.append((uid, entry))
        }
        state.collections[collection, default: ResourceCache.Collection()].isComplete = true
        return found
    }

    /// With a cache, the text is always made: it is kept for the next read.
    private func make(_ uid: String, _ records: [EntityRecord], withText: Bool) throws -> ResourceCache.Entry {
        cache?.countMade()
        return ResourceCache.Entry(recordIDs: records.map(\.id), standardName: engine.resourceName(uid, [:]), etag: engine.etag(of: records),
                            text: withText || cache != nil ? try engine.text(of: records) : nil,
                            components: engine.components(of: records))
    }
}
