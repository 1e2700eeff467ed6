import Foundation
import Testing
@testable import CometSchema

private let eventID = "5c0e1f4a-9b7e-4d7a-8a3e-2f1c0d9e8b7a"
private let calendarID = "0b6f3c2e-8d4a-4f1b-9c7e-1a2b3c4d5e6f"

/// An event as a client would send it, using every property of the calendar's Event in its
/// canonical JSON shape (what `encodeProperties` prints back).
private let fullEventJSON = """
{
  "id": "\(eventID)",
  "uid": "launch-2026@example.org",
  "calendar": "\(calendarID)",
  "title": "Artemis launch",
  "startDate": "2026-06-15T08:00:00+02:00[Europe/Berlin]",
  "endDate": "2026-06-15T09:30:00+02:00[Europe/Berlin]",
  "isAllDay": false,
  "timeZone": "Europe/Berlin",
  "recurrence": "FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE",
  "note": "Bring \\"badges\\"\\nand coffee ☕",
  "travelTime": "PT45M",
  "location": {"place": {"name": "Pad 39A", "address": "Kennedy Space Center", "latitude": 28.6, "longitude": -80.6}},
  "virtualLocation": "https://meet.example/launch",
  "status": "confirmed",
  "alarms": [{"relative": "-PT15M"}, {"absolute": "2026-06-15T05:00:00Z"}],
  "organizers": [{"name": "Ada Lovelace", "email": "ada@example.org"}],
  "attendees": [
    {"person": {"name": "Grace Hopper", "email": "grace@example.org"}, "isOptional": true, "status": "accepted", "type": "person"},
    {"person": {"phone": "+1 555 0100"}, "isOptional": false, "status": "needsAction", "type": "room"}
  ],
  "isFavorite": true
}
"""

@Suite("JSON encoding and decoding of values through the registry")
struct ValueJSONTests {
    // MARK: Builtins

