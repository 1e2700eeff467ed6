/// Every failure of the store: a stable code, a message, and the SQL involved (never the bound
/// values, which may be personal data).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        case cannotOpen = "store_cannot_open"
        case sqlite = "store_sqlite"
        case constraint = "store_constraint"
        case busy = "store_busy"
        case corrupt = "store_corrupt"
        case destructiveMigration = "store_destructive_migration"
        case newerStore = "store_newer_version"
        case invalidData = "store_invalid_data"
        case notFound = "store_not_found"
        case permissions = "store_permissions"
        /// The work took longer than its time limit and was stopped (and rolled back).
        case timedOut = "store_timed_out"
    }

    public let code: Code
    public let message: String
    /// SQLite's extended result code, when the failure came from SQLite.
    public let resultCode: Int32?
    public let sql: String?

    public init(_ code: Code, _ message: String, resultCode: Int32? = nil, sql: String? = nil) {
        self.code = code
        self.message = message
        self.resultCode = resultCode
        self.sql = sql
    }

    public var description: String {
        var text = message
        if let resultCode { text += " (SQLite code \(resultCode))" }
        if let sql { text += " in: \(sql.prefix(200))" }
        return text
    }
}
