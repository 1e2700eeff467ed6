import Testing
import Foundation
import CometSchema
@testable import CometStore
import CometIntents

/// After another connection commits, a connection forgets from its record cache just the
/// records that the journal says were changed (`_commits` names the entries), and every
/// record when the journal cannot say.
@Suite("Cached records are forgotten one by one from the journal")
struct CommitLogTests {
    /// The fixture's store with two events, both read (and so cached) by its engine, and an
    /// engine on a second connection to the same file.
    private struct TwoConnections {
        let fixture: TestStore
        let other: IntentEngine
        let otherStore: SQLiteStore
        let changed: EntityRecord
        let untouched: EntityRecord

        init(_ label: String) throws {
            fixture = try TestStore(label: label)
            try fixture.makeCalendar()
            changed = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
            untouched = try fixture.makeEvent("Dentist", start: "2026-06-15T09:00:00+02:00[Europe/Berlin]")
            otherStore = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
            other = IntentEngine(store: otherStore, timeZone: Fixture.berlin, clock: { Fixture.now })
            _ = try read(changed.id)
            _ = try read(untouched.id)
        }

        /// The title the fixture's connection reads for a record.
        func read(_ id: UUID) throws -> String? {
            try fixture.engine.record(Fixture.event, id: id).map { fixture.registry.title(of: $0) }
        }

        func isCached(_ id: UUID) -> Bool { fixture.store.hasCachedRecord(Fixture.event, id: id) }

    }

