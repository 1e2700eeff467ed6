import Synchronization

/// Every SQL text the store hands to SQLite passes here (`Statement.init` and
/// `Connection.execute` are the only two places), so a test can watch all of them at run time
/// and check that no input ever became SQL text (docs/security.md). Nothing watches in
/// production: the cost is one uncontended lock per statement prepared, not per statement run,
/// since prepared statements are cached.
enum SQLAudit {
    private static let observer = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets (or with nil removes) the one observer of this process.
    static func observe(_ body: (@Sendable (String) -> Void)?) {
        observer.withLock { $0 = body }
    }

    static func record(_ sql: String) {
        observer.withLock { $0 }?(sql)
    }
}
