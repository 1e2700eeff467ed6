import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("Bad input fails with a clear error and writes nothing")
struct ValidationTests {
    private func seeded() throws -> (TestStore, EntityRecord) {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Budget review", start: "2026-06-19T10:00:00+02:00[Europe/Berlin]", end: "2026-06-19T11:00:00+02:00[Europe/Berlin]",
                                          ["note": text("Q3 numbers")])
        try fixture.makeWeeklyStandup()
        return (fixture, event)
    }

    @Test("an unknown parameter is refused with a did-you-mean suggestion")
    func unknownParameter() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "lcation": .set(textLocation("Lab 3"))]), .unknownParameter)
        #expect(error.parameter == "lcation")
        #expect(error.suggestion == "location")
        #expect(try fixture.contents() == before)
    }

    @Test("an unknown reference parameter is refused too")
    func unknownReferenceParameter() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("deleteEvent", references: ["evnt": "Budget review"], confirmation: .confirmed), .unknownParameter)
        #expect(error.suggestion == "event")
        #expect(try fixture.contents() == before)
    }

    @Test("an unknown intent suggests the closest one")
    func unknownIntent() throws {
        let (fixture, _) = try seeded()
        let error = try requireFailure(fixture.run("updateEvnt", ["title": text("x")]), .unknownIntent)
        #expect(error.suggestion == "updateEvent")
    }

    @Test("creating an event that ends before it starts fails and creates nothing")
    func createEndBeforeStart() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let outcome = fixture.run("createEvent", [
            "title": text("Backwards"),
            "startDate": try at("2026-06-20T10:00:00+02:00[Europe/Berlin]"),
            "endDate": try at("2026-06-20T09:00:00+02:00[Europe/Berlin]"),
        ])
        let error = try requireFailure(outcome, .endBeforeStart)
        #expect(error.parameter == "endDate")
        #expect(try fixture.contents() == before)
    }

    @Test("moving the end before the start fails and changes nothing")
    func updateEndBeforeStart() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        _ = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "endDate": try at("2026-06-18T11:00:00+02:00[Europe/Berlin]")]), .endBeforeStart)
        #expect(try fixture.contents() == before)
    }

    @Test("an unknown time zone on create fails with unknown_time_zone")
    func createUnknownTimeZone() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let outcome = fixture.run("createEvent", [
            "title": text("Mars landing"), "startDate": try at("2026-06-20T10:00:00"), "timeZone": text("Mars/Olympus_Mons"),
        ])
        let error = try requireFailure(outcome, .unknownTimeZone)
        #expect(error.parameter == "timeZone")
        #expect(error.message.contains("Mars/Olympus_Mons"))
        #expect(try fixture.contents() == before)
    }

    @Test("an unknown time zone on update fails and changes nothing")
    func updateUnknownTimeZone() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        _ = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "timeZone": text("Europe/Atlantis"), "title": text("x")]), .unknownTimeZone)
        #expect(try fixture.contents() == before)
    }

    @Test("a known time zone on create places a floating start in that zone")
    func createWithTimeZone() throws {
        let (fixture, _) = try seeded()
        let result = try fixture.done("createEvent", [
            "title": text("Tokyo call"), "startDate": try at("2026-06-20T09:00:00"), "timeZone": text("Asia/Tokyo"),
        ])
        let record = try #require(result.record)
        #expect(record["timeZone"] == .string("Asia/Tokyo"))
        #expect(record.start?.timeZoneIdentifier == "Asia/Tokyo")
        #expect(record.start?.localTime.hour == 9)
        #expect(record.start?.utcHour == 0)
    }

    @Test("an invalid RRULE is refused at the edge, naming the bad part")
    func invalidRuleFromJSON() throws {
        let registry = try Fixture.registry()
        let intent = try #require(registry.intent(QualifiedName(domain: "calendar", name: "createEvent")))
        var object = JSONObject()
        object["title"] = .string("Bad rule")
        object["startDate"] = .string("2026-06-20T10:00:00+02:00[Europe/Berlin]")
        object["recurrence"] = .string("FREQ=WEEKLY;BYDAY=MO,XX")
        do {
            _ = try registry.decodeParameters(object, for: intent)
            Issue.record("an invalid RRULE decoded")
        } catch {
            #expect(error.code == .invalidRecurrence)
            #expect(error.message.contains("BYDAY"))
            #expect(error.message.contains("XX"))
            #expect(error.path == "recurrence")
        }
    }

    @Test("an invalid rule built in code (BYMONTHDAY=40) is refused by the engine and nothing is written")
    func invalidRuleInCode() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let bad = RecurrenceRule(frequency: .monthly, byMonthDay: [40])
        let outcome = fixture.run("createEvent", [
            "title": text("Impossible"), "startDate": try at("2026-06-20T10:00:00+02:00[Europe/Berlin]"), "recurrence": .set(.recurrence(bad)),
        ])
        let error = try requireFailure(outcome, .invalidRecurrence)
        #expect(error.parameter == "recurrence")
        #expect(error.message.contains("BYMONTHDAY"))
        #expect(try fixture.contents() == before)
    }

    @Test("an event id that does not exist gives not_found and changes nothing")
    func unknownEventID() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let missing = UUID()
        let error = try requireFailure(fixture.run("updateEvent", ["event": .set(.reference(missing)), "title": text("Ghost")]), .notFound)
        #expect(error.parameter == "event")
        #expect(error.message.contains(missing.uuidString.lowercased()))
        _ = try requireFailure(fixture.run("deleteEvent", ["event": .set(.reference(missing))], confirmation: .confirmed), .notFound)
        _ = try requireFailure(fixture.run("deleteEvent", references: ["event": missing.uuidString], confirmation: .confirmed), .notFound)
        #expect(try fixture.contents() == before)
    }

    @Test("a calendar id that does not exist gives not_found on create")
    func unknownCalendarID() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let outcome = fixture.run("createEvent", [
            "title": text("Nowhere"), "startDate": try at("2026-06-20T10:00:00+02:00[Europe/Berlin]"), "calendar": .set(.reference(UUID())),
        ])
        let error = try requireFailure(outcome, .notFound)
        #expect(error.parameter == "calendar")
        #expect(try fixture.contents() == before)
    }

    @Test("a text that matches no event gives not_found with a suggestion")
    func unknownEventText() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", ["title": text("x")], references: ["event": "Budget reveiw"]), .notFound)
        #expect(error.suggestion == "Budget review")
        #expect(try fixture.contents() == before)
    }

    @Test("a value of the wrong type is refused with the parameter named")
    func wrongType() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "title": .set(.int(3))]), .invalidValue)
        #expect(error.parameter == "title")
        #expect(try fixture.contents() == before)
    }

    @Test("an update that sets nothing is refused")
    func emptyUpdate() throws {
        let (fixture, event) = try seeded()
        let before = try fixture.contents()
        _ = try requireFailure(fixture.run("updateEvent", ["event": reference(event)]), .invalidValue)
        #expect(try fixture.contents() == before)
    }

    @Test("a missing required parameter asks for it with the schema's prompt")
    func missingRequired() throws {
        let (fixture, _) = try seeded()
        let before = try fixture.contents()
        guard case .needsValue(let parameter, let prompt) = fixture.run("createEvent", ["title": text("No time yet")]) else {
            Issue.record("expected needsValue")
            return
        }
        #expect(parameter == "startDate")
        #expect(prompt == "When does it start?")
        #expect(try fixture.contents() == before)
    }

    @Test("failures have a stable JSON shape with code, message, parameter and suggestion")
    func failureJSON() throws {
        let (fixture, event) = try seeded()
        let outcome = fixture.run("updateEvent", ["event": reference(event), "lcation": .set(textLocation("Lab 3"))])
        let json = fixture.engine.json(outcome)
        #expect(json["outcome"]?.stringValue == "failed")
        #expect(json["error"]?["code"]?.stringValue == "unknown_parameter")
        #expect(json["error"]?["parameter"]?.stringValue == "lcation")
        #expect(json["error"]?["suggestion"]?.stringValue == "location")
    }
}
