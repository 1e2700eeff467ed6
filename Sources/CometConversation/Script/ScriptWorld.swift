import Foundation
import CometSchema
import CometIntents
import CometStore

/// Where a script is played: a fresh store of its own (the default), or a daemon's store
/// through its socket (`cometcal converse --connect`). The runner needs only this.
public protocol ScriptWorld: AnyObject {
    var registry: Registry { get }
    /// Imports a seed; the report says whether it was written and why not.
    func importSeed(name: String, text: String) -> ImportReport
    /// A conversation on the script's clock and zone.
    func openConversation(now: Date, timeZone: TimeZone) throws -> any ScriptConversation
    func records(_ entity: QualifiedName) throws -> [EntityRecord]
    func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord?
}

public protocol ScriptConversation: AnyObject {
    func say(_ text: String) -> Conversation.Turn
}

extension Conversation: ScriptConversation {}

/// A fresh store of its own, in a temporary folder removed when the world goes.
public final class LocalScriptWorld: ScriptWorld {
    public let registry: Registry
    let engine: IntentEngine
    private let directory: URL

    /// A store file in a new temporary folder, opened with `opener`.
    public init(registry: Registry, now: Date, timeZone: TimeZone, opener: StoreOpener) throws {
        self.registry = registry
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-converse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try opener.open(.file(directory.appendingPathComponent("store").path), registry: registry, now: now)
        engine = IntentEngine(store: store, timeZone: timeZone, clock: { now })
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    public func importSeed(name: String, text: String) -> ImportReport {
        engine.importCalendars([ImportSource(name: name, text: text, registry: registry)])
    }

    public func openConversation(now: Date, timeZone: TimeZone) throws -> any ScriptConversation {
        Conversation(engine: engine, now: now, timeZone: timeZone)
    }

    public func records(_ entity: QualifiedName) throws -> [EntityRecord] { try engine.records(entity) }
    public func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try engine.record(entity, id: id) }
}
