import Foundation
import CometSchema

/// Where a store is: the one way every front end says it, parsed from `--db`, `COMETCAL_DB`, or
/// the default path, and opened through a `StoreOpener` the executable provides.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// A store file.
    case file(String)
    /// A store that lives in memory and goes with its process (`:memory:`).
    case memory
    /// A PostgreSQL server (`postgresql://…` or `postgres://…`): parsed, not yet opened.
    case postgres(String)

    /// What a person wrote: a `postgresql://` or `postgres://` address, `:memory:`, else a path.
    public init(parsing text: String) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") {
            self = .postgres(text)
        } else if text == ":memory:" {
            self = .memory
        } else {
            self = .file(text)
        }
    }

    /// Where the store is: the one given (`--db`), else `$COMETCAL_DB`, else the default path.
    /// `isGiven` says whether someone named it (a typo there is not a store to create).
    public static func resolve(given: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> (location: StoreLocation, isGiven: Bool) {
        if let given { return (StoreLocation(parsing: given), true) }
        if let path = environment["COMETCAL_DB"], !path.isEmpty { return (StoreLocation(parsing: path), true) }
        return (.file(defaultPath(environment: environment)), false)
    }

    /// Where the store lives when no location is given: `$COMETCAL_DB`, else
    /// `$XDG_DATA_HOME/cometcal/cometcal.sqlite`, else `~/.local/share/cometcal/cometcal.sqlite`
    /// (the file name is the one stores have always had).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["COMETCAL_DB"], !path.isEmpty { return path }
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return ((base as NSString).appendingPathComponent("cometcal") as NSString).appendingPathComponent("cometcal.sqlite")
    }

    /// The same PostgreSQL database for another owner: the address with its `cometcal_user`
    /// parameter set to `owner` (one user's store is that user's rows). Nil for a file: each
    /// user's store there is a file of its own.
    public func database(forOwner owner: String) -> StoreLocation? {
        guard case .postgres(let address) = self else { return nil }
        let encoded = owner.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? owner
        guard let mark = address.firstIndex(of: "?") else { return .postgres(address + "?cometcal_user=" + encoded) }
        let kept = address[address.index(after: mark)...].split(separator: "&").filter { !$0.hasPrefix("cometcal_user=") && $0 != "cometcal_user" }
        return .postgres(String(address[..<mark]) + "?" + (kept.map(String.init) + ["cometcal_user=" + encoded]).joined(separator: "&"))
    }

    /// The file's path, for a file.
    public var filePath: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// As a person would write it again.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .memory: return ":memory:"
        case .postgres(let address): return address
        }
    }

    /// The refusal for a kind of store this build cannot open: none now (a file, `:memory:` and
    /// a PostgreSQL address all open); kept so that a location a later build adds is refused
    /// plainly until its store exists.
    public var unsupported: StoreError? { nil }

    /// Whether the store is a PostgreSQL database.
    public var isPostgres: Bool {
        if case .postgres = self { return true }
        return false
    }
}

/// What opening a store may create.
public enum StoreCreation: Sendable, Hashable {
    /// The file and its folders (the default location, made on first use).
    case fileAndFolders
    /// The file, in a folder that must exist (a path someone typed: a typo is not a store).
    case fileOnly
    /// Nothing: the store must exist (a read has nothing to read otherwise).
    case nothing
}

/// How a store is opened.
public enum StoreAccess: Sendable, Hashable {
    /// Reads and writes; the store is created as allowed and migrated to the registry, and its
    /// materialization window moved when it is due.
    case readWrite
    /// Reads only, creating nothing, migrating nothing and leaving the window where it is (tab
    /// completion): a store that would need a migration refuses to open (`needsMigration`).
    case readOnlyNoMigration
}

/// A store as the front ends hold it: the engine's protocol, and what the command line does to
/// the store as a whole.
public protocol OpenedStore: EntityStore {
    var location: StoreLocation { get }
    /// Copies the store to a new file at `destination`, consistent as of one moment.
    func backup(to destination: String) throws
    /// Replaces the store's content with the backup at `source`, keeping the old content at
    /// `keeping` first.
    @discardableResult
    func restore(from source: String, keeping: String) throws -> String
    /// A number that changes whenever another connection (another process) commits.
    func othersVersion() throws -> Int64
    /// Leaves the upkeep this connection's commits would do themselves to a `StoreMaintainer`
    /// on a thread of its own (the embedded store's write-ahead log checkpoints); after each
    /// commit, `committed` is told how much waits for it. A store with no such upkeep never calls it.
    func deferUpkeep(_ committed: @escaping @Sendable (Int) -> Void)
}

extension OpenedStore {
    public func deferUpkeep(_ committed: @escaping @Sendable (Int) -> Void) {}
}

