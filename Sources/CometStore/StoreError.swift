/// Every failure of the store: a stable code, a message, what the store's engine said (its own
/// code, as text), and the statement involved (never the bound values, which may be personal
/// data).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        case cannotOpen = "store_cannot_open"
        /// The database engine under the store failed in a way none of the other codes names.
        case engineFailure = "store_engine_failure"
        case constraint = "store_constraint"
        case busy = "store_busy"
        case corrupt = "store_corrupt"
        case destructiveMigration = "store_destructive_migration"
        case newerStore = "store_newer_version"
        case invalidData = "store_invalid_data"
        case notFound = "store_not_found"
        case permissions = "store_permissions"
        /// A query would expand one repeating series past `OccurrenceAssembly.maximumExpandedPerSeries`
        /// instances: it is refused whole (asking for a shorter range), never answered in part.
        case tooManyOccurrences = "store_too_many_occurrences"
        /// The work took longer than its time limit and was stopped (and rolled back).
        case timedOut = "store_timed_out"
        /// Opened without migrating (read only), the store was written for other schemas or by
        /// another version and would need a migration first.
        case needsMigration = "store_needs_migration"
        /// The location names a kind of store this build cannot open.
        case unsupportedLocation = "store_unsupported_location"
        /// The database server went away (a restart, a crash, the network): the request was not
        /// carried out, or, when it went away during a commit, its outcome is unknown (the
        /// message says which). The store connects again on its next transaction.
        case unavailable = "store_unavailable"
    }

    public let code: Code
    public let message: String
    /// The engine's own word on the failure ("… code 5"), when it came from the engine.
    public let detail: String?
    /// The statement that failed, when there was one.
    public let statement: String?
    /// The write's COMMIT was sent and its answer never came (the database went away): it may
    /// have been kept or not, and is not run again. Every other failed write changed nothing.
    public var mayHaveCommitted = false

    public init(_ code: Code, _ message: String, detail: String? = nil, statement: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
        self.statement = statement
    }

    public var description: String {
        var text = message
        if let detail { text += " (\(detail))" }
        if let statement { text += " in: \(statement.prefix(200))" }
        return text
    }
}
