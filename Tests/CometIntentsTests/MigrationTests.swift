import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// Calendar schema variants written to a scratch directory.
private struct SchemaVariants {
    let directory: URL

    init() throws {
        directory = try Fixture.scratchDirectory("schemas")
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The calendar schema with `change` applied to the file texts, loaded from its own folder.
    func registry(_ name: String, _ change: (inout [String: String]) throws -> Void) throws -> Registry {
        var files = try Fixture.calendarSchemaFiles()
        try change(&files)
        let folder = directory.appendingPathComponent(name)
        try Fixture.writeSchema(files, in: folder)
        return try Registry.load(paths: [folder.path])
    }
}

/// Replaces `old` with `new` in a schema file, failing the test when `old` is not there.
private func edit(_ files: inout [String: String], _ file: String, _ old: String, _ new: String,
                  sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let text = try #require(files[file], sourceLocation: sourceLocation)
    try #require(text.contains(old), "'\(old)' is not in \(file)", sourceLocation: sourceLocation)
    files[file] = text.replacingOccurrences(of: old, with: new)
}

/// The calendar schema without Event.note: the property (its doc and annotations), the
/// intents' parameters and the phrase that names it.
private func withoutNote(_ files: inout [String: String]) throws {
    let event = try #require(files["calendar/event.cal"])
    let start = try #require(event.range(of: "    /// Free text: what to bring"))
    let end = try #require(event.range(of: "    note: String?\n\n", range: start.upperBound..<event.endIndex))
    files["calendar/event.cal"] = event.replacingCharacters(in: start.lowerBound..<end.upperBound, with: "")
    try edit(&files, "calendar/event-intents.cal", "    note: String?\n", "")
    try edit(&files, "calendar/event-intents.cal", "@phrase(\"change the note of {event} to {note}\")\n", "")
}

@Suite("Schema migrations")
struct MigrationTests {
    @Test("adding an optional property migrates automatically and keeps the data")
    func addOptionalProperty() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", ["note": text("countdown")])

        let extended = try variants.registry("extended") { files in
            try edit(&files, "calendar/event.cal", "    /// Whether the event is confirmed, tentative or cancelled.",
                     "    /// A free-form category.\n    @searchable\n    category: String?\n\n    /// Whether the event is confirmed, tentative or cancelled.")
            try edit(&files, "calendar/event-intents.cal", "intent updateEvent updates Event {\n", "intent updateEvent updates Event {\n    category: String?\n")
        }
        try fixture.reopen(with: extended)
        let migrated = try #require(try fixture.fetch(event.id))
        #expect(migrated.values == event.values)
        #expect(migrated["category"] == nil)

        try fixture.done("updateEvent", ["event": reference(event), "category": text("rocketry")])
        #expect(try fixture.fetch(event.id)?["category"] == .string("rocketry"))
        #expect(try fixture.search("rocketry").map(\.id) == [event.id])
        #expect(try fixture.search("countdown").map(\.id) == [event.id])
    }

