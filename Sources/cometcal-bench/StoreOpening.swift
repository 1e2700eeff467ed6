import CometStore
import CometSQLiteStore
import CometPostgresStore

/// The bench's one opener: a file opens as SQLite, a `postgresql://` address as PostgreSQL
/// (the scenarios that go through an opener; `--store postgresql` is issue 23's next part).
enum BenchStores {
    static let opener: StoreOpener = .byKind(embedded: SQLiteStore.opener, server: PostgresStore.opener)
}
