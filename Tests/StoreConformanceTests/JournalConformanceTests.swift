import Foundation
import Testing
import CometSchema
import CometStore

/// The journal, alarm bookkeeping and meta, as any store keeps them.
@Suite("Store conformance: journal, alarms and meta")
struct JournalConformanceTests {
    private func entry(_ fixture: ConformanceStore, _ summary: String, changing record: EntityRecord) -> JournalEntry {
        JournalEntry(intent: "calendar.createCalendar", summary: summary, created: ConformanceStore.now,
                     changes: [JournalEntry.Change(entity: record.entity, id: record.id, before: nil, after: record)])
    }

    @Test("entries append in order; undo takes the newest done, redo the oldest undone; a listing has no changes but counts them", arguments: StoreFactory.all)
    func journal(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let first = fixture.calendar("First")
        let second = fixture.calendar("Second")
        try fixture.save(first, second)
        let (one, two) = try fixture.store.transaction { (writer: any StoreWriter) throws in
            (try writer.appendJournal(entry(fixture, "Created First", changing: first)),
             try writer.appendJournal(entry(fixture, "Created Second", changing: second)))
        }
        #expect(one < two)
        let toUndo = try #require(try fixture.store.readTransaction { try $0.journalEntry(toUndo: true) })
        #expect(toUndo.sequence == two)
        #expect(toUndo.summary == "Created Second")
        #expect(toUndo.changes.map(\.id) == [second.id])
        #expect(try fixture.store.readTransaction { try $0.journalEntry(toUndo: false) } == nil)

        // Undone: the record is gone from the store, so the journal must hold its after in full.
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            try writer.delete(ConformanceStore.calendar, id: second.id)
            try writer.setJournal(two, undone: true, changes: [JournalEntry.Change(entity: second.entity, id: second.id, before: nil, after: second)])
        }
        #expect(try fixture.store.readTransaction { try $0.journalEntry(toUndo: true) }?.sequence == one)
        let toRedo = try #require(try fixture.store.readTransaction { try $0.journalEntry(toUndo: false) })
        #expect(toRedo.sequence == two)
        #expect(toRedo.isUndone)
        // Kept in full (read back through the schema, defaults filled in).
        #expect(toRedo.changes.first?.after?.id == second.id)
        #expect(toRedo.changes.first?.after?["title"] == .string("Second"))

        let listed = try fixture.store.readTransaction { try $0.journal(limit: 10) }
        #expect(listed.map(\.sequence) == [two, one])
        #expect(listed.map(\.changes.isEmpty) == [true, true])
        #expect(listed.map(\.changeCount) == [1, 1])
        let heads = try fixture.store.readTransaction { try $0.journalHeads(limit: 10) }
        #expect(heads.map(\.sequence) == [two, one])
        #expect(heads.map(\.undone) == [true, false])
        #expect(try fixture.store.readTransaction { try $0.journalEntry(sequence: one) }?.summary == "Created First")
    }

    @Test("a new entry after an undo leaves nothing to redo; marking an entry undone with its record known only by digest is refused", arguments: StoreFactory.all)
    func journalRules(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let first = fixture.calendar("First")
        let second = fixture.calendar("Second")
        try fixture.save(first, second)
        let one = try fixture.store.transaction { try $0.appendJournal(entry(fixture, "Created First", changing: first)) }
        // The record is gone once undone: only a digest of it cannot bring it back.
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.transaction {
                try $0.setJournal(one, undone: true, changes: [JournalEntry.Change(entity: first.entity, id: first.id, before: nil, after: nil, afterDigest: 0xBEEF)])
            }
        }
        #expect(refused?.code == .invalidData)
        #expect(try fixture.store.readTransaction { try $0.journalEntry(toUndo: true) }?.sequence == one)
        try fixture.store.transaction {
            try $0.setJournal(one, undone: true, changes: [JournalEntry.Change(entity: first.entity, id: first.id, before: nil, after: first)])
        }
        #expect(try fixture.store.readTransaction { try $0.journalEntry(toUndo: false) }?.sequence == one)
        _ = try fixture.store.transaction { try $0.appendJournal(entry(fixture, "Created Second", changing: second)) }
        #expect(try fixture.store.readTransaction { try $0.journalEntry(toUndo: false) } == nil)
        #expect(try fixture.store.readTransaction { try $0.journal(limit: 10) }.map(\.summary) == ["Created Second"])
    }

    @Test("an alarm is recorded as fired once; snoozes are kept until read by their moment; the last fired occurrence is known", arguments: StoreFactory.all)
    func alarms(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let record = UUID()
        let key = AlarmKey(record: record, occurrence: 1_781_100_000, trigger: 1_781_099_100)
        #expect(try fixture.store.readTransaction { try $0.alarmFired(key) } == false)
        #expect(try fixture.store.transaction { try $0.recordAlarm(key, firedAt: ConformanceStore.now, late: false) } == true)
        #expect(try fixture.store.transaction { try $0.recordAlarm(key, firedAt: ConformanceStore.now, late: false) } == false)
        #expect(try fixture.store.readTransaction { try $0.alarmFired(key) } == true)
        #expect(try fixture.store.readTransaction { try $0.lastFiredOccurrence(of: record) } == 1_781_100_000)
        #expect(try fixture.store.readTransaction { try $0.lastFiredOccurrence(of: UUID()) } == nil)

        let snooze = AlarmKey(record: record, occurrence: 1_781_100_000, trigger: 1_781_200_000)
        try fixture.store.transaction { try $0.addSnoozedAlarm(snooze, occurrence: "2026-06-10T14:13:20Z") }
        let due = try fixture.store.readTransaction { try $0.snoozedAlarms(from: 1_781_199_000, to: 1_781_201_000) }
        #expect(due.map(\.key) == [snooze])
        #expect(due.map(\.occurrence) == ["2026-06-10T14:13:20Z"])
        #expect(try fixture.store.readTransaction { try $0.snoozedAlarms(from: 1_781_200_001, to: 1_781_300_000) }.isEmpty)
    }

    @Test("meta values are kept by key; an unknown key has none", arguments: StoreFactory.all)
    func meta(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        #expect(try fixture.store.readTransaction { try $0.meta("conformance.example") } == nil)
        try fixture.store.transaction { try $0.setMeta("conformance.example", "one") }
        try fixture.store.transaction { try $0.setMeta("conformance.example", "two") }
        #expect(try fixture.store.readTransaction { try $0.meta("conformance.example") } == "two")
    }
}
