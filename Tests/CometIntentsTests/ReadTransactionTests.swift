import Testing
import Foundation
import CometSchema
@testable import CometStore
import CometIntents

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

    @Test("a read transaction refuses writes, so a read that wrote would fail loudly")
    func readsCannotWrite() throws {
        let fixture = try TestStore(label: "readonly")
        let calendar = try fixture.makeCalendar()
        #expect(throws: StoreError.self) {
            try fixture.store.readTransaction { transaction in
                var renamed = calendar
                renamed["title"] = .string("x")
                try transaction.save(renamed)
            }
        }
        // And the connection writes again afterwards.
        try fixture.store.transaction { transaction in
            var renamed = calendar
            renamed["title"] = .string("Renamed")
            try transaction.save(renamed)
        }
    }
}
