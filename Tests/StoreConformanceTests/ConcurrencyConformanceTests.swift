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
