import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometPostgresStore
import PostgresTestSupport

/// One kind of store the conformance suite runs on: how to open one, and where a new empty one
/// goes. Every suite here takes `StoreFactory.all` as its arguments, so a second store (issue 23)
/// joins by adding its factory.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    let opener: StoreOpener
    /// A new, empty location of this kind, in (or named after) `scratch`.
    let newLocation: @Sendable (URL) throws -> StoreLocation
    /// Removes what `newLocation` made outside `scratch` (a database), when the fixture goes.
    var dispose: @Sendable (StoreLocation) -> Void = { _ in }

    var testDescription: String { name }

    static let sqlite = StoreFactory(name: "SQLite", opener: SQLiteStore.opener) { scratch in
        .file(scratch.appendingPathComponent("store.db").path)
    }

    /// A database of its own in the test process's private cluster (`PostgresCluster`), dropped
    /// after: the tests run in parallel.
    static let postgresql = StoreFactory(name: "PostgreSQL", opener: PostgresStore.opener, newLocation: { scratch in
        let cluster = try PostgresCluster.shared.get()
        let database = try cluster.newDatabase(scratch.lastPathComponent)
        return .postgres(cluster.address(database: database))
    }, dispose: { location in
        guard case .postgres(let address) = location, let cluster = try? PostgresCluster.shared.get(),
              let name = address.split(separator: "?").first?.split(separator: "/").last else { return }
        cluster.dropDatabase(String(name))
    })

    static let all: [StoreFactory] = [.sqlite, .postgresql]
}

/// A store of one factory on the calendar schemas, with the clock fixed, in a folder of its own
/// removed when the fixture goes.
final class ConformanceStore {
    let factory: StoreFactory
    let scratch: URL
    let location: StoreLocation
    let registry: Registry
    let store: any OpenedStore

    /// 2026-06-10T10:00:00Z, a Wednesday: the window reaches from 2025-06-09 to 2028-06-10.
    static let now = Date(timeIntervalSince1970: 1_781_085_600)
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let event = QualifiedName(domain: "calendar", name: "Event")
    static let calendar = QualifiedName(domain: "calendar", name: "Calendar")

    static let schemas: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas").path
    private static let loaded = Result { try Registry.load(paths: [schemas]) }

    init(_ factory: StoreFactory) throws {
        self.factory = factory
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        location = try factory.newLocation(scratch)
        registry = try ConformanceStore.loaded.get()
        store = try factory.opener.open(location, registry: registry, now: ConformanceStore.now)
    }

    deinit {
        factory.dispose(location)
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Another store on the same location (another process would open it so).
    func openAgain() throws -> any OpenedStore {
        try factory.opener.open(location, registry: registry, now: ConformanceStore.now)
    }

    // MARK: Records

    func calendar(_ title: String) -> EntityRecord {
        EntityRecord(entity: ConformanceStore.calendar, id: UUID(), values: ["title": .string(title)])
    }

    /// An event from RFC 9557 text (`…Z`, `…+02:00[Europe/Berlin]`, or floating without an offset).
    func event(_ title: String, in calendar: EntityRecord, start: String, end: String? = nil, _ more: [String: Value] = [:]) throws -> EntityRecord {
        var values: [String: Value] = ["title": .string(title), "calendar": .reference(calendar.id), "startDate": .dateTime(try DateTimeValue(parsing: start))]
        if let end { values["endDate"] = .dateTime(try DateTimeValue(parsing: end)) }
        values.merge(more) { $1 }
        return EntityRecord(entity: ConformanceStore.event, id: UUID(), values: values)
    }

    func save(_ records: EntityRecord...) throws {
        try store.transaction { writer in for record in records { try writer.save(record) } }
    }

    /// Occurrences in [from, to) (RFC 9557 text), read in `zone`: titles and start texts.
    func occurrences(from: String, to: String, zone: TimeZone = ConformanceStore.berlin, limit: Int? = nil, offset: Int = 0) throws -> OccurrencePage {
        let lower = try #require(try DateTimeValue(parsing: from).instant)
        let upper = try #require(try DateTimeValue(parsing: to).instant)
        return try store.readTransaction {
            try $0.occurrences(ConformanceStore.event, from: lower, to: upper, zone: zone, matching: [], text: nil, limit: limit, offset: offset)
        }
    }

    func title(_ record: EntityRecord) -> String { registry.title(of: record) }
}

func dateTime(_ text: String) throws -> Value { .dateTime(try DateTimeValue(parsing: text)) }
