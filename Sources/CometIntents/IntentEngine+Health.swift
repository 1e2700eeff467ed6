import Foundation
import CometSchema
import CometStore

/// What a health check found by reading the store: how many records each indexed entity has,
/// and the first thing that could not be read, if any.
public struct StoreHealth: Sendable {
    public let records: [(entity: QualifiedName, count: Int)]
    public let problem: String?

    public var isHealthy: Bool { problem == nil }
}

extension IntentEngine {
    /// Reads the store as a client would, in a read transaction: that it is a CometCal store
    /// laid out for these schemas (its `_meta`), and the first `page` records of each indexed
    /// entity, every value decoded. A damaged record is named, never skipped.
    public func checkStore(page: Int = 20) -> StoreHealth {
        var counts: [(entity: QualifiedName, count: Int)] = []
        do {
            try store.readTransaction { transaction in
                guard try transaction.meta("layout") != nil else {
                    throw StoreError(.invalidData, "the store has no layout record in _meta; it is not a CometCal store, or it is damaged")
                }
                for entity in registry.allEntities where entity.kind == .indexed {
                    counts.append((entity.name, try transaction.count(entity.name)))
                    _ = try transaction.fetchAll(entity.name, matching: [], limit: page)
                }
            }
            return StoreHealth(records: counts, problem: nil)
        } catch {
            return StoreHealth(records: counts, problem: "\(error)")
        }
    }
}
