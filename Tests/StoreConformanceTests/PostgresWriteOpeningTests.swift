import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport
import TestThreads

/// A write's BEGIN and lock go with its first statement that is waited for
/// (`PGSession.openWrite`): what the write takes from the record cache before the lock's answer
/// is checked against the head the lock read, and a write that took a record another process
/// changed runs again, with its lock first.
@Suite("PostgreSQL store: a write's lock with its first question")
struct PostgresWriteOpeningTests {
    private func fixture() throws -> ConformanceStore { try ConformanceStore(.postgresql) }

    @Test("a write's lock goes with its first question: a save that reads its day is two round trips; a delete and a save alone, waiting for nothing, one; a write that asks and changes nothing sends nothing")
    func roundTrips() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func trips<T>(_ body: (any StoreWriter) throws -> T) throws -> (Int, T) {
            let before = store.roundTrips
            let result = try store.transaction(body)
            return (store.roundTrips - before, result)
        }
        func day(_ writer: any StoreWriter) throws -> [String] {
            try writer.occurrences(ConformanceStore.event, from: try #require(try DateTimeValue(parsing: "2026-06-16T00:00:00Z").instant),
                                   to: try #require(try DateTimeValue(parsing: "2026-06-17T00:00:00Z").instant),
                                   zone: ConformanceStore.berlin, matching: [], text: nil, limit: nil, offset: 0).occurrences.map { fixture.title($0.record) }
        }
        // Warm: each statement is prepared on its first use.
        let warm = try fixture.event("Warm", in: work, start: "2026-06-16T08:00:00Z")
        _ = try trips { writer in try writer.save(warm); return try day(writer) }
        try store.transaction { try $0.delete(ConformanceStore.event, id: warm.id) }

        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        let saved = try trips { writer in try writer.save(lunch); return try day(writer) }
        #expect(saved.0 == 2, "BEGIN, the lock, the writes and the day's rows; then COMMIT")
        #expect(saved.1 == ["Lunch"])
        let deleted = try trips { try $0.delete(ConformanceStore.event, id: lunch.id) }
        #expect(deleted.0 == 1, "the lunch is cached and nobody else wrote: BEGIN, the lock, the head check, the DELETE, the feed and COMMIT")
        let alone = try trips { try $0.save(try fixture.event("Dinner", in: work, start: "2026-06-16T19:00:00Z")) }
        #expect(alone.0 == 1, "BEGIN, the lock, the head check, the writes and COMMIT")
        let nothing = try trips { _ in 7 }
        #expect(nothing.0 == 0 && nothing.1 == 7)
        struct Refused: Error {}
        let before = store.roundTrips
        #expect(throws: Refused.self) { try store.transaction { _ in throw Refused() } }
        #expect(store.roundTrips == before, "a write that failed before asking anything sent nothing")
        #expect(try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [], text: nil, limit: nil, offset: 0) }.map(fixture.title) == ["Dinner"])
    }

    @Test("a write that took a record from the cache which another process changed before its lock was granted runs again with its lock first: the other's change is kept, its own applied once")
    func staleCacheReadRunsAgain() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z", ["uid": .string("Canteen")])
        try fixture.save(work, lunch)
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == lunch)

        // Another process changes the lunch; this store's cache still holds it as it was.
        let other = try fixture.openAgain()
        var moved = lunch
        moved["uid"] = .string("Park")
        try other.transaction { try $0.save(moved) }

        func rename(asking: Bool) throws -> (runs: Int, seen: [Value?]) {
            var runs = 0
            var seen: [Value?] = []
            try store.transaction { writer in
                runs += 1
                guard var record = try writer.fetch(ConformanceStore.event, id: lunch.id) else { throw StoreError(.notFound, "no lunch") }
                seen.append(record["uid"])
                record["title"] = .string(fixture.title(record) + "!")
                try writer.save(record)
                // A question waited for carries the lock; without one the lock goes before COMMIT.
                if asking { _ = try writer.count(ConformanceStore.event) }
            }
            return (runs, seen)
        }
        let asked = try rename(asking: true)
        #expect(asked.runs == 2 && asked.seen == [.string("Canteen"), .string("Park")])
        var expected = moved
        expected["title"] = .string("Lunch!")
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == expected)

        moved = expected
        moved["uid"] = .string("Roof")
        try other.transaction { try $0.save(moved) }
        let unasked = try rename(asking: false)
        #expect(unasked.runs == 2 && unasked.seen == [.string("Park"), .string("Roof")])
        expected = moved
        expected["title"] = .string("Lunch!!")
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == expected)

        // Nobody else changed it: the write runs once, from the cache.
        let again = try rename(asking: true)
        #expect(again.runs == 1 && again.seen == [.string("Roof")])
    }

    @Test("a journaled write that waits for nothing is one round trip, its entry numbered before its lock answers; another store's write in between makes it run again with its lock first, applied once and journaled after the other's; then two round trips, until a write finds nobody else wrote")
    func oneRoundTripWrites() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let other = try fixture.openAgain()
        let work = fixture.calendar("Work")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        try fixture.save(work, lunch)
        func rename(_ title: String, on writer: any StoreWriter) throws {
            guard var record = try writer.fetch(ConformanceStore.event, id: lunch.id) else { throw StoreError(.notFound, "no lunch") }
            let before = record
            record["title"] = .string(title)
            try writer.save(record)
            _ = try writer.appendJournal(JournalEntry(intent: "calendar.updateEvent", summary: title, created: ConformanceStore.now,
                                                      changes: [.init(entity: record.entity, id: record.id, before: before, after: record)]))
        }
        func renamed(_ title: String) throws -> (runs: Int, trips: Int) {
            var runs = 0
            let before = store.roundTrips
            try store.transaction { writer in
                runs += 1
                try rename(title, on: writer)
            }
            return (runs, store.roundTrips - before)
        }
        // Warm: the statements are prepared (a record's read too), and the store's writes found
        // nobody else writing.
        #expect(try store.transaction { try $0.fetch(ConformanceStore.event, id: UUID()) } == nil)
        _ = try renamed("Warm")
        _ = try renamed("Warm again")

        let alone = try renamed("A")
        #expect(alone.runs == 1 && alone.trips == 1, "\(alone)")
        try other.transaction { try rename("B", on: $0) }
        let after = try renamed("C")
        #expect(after.runs == 2 && after.trips == 4, "the head check failed; then BEGIN with the lock and the feed's news, the renamed lunch read anew, and the writes with COMMIT: \(after.runs) runs, \(after.trips) trips")
        #expect(try renamed("D") == (1, 2), "the last write found another's: the lock goes first")
        #expect(try renamed("E") == (1, 1), "the last write found nobody else's")

        let journal = try store.readTransaction { reader in
            try reader.journalHeads(limit: 10).map { try #require(try reader.journalEntry(sequence: $0.sequence)).summary }
        }
        #expect(journal == ["E", "D", "C", "B", "A", "Warm again", "Warm"], "numbered in the order they committed, each once")
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) }.map(fixture.title) == "E")
    }

    @Test("a delete of a record the write knows waits for nothing: read then deleted on a store that had not seen it is two round trips, the feed keeps the record as it was; one it does not know is two as well; a refused delete rolls the write back on both paths")
    func deleteOfAKnownRecord() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        let events = try (0..<4).map { try fixture.event("Event \($0)", in: work, start: "2026-06-16T1\($0):00:00Z") }
        try fixture.save(work, events[0], events[1], events[2], events[3])
        // A store that has seen none of them: its cache is empty.
        let fresh = try #require(try fixture.openAgain() as? PostgresStore)
        func trips(_ body: (any StoreWriter) throws -> Void) throws -> Int {
            let before = fresh.roundTrips
            try fresh.transaction(body)
            return fresh.roundTrips - before
        }
        func readThenDelete(_ record: EntityRecord) throws -> Int {
            try trips { writer in
                #expect(try writer.fetch(ConformanceStore.event, id: record.id) == record)
                try writer.delete(ConformanceStore.event, id: record.id)
            }
        }
        // Warm: each statement is prepared on its first use.
        _ = try readThenDelete(events[0])
        try fresh.transaction { try $0.delete(ConformanceStore.event, id: events[1].id) }

        let head = try fresh.readTransaction { try $0.changeHead() }
        #expect(try readThenDelete(events[2]) == 2, "BEGIN, the lock and the read; then the DELETE, the feed and COMMIT")
        #expect(try trips { try $0.delete(ConformanceStore.event, id: events[3].id) } == 2, "not known: the lock with the DELETE that returns the row; then COMMIT")
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event) } == 0)
        // The feed keeps each as it was, whether the write knew it or the DELETE returned it.
        let gone = try #require(try fresh.readTransaction { try $0.changes(since: head) })
        #expect(gone.map(\.id) == [events[2].id, events[3].id])
        let known = try #require(gone.first?.gone), returned = try #require(gone.last?.gone)
        for (record, event) in [(known, events[2]), (returned, events[3])] {
            #expect(["title", "startDate", "calendar"].map { record[$0] } == ["title", "startDate", "calendar"].map { event[$0] })
        }
        #expect(known.values.keys.sorted() == returned.values.keys.sorted())

        // A calendar still referred to: known to the write (read first), and not.
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        let party = try fixture.event("Party", in: work, start: "2026-06-14T12:00:00Z")
        try fixture.save(picnic, party)
        for reading in [true, false] {
            let other = try fixture.openAgain()
            let refused = #expect(throws: StoreError.self) {
                try other.transaction { writer in
                    if reading { #expect(try writer.fetch(ConformanceStore.calendar, id: work.id) == work) }
                    try writer.delete(ConformanceStore.event, id: party.id)
                    try writer.delete(ConformanceStore.calendar, id: work.id)
                }
            }
            #expect(refused?.code == .constraint, "\(String(describing: refused))")
            #expect(refused?.message.contains("still referred to") == true, "\(String(describing: refused))")
        }
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event) } == 2, "the party's delete was rolled back with the write")
    }

    @Test("two stores renaming one record from their caches at once lose no change: 2 × 30 read-then-append writes")
    func cachedReadThenWriteTakesTurns() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        let tally = try fixture.event("T", in: work, start: "2026-06-16T12:00:00Z")
        try fixture.save(work, tally)
        let stores = OneStorePerThread([try fixture.openAgain(), try fixture.openAgain()])
        let rounds = 30
        let failures = Failures()
        WorkerThreads.run(2) { which in
            for _ in 0..<rounds {
                do {
                    try stores.stores[which].transaction { writer in
                        guard var record = try writer.fetch(ConformanceStore.event, id: tally.id) else { throw StoreError(.notFound, "no tally") }
                        guard case .string(let title)? = record["title"] else { throw StoreError(.invalidData, "no title") }
                        record["title"] = .string(title + (which == 0 ? "a" : "b"))
                        try writer.save(record)
                    }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let record = try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: tally.id) }
        let title = try fixture.title(#require(record))
        #expect(title.count(where: { $0 == "a" }) == rounds && title.count(where: { $0 == "b" }) == rounds, "\(title)")
    }

    @Test("the changes a write saves before its lock's answer are numbered from the head the lock read: the change feed lists them in order after it, and another store's cache takes them")
    func changeNumbersBeforeTheLock() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        try fixture.save(work, lunch)
        let other = try fixture.openAgain()
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == lunch)
        let head = try store.readTransaction { try $0.changeHead() }

        var renamed = lunch
        renamed["title"] = .string("Team lunch")
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        try store.transaction { writer in
            try writer.save(picnic)
            try writer.save(renamed)
            try writer.delete(ConformanceStore.event, id: picnic.id)
        }
        let changes = try #require(try store.readTransaction { try $0.changes(since: head) })
        #expect(changes.map(\.sequence) == [head + 2, head + 3], "the picnic's save and delete are one entry of the feed, at its delete")
        #expect(changes.map(\.id) == [lunch.id, picnic.id])
        #expect(changes[1].gone.map(fixture.title) == "Picnic")
        #expect(try store.readTransaction { try $0.changeHead() } == head + 3)
        #expect(try other.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == renamed)
    }
}
