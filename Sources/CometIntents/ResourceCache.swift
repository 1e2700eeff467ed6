import Foundation
import Synchronization
import CometSchema
import CometStore

/// Each calendar resource's text and ETag as a GET writes them, kept between requests by the
/// engines that serve one store (the CalDAV server's), as of one point of the store's change feed.
///
/// Why: writing each event's text again, and digesting its records for the ETag, were 57% of a
/// calendar-query's CPU (docs/PERFORMANCE.md, "CalDAV"). Why it cannot go stale: a resource's
/// text and ETag depend on its own records only (the writer reads nothing else from the store),
/// and every record saved or deleted, by any engine or process on the store, is in the change
/// feed. Before each use, the feed's changes since the cache's point are read in the reader's own
/// transaction and the resources they touch are dropped; a feed that no longer reaches back that
/// far, or a bulk change (an import), empties it. A reader whose view is older than the cache's
/// point does not use it.
public final class ResourceCache: Sendable {
    /// One resource as of the cache's point: its records, ETag, text and component names. A
    /// class: a read of 4,000 resources passes each along several times, one retain each.
    final class Entry: Sendable {
        let recordIDs: [UUID]
        /// The name made from its UID (a client's own name for it is kept elsewhere).
        let standardName: String
        let etag: String
        let text: String?
        let components: Set<String>
        /// What front ends made of the text (a CalDAV server, its `<D:response>`), by their own
        /// key: they go with the entry when the resource changes. At most `renderingsKept`.
        let renderings = Mutex<[String: [UInt8]]>([:])

        init(recordIDs: [UUID], standardName: String, etag: String, text: String?, components: Set<String>) {
            self.recordIDs = recordIDs
            self.standardName = standardName
            self.etag = etag
            self.text = text
            self.components = components
        }
    }

    /// Where a record is a member: its collection and its resource's UID.
    struct Place: Sendable, Hashable {
        let collection: UUID
        let uid: String
    }

    struct Collection: Sendable {
        var entries: [String: Entry] = [:]
        /// Whether `entries` holds every resource of the collection (but those in `stale`).
        var isComplete = false
        /// UIDs of a complete collection whose resources changed: read again before use.
        var stale: Set<String> = []
    }

    struct State: Sendable {
        /// The change feed's point the entries are valid at.
        var head: Int64
        var collections: [UUID: Collection] = [:]
        /// Every cached record's place, to find what a change to it makes stale.
        var places: [UUID: Place] = [:]

        /// Drops the resource at `place`; a complete collection reads it again when next used.
        mutating func drop(_ place: Place) {
            guard var collection = collections[place.collection] else { return }
            if let entry = collection.entries.removeValue(forKey: place.uid) {
                for id in entry.recordIDs where places[id] == place { places.removeValue(forKey: id) }
            }
            if collection.isComplete { collection.stale.insert(place.uid) }
            collections[place.collection] = collection
        }

        mutating func keep(_ entry: Entry, at place: Place) {
            collections[place.collection, default: Collection()].entries[place.uid] = entry
            collections[place.collection]?.stale.remove(place.uid)
            for id in entry.recordIDs { places[id] = place }
        }

        mutating func forget(_ uid: String, in collection: UUID) {
            drop(Place(collection: collection, uid: uid))
            collections[collection]?.stale.remove(uid)
        }
    }

    /// Kinds of rendering kept per resource (the property selections clients ask for): enough
    /// for the few clients of one person, bounded for anything stranger.
    static let renderingsKept = 4

    /// The resource of this UID in this collection when the cache holds it with this ETag.
    func entry(_ uid: String, in collection: UUID, etag: String) -> Entry? {
        state.withLock { current in
            current?.collections[collection]?.entries[uid].flatMap { $0.etag == etag ? $0 : nil }
        }
    }

    /// More changes than this at once (an import) empty the cache rather than being followed one
    /// by one: reading each changed record again would cost more than starting over.
    static let largestChangeFollowed = 2_000

    private let state = Mutex<State?>(nil)
    /// How many resources' texts were made for the cache, for tests.
    private let made = Atomic<Int>(0)

    public init() {}

    /// The cache brought up to `head`, the point of the caller's read transaction: nil when the
    /// cache is ahead of it (that reader's view is older; it works without the cache).
    /// `follow` drops what each change since the cache's point touched.
    func state(at head: Int64, changes: (Int64) throws -> [StoreChange]?,
               follow: (StoreChange, inout State) throws -> Void) rethrows -> State? {
        guard var current = state.withLock({ $0 }) else { return State(head: head) }
        if current.head > head { return nil }
        if current.head < head {
            guard let since = try changes(current.head), since.count <= Self.largestChangeFollowed else { return State(head: head) }
            for change in since { try follow(change, &current) }
            current.head = head
        }
        return current
    }

    /// Keeps `updated` unless another reader has already kept a newer state.
    func keep(_ updated: State) {
        state.withLock { current in
            if let current, current.head > updated.head { return }
            current = updated
        }
    }

    func countMade() { made.add(1, ordering: .relaxed) }

    var textsMade: Int { made.load(ordering: .relaxed) }

    /// How many resources are cached, for tests.
    var count: Int {
        state.withLock { $0?.collections.values.reduce(0) { $0 + $1.entries.count } ?? 0 }
    }
}
