import Foundation
import Testing
import CometSchema
import CometStore

/// Transactions, as any store runs them: a read sees one snapshot, two stores on one location
/// see each other's commits, and a write that fails leaves nothing.
@Suite("Store conformance: transactions")
struct ConcurrencyConformanceTests {
    @Test("a read sees one snapshot while another store on the same location commits; the next read sees the commit", arguments: StoreFactory.all)
    func snapshot(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let other = try fixture.openAgain()
        let home = fixture.calendar("Home")
        try fixture.store.readTransaction { (reader: any StoreReader) throws in
            #expect(try reader.count(ConformanceStore.calendar) == 1)
            // Another store commits in the middle of this read.
            try other.transaction { try $0.save(home) }
            #expect(try reader.count(ConformanceStore.calendar) == 1)
            #expect(try reader.fetch(ConformanceStore.calendar, id: home.id) == nil)
        }
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: home.id) } == home)
    }

    @Test("othersVersion moves when another store commits a change, never for this store's own writes: one that saves, one that only reads, one that asks nothing", arguments: StoreFactory.all)
    func othersVersion(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let start = try fixture.store.othersVersion()
        try fixture.save(fixture.calendar("Home"))
        _ = try fixture.store.transaction { try $0.count(ConformanceStore.calendar) }
        _ = try fixture.store.transaction { _ in 7 }
        #expect(try fixture.store.othersVersion() == start)
        try other.transaction { try $0.save(fixture.calendar("Travel")) }
        #expect(try fixture.store.othersVersion() != start)
    }

    @Test("two stores on one location see each other's changes, also to records they read before", arguments: StoreFactory.all)
    func twoStores(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        var renamed = work
        renamed["title"] = .string("Office")
        try fixture.save(renamed)
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == renamed)
        try other.transaction { try $0.delete(ConformanceStore.calendar, id: work.id) }
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == nil)
    }

    @Test("a store that queried a range sees a longer event another store saved after, starting days before a later range, and an edit that lengthens one", arguments: StoreFactory.all)
    func longerEventFromAnotherStore(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        let standup = try fixture.event("Standup", in: work, start: "2026-06-15T09:00:00+02:00[Europe/Berlin]", end: "2026-06-15T09:15:00+02:00[Europe/Berlin]")
        try fixture.save(work, standup)
        func titles(_ store: any OpenedStore, _ from: String, _ to: String) throws -> [String] {
            let lower = try #require(try DateTimeValue(parsing: from).instant)
            let upper = try #require(try DateTimeValue(parsing: to).instant)
            return try store.readTransaction {
                try $0.occurrences(ConformanceStore.event, from: lower, to: upper, zone: ConformanceStore.berlin, matching: [])
            }.map { fixture.title($0.record) }
        }
        // The other store has read a range: it knows the longest occurrence so far (15 minutes).
        #expect(try titles(other, "2026-06-15T00:00:00Z", "2026-06-16T00:00:00Z") == ["Standup"])
        // A conference of five days, saved through the first store, starts three days before June 20.
        let conference = try fixture.event("Conference", in: work, start: "2026-06-17T09:00:00+02:00[Europe/Berlin]", end: "2026-06-22T17:00:00+02:00[Europe/Berlin]")
        try fixture.save(conference)
        #expect(try titles(other, "2026-06-20T00:00:00Z", "2026-06-21T00:00:00Z") == ["Conference"])
        // The standup made two days long, starting days before June 17: an edit lengthens it.
        var longer = standup
        longer["endDate"] = .dateTime(try DateTimeValue(parsing: "2026-06-17T18:00:00+02:00[Europe/Berlin]"))
        try fixture.save(longer)
        #expect(try titles(other, "2026-06-17T10:00:00Z", "2026-06-17T11:00:00Z") == ["Standup", "Conference"])
    }

    private struct Interrupted: Error {}

    @Test("a write whose body throws leaves nothing: no record, no journal entry, no meta, and the store writes again after", arguments: StoreFactory.all)
    func crashSafety(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        #expect(throws: Interrupted.self) {
            try fixture.store.transaction { (writer: any StoreWriter) throws in
                try writer.save(picnic)
                var renamed = work
                renamed["title"] = .string("Renamed")
                try writer.save(renamed)
                _ = try writer.appendJournal(JournalEntry(intent: "calendar.createEvent", summary: "Picnic", created: ConformanceStore.now,
                                                          changes: [JournalEntry.Change(entity: picnic.entity, id: picnic.id, before: nil, after: picnic)]))
                try writer.setMeta("conformance.example", "written")
                throw Interrupted()
            }
        }
        try fixture.store.readTransaction { (reader: any StoreReader) throws in
            #expect(try reader.fetch(ConformanceStore.event, id: picnic.id) == nil)
            #expect(try reader.fetch(ConformanceStore.calendar, id: work.id) == work)
            #expect(try reader.journal(limit: 10).isEmpty)
            #expect(try reader.meta("conformance.example") == nil)
            #expect(try reader.occurrences(ConformanceStore.event, from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 2_000_000_000),
                                           zone: ConformanceStore.berlin, matching: []).isEmpty)
        }
        try fixture.save(picnic)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == picnic)
    }
}