    @Test("a new entity gets its table; dropping it again while it holds rows is refused")
    func addAndRemoveEntity() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let base = try variants.registry("base") { _ in }
        let fixture = try TestStore(registry: base)
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]")
        let withRooms = try variants.registry("rooms") { files in
            files["rooms/room.cal"] = """
                domain rooms

                /// A meeting room.
                indexed entity Room {
                    id: UUID
                    @title @searchable
                    name: String
                }

                @undoable
                intent createRoom creates Room {
                    name: String
                }
                """
        }
        try fixture.reopen(with: withRooms)
        #expect(try fixture.fetch(event.id) == event)
        let room = try #require(try fixture.done("createRoom", ["name": text("Apollo")]).record)
        #expect(try fixture.search("apollo", QualifiedName(domain: "rooms", name: "Room")).map(\.id) == [room.id])
        do {
            _ = try SQLiteStore(path: fixture.path, registry: base, now: Fixture.now)
            Issue.record("an entity table holding rows was dropped")
        } catch let error as StoreError {
            #expect(error.code == .destructiveMigration)
            #expect(error.message.lowercased().contains("room"))
        }
        try fixture.reopen(with: withRooms)
        #expect(try fixture.fetch(room.id, QualifiedName(domain: "rooms", name: "Room")) == room)
    }

    @Test("a store opened with another domain's schemas alone names the domain it holds and how to load both; with both it opens and keeps every row")
    func anotherDomainAlone() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]")
        let examples = Fixture.repoRoot + "/Examples/Schemas"
        do {
            _ = try SQLiteStore(path: fixture.path, registry: try Registry.load(paths: [examples]), now: Fixture.now)
            Issue.record("a store holding calendar rows was opened with the tasks schemas alone")
        } catch let error as StoreError {
            #expect(error.code == .destructiveMigration)
            #expect(error.message.contains("the store holds the 'calendar' domain (calendar__Calendar: 1 row, calendar__Event: 1 row), which the loaded schemas do not declare"), "\(error.message)")
            #expect(error.message.contains("--schemas Schemas --schemas DIR"), "\(error.message)")
        }
        try fixture.reopen(with: try Registry.load(paths: [Fixture.schemaDirectory, examples]))
        #expect(try fixture.fetch(event.id) == event)
        let task = try #require(try fixture.done("createTask", ["title": text("Buy cake")]).record)
        #expect(task.entity.domain == "tasks")
    }

    @Test("adding a property with a default fills existing rows with it")
    func addPropertyWithDefault() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]")
        let extended = try variants.registry("default") { files in
            try edit(&files, "calendar/event.cal", "    isFavorite: Bool = false\n", "    isFavorite: Bool = false\n\n    priority: Int = 5\n")
        }
        try fixture.reopen(with: extended)
        #expect(try fixture.fetch(event.id)?["priority"] == .int(5))
    }

    @Test("removing a property that holds data is refused, naming it, and the store is unchanged and still usable")
    func removePropertyWithData() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", ["note": text("countdown")])
        let before = try fixture.contents()

        let reduced = try variants.registry("reduced", withoutNote)
        do {
            _ = try SQLiteStore(path: fixture.path, registry: reduced, now: Fixture.now)
            Issue.record("a destructive migration was applied")
        } catch let error as StoreError {
            #expect(error.code == .destructiveMigration)
            #expect(error.message.contains("note"))
        }

        try fixture.reopen()
        #expect(try fixture.contents() == before)
        #expect(try fixture.search("countdown").map(\.id) == [event.id])
        try fixture.done("updateEvent", ["event": reference(event), "note": text("liftoff")])
        #expect(try fixture.fetch(event.id)?["note"] == .string("liftoff"))
    }

    @Test("removing a property that holds no data is applied")
    func removeEmptyProperty() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]")
        let reduced = try variants.registry("reduced", withoutNote)
        try fixture.reopen(with: reduced)
        #expect(try fixture.fetch(event.id)?.title == "Launch")
        // And back: the property comes back empty.
        try fixture.reopen(with: try variants.registry("base-again") { _ in })
        #expect(try fixture.fetch(event.id) == event)
    }

    @Test("a new required property without a default is refused when rows exist")
    func newRequiredWithoutDefault() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]")
        let before = try fixture.contents()
        let stricter = try variants.registry("required") { files in
            try edit(&files, "calendar/event.cal", "    isFavorite: Bool = false\n", "    isFavorite: Bool = false\n\n    owner: String\n")
        }
        do {
            _ = try SQLiteStore(path: fixture.path, registry: stricter, now: Fixture.now)
            Issue.record("a required property without default was added to a table with rows")
        } catch let error as StoreError {
            #expect(error.code == .destructiveMigration)
            #expect(error.message.contains("owner"))
        }
        try fixture.reopen()
        #expect(try fixture.contents() == before)
    }

    @Test("changing a property's type while it holds data is refused")
    func changedTypeWithData() throws {
        let variants = try SchemaVariants()
        defer { variants.remove() }
        let fixture = try TestStore(registry: try variants.registry("base") { _ in })
        try fixture.makeCalendar()
        try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", ["travelTime": .set(.duration(try #require(DurationValue(parsing: "PT30M"))))])
        let changed = try variants.registry("retyped") { files in
            try edit(&files, "calendar/event.cal", "    travelTime: Duration?", "    travelTime: Int?")
            try edit(&files, "calendar/event-intents.cal", "    travelTime: Duration?", "    travelTime: Int?")
        }
        do {
            _ = try SQLiteStore(path: fixture.path, registry: changed, now: Fixture.now)
            Issue.record("a type change over data was applied")
        } catch let error as StoreError {
            #expect(error.code == .destructiveMigration)
            #expect(error.message.contains("travelTime"))
        }
        try fixture.reopen()
        #expect(try fixture.all().count == 1)
    }
}
