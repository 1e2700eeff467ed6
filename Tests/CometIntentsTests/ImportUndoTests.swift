import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// A calendar file of `count` one-hour events on consecutive days from 2026-07-01, with UIDs
/// `import-0@test` … and SEQUENCE `sequence`, titled "Imported 0" … (or `title`).
private func calendarFile(count: Int, sequence: Int = 0, title: String? = nil) -> String {
    var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal tests//EN", "X-WR-CALNAME:Work"]
    for index in 0..<count {
        let day = String(format: "202607%02d", 1 + index % 28)
        lines += ["BEGIN:VEVENT", "UID:import-\(index)@test", "DTSTAMP:20260601T000000Z", "SEQUENCE:\(sequence)",
                  "DTSTART:\(day)T\(String(format: "%02d", 8 + index / 28 % 10))0000Z", "DURATION:PT1H",
                  "SUMMARY:\(title ?? "Imported \(index)")", "END:VEVENT"]
    }
    lines.append("END:VCALENDAR")
    return lines.joined(separator: "\r\n") + "\r\n"
}

private func importText(_ fixture: TestStore, _ text: String, name: String = "work.ics") throws -> ImportReport {
    let report = fixture.engine.importCalendars([ImportSource(name: name, text: text, registry: fixture.registry)])
    try #require(report.written, "the import failed: \(report.problems.map(\.message))")
    return report
}

private func export(_ fixture: TestStore) throws -> String {
    try fixture.engine.exportCalendar()
}

@Suite("Undoing an import")
struct ImportUndoTests {
    @Test("an import is one journal entry named with its count and file; undo removes exactly it and leaves the export byte-identical; redo restores it")
    func undoAndRedoAnImport() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Older", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        let before = try export(fixture)
        let journalBefore = try fixture.journal().count

        let report = try importText(fixture, calendarFile(count: 30))
        #expect(report.added == 30)
        let afterImport = try export(fixture)
        let journal = try fixture.journal()
        #expect(journal.count == journalBefore + 1)
        let entry = try #require(journal.first)
        #expect(entry.summary == "Imported 30 events from work.ics")
        #expect(entry.intent == "ical.import")
        #expect(entry.changeCount >= 30)

        let undone = try requireDone(fixture.engine.undo())
        #expect(undone.dialog.full == "Undone: imported 30 events from work.ics.")
        #expect(try export(fixture) == before)

        _ = try requireDone(fixture.engine.redo())
        #expect(try export(fixture) == afterImport)

        // Twice round, to show the journal entry still holds everything after a redo.
        _ = try requireDone(fixture.engine.undo())
        #expect(try export(fixture) == before)
        _ = try requireDone(fixture.engine.redo())
        #expect(try export(fixture) == afterImport)
    }

    @Test("undo after an import leaves the older change alone; the next undo takes that one back")
    func undoAfterImportKeepsTheOlderChange() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let older = try fixture.makeEvent("Older", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        _ = try importText(fixture, calendarFile(count: 3))
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(older.id) == older)
        #expect(try fixture.all().map(\.title) == ["Older"])
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(older.id) == nil)
    }

    @Test("undoing an import that updated events restores the records it replaced")
    func undoRestoresUpdatedRecords() throws {
        let fixture = try TestStore()
        _ = try importText(fixture, calendarFile(count: 4))
        let first = try export(fixture)
        let report = try importText(fixture, calendarFile(count: 4, sequence: 1, title: "Renamed"), name: "/home/ana/renamed.ics")
        #expect(report.updated == 4)
        #expect(try fixture.journal().first?.summary == "Imported 4 events from renamed.ics")
        #expect(try fixture.all().allSatisfy { $0.title == "Renamed" })
        _ = try requireDone(fixture.engine.undo())
        #expect(try export(fixture) == first)
    }

    @Test("an edit after the import (beside the journal) makes its undo refuse, name the edited event and change nothing")
    func editAfterImportRefusesUndo() throws {
        let fixture = try TestStore()
        _ = try importText(fixture, calendarFile(count: 3))
        var edited = try #require(try fixture.all().first { $0.title == "Imported 1" })
        edited["title"] = .string("Edited elsewhere")
        try fixture.store.transaction { try $0.save(edited) }
        let before = try fixture.contents()
        let exported = try export(fixture)

        let error = try requireFailure(fixture.engine.undo(), .undoConflict)
        #expect(error.message == "cannot undo “Imported 3 events from work.ics”: “Edited elsewhere” has changed since; nothing was changed")
        #expect(try fixture.contents() == before)
        #expect(try export(fixture) == exported)
    }

    @Test("redo of an import refuses when one of its events was made again since, and changes nothing")
    func redoRefusesAfterAConflictingChange() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()  // so that the undo leaves the calendar the event is saved into
        let report = try importText(fixture, calendarFile(count: 2))
        let created = try #require(report.changes.first { $0.entity == Fixture.event })
        let record = try #require(try fixture.fetch(created.id))
        _ = try requireDone(fixture.engine.undo())
        // The same id saved again beside the journal (a sync, another program).
        try fixture.store.transaction { try $0.save(record) }
        let before = try fixture.contents()
        _ = try requireFailure(fixture.engine.redo(), .undoConflict)
        #expect(try fixture.contents() == before)
    }

    @Test("an import from standard input says so in the journal, and several files are counted")
    func summaryNamesTheSource() throws {
        let fixture = try TestStore()
        _ = try importText(fixture, calendarFile(count: 1), name: "-")
        #expect(try fixture.journal().first?.summary == "Imported 1 event from standard input")
        let registry = fixture.registry
        let report = fixture.engine.importCalendars([
            ImportSource(name: "a.ics", text: calendarFile(count: 3, sequence: 1), registry: registry),
            ImportSource(name: "b.ics", text: calendarFile(count: 0), registry: registry),
        ])
        #expect(report.written)
        #expect(try fixture.journal().first?.summary == "Imported 3 events from a.ics and b.ics")
    }

    @Test("an import that changes nothing adds no journal entry, so undo still reaches the change before it")
    func unchangedImportIsNotJournaled() throws {
        let fixture = try TestStore()
        _ = try importText(fixture, calendarFile(count: 2))
        let journal = try fixture.journal()
        let again = try importText(fixture, calendarFile(count: 2))
        #expect(again.unchanged == 2)
        #expect(try fixture.journal() == journal)
    }
}
