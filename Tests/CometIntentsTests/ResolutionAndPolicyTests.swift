import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("Resolving entities named by text")
struct ResolutionTests {
    @Test("an exact title wins over partial matches")
    func exactTitleWins() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let standup = try fixture.makeEvent("Standup", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Standup retro", start: "2026-06-17T09:00:00+02:00[Europe/Berlin]")
        let result = try fixture.done("openEvent", references: ["event": "standup"])
        #expect(result.record?.id == standup.id)
    }

    @Test("a partial match that fits one event resolves to it")
    func partialMatch() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Standup", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]")
        let retro = try fixture.makeEvent("Standup retro", start: "2026-06-17T09:00:00+02:00[Europe/Berlin]")
        let result = try fixture.done("updateEvent", ["note": text("bring stickies")], references: ["event": "retro"])
        #expect(result.record?.id == retro.id)
        #expect(try fixture.fetch(retro.id)?["note"] == .string("bring stickies"))
    }

    @Test("several matches ask which one, with ids, titles and subtitles, and change nothing")
    func severalMatches() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let ana = try fixture.makeEvent("Lunch with Ana", start: "2026-06-16T12:00:00+02:00[Europe/Berlin]")
        let bob = try fixture.makeEvent("Lunch with Bob", start: "2026-06-17T12:00:00+02:00[Europe/Berlin]")
        let before = try fixture.contents()
        let outcome = fixture.run("updateEvent", ["title": text("Lunch")], references: ["event": "lunch"])
        guard case .needsDisambiguation(let parameter, let prompt, let candidates) = outcome else {
            Issue.record("expected needsDisambiguation, got \(describe(outcome))")
            return
        }
        #expect(parameter == "event")
        #expect(Set(candidates.map(\.id)) == [ana.id, bob.id])
        #expect(Set(candidates.map(\.title)) == ["Lunch with Ana", "Lunch with Bob"])
        #expect(candidates.allSatisfy { $0.subtitle != nil })
        #expect(prompt.contains("Lunch with Ana") && prompt.contains("Lunch with Bob"))
        #expect(try fixture.contents() == before)

        // Answering with the id goes ahead.
        try fixture.done("updateEvent", ["title": text("Lunch")], references: ["event": ana.id.uuidString])
        #expect(try fixture.fetch(ana.id)?.title == "Lunch")
        #expect(try fixture.fetch(bob.id)?.title == "Lunch with Bob")

        let json = fixture.engine.json(outcome)
        #expect(json["outcome"]?.stringValue == "needsDisambiguation")
        guard case .array(let items)? = json["candidates"] else {
            Issue.record("no candidates in the JSON")
            return
        }
        #expect(Set(items.compactMap { $0["id"]?.stringValue }) == [ana.id.uuidString.lowercased(), bob.id.uuidString.lowercased()])
    }

    @Test("two events with the same title are told apart by their times")
    func sameTitleTwice() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Dentist", start: "2026-06-16T08:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Dentist", start: "2026-07-16T08:00:00+02:00[Europe/Berlin]")
        guard case .needsDisambiguation(_, _, let candidates) = fixture.run("deleteEvent", references: ["event": "dentist"], confirmation: .confirmed) else {
            Issue.record("expected needsDisambiguation")
            return
        }
        #expect(candidates.count == 2)
        #expect(Set(candidates.compactMap(\.subtitle)).count == 2)
        #expect(try fixture.all().count == 2)
    }

    @Test("search ignores case and diacritics: \"cafe\" finds \"Café Meetup\"")
    func diacriticInsensitiveSearch() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let cafe = try fixture.makeEvent("Café Meetup", start: "2026-06-16T18:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Coffee tasting", start: "2026-06-17T18:00:00+02:00[Europe/Berlin]")
        for query in ["cafe", "CAFE", "café", "Cafe meetup", "meet"] {
            let result = try fixture.done("searchEvents", ["text": text(query)])
            #expect(result.records.map(\.id) == [cafe.id], "query '\(query)'")
        }
        let resolved = try fixture.done("openEvent", references: ["event": "cafe meetup"])
        #expect(resolved.record?.id == cafe.id)
    }

    @Test("search text with FTS operators is taken literally")
    func searchOperatorsAreLiteral() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Rocket NOT ready", start: "2026-06-16T18:00:00+02:00[Europe/Berlin]")
        for query in ["\"rocket", "rocket OR", "NEAR(", "title:rocket", "*", "-rocket"] {
            let outcome = fixture.run("searchEvents", ["text": text(query)])
            #expect(outcome.result != nil, "query '\(query)' gave \(describe(outcome))")
        }
    }

    @Test("a calendar is resolved by its name, case-insensitively")
    func calendarByName() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar("Work")
        let personal = try fixture.makeCalendar("Personal")
        let result = try fixture.done("createEvent", ["title": text("Gym"), "startDate": try at("2026-06-16T07:00:00+02:00[Europe/Berlin]")],
                                      references: ["calendar": "personal"])
        #expect(result.record?["calendar"] == .reference(personal.id))
    }

    @Test("making a calendar the default takes the mark from the old one, and undo gives it back")
    func switchDefaultCalendar() throws {
        let fixture = try TestStore()
        let work = try fixture.makeCalendar("Work")
        let personal = try fixture.makeCalendar("Personal")
        #expect(personal["isDefault"] == .bool(false))
        try fixture.done("updateCalendar", ["isDefault": .set(.bool(true))], references: ["calendar": "personal"])
        #expect(try fixture.fetch(work.id, Fixture.calendar)?["isDefault"] == .bool(false))
        #expect(try fixture.fetch(personal.id, Fixture.calendar)?["isDefault"] == .bool(true))
        let event = try fixture.makeEvent("Gym", start: "2026-06-16T07:00:00+02:00[Europe/Berlin]")
        #expect(event["calendar"] == .reference(personal.id))
        _ = try requireDone(fixture.engine.undo())  // the event
        _ = try requireDone(fixture.engine.undo())  // the default switch
        #expect(try fixture.fetch(work.id, Fixture.calendar) == work)
        #expect(try fixture.fetch(personal.id, Fixture.calendar) == personal)
    }

    @Test("an event without a calendar goes to the default calendar")
    func defaultCalendar() throws {
        let fixture = try TestStore()
        let work = try fixture.makeCalendar("Work")
        try fixture.makeCalendar("Personal")
        #expect(work["isDefault"] == .bool(true))
        let event = try fixture.makeEvent("Planning", start: "2026-06-16T10:00:00+02:00[Europe/Berlin]")
        #expect(event["calendar"] == .reference(work.id))
    }
}

