import Foundation
import Testing
import CometSchema
import CometStore

/// The change feed, as any store keeps it: what a syncing client asks for ("what changed since
/// the number you gave me last?").
@Suite("Store conformance: the change feed")
struct ChangeFeedConformanceTests {
    @Test("a new store's head is 0 and it has no changes since 0; a point after the head cannot be answered", arguments: StoreFactory.all)
    func empty(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        try fixture.store.readTransaction { (reader: any StoreReader) throws in
            #expect(try reader.changeHead() == 0)
            #expect(try reader.changes(since: 0) == [])
            #expect(try reader.changes(since: 1) == nil)
        }
    }

    @Test("saves and deletes by any path give numbers that only grow; each record appears once, with its newest change, and a deleted one with what it was", arguments: StoreFactory.all)
    func savesAndDeletes(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-14T12:00:00Z")
        try fixture.save(work, picnic, lunch)
        let afterCreate = try fixture.store.readTransaction { try $0.changeHead() }
        #expect(afterCreate >= 3)
        let created = try #require(try fixture.store.readTransaction { try $0.changes(since: 0) })
        #expect(created.map(\.id) == [work.id, picnic.id, lunch.id])
        #expect(created.allSatisfy { $0.gone == nil })
        #expect(created.map(\.sequence) == created.map(\.sequence).sorted())
        #expect(created.last?.sequence == afterCreate)

        var moved = picnic
        moved["title"] = .string("Picnic in the park")
        try fixture.save(moved)
        try fixture.store.transaction { try $0.delete(ConformanceStore.event, id: lunch.id) }
        let since = try #require(try fixture.store.readTransaction { try $0.changes(since: afterCreate) })
        #expect(since.map(\.id) == [picnic.id, lunch.id])
        #expect(since[0].gone == nil)
        // What it was, read back through the schema (which fills in its defaults).
        let gone = try #require(since[1].gone)
        #expect(gone.id == lunch.id)
        for property in ["title", "startDate", "calendar"] { #expect(gone[property] == lunch[property]) }
        #expect(since[1].entity == ConformanceStore.event)
        // From the start, each record once: the picnic with its newest number, after the work calendar.
        let all = try #require(try fixture.store.readTransaction { try $0.changes(since: 0) })
        #expect(all.map(\.id) == [work.id, picnic.id, lunch.id])
        #expect(try fixture.store.readTransaction { try $0.changeHead() } == since.last?.sequence)
    }

    @Test("a write that fails leaves the feed as it was; a record saved again after its deletion exists again", arguments: StoreFactory.all)
    func failedWrite(_ factory: StoreFactory) throws {
        struct Interrupted: Error {}
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let head = try fixture.store.readTransaction { try $0.changeHead() }
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        #expect(throws: Interrupted.self) {
            try fixture.store.transaction { (writer: any StoreWriter) throws in
                try writer.save(picnic)
                throw Interrupted()
            }
        }
        #expect(try fixture.store.readTransaction { try $0.changes(since: head) } == [])
        try fixture.save(picnic)
        try fixture.store.transaction { try $0.delete(ConformanceStore.event, id: picnic.id) }
        try fixture.save(picnic)
        let changes = try #require(try fixture.store.readTransaction { try $0.changes(since: head) })
        #expect(changes.map(\.id) == [picnic.id])
        #expect(changes[0].gone == nil)
    }

    @Test("another store on the same location reads the same feed", arguments: StoreFactory.all)
    func shared(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        try other.transaction { try $0.save(work) }
        let changes = try #require(try fixture.store.readTransaction { try $0.changes(since: 0) })
        #expect(changes.map(\.id) == [work.id])
    }

    @Test("only the newest deletions are remembered: a point before the oldest forgotten one cannot be answered, a later one can", arguments: StoreFactory.all)
    func forgetting(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let start = try fixture.store.readTransaction { try $0.changeHead() }
        // More deletions than the feed keeps, in one transaction (fast), then a few more.
        let total = ChangeFeed.goneKept + 600
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            for index in 0..<total {
                let event = try fixture.event("E\(index)", in: work, start: "2026-06-13T12:00:00Z")
                try writer.save(event)
                try writer.delete(ConformanceStore.event, id: event.id)
            }
        }
        let head = try fixture.store.readTransaction { try $0.changeHead() }
        #expect(try fixture.store.readTransaction { try $0.changes(since: start) } == nil)
        // Each event had two numbers (its save, then its deletion) and keeps its newest: 50 events.
        let recent = try #require(try fixture.store.readTransaction { try $0.changes(since: head - 100) })
        #expect(recent.count == 50)
        #expect(recent.allSatisfy { $0.gone != nil })
    }
}