    @Test("Builtin values decode from their JSON shapes and encode back canonically")
    func builtinShapes() throws {
        let registry = try Fixtures.registry()
        // (type, input, expected value, canonical output)
        let cases: [(BuiltinType, JSONValue, Value, JSONValue)] = [
            (.string, "Lab 3", .string("Lab 3"), "Lab 3"),
            (.int, 42, .int(42), 42),
            (.double, 2.5, .double(2.5), 2.5),
            (.double, 2, .double(2), 2.0),
            (.bool, false, .bool(false), false),
            (.date, "2026-06-15", .date(CalendarDate(year: 2026, month: 6, day: 15)!), "2026-06-15"),
            (.dateTime, "2026-06-15T06:00:00Z", .dateTime(DateTimeValue(kind: .utc(epochSeconds: 1_781_503_200))), "2026-06-15T06:00:00Z"),
            (.dateTime, "2026-06-15T08:00:00", .dateTime(.floating(LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 15)!, hour: 8, minute: 0)!)), "2026-06-15T08:00:00"),
            (.dateTime, "2026-06-15T08:00:00+02:00[Europe/Berlin]",
             .dateTime(DateTimeValue(kind: .zoned(epochSeconds: 1_781_503_200, timeZone: "Europe/Berlin"))), "2026-06-15T08:00:00+02:00[Europe/Berlin]"),
            (.duration, "-PT15M", .duration(DurationValue(isNegative: true, minutes: 15)), "-PT15M"),
            (.url, "https://meet.example/abc?x=1", .url(URL(string: "https://meet.example/abc?x=1")!), "https://meet.example/abc?x=1"),
            (.uuid, .string(eventID.uppercased()), .uuid(UUID(uuidString: eventID)!), .string(eventID)),
            (.recurrence, "weekdays", .recurrence(RecurrenceRule.friendlyForms["weekdays"]!), "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
            (.person, "Ada Lovelace <ada@example.org>", .person(PersonValue(name: "Ada Lovelace", email: "ada@example.org")),
             ["name": "Ada Lovelace", "email": "ada@example.org"]),
            (.person, "mailto:ada@example.org", .person(PersonValue(email: "ada@example.org")), ["email": "ada@example.org"]),
            (.person, "+44 20 7946 0000", .person(PersonValue(phone: "+44 20 7946 0000")), ["phone": "+44 20 7946 0000"]),
            (.person, "Grace <+1 555 0100>", .person(PersonValue(name: "Grace", phone: "+1 555 0100")), ["name": "Grace", "phone": "+1 555 0100"]),
            (.person, ["phone": "+1 555 0100", "name": "Grace", "email": nil], .person(PersonValue(name: "Grace", phone: "+1 555 0100")),
             ["name": "Grace", "phone": "+1 555 0100"]),
            (.place, ["name": "Observatory", "latitude": 52, "longitude": 13.47], .place(PlaceValue(name: "Observatory", latitude: 52, longitude: 13.47)),
             ["name": "Observatory", "latitude": 52.0, "longitude": 13.47]),
        ]
        for (builtin, input, expected, output) in cases {
            let decoded: Value
            do {
                decoded = try registry.decode(input, as: .builtin(builtin))
            } catch {
                Issue.record("\(builtin.rawValue) \(JSONWriter.compact(input)) did not decode: \(error)")
                continue
            }
            #expect(decoded == expected, "\(builtin.rawValue) \(JSONWriter.compact(input))")
            #expect(registry.encode(decoded) == output, "\(builtin.rawValue) \(JSONWriter.compact(input))")
            // What is printed reads back as the same value.
            let again = try registry.decode(registry.encode(decoded), as: .builtin(builtin))
            #expect(again == decoded)
        }
    }

    @Test("Malformed builtin values fail with a specific code")
    func builtinErrors() throws {
        let registry = try Fixtures.registry()
        let cases: [(BuiltinType, JSONValue, ValueError.Code)] = [
            (.string, 3, .typeMismatch),
            (.string, nil, .typeMismatch),
            (.int, 2.5, .typeMismatch),
            (.int, "3", .typeMismatch),
            (.double, "2.5", .typeMismatch),
            (.bool, "true", .typeMismatch),
            (.date, "2026-02-30", .invalidDate),
            (.date, "20260615", .invalidDate),
            (.date, "2026-6-15", .invalidDate),
            (.date, "15.06.2026", .invalidDate),
            (.dateTime, "tomorrow at 8", .invalidDateTime),
            (.dateTime, "2026-06-15", .invalidDateTime),
            (.dateTime, "2026-06-15T08:00:00[Mars/Olympus]", .unknownTimeZone),
            (.dateTime, 1_781_503_200, .typeMismatch),
            (.duration, "15 minutes", .invalidDuration),
            (.duration, "P1Y", .invalidDuration),
            (.url, "meet.example/abc", .invalidURL),
            (.url, "Lab 3", .invalidURL),
            (.uuid, "5c0e1f4a", .invalidUUID),
            (.recurrence, "every blue moon", .invalidRecurrence),
            (.person, "", .invalidPerson),
            (.person, ["name": "Ada", "email": "ada"], .invalidPerson),
            (.person, ["name": 3], .typeMismatch),
            (.person, 3, .typeMismatch),
            (.place, "Lab 3", .typeMismatch),
            (.place, ["name": "Lab", "latitude": 52.5], .invalidPlace),
            (.place, ["latitude": "52.5", "longitude": 13.4], .invalidPlace),
            (.place, [:], .invalidPlace),
        ]
        for (builtin, input, code) in cases {
            let error = valueError { () throws(ValueError) in try registry.decode(input, as: .builtin(builtin)) }
            #expect(error?.code == code, "\(builtin.rawValue) \(JSONWriter.compact(input)): \(error.map(String.init(describing:)) ?? "decoded")")
        }
    }

    @Test("Unknown fields of Person and Place are refused with a suggestion")
    func unknownFields() throws {
        let registry = try Fixtures.registry()
        let person = try #require(valueError { () throws(ValueError) in try registry.decode(["name": "Ada", "mail": "ada@example.org"], as: .builtin(.person)) })
        #expect(person.code == .unknownProperty)
        #expect(person.suggestion == "email")
        let place = try #require(valueError { () throws(ValueError) in try registry.decode(["name": "Lab", "lat": 52.5, "long": 13.4], as: .builtin(.place)) })
        #expect(place.code == .unknownProperty)
        #expect(place.suggestion == "latitude")
        let latitude = try #require(valueError { () throws(ValueError) in try registry.decode(["latitude": "north", "longitude": 1], as: .builtin(.place)) })
        #expect(latitude.path == "latitude")
        #expect(latitude.message == "expected a number, found a string")
    }

    // MARK: Whole entities

    @Test("A complete event decodes and encodes back to the same JSON in schema order")
    func fullEventRoundTrip() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        let input = try jsonObject(fullEventJSON)
        let properties: [String: Value]
        do {
            properties = try registry.decodeProperties(input, of: event)
        } catch {
            Issue.record("the event did not decode: \(error)")
            return
        }
        #expect(properties["title"] == .string("Artemis launch"))
        #expect(properties["calendar"] == .reference(UUID(uuidString: calendarID)!))
        #expect(properties["id"] == .uuid(UUID(uuidString: eventID)!))
        #expect(properties["location"] == .union("place", .place(PlaceValue(name: "Pad 39A", address: "Kennedy Space Center", latitude: 28.6, longitude: -80.6))))
        #expect(properties["alarms"] == .array([
            .union("relative", .duration(DurationValue(isNegative: true, minutes: 15))),
            .union("absolute", .dateTime(DateTimeValue(kind: .utc(epochSeconds: 1_781_499_600)))),
        ]))
        #expect(properties["note"] == .string("Bring \"badges\"\nand coffee ☕"))

        let output = registry.encodeProperties(properties, of: event)
        // Every property the client sent comes back unchanged, in the schema's order.
        for (key, value) in input {
            #expect(output[key] == value, "\(key): \(output[key].map(JSONWriter.compact) ?? "absent") != \(JSONWriter.compact(value))")
        }
        let schemaOrder = event.properties.map(\.name)
        #expect(output.keys == schemaOrder.filter { output[$0] != nil })
        // Anything beyond what was sent is a schema default.
        for key in output.keys where input[key] == nil {
            let property = try #require(event.property(key))
            let defaultValue = try #require(property.defaultValue, "\(key) appeared without a default")
            #expect(output[key] == registry.encode(defaultValue))
        }
        // And the printed JSON reads back to the same typed properties.
        let again = try registry.decodeProperties(output, of: event)
        #expect(again == properties)
        #expect(JSONWriter.pretty(.object(registry.encodeProperties(again, of: event))) == JSONWriter.pretty(.object(output)))
    }

    @Test("Defaults are filled in for absent properties of events and attendees")
    func defaultsFilledIn() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        let input = try jsonObject("""
        {"calendar": "\(calendarID)", "title": "Standup", "startDate": "2026-06-15T09:00:00",
         "attendees": [{"person": "Ada <ada@example.org>"}]}
        """)
        let properties = try registry.decodeProperties(input, of: event)
        #expect(properties["isAllDay"] == .bool(false))
        #expect(properties["isFavorite"] == .bool(false))
        #expect(properties["alarms"] == .array([]))
        #expect(properties["organizers"] == .array([]))
        #expect(properties["endDate"] == nil)
        #expect(properties["status"] == nil)
        #expect(properties["id"] == nil)
        #expect(properties["attendees"] == .array([.object([
            "person": .person(PersonValue(name: "Ada", email: "ada@example.org")),
            "isOptional": .bool(false), "status": .enumCase("needsAction"), "type": .enumCase("person"),
        ])]))
        // Encoded, an attendee keeps its entity's property order (not alphabetical).
        let attendees = registry.encodeProperties(properties, of: event)["attendees"]
        #expect(attendees.map(JSONWriter.compact) == #"[{"person":{"name":"Ada","email":"ada@example.org"},"isOptional":false,"status":"needsAction","type":"person"}]"#)
    }

    @Test("Null leaves out an optional property and is refused for a required one")
    func nullProperties() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        let optional = try registry.decodeProperties(try jsonObject("""
        {"calendar": "\(calendarID)", "title": "Standup", "startDate": "2026-06-15T09:00:00", "note": null, "location": null}
        """), of: event)
        #expect(optional["note"] == nil)
        #expect(optional["location"] == nil)

        let required = try #require(valueError { () throws(ValueError) in
            try registry.decodeProperties(try! jsonObject("""
            {"calendar": "\(calendarID)", "title": null, "startDate": "2026-06-15T09:00:00"}
            """), of: event)
        })
        #expect(required.code == .missingProperty)
        #expect(required.path == "title")

        let absent = try #require(valueError { () throws(ValueError) in
            try registry.decodeProperties(try! jsonObject(#"{"title": "Standup", "startDate": "2026-06-15T09:00:00"}"#), of: event)
        })
        #expect(absent.code == .missingProperty)
        #expect(absent.path == "calendar")
    }

    @Test("Errors inside an event name the property, the index and the field")
    func nestedDecodeErrors() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        /// A valid event with the members of `extra` added or replaced.
        func decodeError(_ extra: String) throws -> ValueError {
            var object = try jsonObject(#"{"calendar": "\#(calendarID)", "title": "Standup", "startDate": "2026-06-15T09:00:00"}"#)
            for (key, value) in try jsonObject("{\(extra)}") { object[key] = value }
            return try #require(valueError { () throws(ValueError) in try registry.decodeProperties(object, of: event) }, "\(extra)")
        }
        let status = try decodeError(#""attendees": [{"person": "Ada"}, {"person": "Bob", "status": "acepted"}]"#)
        #expect(status.code == .unknownEnumCase)
        #expect(status.path == "attendees[1].status")
        #expect(status.suggestion == "accepted")

        let person = try decodeError(#""attendees": [{"status": "accepted"}]"#)
        #expect(person.code == .missingProperty)
        #expect(person.path == "attendees[0].person")

        let unknown = try decodeError(#""attendees": [{"person": "Ada", "stauts": "accepted"}]"#)
        #expect(unknown.code == .unknownProperty)
        #expect(unknown.suggestion == "status")
        #expect(unknown.path == "attendees[0]")

        let titel = try decodeError(#""titel": "x""#)
        #expect(titel.code == .unknownProperty)
        #expect(titel.suggestion == "title")

        let reference = try decodeError(#""calendar": "work""#)
        #expect(reference.code == .invalidUUID)
        #expect(reference.path == "calendar")
        #expect(reference.message.contains("is not a Calendar id"))

        let alarm = try decodeError(#""alarms": ["-PT15M", {"relative": "soon"}]"#)
        #expect(alarm.code == .invalidDuration)
        #expect(alarm.path == "alarms[1].relative")

        let latitude = try decodeError(#""location": {"place": {"name": "Pad", "latitude": 128.6, "longitude": 0}}"#)
        #expect(latitude.code == .invalidPlace)
        #expect(latitude.path == "location.place.latitude")

        let notArray = try decodeError(#""alarms": "-PT15M""#)
        #expect(notArray.code == .typeMismatch)
        #expect(notArray.path == "alarms")
        #expect(notArray.message.contains("an array of Alarm"))
    }

    // MARK: Unions

    @Test("A Location decodes from a named case or a bare payload that fits one case")
    func locationForms() throws {
        let registry = try Fixtures.registry()
        let location = calendarType("Location", kind: "union")
        let expectedText = Value.union("text", .string("Lab 3"))
        #expect(try registry.decode(["text": "Lab 3"], as: location) == expectedText)
        #expect(try registry.decode("Lab 3", as: location) == expectedText)
        let place = Value.union("place", .place(PlaceValue(name: "Observatory", latitude: 52.5, longitude: 13.4)))
        #expect(try registry.decode(["place": ["name": "Observatory", "latitude": 52.5, "longitude": 13.4]], as: location) == place)
        #expect(try registry.decode(["name": "Observatory", "latitude": 52.5, "longitude": 13.4], as: location) == place)
        // A place with only a name written bare is still a place: objects are never text.
        #expect(try registry.decode(["name": "Observatory"], as: location) == .union("place", .place(PlaceValue(name: "Observatory"))))
        // Printed, a union always names its case.
        #expect(registry.encode(expectedText) == ["text": "Lab 3"])
    }

    @Test("An Alarm decodes a bare duration as relative and a bare date-time as absolute")
    func alarmForms() throws {
        let registry = try Fixtures.registry()
        let alarm = calendarType("Alarm", kind: "union")
        let relative = Value.union("relative", .duration(DurationValue(isNegative: true, minutes: 15)))
        #expect(try registry.decode("-PT15M", as: alarm) == relative)
        #expect(try registry.decode(["relative": "-PT15M"], as: alarm) == relative)
        let absolute = try registry.decode("2026-06-15T07:45:00+02:00[Europe/Berlin]", as: alarm)
        #expect(absolute == .union("absolute", .dateTime(DateTimeValue(kind: .zoned(epochSeconds: 1_781_502_300, timeZone: "Europe/Berlin")))))
        #expect(registry.encode(relative) == ["relative": "-PT15M"])
        let list = try registry.decode(["-PT15M", "PT0S", ["absolute": "2026-06-15T05:00:00Z"]], as: calendarType("Alarm", kind: "union", array: true))
        #expect(list == .array([relative, .union("relative", .duration(DurationValue())),
                                .union("absolute", .dateTime(DateTimeValue(kind: .utc(epochSeconds: 1_781_499_600))))]))
    }

    @Test("A union value no case accepts fails; an unknown case name gets a suggestion")
    func unionErrors() throws {
        let registry = try Fixtures.registry()
        let location = calendarType("Location", kind: "union")
        let alarm = calendarType("Alarm", kind: "union")

        let unknown = try #require(valueError { () throws(ValueError) in try registry.decode(["txt": "Lab 3"], as: location) })
        #expect(unknown.code == .unknownUnionCase)
        #expect(unknown.suggestion == "text")
        #expect(unknown.message.contains("place, text"))

        let wrongPayload = try #require(valueError { () throws(ValueError) in try registry.decode(["text": 3], as: location) })
        #expect(wrongPayload.code == .typeMismatch)
        #expect(wrongPayload.path == "text")

        let number = try #require(valueError { () throws(ValueError) in try registry.decode(3, as: location) })
        #expect(number.code == .typeMismatch)
        #expect(number.message.hasPrefix("expected a Location (one of: place, text), found an integer"))

        let neither = try #require(valueError { () throws(ValueError) in try registry.decode("in fifteen minutes", as: alarm) })
        #expect(neither.code == .typeMismatch)
        #expect(neither.message.hasPrefix("expected an Alarm (one of: relative, absolute), found a string"))

        let unknownAlarm = try #require(valueError { () throws(ValueError) in try registry.decode(["relativ": "-PT15M"], as: alarm) })
        #expect(unknownAlarm.code == .unknownUnionCase)
        #expect(unknownAlarm.suggestion == "relative")
    }

    @Test("A bare value that fits several union cases is ambiguous until a case is named")
    func ambiguousUnion() throws {
        let registry = try Fixtures.registry(schema: """
        domain contacts
        union Contact {
            who: Person
            label: String
        }
        """)
        let contact = TypeExpression(.union(QualifiedName(domain: "contacts", name: "Contact")))
        let error = try #require(valueError { () throws(ValueError) in try registry.decode("Ada", as: contact) })
        #expect(error.code == .ambiguousUnion)
        #expect(error.message.contains("who, label"))
        #expect(try registry.decode(["label": "Ada"], as: contact) == .union("label", .string("Ada")))
        #expect(try registry.decode(["who": "Ada"], as: contact) == .union("who", .person(PersonValue(name: "Ada"))))
        // An object is only a Person, so it is not ambiguous.
        #expect(try registry.decode(["name": "Ada"], as: contact) == .union("who", .person(PersonValue(name: "Ada"))))
    }

    // MARK: Enums, references, arrays

    @Test("Enum cases decode from their names; unknown names fail with a suggestion")
    func enums() throws {
        let registry = try Fixtures.registry()
        let status = calendarType("EventStatus", kind: "enum")
        #expect(try registry.decode("tentative", as: status) == .enumCase("tentative"))
        #expect(registry.encode(.enumCase("tentative")) == "tentative")
        let error = try #require(valueError { () throws(ValueError) in try registry.decode("canceled", as: status) })
        #expect(error.code == .unknownEnumCase)
        #expect(error.suggestion == "cancelled")
        #expect(valueError { () throws(ValueError) in try registry.decode(1, as: status) }?.code == .typeMismatch)
    }

    @Test("References to indexed entities are ids, printed in lower case")
    func referencesAsIDs() throws {
        let registry = try Fixtures.registry()
        let event = calendarType("Event", kind: "entity")
        let value = try registry.decode(.string(eventID.uppercased()), as: event)
        #expect(value == .reference(UUID(uuidString: eventID)!))
        #expect(registry.encode(value) == .string(eventID))
        #expect(valueError { () throws(ValueError) in try registry.decode(["id": .string(eventID)], as: event) }?.code == .typeMismatch)
    }

    @Test("Encoding without a type prints transient objects with sorted keys")
    func untypedObjectEncoding() throws {
        let registry = try Fixtures.registry()
        let object = Value.object(["type": .enumCase("room"), "person": .person(PersonValue(name: "Lab")), "isOptional": .bool(true)])
        #expect(JSONWriter.compact(registry.encode(object)) == #"{"isOptional":true,"person":{"name":"Lab"},"type":"room"}"#)
        #expect(registry.encode(.array([.int(1), .double(1.5)])) == [1, 1.5])
    }
}
