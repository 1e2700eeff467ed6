import Foundation
import Testing
@testable import CometSchema

private let eventID = "5c0e1f4a-9b7e-4d7a-8a3e-2f1c0d9e8b7a"
private let calendarID = "0b6f3c2e-8d4a-4f1b-9c7e-1a2b3c4d5e6f"

@Suite("Intent parameters keep their three value states through JSON")
struct ParameterValueTests {
    private func decode(_ text: String, for intentName: String) throws -> ParameterBindings {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent(intentName)
        let object = try jsonObject(text)
        do {
            return try registry.decodeParameters(object, for: intent)
        } catch {
            Issue.record("\(text) did not decode: \(error)")
            throw error
        }
    }

    private func decodeError(_ text: String, for intentName: String) throws -> ValueError {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent(intentName)
        let object = try jsonObject(text)
        return try #require(valueError { () throws(ValueError) in try registry.decodeParameters(object, for: intent) }, "\(text)")
    }

    @Test("Absent keys are unset, null is cleared and a value is set")
    func threeStates() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("updateEvent")
        let bindings = try decode(#"{"event": "\#(eventID)", "location": null, "title": "X"}"#, for: "updateEvent")
        #expect(bindings["event"] == .set(.reference(UUID(uuidString: eventID)!)))
        #expect(bindings["location"] == .cleared)
        #expect(bindings["title"] == .set(.string("X")))
        #expect(bindings.mentionedNames == ["event", "location", "title"])
        for parameter in intent.parameters where !["event", "location", "title"].contains(parameter.name) {
            #expect(bindings[parameter.name] == .unset, "\(parameter.name)")
        }
        #expect(bindings["location"].value == nil)
        #expect(bindings["title"].value == .string("X"))
        #expect(!bindings["location"].isUnset)
        #expect(bindings["span"].isUnset)
    }

    @Test("Encoding omits unset parameters, writes null for cleared ones and follows the intent's parameter order")
    func encodeBack() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("updateEvent")
        let bindings = try decode(#"{"event": "\#(eventID)", "location": null, "title": "X"}"#, for: "updateEvent")
        let encoded = registry.encodeParameters(bindings, for: intent)
        // `title` is declared before `location`, so it comes first whatever order the request used.
        #expect(JSONWriter.compact(.object(encoded)) == #"{"event":"\#(eventID)","title":"X","location":null}"#)
        #expect(encoded["span"] == nil)
        #expect(encoded["location"] == .null)
    }

