import Foundation
import CometSchema

/// The change feed: what changed in a store since a point, for clients that keep a copy and
/// ask only for the difference (CalDAV's sync tokens and ctags, RFC 6578).
///
/// Every save or delete, by any path (an intent, an import, undo, redo), gives the record the
/// next number of one sequence that only grows. A record keeps only its newest number, so the
/// feed holds one row per record that exists, plus one per deleted record ("gone") with what it
/// was, so that a client can be told which resource went away. Only the newest
/// `ChangeFeed.goneKept` of those are kept; a point older than the oldest forgotten one cannot
/// be answered (`changes(since:)` is nil) and the client starts over, as RFC 6578 §3.2 allows.
public enum ChangeFeed {
    /// How many deleted records the feed remembers.
    public static let goneKept = 10_000
}

/// One record's newest change in the feed.
public struct StoreChange: Sendable, Hashable {
    /// The change's number in the feed.
    public let sequence: Int64
    public let entity: QualifiedName
    public let id: UUID
    /// The record as it was when it was deleted; nil when it exists.
    public let gone: EntityRecord?

    public init(sequence: Int64, entity: QualifiedName, id: UUID, gone: EntityRecord?) {
        self.sequence = sequence
        self.entity = entity
        self.id = id
        self.gone = gone
    }
}
