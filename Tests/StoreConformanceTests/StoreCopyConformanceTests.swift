import Foundation
import Testing
import CometSchema
import CometStore

/// `StoreCopy` (what `cometcal migrate` runs) from every kind of store into every kind: the copy
/// reads back as the source does through the seam alone.
@Suite("Store conformance: copying one store into another")
struct StoreCopyConformanceTests {
    /// A store holding some of everything: two calendars, a series with an override, a single
    /// event, three journal entries of which the newest is undone, facts set with `setMeta`, a
    /// fired alarm and a snoozed one.
    static func filled(_ factory: StoreFactory) throws -> (fixture: ConformanceStore, undone: EntityRecord) {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let home = fixture.calendar("Home")
        let series = try fixture.event("Standup", in: work, start: "2026-06-01T09:00:00+02:00[Europe/Berlin]", end: "2026-06-01T09:15:00+02:00[Europe/Berlin]", [
            "uid": .string("standup-1"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO")),
        ])
        let moved = try fixture.event("Standup (late)", in: work, start: "2026-06-22T10:00:00+02:00[Europe/Berlin]", end: "2026-06-22T10:15:00+02:00[Europe/Berlin]", [
            "uid": .string("standup-1"), "recurrenceId": try dateTime("2026-06-22T09:00:00+02:00[Europe/Berlin]"),
        ])
        let picnic = try fixture.event("Picnic", in: home, start: "2026-06-13T12:00:00Z", end: "2026-06-13T15:00:00Z", ["uid": .string("picnic-1")])
        let dinner = try fixture.event("Dinner", in: home, start: "2026-06-14T19:00:00+02:00[Europe/Berlin]")
        try fixture.save(work, home, series, moved, picnic)
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            _ = try writer.appendJournal(JournalEntry(intent: "calendar.createCalendar", summary: "Created Work", created: ConformanceStore.now,
                                                      changes: [.init(entity: work.entity, id: work.id, before: nil, after: work)]))
            _ = try writer.appendJournal(JournalEntry(intent: "calendar.createEvent", summary: "Created Picnic", created: ConformanceStore.now.addingTimeInterval(60),
                                                      changes: [.init(entity: picnic.entity, id: picnic.id, before: nil, after: picnic)]))
            try writer.save(dinner)
            let last = try writer.appendJournal(JournalEntry(intent: "calendar.createEvent", summary: "Created Dinner", created: ConformanceStore.now.addingTimeInterval(120),
                                                             changes: [.init(entity: dinner.entity, id: dinner.id, before: nil, after: dinner)]))
            // Undone: the record leaves the store and the journal holds it in full.
            try writer.delete(dinner.entity, id: dinner.id)
            try writer.setJournal(last, undone: true, changes: [.init(entity: dinner.entity, id: dinner.id, before: nil, after: dinner)])
            try writer.setMeta("caldav.names." + work.id.lowercasedText, #"{"standup-1":"client-name.ics"}"#)
            try writer.setMeta("alarms.checkedUntil", "1781085600")
            _ = try writer.recordAlarm(AlarmKey(record: picnic.id, occurrence: 1_781_352_000, trigger: 1_781_351_100), firedAt: ConformanceStore.now, late: true)
            try writer.addSnoozedAlarm(AlarmKey(record: series.id, occurrence: 1_782_111_600, trigger: 1_782_111_900), occurrence: "2026-06-22T09:00:00+02:00[Europe/Berlin]")
        }
        return (fixture, dinner)
    }

    /// Everything the seam reads of a store, in a form two stores' answers compare by.
    static func contents(_ store: any EntityStore) throws -> [String] {
        try store.readTransaction { reader in
            var lines: [String] = []
            for entity in store.registry.allEntities where entity.kind == .indexed {
                for record in try reader.fetchAll(entity.name, matching: [], text: nil, limit: nil, offset: 0).sorted(by: { $0.id.lowercasedText < $1.id.lowercasedText }) {
                    lines.append("record \(record.entity) \(record.id.lowercasedText) \(RecordDigest.of(record, registry: store.registry))")
                }
            }
            for head in try reader.journalHeads(limit: 100).reversed() {
                let entry = try #require(try reader.journalEntry(sequence: head.sequence))
                lines.append("journal \(entry.intent) \(entry.summary) \(entry.created.timeIntervalSince1970) undone=\(entry.isUndone) "
                             + entry.changes.map { "\($0.id.lowercasedText):\($0.before.map { RecordDigest.of($0, registry: store.registry) } ?? $0.beforeDigest ?? 0)>\($0.after.map { RecordDigest.of($0, registry: store.registry) } ?? $0.afterDigest ?? 0)" }.joined(separator: ","))
            }
            lines += try reader.metaEntries().map { "meta \($0.key)=\($0.value)" }
            lines += try reader.firedAlarms().map { "fired \($0.key.record.lowercasedText) \($0.key.occurrence) \($0.key.trigger) \($0.firedAt.timeIntervalSince1970) late=\($0.late)" }
            lines += try reader.snoozedAlarms(from: .min, to: .max).map { "snoozed \($0.key.record.lowercasedText) \($0.key.occurrence) \($0.key.trigger) \($0.occurrence)" }
            let from = try #require(try DateTimeValue(parsing: "2026-06-01T00:00:00Z").instant)
            let to = try #require(try DateTimeValue(parsing: "2026-07-01T00:00:00Z").instant)
            lines += try reader.occurrences(ConformanceStore.event, from: from, to: to, zone: ConformanceStore.berlin, matching: [], text: nil, limit: nil, offset: 0)
                .occurrences.map { "occurrence \($0.record.id.lowercasedText) \($0.recurrenceKey.description)" }
            return lines
        }
    }

    @Test("every record, the journal with its undone entry, the facts set with setMeta, fired and snoozed alarms and the occurrences read back from the copy as from the source; redo works on the copy", arguments: StoreFactory.all, StoreFactory.all)
    func copiesEverything(_ from: StoreFactory, _ to: StoreFactory) throws {
        let (source, undone) = try Self.filled(from)
        let destination = try ConformanceStore(to)
        let report = try StoreCopy.copy(from: source.store, to: destination.store)
        #expect(report.recordCount == 5)
        #expect(report.journalEntries == 3)
        #expect(report.undoneEntries == 1)
        #expect(report.metaEntries == 2)
        #expect(report.firedAlarms == 1)
        #expect(report.snoozedAlarms == 1)
        let original = try Self.contents(source.store)
        #expect(original.count == 5 + 3 + 2 + 1 + 1 + 6)
        #expect(try Self.contents(destination.store) == original)
        let toRedo = try #require(try destination.store.readTransaction { try $0.journalEntry(toUndo: false) })
        #expect(toRedo.changes.first?.after?.id == undone.id)
    }

    @Test("a store's own bookkeeping (layout, window) is not among the facts copied: a new store has none", arguments: StoreFactory.all)
    func bookkeepingStays(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        #expect(try fixture.store.readTransaction { try $0.metaEntries() }.isEmpty)
        try fixture.store.transaction { try $0.setMeta("alarms.checkedUntil", "1") }
        #expect(try fixture.store.readTransaction { try $0.metaEntries() }.map(\.key) == ["alarms.checkedUntil"])
    }

    @Test("a copy into a store that holds records or a journal is refused, naming what it holds, and leaves it as it was", arguments: StoreFactory.all)
    func refusesNonEmpty(_ factory: StoreFactory) throws {
        let (source, _) = try Self.filled(factory)
        let destination = try ConformanceStore(factory)
        try destination.save(destination.calendar("Already here"))
        let before = try Self.contents(destination.store)
        #expect {
            try StoreCopy.copy(from: source.store, to: destination.store)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .invalidData && error.message.contains("1 Calendar record")
        }
        #expect(try Self.contents(destination.store) == before)
    }
}
