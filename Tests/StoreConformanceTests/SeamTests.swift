import Foundation
import Testing
import CometSchema
import CometStore

/// The seam itself: nothing outside the store and the composition roots names the database, a
/// location is parsed one way, the window's policy is the store-neutral one, and a store opened
/// without migrating changes nothing.
@Suite("The store seam")
struct SeamTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// The files that may name the database: the store itself, its system library, and the
    /// composition roots (the command line's StoreFactory, the daemon's main, the bench).
    static func mayNameTheDatabase(_ relative: String) -> Bool {
        ["CometSQLiteStore/", "CSQLite/", "cometcal-bench/"].contains { relative.hasPrefix($0) }
            || ["cometcal/StoreFactory.swift", "cometcald/main.swift"].contains(relative)
    }

    /// Library modules (not executables): there even the word goes, in comments too. The
    /// executables' help texts describe the product as built, so they may say the word, but
    /// outside their roots they may not use the store's code.
    static func isLibrary(_ relative: String) -> Bool {
        !["cometcal/", "cometcald/", "cometcal-bench/"].contains { relative.hasPrefix($0) }
    }

    static let codeTokens = ["SQLiteStore", "CSQLite", "sqlite3"]

    @Test("no source outside the store and the composition roots names SQLiteStore, CSQLite or sqlite3; no library module says SQLite at all")
    func nothingElseNamesTheDatabase() throws {
        var offenders: [String] = []
        var checked = 0
        let files = try #require(FileManager.default.enumerator(atPath: SeamTests.sources.path))
        for case let relative as String in files where relative.hasSuffix(".swift") || relative.hasSuffix(".modulemap") || relative.hasSuffix(".h") {
            guard !SeamTests.mayNameTheDatabase(relative) else { continue }
            checked += 1
            let text = try String(contentsOf: SeamTests.sources.appendingPathComponent(relative), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let words = SeamTests.isLibrary(relative) ? SeamTests.codeTokens + ["SQLite"] : SeamTests.codeTokens
                if let word = words.first(where: { line.contains($0) }) {
                    offenders.append("Sources/\(relative):\(number + 1): \(word)")
                }
            }
        }
        #expect(checked > 100, "the walk found only \(checked) files")
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test("the check would see a file that names the store (it reads the files it means to)")
    func theCheckCanFail() throws {
        let root = try String(contentsOf: SeamTests.sources.appendingPathComponent("cometcal/StoreFactory.swift"), encoding: .utf8)
        #expect(root.contains("SQLiteStore"))
        #expect(SeamTests.mayNameTheDatabase("cometcal/StoreFactory.swift"))
        #expect(!SeamTests.mayNameTheDatabase("cometcal/AppContext.swift"))
        #expect(!SeamTests.mayNameTheDatabase("CometStore/StoreLocation.swift"))
        #expect(SeamTests.isLibrary("CometDaemon/DaemonPaths.swift"))
    }

    @Test("a location is a file path, :memory:, or a postgresql:// or postgres:// address")
    func locations() {
        #expect(StoreLocation(parsing: "/tmp/cal.db") == .file("/tmp/cal.db"))
        #expect(StoreLocation(parsing: "cal.db") == .file("cal.db"))
        #expect(StoreLocation(parsing: ":memory:") == .memory)
        #expect(StoreLocation(parsing: "postgresql://localhost/cal") == .postgres("postgresql://localhost/cal"))
        #expect(StoreLocation(parsing: "POSTGRES://u@h/cal") == .postgres("POSTGRES://u@h/cal"))
        // Another CalDAV user's store in the daemon's database: the same address, their owner.
        #expect(StoreLocation.postgres("postgresql:///cal?host=/run/pg").database(forOwner: "bob")
                == .postgres("postgresql:///cal?host=/run/pg&cometcal_user=bob"))
        #expect(StoreLocation.postgres("postgresql:///cal?cometcal_user=alice&sslmode=disable").database(forOwner: "b.o b")
                == .postgres("postgresql:///cal?sslmode=disable&cometcal_user=b.o%20b"))
        #expect(StoreLocation.postgres("postgresql://h/cal").database(forOwner: "bob") == .postgres("postgresql://h/cal?cometcal_user=bob"))
        #expect(StoreLocation.file("/tmp/cal.db").database(forOwner: "bob") == nil)
        #expect(StoreLocation(parsing: "postgresql://localhost/cal").description == "postgresql://localhost/cal")
        #expect(StoreLocation.file("/tmp/cal.db").unsupported == nil)
        // Every kind of location opens now: a PostgreSQL address is PostgreSQL's (issue 23).
        #expect(StoreLocation(parsing: "postgres://h/cal").unsupported == nil)
        #expect(StoreLocation(parsing: "postgres://h/cal").isPostgres)
        #expect(!StoreLocation.file("/tmp/cal.db").isPostgres)
    }

    @Test("--db wins, then COMETCAL_DB, then the default path under XDG_DATA_HOME or ~/.local/share")
    func resolution() {
        let environment = ["COMETCAL_DB": "/env/cal.db", "XDG_DATA_HOME": "/xdg"]
        #expect(StoreLocation.resolve(given: "/given.db", environment: environment) == (.file("/given.db"), true))
        #expect(StoreLocation.resolve(given: nil, environment: environment) == (.file("/env/cal.db"), true))
        #expect(StoreLocation.resolve(given: nil, environment: ["XDG_DATA_HOME": "/xdg", "COMETCAL_DB": ""])
                == (.file("/xdg/cometcal/cometcal.sqlite"), false))
        #expect(StoreLocation.resolve(given: nil, environment: [:]).location
                == .file((NSHomeDirectory() as NSString).appendingPathComponent(".local/share/cometcal/cometcal.sqlite")))
    }

    @Test("the window reaches a year back and two ahead; a stored one is kept while it starts by now and reaches a year ahead")
    func window() {
        let now = Date(timeIntervalSince1970: 1_781_085_600)
        let window = OccurrenceWindow(now: now)
        #expect(window.lowerBound == 1_781_085_600 - 366 * 86_400)
        #expect(window.upperBound == 1_781_085_600 + 2 * 366 * 86_400)
        #expect(window.keeps(window))
        // Opened half a year earlier: still starts before now and reaches a year ahead.
        #expect(window.keeps(OccurrenceWindow(now: now.addingTimeInterval(-183 * 86_400))))
        // Opened a year and a day earlier: reaches less than a year ahead, so it moves.
        #expect(!window.keeps(OccurrenceWindow(now: now.addingTimeInterval(-367 * 86_400))))
        // Opened later (a clock moved back): it would start after now, so it moves.
        #expect(!window.keeps(OccurrenceWindow(now: now.addingTimeInterval(367 * 86_400))))
        #expect(OccurrenceWindow(window.description) == window)
        #expect(OccurrenceWindow("12") == nil)
        #expect(OccurrenceWindow("5:3") == nil)
    }

    @Test("a series is dense past 10,000 instances in the window, or when its rule was not read to the window's end")
    func density() {
        #expect(!OccurrenceWindow.isDense(instances: 10_000, complete: true))
        #expect(OccurrenceWindow.isDense(instances: 10_001, complete: true))
        #expect(OccurrenceWindow.isDense(instances: 3, complete: false))
    }

    @Test("a store error says its detail and statement after the message; the engine failure code is store_engine_failure")
    func errors() {
        #expect(StoreError(.engineFailure, "it broke", detail: "code 1", statement: "SELECT 1").description == "it broke (code 1) in: SELECT 1")
        #expect(StoreError.Code.engineFailure.rawValue == "store_engine_failure")
        #expect(StoreError(.busy, "busy").description == "busy")
    }

    @Test("a store opened to read without migrating refuses writes and a store that would need a migration, and changes no byte", arguments: StoreFactory.all)
    func readOnlyNoMigration(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let reading = try fixture.factory.opener.open(fixture.location, registry: fixture.registry, now: ConformanceStore.now,
                                                      creating: .nothing, access: .readOnlyNoMigration)
        #expect(try reading.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        let refused = #expect(throws: StoreError.self) { try reading.transaction { try $0.save(fixture.calendar("Home")) } }
        #expect(refused?.code == .permissions)

        // Schemas the store was not written for (one more property): a reader does not migrate it.
        let schemas = fixture.scratch.appendingPathComponent("schemas")
        try FileManager.default.copyItem(atPath: ConformanceStore.schemas, toPath: schemas.path)
        let calendarFile = schemas.appendingPathComponent("calendar/calendar.cal")
        let text = try String(contentsOf: calendarFile, encoding: .utf8)
        #expect(text.contains("    isDefault: Bool = false\n"))
        try text.replacingOccurrences(of: "    isDefault: Bool = false\n", with: "    isDefault: Bool = false\n    conformanceExtra: String?\n")
            .write(to: calendarFile, atomically: true, encoding: .utf8)
        let other = try Registry.load(paths: [schemas.path])
        let missing = #expect(throws: StoreError.self) {
            _ = try fixture.factory.opener.open(fixture.location, registry: other, now: ConformanceStore.now, creating: .nothing, access: .readOnlyNoMigration)
        }
        #expect(missing?.code == .needsMigration)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
    }

    @Test("meta(\"layout\") names the layout the store was made for, which the engine's health (cometcald's health) checks first", arguments: StoreFactory.all)
    func layoutIsNamed(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let layout = try fixture.store.readTransaction { try $0.meta("layout") }
        let named = try #require(layout)
        #expect(!named.isEmpty)
        // Bookkeeping, not one of the entries a migration or `meta` listing copies.
        #expect(try fixture.store.readTransaction { try $0.metaEntries() }.allSatisfy { $0.key != "layout" })
    }
}
