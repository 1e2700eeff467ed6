import Foundation
import CometStore
import CSQLite

extension SQLiteStore {
    /// Leaves the WAL's checkpoints to someone else (the daemon's checkpointer): by default
    /// SQLite copies the WAL back into the database inside the commit that takes it past 1,000
    /// pages, writing and syncing while the writer waits. After this, this connection's commits
    /// never checkpoint; `committed` is told after each how many pages the WAL holds.
    public func checkpointElsewhere(_ committed: @escaping @Sendable (Int) -> Void) {
        connection.setWALHook(committed)
    }

    /// The store's upkeep off the write path is its checkpoints (see `checkpointElsewhere`).
    public func deferUpkeep(_ committed: @escaping @Sendable (Int) -> Void) {
        checkpointElsewhere(committed)
    }

    /// The WAL size (pages) at which this connection's commits checkpoint; 0 when they do not.
    public func automaticCheckpointPages() throws -> Int {
        guard case .integer(let pages)? = try connection.prepare("PRAGMA wal_autocheckpoint").scalar() else { return 0 }
        return Int(pages)
    }
}

/// A connection of its own that copies the WAL back into the database, beside readers and
/// writers (PASSIVE: it waits for none of them and copies what they no longer need).
public final class WALCheckpointer: StoreMaintainer {
    private let connection: Connection

    public init(path: String) throws {
        connection = try Connection(path: path)
    }

    /// One passive checkpoint: the pages in the WAL, and how many of them are now in the
    /// database. When all are, the next write starts the WAL again from its beginning.
    public func checkpoint() throws -> (walPages: Int, copied: Int) {
        var logged: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied)
        guard rc == SQLITE_OK else { throw connection.error(rc, sql: nil) }
        return (Int(logged), Int(copied))
    }

    public func maintain() throws -> (waiting: Int, done: Int) {
        let (pages, copied) = try checkpoint()
        return (pages, copied)
    }
}
