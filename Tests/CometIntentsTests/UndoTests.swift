import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

/// Calendars and events only (the journal changes with every undo and redo).
private func records(_ fixture: TestStore) throws -> [EntityRecord] {
    let contents = try fixture.contents()
    return contents.calendars + contents.events
}

@Suite("Undo and redo")
struct UndoTests {
    /// A series with attendees, alarms, an EXDATE and two overrides, plus an unrelated event.
    private func richSeries(_ fixture: TestStore) throws -> EntityRecord {
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup([
            "attendees": .set(.array([attendee("Ana Lima", "ana@example.com"), attendee("Bo Chen", "bo@example.com")])),
            "alarms": .set(.array([relativeAlarm("-PT10M")])),
            "organizers": .set(.array([.person(PersonValue(name: "Cleo", email: "cleo@example.com"))])),
            "location": .set(textLocation("Room 4.12")),
        ])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-06-15T09:00:00+02:00[Europe/Berlin]"),
                                         "startDate": try at("2026-06-15T11:00:00+02:00[Europe/Berlin]")])
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-06-29T09:00:00+02:00[Europe/Berlin]"),
                                         "note": text("demo day")])
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-06-22T09:00:00+02:00[Europe/Berlin]")])
        try fixture.makeEvent("Unrelated", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        return try #require(try fixture.fetch(series.id))
    }

    @Test("undoing the delete of a whole series restores every record exactly: ids, attendees, alarms, overrides, exceptions")
    func undoDeleteSeries() throws {
        let fixture = try TestStore()
        let series = try richSeries(fixture)
        let before = try records(fixture)
        let occurrencesBefore = try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-08-01T00:00:00Z")
        let hitsBefore = Set(try fixture.search("Lima").map(\.id))
        #expect(hitsBefore.contains(series.id))
        #expect(before.count == 5)  // calendar, series, two overrides, unrelated

        try fixture.done("deleteEvent", ["event": reference(series), "span": span("all")])
        #expect(try fixture.all().count == 1)

        let undone = try requireDone(fixture.engine.undo())
        #expect(undone.journalSequence != nil)
        #expect(try records(fixture) == before)
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-08-01T00:00:00Z") == occurrencesBefore)
        #expect(Set(try fixture.search("Lima").map(\.id)) == hitsBefore)

        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.all().map(\.title) == ["Unrelated"])
        #expect(try fixture.search("Lima").isEmpty)

        _ = try requireDone(fixture.engine.undo())
        #expect(try records(fixture) == before)
    }

    @Test("undoing an update restores the previous values, and redo applies it again")
    func undoUpdate() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]", ["location": .set(textLocation("Lab 3"))])
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Sprint retro"), "location": .cleared])
        let updated = try #require(try fixture.fetch(event.id))
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(event.id) == event)
        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.fetch(event.id) == updated)
    }

    @Test("undoing a create removes the record; redo brings back the same id")
    func undoCreate() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Temp", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(event.id) == nil)
        #expect(try fixture.search("temp").isEmpty)
        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.fetch(event.id) == event)
    }

    @Test("undoing a this-and-future split restores the original series and removes the new one")
    func undoFutureSplit() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let before = try records(fixture)
        try fixture.done("updateEvent", ["event": reference(series), "span": span("future"), "occurrence": try at("2026-06-22T09:00:00+02:00[Europe/Berlin]"),
                                         "title": text("New")])
        #expect(try fixture.all().count == 2)
        _ = try requireDone(fixture.engine.undo())
        #expect(try records(fixture) == before)
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z").allSatisfy { $0.record.id == series.id })
    }

    @Test("undoing a span-all move puts the series, its overrides and its exceptions back exactly")
    func undoMoveAll() throws {
        let fixture = try TestStore()
        let series = try richSeries(fixture)
        let before = try records(fixture)
        try fixture.done("updateEvent", ["event": reference(series), "span": span("all"), "startDate": try at("2026-06-01T10:00:00+02:00[Europe/Berlin]")])
        #expect(try records(fixture) != before)
        _ = try requireDone(fixture.engine.undo())
        #expect(try records(fixture) == before)
    }

    @Test("undoing the delete of one overridden occurrence brings back the override and removes the exception")
    func undoDeleteThis() throws {
        let fixture = try TestStore()
        let series = try richSeries(fixture)
        let before = try records(fixture)
        try fixture.done("deleteEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-06-15T09:00:00+02:00[Europe/Berlin]")])
        #expect(try fixture.all().count == 3)
        _ = try requireDone(fixture.engine.undo())
        #expect(try records(fixture) == before)
    }

    @Test("undo refuses with undo_conflict when the record changed since, and changes nothing")
    func undoConflict() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Sprint retro")])
        // Another client (an import, a sync) changes the same record without the journal.
        var changed = try #require(try fixture.fetch(event.id))
        changed["note"] = .string("edited elsewhere")
        try fixture.store.transaction { try $0.save(changed) }

        let before = try fixture.contents()
        let error = try requireFailure(fixture.engine.undo(), .undoConflict)
        #expect(error.message.contains("Sprint retro"))
        #expect(try fixture.contents() == before)
    }

    @Test("redo refuses with undo_conflict when the record changed after the undo")
    func redoConflict() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Sprint retro")])
        _ = try requireDone(fixture.engine.undo())
        var changed = try #require(try fixture.fetch(event.id))
        changed["note"] = .string("edited elsewhere")
        try fixture.store.transaction { try $0.save(changed) }
        let before = try fixture.contents()
        _ = try requireFailure(fixture.engine.redo(), .undoConflict)
        #expect(try fixture.contents() == before)
    }

    @Test("a new intent after an undo clears the redo stack")
    func newIntentClearsRedo() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Sprint retro")])
        _ = try requireDone(fixture.engine.undo())
        try fixture.makeEvent("Something else", start: "2026-06-17T15:00:00+02:00[Europe/Berlin]")
        _ = try requireFailure(fixture.engine.redo(), .nothingToRedo)
        #expect(try fixture.fetch(event.id)?.title == "Retro")
    }

    @Test("undo and redo walk several steps back and forth in order")
    func severalSteps() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("One", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Two")])
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Three")])
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(event.id)?.title == "Two")
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(event.id)?.title == "One")
        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.fetch(event.id)?.title == "Two")
        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.fetch(event.id)?.title == "Three")
        _ = try requireFailure(fixture.engine.redo(), .nothingToRedo)
    }

    @Test("with nothing done, undo says nothing_to_undo")
    func nothingToUndo() throws {
        let fixture = try TestStore()
        _ = try requireFailure(fixture.engine.undo(), .nothingToUndo)
        _ = try requireFailure(fixture.engine.redo(), .nothingToRedo)
    }

    @Test("failed, cancelled and search intents leave nothing to undo")
    func onlyChangesAreJournaled() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        let journal = try fixture.journal()
        fixture.run("deleteEvent", ["event": reference(event)], confirmation: .declined)
        fixture.run("updateEvent", ["event": reference(event), "title": .cleared])
        fixture.run("searchEvents", ["text": text("retro")])
        fixture.run("openEvent", ["event": reference(event)])
        #expect(try fixture.journal() == journal)
    }

    @Test("the journal survives reopening the store")
    func undoAfterReopen() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Retro", start: "2026-06-16T15:00:00+02:00[Europe/Berlin]")
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Sprint retro")])
        try fixture.reopen()
        _ = try requireDone(fixture.engine.undo())
        #expect(try fixture.fetch(event.id) == event)
    }
}

