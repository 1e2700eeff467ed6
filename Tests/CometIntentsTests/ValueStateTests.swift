import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("Value state: set replaces, cleared removes or resets, unset leaves alone")
struct ValueStateTests {
    /// A single event with a location, a note, two alarms and the favourite flag.
    private func seeded() throws -> (TestStore, EntityRecord) {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Lab meeting", start: "2026-06-15T08:00:00+02:00[Europe/Berlin]", end: "2026-06-15T09:00:00+02:00[Europe/Berlin]", [
            "location": .set(textLocation("Lab 3")),
            "note": text("bring the samples"),
            "alarms": .set(.array([relativeAlarm("-PT15M"), relativeAlarm("-PT1H")])),
            "isFavorite": .set(.bool(true)),
        ])
        return (fixture, event)
    }

    @Test("setting a location replaces it and leaves every other property alone")
    func setLocation() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "location": .set(textLocation("Room 4.12"))])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["location"] == textLocation("Room 4.12"))
        #expect(after["note"] == event["note"])
        #expect(after["alarms"] == event["alarms"])
        #expect(after["isFavorite"] == .bool(true))
        #expect(after.start == event.start)
        #expect(after.end == event.end)
    }

    @Test("an unset location stays as it was when another property changes")
    func unsetLocation() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "title": text("Lab sync")])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after.title == "Lab sync")
        #expect(after["location"] == textLocation("Lab 3"))
        #expect(after["note"] == .string("bring the samples"))
    }

    @Test("a cleared location is removed")
    func clearLocation() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "location": .cleared])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["location"] == nil)
        #expect(after["note"] == .string("bring the samples"))
        #expect(after.title == "Lab meeting")
    }

    @Test("clearing the recurrence makes a series a single event (\"do not repeat\")")
    func clearRecurrence() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let series = try fixture.makeWeeklyStandup()
        #expect(try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z").count == 5)

        try fixture.done("updateEvent", ["event": reference(series), "recurrence": .cleared, "span": span("all")])
        let after = try #require(try fixture.fetch(series.id))
        #expect(after["recurrence"] == nil)
        let occurrences = try fixture.occurrences(from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z")
        #expect(occurrences.map(\.berlinStart) == ["2026-06-01 09:00"])
        #expect(occurrences.allSatisfy { !$0.isRecurrenceInstance })
    }

    @Test("alarms are replaced whole, never merged")
    func alarmsReplacedWhole() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "alarms": .set(.array([relativeAlarm("-PT5M")]))])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["alarms"] == .array([relativeAlarm("-PT5M")]))
    }

    @Test("cleared alarms go back to the schema default, an empty list")
    func clearAlarms() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "alarms": .cleared])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["alarms"] == .array([]))
    }

    @Test("a cleared isFavorite goes back to its default, false")
    func clearFavorite() throws {
        let (fixture, event) = try seeded()
        try fixture.done("updateEvent", ["event": reference(event), "isFavorite": .cleared])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["isFavorite"] == .bool(false))
        #expect(after["alarms"] == event["alarms"])
    }

    @Test("properties with defaults get them on create when the request leaves them out")
    func defaultsOnCreate() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Plain", start: "2026-06-16T10:00:00+02:00[Europe/Berlin]")
        #expect(event["isFavorite"] == .bool(false))
        #expect(event["alarms"] == .array([]))
        #expect(event["attendees"] == .array([]))
        #expect(event["isAllDay"] == .bool(false))
        #expect(event["sequence"] == .int(0))
        #expect(event["location"] == nil)
    }

    @Test("clearing the required title fails with cleared_required naming it, and nothing changes")
    func clearTitle() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "title": .cleared, "note": text("changed")]), .clearedRequired)
        #expect(error.parameter == "title")
        #expect(error.message.contains("title"))
        #expect(try fixture.contents() == before)
    }

    @Test("clearing other required properties (start, calendar) fails the same way")
    func clearOtherRequired() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        for name in ["startDate", "calendar"] {
            let error = try requireFailure(fixture.run("updateEvent", ["event": reference(event), name: .cleared]), .clearedRequired)
            #expect(error.parameter == name)
        }
        #expect(try fixture.contents() == before)
    }

    @Test("an update is applied whole or not at all: a bad end keeps the new title out too")
    func updateAppliedWholeOrNotAtAll() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        let outcome = fixture.run("updateEvent", [
            "event": reference(event), "title": text("Renamed"),
            "endDate": try at("2026-06-15T07:00:00+02:00[Europe/Berlin]"),
        ])
        _ = try requireFailure(outcome, .endBeforeStart)
        #expect(try fixture.contents() == before)
    }

    @Test("clearing the time zone keeps the wall time and makes the event floating")
    func clearTimeZone() throws {
        let (fixture, event) = try seeded()
        #expect(event["timeZone"] == .string("Europe/Berlin"))
        try fixture.done("updateEvent", ["event": reference(event), "timeZone": .cleared])
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["timeZone"] == nil)
        let start = try #require(after.start)
        #expect(start.isFloating)
        #expect(start.localTime.hour == 8)
    }

    @Test("the created record the engine returns is the record the store holds")
    func createdRecordMatchesStore() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let result = try fixture.done("createEvent", [
            "title": text("Review"), "startDate": try at("2026-06-17T14:00:00+02:00[Europe/Berlin]"),
            "attendees": .set(.array([attendee("Ana Lima", "ana@example.com")])),
        ])
        let returned = try #require(result.record)
        #expect(try fixture.fetch(returned.id) == returned)
    }
}

