import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("The SQLite store")
struct StoreTests {
    @Test("reopening the same file keeps every record as it was")
    func reopenKeepsData() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", end: "2026-06-18T16:30:00+02:00[Europe/Berlin]", [
            "attendees": .set(.array([attendee("Ana Lima", "ana@example.com")])),
            "alarms": .set(.array([relativeAlarm("-PT15M"), .union("absolute", .dateTime(try dateTime("2026-06-18T12:00:00Z")))])),
            "location": .set(.union("place", .place(PlaceValue(name: "Pad 39A", address: "Kennedy Space Center", latitude: 28.6, longitude: -80.6)))),
            "virtualLocation": .set(.url(try #require(URL(string: "https://meet.example.com/launch")))),
            "travelTime": .set(.duration(try #require(DurationValue(parsing: "PT45M")))),
            "status": .set(.enumCase("confirmed")),
            "recurrence": try rule("FREQ=MONTHLY;BYMONTHDAY=18;COUNT=3"),
        ])
        let before = try fixture.contents()
        try fixture.reopen()
        #expect(try fixture.contents() == before)
        #expect(try fixture.fetch(event.id) == event)
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-12-01T00:00:00Z").map(\.berlinStart) ==
                ["2026-06-18 15:00", "2026-07-18 15:00", "2026-08-18 15:00"])
    }

    @Test("an unbounded weekly series is found five years ahead, outside the materialized window")
    func occurrencesFarAhead() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let occurrences = try fixture.occurrences(from: "2031-06-01T00:00:00+02:00[Europe/Berlin]", to: "2031-07-01T00:00:00+02:00[Europe/Berlin]")
        #expect(occurrences.map(\.berlinStart) == ["2031-06-02 09:00", "2031-06-09 09:00", "2031-06-16 09:00", "2031-06-23 09:00", "2031-06-30 09:00"])
        #expect(occurrences.allSatisfy { $0.record.id == series.id && $0.isRecurrenceInstance })
        // And through the search intent.
        let result = try fixture.done("searchEvents", ["from": try at("2031-06-01T00:00:00+02:00[Europe/Berlin]"), "to": try at("2031-07-01T00:00:00+02:00[Europe/Berlin]")])
        #expect(result.occurrences.count == 5)
    }

    @Test("an override outside the window replaces its instance there too")
    func overrideOutsideWindow() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        let override = try #require(try fixture.done("updateEvent", [
            "event": reference(series), "span": span("this"), "occurrence": try at("2031-06-16T09:00:00+02:00[Europe/Berlin]"),
            "startDate": try at("2031-06-16T14:00:00+02:00[Europe/Berlin]"),
        ]).record)
        let occurrences = try fixture.occurrences(from: "2031-06-15T00:00:00Z", to: "2031-06-17T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2031-06-16 14:00"])
        #expect(occurrences.first?.record.id == override.id)
    }

    @Test("full-text search finds words in the note, the location, attendees and organizers")
    func fullTextFields() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Quarterly sync", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", [
            "note": text("Bring the telemetry printouts"),
            "location": .set(textLocation("Hangar Zwölf")),
            "attendees": .set(.array([attendee("Þóra Jónsdóttir", "thora@example.com")])),
            "organizers": .set(.array([.person(PersonValue(name: "Maximilian Weiß", email: "max@example.com"))])),
        ])
        let placeEvent = try fixture.makeEvent("Offsite", start: "2026-06-19T09:00:00+02:00[Europe/Berlin]", [
            "location": .set(.union("place", .place(PlaceValue(name: "Tempelhof Field", address: "Tempelhofer Damm, Berlin")))),
        ])
        try fixture.makeEvent("Noise", start: "2026-06-20T09:00:00+02:00[Europe/Berlin]", ["note": text("nothing to see")])
        for query in ["telemetry", "printout", "hangar", "zwolf", "ZWÖLF", "jonsdottir", "thora@example.com", "weiß", "maximilian", "quarterly"] {
            #expect(try fixture.search(query).map(\.id) == [event.id], "query '\(query)'")
        }
        #expect(try fixture.search("tempelhofer").map(\.id) == [placeEvent.id])
    }

    @Test("the search index follows updates and deletes")
    func searchFollowsChanges() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Kickoff", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", ["note": text("alpha")])
        try fixture.done("updateEvent", ["event": reference(event), "note": text("beta")])
        #expect(try fixture.search("alpha").isEmpty)
        #expect(try fixture.search("beta").map(\.id) == [event.id])
        try fixture.done("deleteEvent", ["event": reference(event)])
        #expect(try fixture.search("beta").isEmpty)
        #expect(try fixture.search("kickoff").isEmpty)
    }

    @Test("searchEvents with text and a range returns only matching occurrences in the range")
    func searchTextAndRange() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let standup = try fixture.makeWeeklyStandup()
        try fixture.makeEvent("Lunch", start: "2026-06-15T12:00:00+02:00[Europe/Berlin]")
        let result = try fixture.done("searchEvents", [
            "text": text("standup"),
            "from": try at("2026-06-08T00:00:00+02:00[Europe/Berlin]"), "to": try at("2026-06-22T00:00:00+02:00[Europe/Berlin]"),
        ])
        #expect(result.occurrences.map(\.berlinStart) == ["2026-06-08 09:00", "2026-06-15 09:00"])
        #expect(result.occurrences.allSatisfy { $0.record.id == standup.id })
    }

    @Test("an event that started before the range and is still going is found, also after reopening")
    func longEventOverlappingRangeStart() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Short", start: "2026-06-16T09:00:00+02:00[Europe/Berlin]", end: "2026-06-16T09:30:00+02:00[Europe/Berlin]")
        // Ask once so a cached longest duration exists, then add a long event.
        _ = try fixture.occurrences(from: "2026-06-16T00:00:00Z", to: "2026-06-17T00:00:00Z")
        let conference = try fixture.makeEvent("Conference", start: "2026-06-14T09:00:00+02:00[Europe/Berlin]", end: "2026-06-18T17:00:00+02:00[Europe/Berlin]")
        #expect(try fixture.occurrences(from: "2026-06-17T00:00:00Z", to: "2026-06-17T12:00:00Z").map(\.record.id) == [conference.id])
        try fixture.reopen()
        #expect(try fixture.occurrences(from: "2026-06-17T00:00:00Z", to: "2026-06-17T12:00:00Z").map(\.record.id) == [conference.id])
    }

    @Test("the store file is private to its owner")
    func filePermissions() throws {
        let fixture = try TestStore()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.path)
        let permissions = try #require(attributes[.posixPermissions] as? NSNumber).intValue
        #expect(permissions & 0o077 == 0)
    }
}