/// Upkeep a store can do beside its readers and writer, on a connection of its own (for the
/// embedded store, a passive checkpoint of its write-ahead log): what a daemon runs off its
/// write path.
public protocol StoreMaintainer: AnyObject {
    /// One round now: how much was waiting, and how much of it is done.
    func maintain() throws -> (waiting: Int, done: Int)
}

/// Word from the store that other processes wrote to it: a daemon sharing a database with other
/// daemons hears of their commits at once, instead of at its next look (the server store's
/// LISTEN/NOTIFY). Stores one process owns have none; their daemon looks every second.
/// One thread waits on it; `relay` may be called from any.
public protocol StoreWatcher: AnyObject, Sendable {
    /// Waits up to `seconds` for word; returns what came (nothing when the time ran out). While
    /// the store cannot be reached it waits the time out, tries again on the next call, and
    /// returns `.lost` once per outage and `.back` once it is reached again (a look then finds
    /// what was missed).
    func wait(seconds: Double) -> [StoreSignal]
    /// Sends `message` to every watcher of the store's owner in every process (this one's too):
    /// what a daemon tells the others that only it knows, such as an alarm it fired.
    func relay(_ message: String) throws
    /// From now on, word of changes only for commits of other processes: a daemon announces
    /// its own writes when it makes them, and hearing them again cost it a read of the journal
    /// per write. Stores without word ignore it.
    func hearOnlyOtherProcesses()
}

extension StoreWatcher {
    public func hearOnlyOtherProcesses() {}
}

/// What a `StoreWatcher` heard.
public enum StoreSignal: Sendable, Equatable {
    /// Another connection (of another process, after `hearOnlyOtherProcesses`) committed a
    /// change to the owner's rows.
    case changed
    /// A message relayed by some watcher of the same owner (`StoreWatcher.relay`).
    case relayed(String)
    /// The store stopped answering (the first wait after it did).
    case lost(String)
    /// The store answers again after `lost`.
    case back
}

/// Opens stores: the executables' composition roots make one for the database they are built
/// with, and everything else (the CLI's commands, the daemon, the conversation's script world,
/// completion) opens stores through it without naming a database.
public struct StoreOpener: Sendable {
    /// The name and version of the database underneath, for `--version`.
    public let engineDescription: String
    private let opening: @Sendable (StoreLocation, Registry, Date, StoreCreation, StoreAccess) throws -> any OpenedStore
    private let maintaining: @Sendable (StoreLocation) throws -> (any StoreMaintainer)?
    private let watching: @Sendable (StoreLocation) throws -> (any StoreWatcher)?

    public init(engineDescription: String,
                maintainer: @escaping @Sendable (StoreLocation) throws -> (any StoreMaintainer)? = { _ in nil },
                watcher: @escaping @Sendable (StoreLocation) throws -> (any StoreWatcher)? = { _ in nil },
                opening: @escaping @Sendable (StoreLocation, Registry, Date, StoreCreation, StoreAccess) throws -> any OpenedStore) {
        self.engineDescription = engineDescription
        self.maintaining = maintainer
        self.watching = watcher
        self.opening = opening
    }

    /// Word of other processes' commits to the store at `location`, on a connection of its
    /// own, when its kind can give it.
    public func watcher(for location: StoreLocation) throws -> (any StoreWatcher)? {
        if let refusal = location.unsupported { throw refusal }
        return try watching(location)
    }

    /// The upkeep of the store at `location` on a connection of its own, when its kind has any.
    public func maintainer(for location: StoreLocation) throws -> (any StoreMaintainer)? {
        if let refusal = location.unsupported { throw refusal }
        return try maintaining(location)
    }

    /// Opens the store at `location` for `registry`; `now` fixes the materialization window.
    /// A location this build cannot open is refused first, with what to do instead.
    public func open(_ location: StoreLocation, registry: Registry, now: Date = Date(), creating: StoreCreation = .fileAndFolders,
                     access: StoreAccess = .readWrite) throws -> any OpenedStore {
        if let refusal = location.unsupported { throw refusal }
        return try opening(location, registry, now, creating, access)
    }
}

extension StoreOpener {
    /// One opener for both kinds of location: files and `:memory:` through `embedded`,
    /// `postgresql://` addresses through `server`. The composition roots make theirs so.
    public static func byKind(embedded: StoreOpener, server: StoreOpener) -> StoreOpener {
        StoreOpener(engineDescription: "\(embedded.engineDescription); \(server.engineDescription)", maintainer: { location in
            try (location.isPostgres ? server : embedded).maintainer(for: location)
        }, watcher: { location in
            try (location.isPostgres ? server : embedded).watcher(for: location)
        }) { location, registry, now, creating, access in
            try (location.isPostgres ? server : embedded).open(location, registry: registry, now: now, creating: creating, access: access)
        }
    }
}