@Suite("Value state through JSON: absent, null and a value")
struct JSONParametersTests {
    @Test("a decoded update clears null keys, sets values and leaves absent keys alone")
    func jsonRoundTrip() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Launch review", start: "2026-06-18T15:00:00+02:00[Europe/Berlin]", end: "2026-06-18T16:00:00+02:00[Europe/Berlin]", [
            "location": .set(textLocation("Mission control")),
            "note": text("old agenda"),
            "isFavorite": .set(.bool(true)),
        ])
        let registry = fixture.registry
        let intent = try #require(registry.intent(QualifiedName(domain: "calendar", name: "updateEvent")))
        var object = JSONObject()
        object["event"] = .string(event.id.uuidString.lowercased())
        object["location"] = .null
        object["note"] = .string("new agenda")
        object["alarms"] = .array([.string("-PT10M")])
        let bindings = try registry.decodeParameters(object, for: intent)
        #expect(bindings["location"] == .cleared)
        #expect(bindings["title"] == .unset)
        #expect(bindings["note"] == .set(.string("new agenda")))

        let outcome = fixture.engine.perform(IntentRequest(intent: "updateEvent", parameters: bindings))
        _ = try requireDone(outcome)
        let after = try #require(try fixture.fetch(event.id))
        #expect(after["location"] == nil)
        #expect(after["note"] == .string("new agenda"))
        #expect(after["alarms"] == .array([relativeAlarm("-PT10M")]))
        #expect(after.title == "Launch review")
        #expect(after["isFavorite"] == .bool(true))
        #expect(after.start == event.start)

        // The JSON shape of the outcome carries the entity as the store has it.
        let json = fixture.engine.json(outcome)
        #expect(json["outcome"]?.stringValue == "done")
        #expect(json["entity"]?["note"]?.stringValue == "new agenda")
        #expect(json["entity"]?["location"] == nil)
    }

    @Test("null for the required title is refused while decoding")
    func jsonNullRequired() throws {
        let registry = try Fixture.registry()
        let intent = try #require(registry.intent(QualifiedName(domain: "calendar", name: "createEvent")))
        var object = JSONObject()
        object["title"] = .null
        #expect(throws: ValueError.self) { _ = try registry.decodeParameters(object, for: intent) }
        do {
            _ = try registry.decodeParameters(object, for: intent)
        } catch {
            #expect(error.code == .clearedRequired)
        }
    }
}