    @Test("A request in parameter order survives decode and encode byte for byte")
    func exactRoundTrip() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("updateEvent")
        let requests = [
            #"{"event":"\#(eventID)","title":"X","location":null}"#,
            #"{"event":"\#(eventID)","span":"future","startDate":"2026-06-15T08:00:00+02:00[Europe/Berlin]","recurrence":null,"alarms":null,"attendees":[]}"#,
            #"{"event":"\#(eventID)","occurrence":"2026-06-22T08:00:00+02:00[Europe/Berlin]","span":"this","title":"Crew lunch","endDate":null,"isAllDay":true,"timeZone":null,"calendar":"\#(calendarID)","recurrence":"FREQ=WEEKLY;BYDAY=MO","note":"","travelTime":"PT30M","location":{"text":"Lab 3"},"virtualLocation":"https://meet.example/x","status":"tentative","alarms":[{"relative":"-PT15M"}],"organizers":[{"name":"Ada","email":"ada@example.org"}],"attendees":[{"person":{"name":"Grace"},"isOptional":false,"status":"needsAction","type":"person"}],"isFavorite":false}"#,
            #"{"event":"\#(eventID)"}"#,
        ]
        for request in requests {
            let bindings = try decode(request, for: "updateEvent")
            let encoded = JSONWriter.compact(.object(registry.encodeParameters(bindings, for: intent)))
            #expect(encoded == request)
            // And the encoded form decodes to the same bindings.
            #expect(try decode(encoded, for: "updateEvent") == bindings)
        }
    }

    @Test("Bare inputs are read and written back in canonical form")
    func canonicalForms() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("createEvent")
        let bindings = try decode("""
        {"title": "Standup", "startDate": "2026-06-15T09:00:00", "recurrence": "weekdays", "location": "Lab 3",
         "alarms": ["-PT15M"], "organizers": ["Ada <ada@example.org>"], "attendees": [{"person": "grace@example.org"}]}
        """, for: "createEvent")
        #expect(bindings["location"] == .set(.union("text", .string("Lab 3"))))
        #expect(bindings["attendees"] == .set(.array([.object([
            "person": .person(PersonValue(email: "grace@example.org")), "isOptional": .bool(false),
            "status": .enumCase("needsAction"), "type": .enumCase("person"),
        ])])))
        let encoded = JSONWriter.compact(.object(registry.encodeParameters(bindings, for: intent)))
        #expect(encoded == #"{"title":"Standup","startDate":"2026-06-15T09:00:00","recurrence":"FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR","location":{"text":"Lab 3"},"alarms":[{"relative":"-PT15M"}],"organizers":[{"name":"Ada","email":"ada@example.org"}],"attendees":[{"person":{"email":"grace@example.org"},"isOptional":false,"status":"needsAction","type":"person"}]}"#)
    }

    @Test("Clearing an array is not the same as setting it empty")
    func clearedVersusEmpty() throws {
        let cleared = try decode(#"{"event": "\#(eventID)", "attendees": null}"#, for: "updateEvent")
        let empty = try decode(#"{"event": "\#(eventID)", "attendees": []}"#, for: "updateEvent")
        #expect(cleared["attendees"] == .cleared)
        #expect(empty["attendees"] == .set(.array([])))
        #expect(cleared != empty)
    }

    @Test("Clearing the required event fails with cleared_required")
    func clearingRequired() throws {
        let error = try decodeError(#"{"event": null, "title": "X"}"#, for: "updateEvent")
        #expect(error.code == .clearedRequired)
        #expect(error.path == "event")
        #expect(error.message.contains("'event' is required by intent 'updateEvent'"))

        let title = try decodeError(#"{"title": null, "startDate": "2026-06-15T09:00:00"}"#, for: "createEvent")
        #expect(title.code == .clearedRequired)
        #expect(title.path == "title")
    }

    @Test("A missing required parameter is left unset for the engine to ask for")
    func missingRequiredIsUnset() throws {
        let bindings = try decode(#"{"title": "Standup"}"#, for: "createEvent")
        #expect(bindings["startDate"] == .unset)
        #expect(bindings.mentionedNames == ["title"])
        #expect(try decode("{}", for: "updateEvent") == ParameterBindings())
    }

    @Test("An unknown parameter fails and suggests the closest name")
    func unknownParameter() throws {
        let error = try decodeError(#"{"event": "\#(eventID)", "titel": "X"}"#, for: "updateEvent")
        #expect(error.code == .unknownParameter)
        #expect(error.suggestion == "title")
        #expect(error.message.hasPrefix("'titel' is not a parameter of intent 'updateEvent'"))
        #expect(error.description.hasSuffix("did you mean 'title'?"))

        let nothingClose = try decodeError(#"{"colour": "teal", "xyzzy": 1}"#, for: "searchEvents")
        #expect(nothingClose.code == .unknownParameter)
    }

    @Test("A set value that does not fit its parameter fails with the path inside it")
    func badSetValues() throws {
        let status = try decodeError(#"{"event": "\#(eventID)", "status": "confirmd"}"#, for: "updateEvent")
        #expect(status.code == .unknownEnumCase)
        #expect(status.path == "status")
        #expect(status.suggestion == "confirmed")

        let attendee = try decodeError(#"{"event": "\#(eventID)", "attendees": [{"person": "Ada"}, {"person": "Bob", "status": "maybe"}]}"#, for: "updateEvent")
        #expect(attendee.code == .unknownEnumCase)
        #expect(attendee.path == "attendees[1].status")

        let event = try decodeError(#"{"event": 42}"#, for: "updateEvent")
        #expect(event.code == .typeMismatch)
        #expect(event.path == "event")

        let id = try decodeError(#"{"event": "the launch"}"#, for: "deleteEvent")
        #expect(id.code == .invalidUUID)
        #expect(id.path == "event")

        let span = try decodeError(#"{"event": "\#(eventID)", "span": "futur"}"#, for: "deleteEvent")
        #expect(span.path == "span")
        #expect(span.suggestion == "future")

        let zone = try decodeError(#"{"from": "2026-06-15T00:00:00[Mars/Olympus]"}"#, for: "searchEvents")
        #expect(zone.code == .unknownTimeZone)
        #expect(zone.path == "from")

        let rule = try decodeError(#"{"event": "\#(eventID)", "recurrence": "FREQ=WEEKLY;BYDAY=2TU"}"#, for: "updateEvent")
        #expect(rule.code == .invalidRecurrence)
        #expect(rule.path == "recurrence")
    }

    @Test("Bindings never hold unset states and compare by their mentioned states")
    func bindingsStorage() {
        var bindings = ParameterBindings(["title": .set(.string("X")), "note": .unset, "location": .cleared])
        #expect(bindings.mentionedNames == ["location", "title"])
        #expect(bindings == ParameterBindings(["title": .set(.string("X")), "location": .cleared]))
        bindings["title"] = .unset
        #expect(bindings.mentionedNames == ["location"])
        #expect(bindings["title"] == .unset)
        bindings["note"] = .set(.string("agenda"))
        #expect(bindings["note"].value == .string("agenda"))
        bindings["location"] = .unset
        bindings["note"] = .unset
        #expect(bindings == ParameterBindings())
        #expect(ParameterValue.cleared.value == nil)
        #expect(ParameterValue.unset.isUnset)
        #expect(!ParameterValue.cleared.isUnset)
    }

    @Test("Bindings built in code encode like decoded ones")
    func encodeBuiltBindings() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("deleteEvent")
        let bindings = ParameterBindings([
            "span": .set(.enumCase("all")), "event": .set(.reference(UUID(uuidString: eventID)!)), "occurrence": .cleared,
        ])
        #expect(JSONWriter.compact(.object(registry.encodeParameters(bindings, for: intent))) == #"{"event":"\#(eventID)","occurrence":null,"span":"all"}"#)
        // A name that is not a parameter of the intent is not printed.
        let stray = ParameterBindings(["title": .set(.string("X"))])
        #expect(registry.encodeParameters(stray, for: intent).count == 0)
    }
}
