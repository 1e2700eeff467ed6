import Testing
import Foundation
import CometSchema
import CometStore
@testable import CometSQLiteStore
import CometIntents

/// What a write transaction reads is kept once it commits, and never when it rolls back: the
/// daemon's writer reads records in every create (the overlap check), and decoded them again
/// each time while its reads were never kept.
@Suite("Records read while writing")
struct WriteReadCacheTests {
    private func fresh(_ fixture: TestStore) throws -> (SQLiteStore, [EntityRecord]) {
        // A connection of its own with nothing cached: the fixture's engine has read everything.
        let store = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        let events = try fixture.store.readTransaction { try $0.fetchAll(Fixture.event, matching: [], limit: nil) }
        return (store, events)
    }

    @Test("a record read in a committed write is kept; one changed after the read is kept as it now stands")
    func keptAfterCommit() throws {
        let fixture = try TestStore(label: "write-read")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let lunch = try fixture.makeEvent("Lunch", start: "2026-06-14T12:00:00+02:00[Europe/Berlin]")
        let (store, _) = try fresh(fixture)
        #expect(!store.hasCachedRecord(Fixture.event, id: picnic.id))
        try store.transaction { writer in
            _ = try writer.fetch(Fixture.event, id: picnic.id)
            var renamed = try #require(try writer.fetch(Fixture.event, id: lunch.id))
            renamed["title"] = .string("Long lunch")
            try writer.save(renamed)
            #expect(try writer.fetch(Fixture.event, id: lunch.id)?["title"] == .string("Long lunch"))
        }
        #expect(store.hasCachedRecord(Fixture.event, id: picnic.id))
        #expect(store.hasCachedRecord(Fixture.event, id: lunch.id))
        let read = try store.readTransaction { try $0.fetch(Fixture.event, id: lunch.id) }
        #expect(read?["title"] == .string("Long lunch"))
    }

    @Test("a write that rolls back keeps nothing it read, not even its own change read back")
    func nothingAfterRollback() throws {
        let fixture = try TestStore(label: "write-read-rollback")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let (store, _) = try fresh(fixture)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try store.transaction { writer in
                var renamed = try #require(try writer.fetch(Fixture.event, id: picnic.id))
                renamed["title"] = .string("Not a picnic")
                try writer.save(renamed)
                _ = try writer.fetch(Fixture.event, id: picnic.id)
                throw Abandon()
            }
        }
        #expect(!store.hasCachedRecord(Fixture.event, id: picnic.id))
        let read = try store.readTransaction { try $0.fetch(Fixture.event, id: picnic.id) }
        #expect(read?["title"] == .string("Picnic"))
    }

    @Test("a write keeps at most a generation of the cache of what it reads, not everything until it commits")
    func boundedWhileWriting() throws {
        let fixture = try TestStore(label: "write-read-bounded")
        try fixture.makeCalendar()
        let events = try ["Picnic", "Lunch", "Dinner"].enumerated().map { index, title in
            try fixture.makeEvent(title, start: "2026-06-1\(3 + index)T12:00:00+02:00[Europe/Berlin]")
        }
        let (store, _) = try fresh(fixture)
        store.readWhileWritingLimit = 2
        try store.transaction { writer in
            for event in events { _ = try writer.fetch(Fixture.event, id: event.id) }
            #expect(store.recordsReadWhileWriting == 2)
        }
        #expect(store.hasCachedRecord(Fixture.event, id: events[0].id))
        #expect(store.hasCachedRecord(Fixture.event, id: events[1].id))
        #expect(!store.hasCachedRecord(Fixture.event, id: events[2].id))
    }

    @Test("the journal's changes are written one at a time into the same compact array one tree gives")
    func journalTextIsTheTreesText() throws {
        let fixture = try TestStore(label: "journal-text")
        try fixture.makeCalendar()
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let lunch = try fixture.makeEvent("Lunch \"long\"", start: "2026-06-14T12:00:00+02:00[Europe/Berlin]")
        var renamed = lunch
        renamed["title"] = .string("Lunch")
        let store = try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now)
        let session = Session(store: store)
        let changes = [JournalEntry.Change(entity: Fixture.event, id: picnic.id, before: nil, after: picnic),
                       JournalEntry.Change(entity: Fixture.event, id: lunch.id, before: lunch, after: renamed),
                       JournalEntry.Change(entity: Fixture.event, id: picnic.id, before: picnic, after: nil)]
        for count in 0...changes.count {
            for undone in [false, true] {
                let some = Array(changes.prefix(count))
                let tree = JSONValue.array(try some.map {
                    try JournalCoding.encode($0, inStore: JournalCoding.storedSide(undone: undone), registry: fixture.registry)
                })
                #expect(try session.journalText(some, undone: undone) == JSONWriter.compact(tree))
            }
        }
    }
}
