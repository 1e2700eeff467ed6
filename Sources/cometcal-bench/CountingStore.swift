import Foundation
import CometSchema
import CometStore

/// The store under test, counting the transactions opened through it (reads and writes): how
/// many times a conversation turn goes to the store, beside how many the engine calls it stands
/// for need. It forwards everything else unchanged; an increment is all it adds.
final class CountingStore: EntityStore {
    let base: any EntityStore
    private(set) var transactions = 0

    init(_ base: any EntityStore) {
        self.base = base
    }

    var registry: Registry { base.registry }

    func transaction<T>(_ body: (any StoreWriter) throws -> T) throws -> T {
        transactions += 1
        return try base.transaction(body)
    }

    func readTransaction<T>(_ body: (any StoreReader) throws -> T) throws -> T {
        transactions += 1
        return try base.readTransaction(body)
    }
}