    private func rename(_ id: UUID, to title: String, on engine: IntentEngine) throws {
        _ = try requireDone(engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(id)), "title": .set(.string(title)),
        ]), confirmation: .confirmed)))
    }

    @Test("an update by another connection is read anew, and the records it did not touch stay cached")
    func updateForgetsOnlyItsRecord() throws {
        let setup = try TwoConnections("commits-update")
        #expect(setup.isCached(setup.changed.id) && setup.isCached(setup.untouched.id))
        try rename(setup.changed.id, to: "Picnic in the park", on: setup.other)
        #expect(try setup.read(setup.changed.id) == "Picnic in the park")
        #expect(setup.isCached(setup.untouched.id))
    }

    @Test("undo and redo by another connection are read anew, and the records they did not touch stay cached")
    func undoAndRedo() throws {
        let setup = try TwoConnections("commits-undo")
        try rename(setup.changed.id, to: "Picnic in the park", on: setup.other)
        #expect(try setup.read(setup.changed.id) == "Picnic in the park")
        _ = try requireDone(setup.other.undo())
        #expect(try setup.read(setup.changed.id) == "Picnic")
        #expect(setup.isCached(setup.untouched.id))
        _ = try requireDone(setup.other.redo())
        #expect(try setup.read(setup.changed.id) == "Picnic in the park")
        #expect(setup.isCached(setup.untouched.id))
    }

    @Test("an undone entry dropped by a newer action before this connection looked: everything is forgotten")
    func droppedEntry() throws {
        let setup = try TwoConnections("commits-dropped")
        try rename(setup.changed.id, to: "Picnic in the park", on: setup.other)
        _ = try requireDone(setup.other.undo())
        // A new action deletes the undone entry that the undo's row of _commits points to.
        try rename(setup.untouched.id, to: "Dentist at 9", on: setup.other)
        #expect(try setup.read(setup.changed.id) == "Picnic")
        #expect(!setup.isCached(setup.untouched.id))
        #expect(try setup.read(setup.untouched.id) == "Dentist at 9")
    }

    @Test("an import by another connection forgets the records it changed and keeps the others")
    func importForgetsItsRecords() throws {
        let fixture = try TestStore(label: "commits-import")
        try fixture.makeCalendar()
        let untouched = try fixture.makeEvent("Dentist", start: "2026-06-15T09:00:00+02:00[Europe/Berlin]")
        func file(_ summary: String, sequence: Int) -> String {
            """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//test//EN\r
            BEGIN:VEVENT\r
            UID:commit-log-import@test\r
            DTSTAMP:20260601T000000Z\r
            SEQUENCE:\(sequence)\r
            DTSTART:20260613T100000Z\r
            DTEND:20260613T110000Z\r
            SUMMARY:\(summary)\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        }
        let first = fixture.engine.importCalendars([ImportSource(name: "a.ics", text: file("Concert", sequence: 0), registry: fixture.registry)])
        #expect(first.written)
        let imported = try #require(try fixture.store.readTransaction { try $0.fetchAll(Fixture.event, matching: [], limit: nil) }
            .first { fixture.registry.title(of: $0) == "Concert" })
        _ = try fixture.engine.record(Fixture.event, id: untouched.id)
        #expect(fixture.store.hasCachedRecord(Fixture.event, id: imported.id))
        let other = IntentEngine(store: try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now),
                                 timeZone: Fixture.berlin, clock: { Fixture.now })
        let second = other.importCalendars([ImportSource(name: "a.ics", text: file("Concert, moved", sequence: 1), registry: fixture.registry)])
        #expect(second.written)
        #expect(try fixture.engine.record(Fixture.event, id: imported.id).map { fixture.registry.title(of: $0) } == "Concert, moved")
        #expect(fixture.store.hasCachedRecord(Fixture.event, id: untouched.id))
    }

    @Test("a save that no journal entry names (straight through the store) makes other connections forget every record")
    func saveWithoutJournal() throws {
        let setup = try TwoConnections("commits-bypass")
        try setup.otherStore.transaction { transaction in
            var record = try #require(try transaction.fetch(Fixture.event, id: setup.changed.id))
            record["title"] = .string("Picnic, renamed directly")
            try transaction.save(record)
        }
        #expect(try setup.read(setup.changed.id) == "Picnic, renamed directly")
        #expect(!setup.isCached(setup.untouched.id))
    }

    @Test("a connection that fell behind by more than the log keeps forgets every record")
    func fellBehind() throws {
        let setup = try TwoConnections("commits-behind")
        // Rows of _commits the fixture's connection never saw, gone as if pruned.
        try setup.otherStore.connection.execute("INSERT INTO _commits (journal) VALUES (NULL); INSERT INTO _commits (journal) VALUES (1);")
        try setup.otherStore.connection.execute("DELETE FROM _commits WHERE journal IS NULL")
        #expect(try setup.read(setup.untouched.id) == "Dentist")
        #expect(!setup.isCached(setup.changed.id))
    }

    @Test("a restore through another connection makes this one forget every record")
    func restoreForgetsEverything() throws {
        let setup = try TwoConnections("commits-restore")
        let backup = setup.fixture.directory.appendingPathComponent("backup.sqlite").path
        try setup.otherStore.backup(to: backup)
        try rename(setup.changed.id, to: "Picnic in the park", on: setup.other)
        #expect(try setup.read(setup.changed.id) == "Picnic in the park")
        _ = try setup.read(setup.untouched.id)
        try setup.otherStore.restore(from: backup, keeping: setup.fixture.directory.appendingPathComponent("kept.sqlite").path)
        #expect(try setup.read(setup.changed.id) == "Picnic")
        #expect(!setup.isCached(setup.untouched.id))
    }

    @Test("the commit log keeps its last rows only")
    func logStaysSmall() throws {
        let fixture = try TestStore(label: "commits-length")
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        try fixture.store.connection.execute("INSERT INTO _commits (journal) VALUES (NULL)")
        let first = try fixture.store.connection.prepare("SELECT max(seq) FROM _commits").scalar()
        try fixture.store.connection.execute("UPDATE sqlite_sequence SET seq = seq + \(SQLiteStore.commitLogLength) WHERE name = '_commits'")
        try rename(event.id, to: "Picnic in the park", on: fixture.engine)
        #expect(try fixture.store.connection.prepare("SELECT count(*) FROM _commits WHERE seq <= ?").scalar([try #require(first)]) == .integer(0))
        #expect(try fixture.store.connection.prepare("SELECT count(*) FROM _commits").scalar() == .integer(1))
    }
}

/// The daemon's readers share one record cache, kept true by the same rows of `_commits`.
@Suite("Readers share decoded records")
struct SharedRecordCacheTests {
    private func title(_ store: SQLiteStore, _ id: UUID, registry: Registry) throws -> String? {
        try store.readTransaction { try $0.fetch(Fixture.event, id: id) }.map { registry.title(of: $0) }
    }

    @Test("a record one reader decoded is served to another from the shared cache")
    func sharedBetweenReaders() throws {
        let fixture = try TestStore(label: "shared-cache")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let dentist = try fixture.makeEvent("Dentist", start: "2026-06-15T09:00:00+02:00[Europe/Berlin]")
        let shared = SharedRecordCache()
        let first = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        let second = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        first.shareRecords(with: shared)
        second.shareRecords(with: shared)
        #expect(try title(second, dentist.id, registry: fixture.registry) == "Dentist")
        #expect(!second.hasCachedRecord(Fixture.event, id: picnic.id))
        #expect(try title(first, picnic.id, registry: fixture.registry) == "Picnic")
        #expect(second.hasCachedRecord(Fixture.event, id: picnic.id))
    }

    @Test("a change is never served from the shared cache to a reader that sees it, nor hidden from one that does not")
    func changesAcrossSnapshots() throws {
        let fixture = try TestStore(label: "shared-snapshots")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let shared = SharedRecordCache()
        let old = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        let new = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        old.shareRecords(with: shared)
        new.shareRecords(with: shared)
        #expect(try title(new, picnic.id, registry: fixture.registry) == "Picnic")
        try old.readTransaction { transaction in
            // This transaction's snapshot is fixed here, before the rename.
            _ = try transaction.fetchAll(Fixture.calendar, matching: [], limit: nil)
            _ = try requireDone(fixture.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
                "event": .set(.reference(picnic.id)), "title": .set(.string("Picnic in the park")),
            ]), confirmation: .confirmed)))
            #expect(try title(new, picnic.id, registry: fixture.registry) == "Picnic in the park")
            // The older snapshot still reads the record as it was, and does not put it back.
            #expect(try transaction.fetch(Fixture.event, id: picnic.id).map { fixture.registry.title(of: $0) } == "Picnic")
        }
        #expect(try title(new, picnic.id, registry: fixture.registry) == "Picnic in the park")
        #expect(try title(old, picnic.id, registry: fixture.registry) == "Picnic in the park")
    }
}