@Suite("Deleting a calendar")
struct CalendarCascadeTests {
    @Test("deleting a calendar deletes its events, and undo restores the calendar and every event")
    func cascadeAndUndo() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar("Work")
        let side = try fixture.makeCalendar("Side project")
        let keep = try fixture.makeEvent("Work thing", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        let single = try fixture.makeEvent("Side single", start: "2026-06-17T09:00:00+02:00[Europe/Berlin]", ["calendar": reference(side)])
        let series = try fixture.makeWeeklyStandup(["calendar": reference(side),
                                                    "attendees": .set(.array([attendee("Ana Lima", "ana@example.com")]))], title: "Side standup")
        try fixture.done("updateEvent", ["event": reference(series), "span": span("this"), "occurrence": try at("2026-06-15T09:00:00+02:00[Europe/Berlin]"),
                                         "note": text("override")])
        let before = try records(fixture)

        guard case .needsConfirmation = fixture.run("deleteCalendar", ["calendar": reference(side)]) else {
            Issue.record("deleting a calendar should ask first")
            return
        }
        try fixture.done("deleteCalendar", ["calendar": reference(side)], confirmation: .confirmed)
        #expect(try fixture.fetch(side.id, Fixture.calendar) == nil)
        #expect(try fixture.all().map(\.id) == [keep.id])
        #expect(try fixture.fetch(single.id) == nil)

        _ = try requireDone(fixture.engine.undo())
        #expect(try records(fixture) == before)
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z").count == 7)

        _ = try requireDone(fixture.engine.redo())
        #expect(try fixture.all().map(\.id) == [keep.id])
    }
}
