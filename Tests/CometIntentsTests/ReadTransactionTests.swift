import Testing
import Foundation
import CometSchema
import CometStore
@testable import CometSQLiteStore
@testable import CometIntents

/// Reads are not writes: a search, an open, an export and the history read beside a writer that
/// holds the write lock, and see the last committed state (WAL), instead of waiting for it.
@Suite("Reads never take the write lock")
struct ReadTransactionTests {
    @Test("a search, an export and the history run while another connection holds the write lock")
    func readsBesideAWriter() throws {
        let fixture = try TestStore(label: "reads")
        try fixture.makeCalendar()
        try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        // A second connection to the same file, in the middle of a write.
        let writer = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        let started = Date()
        try writer.transaction { transaction in
            var changed = try #require(try transaction.fetchAll(Fixture.event, matching: [], limit: nil).first)
            changed["title"] = .string("Renamed, not yet committed")
            try transaction.save(changed)
            let found = try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": .set(.string("Picnic"))]))))
            #expect(found.records.map { fixture.registry.title(of: $0) } == ["Picnic"])
            let exported = try fixture.engine.exportCalendar()
            #expect(exported.contains("SUMMARY:Picnic\r\n"))
            _ = try fixture.engine.history(limit: 10)
        }
        // The store's busy timeout is 5 s: a read that waited for the writer would take that long.
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test("read transactions keep the connection's compiled statements (none is compiled again)")
    func readsKeepStatements() throws {
        let fixture = try TestStore(label: "reprepare")
        let sql = "SELECT count(*) FROM _meta"
        for _ in 0..<3 {
            _ = try fixture.store.readTransaction { _ in try fixture.store.connection.prepare(sql).scalar() }
            try fixture.store.transaction { _ in }
        }
        #expect(try fixture.store.connection.prepare(sql).reprepares == 0)
    }

    /// Compiles only for a writer: `changeTitle(reader, …)` with a `StoreReader` does not compile,
    /// which is the point (`readTransaction { $0.save(…) }` does not either: the reader's type has
    /// no `save`).
    private func changeTitle(_ writer: some StoreWriter, of record: EntityRecord, to title: String) throws {
        var renamed = record
        renamed["title"] = .string(title)
        try writer.save(renamed)
    }

    @Test("a read's body gets a reader with no writes, not even behind a cast; a write's body gets a writer")
    func readsCannotWrite() throws {
        let fixture = try TestStore(label: "readonly")
        let calendar = try fixture.makeCalendar()
        try fixture.store.readTransaction { (reader: any StoreReader) throws in
            #expect(!(reader is any StoreWriter), "a read's transaction could be cast to a writer")
            #expect(try reader.fetch(Fixture.calendar, id: calendar.id) == calendar)
        }
        try fixture.store.transaction { writer in try changeTitle(writer, of: calendar, to: "Renamed") }
        #expect(try fixture.fetch(calendar.id, Fixture.calendar)?["title"] == .string("Renamed"))
    }

    @Test("behind the types, the connection refuses a write during a read (each statement is checked), and writes again after")
    func connectionRefusesWritesInARead() throws {
        let fixture = try TestStore(label: "queryonly")
        let calendar = try fixture.makeCalendar()
        var renamed = calendar
        renamed["title"] = .string("Renamed in a read")
        #expect(throws: StoreError.self) {
            try fixture.store.readTransaction { (reader: any StoreReader) throws in
                try #require((reader as? ReadingHalf)?.reader as? Session).save(renamed)
            }
        }
        #expect(try fixture.fetch(calendar.id, Fixture.calendar) == calendar)
        try fixture.store.transaction { try $0.save(renamed) }
        #expect(try fixture.fetch(calendar.id, Fixture.calendar) == renamed)
    }

    @Test("the engine's change recorder over a read refuses a change before it reaches the store")
    func recorderOverAReadRefuses() throws {
        let fixture = try TestStore(label: "recorder")
        let calendar = try fixture.makeCalendar()
        var renamed = calendar
        renamed["title"] = .string("Renamed in a read")
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.readTransaction { (reader: any StoreReader) throws in
                try ChangeRecorder(reading: reader).save(renamed)
            }
        }
        #expect(refused?.code == .permissions)
        #expect(try fixture.fetch(calendar.id, Fixture.calendar) == calendar)
    }
}
