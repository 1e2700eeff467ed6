import Testing
import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// The full-text index is written at the end of a transaction (or when it fills), not record
/// by record. A search inside the transaction still sees its own changes, and a rolled-back
/// transaction leaves nothing in the index.
@Suite("Full-text changes wait for the end of the transaction")
struct SearchQueueTests {
    private func titles(_ transaction: any StoreReader, _ text: String, registry: Registry) throws -> [String] {
        try transaction.fetchAll(Fixture.event, matching: [], text: text, limit: nil, offset: 0).map { registry.title(of: $0) }.sorted()
    }

    @Test("a search in the same transaction sees a record just saved, renamed or deleted")
    func sameTransaction() throws {
        let fixture = try TestStore(label: "search-queue")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        try fixture.store.transaction { transaction in
            var renamed = picnic
            renamed["title"] = .string("Barbecue")
            try transaction.save(renamed)
            #expect(try titles(transaction, "barbecue", registry: fixture.registry) == ["Barbecue"])
            #expect(try titles(transaction, "picnic", registry: fixture.registry).isEmpty)
            try transaction.delete(Fixture.event, id: picnic.id)
            #expect(try titles(transaction, "barbecue", registry: fixture.registry).isEmpty)
            #expect(try transaction.count(Fixture.event, matching: [], text: "barbecue") == 0)
        }
        let after = try fixture.store.readTransaction { transaction in try titles(transaction, "barbecue", registry: fixture.registry) }
        #expect(after.isEmpty)
    }

    @Test("a rolled-back transaction leaves the index as it was; more changes than the queue holds all arrive")
    func rollbackAndVolume() throws {
        let fixture = try TestStore(label: "search-queue-volume")
        let calendar = try fixture.makeCalendar()
        struct Abandon: Error {}
        let start = try DateTimeValue(parsing: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        func event(_ title: String) -> EntityRecord {
            EntityRecord(entity: Fixture.event, id: UUID(), values: ["title": .string(title), "startDate": .dateTime(start), "calendar": .reference(calendar.id)])
        }
        #expect(throws: Abandon.self) {
            try fixture.store.transaction { transaction in
                try transaction.save(event("Ghost lunch"))
                throw Abandon()
            }
        }
        let count = SQLiteStore.searchQueueLimit + 10
        try fixture.store.transaction { transaction in
            for index in 0..<count { try transaction.save(event("Lunch \(index)")) }
        }
        let found = try fixture.store.readTransaction { transaction in
            try ["ghost", "lunch", "4100"].map { try transaction.count(Fixture.event, matching: [], text: $0) }
        }
        #expect(found == [0, count, 1])
    }
}
