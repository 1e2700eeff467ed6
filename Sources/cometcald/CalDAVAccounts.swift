import Foundation
import CometSchema
import CometStore
import CometIntents
import CometDaemon
import CometHTTP

/// Which store serves each CalDAV user (docs/caldav.md, "Users and stores"): the owner's
/// calendars are the daemon's own store, served through its engines, so a change from a phone
/// reaches the socket's subscribers at once; every other user of the password file has a store
/// of their own, opened on first use and written one request at a time: `users/NAME.sqlite`
/// beside a store file, or their own rows (`cometcal_user=NAME`) in the daemon's PostgreSQL
/// database. Nobody reads another user's store: the service refuses any path but the user's own.
final class CalDAVAccounts: @unchecked Sendable {
    private let owner: String
    private let service: DaemonService
    private let folder: String
    /// The daemon's own store: for PostgreSQL, other users' stores are the same database with
    /// their own owner.
    private let ownerStore: StoreLocation
    private let timeZone: TimeZone
    /// How stores are opened: the composition root's (main.swift) choice of database.
    private let opener: StoreOpener
    private let lock = NSLock()
    private var others: [String: (engine: IntentEngine, lock: NSLock)] = [:]

    init(owner: String, service: DaemonService, ownerStore: StoreLocation, opener: StoreOpener, timeZone: TimeZone) {
        self.owner = owner
        self.opener = opener
        self.service = service
        self.ownerStore = ownerStore
        let base = ownerStore.filePath.map { ($0 as NSString).deletingLastPathComponent } ?? FileManager.default.currentDirectoryPath
        folder = (base as NSString).appendingPathComponent("users")
        self.timeZone = timeZone
    }

    /// The store file of a user who is not the owner.
    func storePath(of user: String) -> String {
        (folder as NSString).appendingPathComponent(user + ".sqlite")
    }

    func serve(_ user: String, writes: Bool, _ body: (IntentEngine) throws -> HTTPResponse) throws -> HTTPResponse? {
        if user == owner { return try service.withEngine(writes: writes, body) }
        // Only users of the password file reach here (the server authenticated them), and
        // their names are safe file names (PasswordFile.nameRule).
        guard PasswordFile.nameProblem(user) == nil else { return nil }
        let account = try lock.withLock { () throws -> (engine: IntentEngine, lock: NSLock) in
            if let open = others[user] { return open }
            let location: StoreLocation
            if let database = ownerStore.database(forOwner: user) {
                location = database
            } else {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                location = .file(storePath(of: user))
            }
            let store = try opener.open(location, registry: service.registry)
            let engine = IntentEngine(store: store, timeZone: timeZone)
            engine.resourceCache = ResourceCache()
            let opened = (engine, NSLock())
            others[user] = opened
            return opened
        }
        return try account.lock.withLock { try body(account.engine) }
    }
}
