import Testing
import Foundation
import CometSchema
import CometStore
@testable import CometSQLiteStore
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

    @Test("after a restore, no number the change feed gave out before it is answered: a syncing client starts over")
    func restoreForgetsChangeNumbers() throws {
        let setup = try TwoConnections("changes-restore")
        let backup = setup.fixture.directory.appendingPathComponent("backup.sqlite").path
        try setup.otherStore.backup(to: backup)
        let atBackup = try setup.fixture.store.readTransaction { try $0.changeHead() }
        try rename(setup.changed.id, to: "Picnic in the park", on: setup.other)
        let beforeRestore = try setup.fixture.store.readTransaction { try $0.changeHead() }
        #expect(beforeRestore > atBackup)
        try setup.otherStore.restore(from: backup, keeping: setup.fixture.directory.appendingPathComponent("kept.sqlite").path)
        for old in [0, atBackup, beforeRestore] {
            #expect(try setup.fixture.store.readTransaction { try $0.changes(since: old) } == nil)
        }
        let head = try setup.fixture.store.readTransaction { try $0.changeHead() }
        #expect(head > beforeRestore)
        #expect(try setup.fixture.store.readTransaction { try $0.changes(since: head) } == [])
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
