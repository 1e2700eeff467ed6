import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport

/// What other stores changed reaches a store's record cache through the change feed; the
/// feed's news since the cache's head come in the transaction's first round trip, with its
/// BEGIN and head (`PGSession.feedStatements`), not in round trips of their own.
@Suite("PostgreSQL store: the change feed read with a transaction's opening")
struct PostgresFeedTests {
    private func fixture() throws -> ConformanceStore { try ConformanceStore(.postgresql) }

    @Test("after another store's commit, a read of a day is one round trip, two when one of its events was renamed, and sees a longer one starting days before; a write's lock brings the feed too: saving while reading a cached record another store did not change is one round trip, and a record the other store changed leaves the cache")
    func feedWithTheOpening() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z", end: "2026-06-16T13:00:00Z")
        let dinner = try fixture.event("Dinner", in: work, start: "2026-06-16T19:00:00Z", end: "2026-06-16T20:00:00Z")
        let breakfast = try fixture.event("Breakfast", in: work, start: "2026-06-20T08:00:00Z", end: "2026-06-20T09:00:00Z")
        try fixture.save(work, lunch, dinner, breakfast)
        let other = fixture.store
        let store = try #require(try fixture.openAgain() as? PostgresStore)
        let dayStart = try #require(try DateTimeValue(parsing: "2026-06-16T00:00:00Z").instant)
        let dayEnd = try #require(try DateTimeValue(parsing: "2026-06-17T00:00:00Z").instant)
        func day() throws -> (trips: Int, titles: [String]) {
            let before = store.roundTrips
            let titles = try store.readTransaction { reader in
                try reader.occurrences(ConformanceStore.event, from: dayStart, to: dayEnd, zone: ConformanceStore.berlin, matching: [],
                                       text: nil, limit: nil, offset: 0).occurrences.map { fixture.title($0.record) }
            }
            return (store.roundTrips - before, titles.sorted())
        }
        func rename(_ record: EntityRecord, _ title: String) throws -> EntityRecord {
            var renamed = record
            renamed["title"] = .string(title)
            try other.transaction { try $0.save(renamed) }
            return renamed
        }
        // Warm: the day's statements are prepared on their first use, and the cache learns the
        // day's records and the longest event.
        #expect(try day().titles == ["Dinner", "Lunch"])
        _ = try rename(dinner, "Supper")
        #expect(try day().titles == ["Lunch", "Supper"])

        // Another day's event renamed: the news come with the opening, and this day's records
        // are still in the cache.
        _ = try rename(breakfast, "Brunch")
        let elsewhere = try day()
        #expect(elsewhere.trips == 1, "BEGIN, the head, the feed's news and the day's rows; nothing else (it was three)")
        #expect(elsewhere.titles == ["Lunch", "Supper"])
        _ = try rename(dinner, "Late dinner")
        let renamed = try day()
        #expect(renamed.trips == 2, "the same, then the renamed record (it was four)")
        #expect(renamed.titles == ["Late dinner", "Lunch"])

        // A trip of ten days, starting before the day: longer than any event the cache knew.
        try other.transaction { try $0.save(try fixture.event("Trip", in: work, start: "2026-06-08T08:00:00Z", end: "2026-06-18T08:00:00Z")) }
        #expect(try day().titles == ["Late dinner", "Lunch", "Trip"], "the longest occurrence widened from the feed's news")

        // A write: its lock brings the feed's news in its first round trip.
        func saveAndRead(_ title: String, _ id: UUID) throws -> (trips: Int, read: EntityRecord?) {
            let before = store.roundTrips
            let read = try store.transaction { writer in
                try writer.save(try fixture.event(title, in: work, start: "2026-06-16T16:00:00Z"))
                return try writer.fetch(ConformanceStore.event, id: id)
            }
            return (store.roundTrips - before, read)
        }
        _ = try saveAndRead("Warm", breakfast.id)  // its statements are prepared on their first use
        let cheaper = try rename(lunch, "Cheap lunch")
        let written = try saveAndRead("Tea", breakfast.id)
        #expect(written.read.map(fixture.title) == "Brunch")
        #expect(written.trips == 1, "the brunch, taken from the cache, is checked by the server before the save: BEGIN, the lock, the feed's news, the check, the save and COMMIT (it was four)")
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == cheaper,
                "the lunch the other store renamed left the cache with the write's news")
    }
}
