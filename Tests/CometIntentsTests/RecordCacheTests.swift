import Testing
import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// The store keeps decoded records between transactions. A cached record must never outlive
/// a change: one made by this connection, by another connection to the same file (another
/// process, the daemon's other engines), or by a transaction that was rolled back.
@Suite("The record cache never serves a changed record")
struct RecordCacheTests {
    private func agendaTitles(_ fixture: TestStore) throws -> [String] {
        let found = try requireDone(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
            "from": .set(.dateTime(try DateTimeValue(parsing: "2026-06-13T00:00:00+02:00[Europe/Berlin]"))),
            "to": .set(.dateTime(try DateTimeValue(parsing: "2026-06-14T00:00:00+02:00[Europe/Berlin]"))),
        ]))))
        return found.occurrences.map { fixture.registry.title(of: $0.record) }
    }

    @Test("a change committed by another connection is seen by the next read")
    func otherConnection() throws {
        let fixture = try TestStore(label: "cache-other")
        try fixture.makeCalendar()
        try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        #expect(try agendaTitles(fixture) == ["Picnic"])
        #expect(try agendaTitles(fixture) == ["Picnic"])
        let other = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        try other.transaction { transaction in
            var changed = try #require(try transaction.fetchAll(Fixture.event, matching: [], limit: nil).first)
            changed["title"] = .string("Picnic in the park")
            try transaction.save(changed)
        }
        #expect(try agendaTitles(fixture) == ["Picnic in the park"])
    }

    @Test("a longer event written by another connection widens this one's search (the longest duration is not kept stale)")
    func otherConnectionDuration() throws {
        let fixture = try TestStore(label: "cache-duration")
        try fixture.makeCalendar()
        try fixture.makeEvent("Short", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        #expect(try agendaTitles(fixture) == ["Short"])
        // A four-day event starting three days before the day asked about, written elsewhere.
        let other = IntentEngine(store: try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now),
                                 timeZone: Fixture.berlin, clock: { Fixture.now })
        _ = try requireDone(other.perform(IntentRequest(intent: "createEvent", parameters: ParameterBindings([
            "title": .set(.string("Festival")),
            "startDate": .set(.dateTime(try DateTimeValue(parsing: "2026-06-10T09:00:00+02:00[Europe/Berlin]"))),
            "endDate": .set(.dateTime(try DateTimeValue(parsing: "2026-06-14T09:00:00+02:00[Europe/Berlin]"))),
        ]), confirmation: .confirmed)))
        #expect(try agendaTitles(fixture).sorted() == ["Festival", "Short"])
    }

    @Test("this connection's own update, and a rolled-back one, are read back as they stand")
    func ownWrites() throws {
        let fixture = try TestStore(label: "cache-own")
        try fixture.makeCalendar()
        try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        #expect(try agendaTitles(fixture) == ["Picnic"])
        try fixture.store.transaction { transaction in
            var changed = try #require(try transaction.fetchAll(Fixture.event, matching: [], limit: nil).first)
            changed["title"] = .string("Renamed")
            try transaction.save(changed)
        }
        #expect(try agendaTitles(fixture) == ["Renamed"])
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try fixture.store.transaction { transaction in
                var changed = try #require(try transaction.fetchAll(Fixture.event, matching: [], limit: nil).first)
                changed["title"] = .string("Never committed")
                try transaction.save(changed)
                // Read inside the transaction: its own change, which must not be cached.
                #expect(try transaction.fetch(Fixture.event, id: changed.id).map { fixture.registry.title(of: $0) } == "Never committed")
                throw Abandon()
            }
        }
        #expect(try agendaTitles(fixture) == ["Renamed"])
    }
}