@Suite("Confirmation policy")
struct PolicyTests {
    private func seeded(attendees: Bool) throws -> (TestStore, EntityRecord) {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        var extra: [String: ParameterValue] = [:]
        if attendees { extra["attendees"] = .set(.array([attendee("Ana Lima", "ana@example.com"), attendee("Bo Chen", "bo@example.com")])) }
        let event = try fixture.makeEvent("Design review", start: "2026-06-16T14:00:00+02:00[Europe/Berlin]", end: "2026-06-16T15:00:00+02:00[Europe/Berlin]", extra)
        return (fixture, event)
    }

    @Test("a delete asks for confirmation first and deletes nothing yet")
    func deleteNeedsConfirmation() throws {
        let (fixture, event) = try seeded(attendees: false)
        let before = try fixture.contents()
        guard case .needsConfirmation(let prompt, let snippet) = fixture.run("deleteEvent", ["event": reference(event)]) else {
            Issue.record("expected needsConfirmation")
            return
        }
        #expect(prompt.contains("Design review"))
        #expect(snippet.title == "Design review")
        #expect(try fixture.contents() == before)
    }

    @Test("a declined delete is cancelled and nothing is deleted")
    func declinedDelete() throws {
        let (fixture, event) = try seeded(attendees: false)
        let before = try fixture.contents()
        guard case .cancelled = fixture.run("deleteEvent", ["event": reference(event)], confirmation: .declined) else {
            Issue.record("expected cancelled")
            return
        }
        #expect(try fixture.contents() == before)
    }

    @Test("a confirmed delete deletes the event and journals it")
    func confirmedDelete() throws {
        let (fixture, event) = try seeded(attendees: false)
        let result = try fixture.done("deleteEvent", ["event": reference(event)], confirmation: .confirmed)
        #expect(result.record == nil)
        #expect(result.journalSequence != nil)
        #expect(try fixture.fetch(event.id) == nil)
    }

    @Test("editing an event with attendees asks for confirmation; declining changes nothing")
    func updateWithAttendeesNeedsConfirmation() throws {
        let (fixture, event) = try seeded(attendees: true)
        let before = try fixture.contents()
        let parameters: [String: ParameterValue] = ["event": reference(event), "title": text("Design review v2")]
        guard case .needsConfirmation(let prompt, let card) = fixture.run("updateEvent", parameters) else {
            Issue.record("expected needsConfirmation")
            return
        }
        #expect(prompt.contains("2 attendees"))
        // The card shows the event as the change will leave it, as the question does.
        #expect(card.title == "Design review v2", "\(card.title)")
        #expect(try fixture.contents() == before)
        guard case .cancelled = fixture.run("updateEvent", parameters, confirmation: .declined) else {
            Issue.record("expected cancelled")
            return
        }
        #expect(try fixture.contents() == before)
        try fixture.done("updateEvent", parameters, confirmation: .confirmed)
        #expect(try fixture.fetch(event.id)?.title == "Design review v2")
    }

    @Test("editing an event without attendees is done directly")
    func updateWithoutAttendees() throws {
        let (fixture, event) = try seeded(attendees: false)
        let outcome = fixture.run("updateEvent", ["event": reference(event), "title": text("Renamed")])
        let result = try requireDone(outcome)
        #expect(result.record?.title == "Renamed")
        #expect(result.record?["sequence"] == .int(1))
    }

    @Test("creating never asks for confirmation")
    func createDoesNotAsk() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let outcome = fixture.run("createEvent", ["title": text("Quick"), "startDate": try at("2026-06-16T10:00:00+02:00[Europe/Berlin]"),
                                                  "attendees": .set(.array([attendee("Ana Lima", "ana@example.com")]))])
        _ = try requireDone(outcome)
    }
}
