import CometStore
import CometSQLiteStore
import CometPostgresStore

/// The command line's composition root for storage: the one place in `cometcal` that names the
/// databases it is built with. A file (or `:memory:`) opens as SQLite, a `postgresql://` address
/// as PostgreSQL (docs/postgresql.md). Every command, completion and the conversation's script
/// world open stores through `opener`.
enum StoreFactory {
    static let opener: StoreOpener = .byKind(embedded: SQLiteStore.opener, server: PostgresStore.opener)
}
