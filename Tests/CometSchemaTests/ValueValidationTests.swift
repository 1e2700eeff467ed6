import Foundation
import Testing
@testable import CometSchema

private let someID = UUID(uuidString: "5c0e1f4a-9b7e-4d7a-8a3e-2f1c0d9e8b7a")!
private let ada = Value.person(PersonValue(name: "Ada Lovelace", email: "ada@example.org"))

/// A value that must fit (or not fit) a builtin type.
struct BuiltinCase: Sendable, CustomTestStringConvertible {
    let type: BuiltinType
    let value: Value
    var testDescription: String { "\(type.rawValue) ← \(value.shapeName)" }
}

private func good(_ type: BuiltinType, _ value: Value) -> BuiltinCase { BuiltinCase(type: type, value: value) }

@Suite("Validation of values against registry types")
struct ValueValidationTests {
    static let goodBuiltins: [BuiltinCase] = [
        good(.string, .string("Lab 3")), good(.string, .string("")),
        good(.int, .int(-3)), good(.double, .double(2.5)), good(.double, .int(2)),
        good(.bool, .bool(true)),
        good(.date, .date(CalendarDate(year: 2026, month: 6, day: 15)!)),
        good(.dateTime, .dateTime(.utc(Date(timeIntervalSince1970: 0)))),
        good(.dateTime, .dateTime(.floating(LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 15)!, hour: 8, minute: 0)!))),
        good(.dateTime, .dateTime(DateTimeValue(kind: .zoned(epochSeconds: 1_781_503_200, timeZone: "Europe/Berlin")))),
        good(.duration, .duration(DurationValue(isNegative: true, minutes: 15))),
        good(.url, .url(URL(string: "https://meet.example/abc")!)),
        good(.uuid, .uuid(someID)),
        good(.person, .person(PersonValue(name: "Ada"))),
        good(.person, .person(PersonValue(email: "ada@example.org"))),
        good(.person, .person(PersonValue(phone: "+44 20 7946 0000"))),
        good(.person, .person(PersonValue(name: "Ada", email: ""))),
        good(.place, .place(PlaceValue(name: "Observatory"))),
        good(.place, .place(PlaceValue(address: "Archenhold, Berlin"))),
        good(.place, .place(PlaceValue(latitude: 52.48, longitude: 13.47))),
        good(.place, .place(PlaceValue(latitude: 90, longitude: -180))),
        good(.place, .place(PlaceValue(latitude: -90, longitude: 180))),
        good(.recurrence, .recurrence(RecurrenceRule(frequency: .weekly))),
    ]

    /// Values of the wrong shape for each builtin: a type mismatch that names what was expected.
    static let mismatchedBuiltins: [BuiltinCase] = [
        good(.string, .int(3)), good(.string, .enumCase("text")),
        good(.int, .double(2.5)), good(.int, .string("2")),
        good(.double, .string("2.5")), good(.bool, .int(1)),
        good(.date, .dateTime(.utc(Date(timeIntervalSince1970: 0)))), good(.date, .string("2026-06-15")),
        good(.dateTime, .date(CalendarDate(year: 2026, month: 6, day: 15)!)),
        good(.duration, .int(900)), good(.duration, .string("PT15M")),
        good(.url, .string("https://meet.example/abc")),
        good(.uuid, .string(someID.uuidString)), good(.uuid, .reference(someID)),
        good(.person, .string("Ada")), good(.place, .string("Lab 3")),
        good(.recurrence, .string("FREQ=DAILY")),
        good(.string, .array([.string("a")])),
    ]

    @Test("A good value of every builtin type validates", arguments: goodBuiltins)
    func goodBuiltin(_ example: BuiltinCase) throws {
        let registry = try Fixtures.registry()
        let error = valueError { () throws(ValueError) in try registry.validate(example.value, as: .builtin(example.type)) }
        #expect(error == nil)
    }

    @Test("A value of the wrong shape fails with a type mismatch naming the expected type", arguments: mismatchedBuiltins)
    func mismatchedBuiltin(_ example: BuiltinCase) throws {
        let registry = try Fixtures.registry()
        let error = try #require(valueError { () throws(ValueError) in try registry.validate(example.value, as: .builtin(example.type)) })
        #expect(error.code == .typeMismatch)
        #expect(error.path == "")
        #expect(error.message.hasPrefix("expected a"))
        #expect(error.message.contains(example.type.rawValue))
        #expect(error.message.hasSuffix("found \(example.value.shapeName)"))
    }

    @Test("Every builtin type is covered by a good and a bad example")
    func builtinCoverage() {
        #expect(Set(Self.goodBuiltins.map(\.type)) == Set(BuiltinType.allCases))
        #expect(Set(Self.mismatchedBuiltins.map(\.type)) == Set(BuiltinType.allCases))
    }

    @Test("A zoned date-time with a zone tzdata does not know is refused")
    func unknownZoneInValue() throws {
        let registry = try Fixtures.registry()
        let value = Value.dateTime(DateTimeValue(kind: .zoned(epochSeconds: 0, timeZone: "Mars/Olympus")))
        let error = try #require(valueError { () throws(ValueError) in try registry.validate(value, as: .builtin(.dateTime)) })
        #expect(error.code == .unknownTimeZone)
        #expect(error.message.contains("Mars/Olympus"))
    }

    @Test("A recurrence rule built in code is held to the same RFC 5545 rules as a parsed one")
    func recurrenceBuiltInCode() throws {
        let registry = try Fixtures.registry()
        let bad: [(RecurrenceRule, String)] = [
            (RecurrenceRule(frequency: .monthly, byMonthDay: [40]), "BYMONTHDAY"),
            (RecurrenceRule(frequency: .daily, interval: 0), "INTERVAL"),
            (RecurrenceRule(frequency: .daily, end: .count(0)), "COUNT"),
            (RecurrenceRule(frequency: .weekly, byDay: [.init(.tuesday, ordinal: 2)]), "BYDAY"),
            (RecurrenceRule(frequency: .monthly, byWeekNumber: [20]), "BYWEEKNO"),
            (RecurrenceRule(frequency: .monthly, bySetPosition: [-1]), "BYSETPOS"),
            (RecurrenceRule(frequency: .yearly, byMonth: [0]), "BYMONTH"),
        ]
        for (rule, part) in bad {
            let error = try #require(valueError { () throws(ValueError) in try registry.validate(.recurrence(rule), as: .builtin(.recurrence)) }, "\(rule)")
            #expect(error.code == .invalidRecurrence, "\(rule)")
            #expect(error.message.contains(part), "\(error.message)")
        }
        let good = RecurrenceRule(frequency: .monthly, end: .count(6), byDay: [.init(.monday, ordinal: -2)])
        #expect(valueError { () throws(ValueError) in try registry.validate(.recurrence(good), as: .builtin(.recurrence)) } == nil)
        #expect(valueError { () throws(ValueError) in try good.validate() } == nil)
    }

    @Test("A duration built in code with a negative part is refused; the sign belongs in isNegative")
    func durationBuiltInCode() throws {
        let registry = try Fixtures.registry()
        for duration in [DurationValue(minutes: -5), DurationValue(days: 1, hours: -1), DurationValue(isNegative: true, weeks: -1)] {
            let error = try #require(valueError { () throws(ValueError) in try registry.validate(.duration(duration), as: .builtin(.duration)) }, "\(duration)")
            #expect(error.code == .invalidDuration)
        }
        #expect(valueError { () throws(ValueError) in try registry.validate(.duration(DurationValue(isNegative: true, minutes: 5)), as: .builtin(.duration)) } == nil)
    }

    // MARK: Person and Place

    @Test("A person needs a name, an email address or a phone number")
    func personNeedsSomething() throws {
        let registry = try Fixtures.registry()
        for person in [PersonValue(), PersonValue(name: "  "), PersonValue(name: "", email: "", phone: " ")] {
            let error = try #require(valueError { () throws(ValueError) in try registry.validate(.person(person), as: .builtin(.person)) })
            #expect(error.code == .invalidPerson)
            #expect(error.path == "")
            #expect(error.message.contains("needs a name"))
        }
    }

    @Test("An address with spaces or a second @ is kept: calendar user addresses are URIs, written oddly in real files",
          arguments: ["a@b@example.org", "ada lovelace@example.org", "hcabot@ example.com", "CET Meeting Room@example.com"])
    func oddEmail(_ email: String) throws {
        let registry = try Fixtures.registry()
        try registry.validate(.person(PersonValue(name: "Ada", email: email)), as: .builtin(.person))
    }

    @Test("An email address without a part before or after its @ is refused with the path to it", arguments: ["ada", "ada@", "@example.org", " "])
    func badEmail(_ email: String) throws {
        let registry = try Fixtures.registry()
        let person = Value.person(PersonValue(name: "Ada", email: email))
        let error = try #require(valueError { () throws(ValueError) in try registry.validate(person, as: .builtin(.person)) })
        #expect(error.code == .invalidPerson)
        #expect(error.path == "email")
        #expect(error.message.contains("is not an email address"))
    }

    @Test("A place needs both coordinates or neither, each in range")
    func placeCoordinates() throws {
        let registry = try Fixtures.registry()
        let cases: [(PlaceValue, String)] = [
            (PlaceValue(name: "Lab", latitude: 52.5), ""),
            (PlaceValue(name: "Lab", longitude: 13.4), ""),
            (PlaceValue(latitude: 90.5, longitude: 0), "latitude"),
            (PlaceValue(latitude: -91, longitude: 0), "latitude"),
            (PlaceValue(latitude: 0, longitude: 180.01), "longitude"),
            (PlaceValue(latitude: 0, longitude: -181), "longitude"),
            (PlaceValue(latitude: .nan, longitude: 0), "latitude"),
            (PlaceValue(), ""),
            (PlaceValue(name: " ", address: ""), ""),
        ]
        for (place, path) in cases {
            let error = try #require(valueError { () throws(ValueError) in try registry.validate(.place(place), as: .builtin(.place)) }, "\(place)")
            #expect(error.code == .invalidPlace, "\(place)")
            #expect(error.path == path, "\(place)")
        }
        let both = try #require(valueError { () throws(ValueError) in try registry.validate(.place(PlaceValue(latitude: 1)), as: .builtin(.place)) })
        #expect(both.message.contains("both latitude and longitude"))
    }

    // MARK: Enums and unions

    @Test("Every declared case of every enum validates")
    func enumCasesValidate() throws {
        let registry = try Fixtures.registry()
        let domain = try #require(registry.domain("calendar"))
        var count = 0
        for enumeration in domain.enums {
            let type = TypeExpression(.enumeration(enumeration.name))
            for enumCase in enumeration.cases {
                count += 1
                let error = valueError { () throws(ValueError) in try registry.validate(.enumCase(enumCase.name), as: type) }
                #expect(error == nil, "\(enumeration.name.name).\(enumCase.name)")
            }
        }
        // EventStatus 3, AttendeeStatus 5, AttendeeType 5, EditSpan 3, and any enums added since.
        #expect(count >= 16)
    }

    @Test("An unknown enum case fails and suggests the closest case")
    func unknownEnumCase() throws {
        let registry = try Fixtures.registry()
        let type = calendarType("AttendeeStatus", kind: "enum")
        let error = try #require(valueError { () throws(ValueError) in try registry.validate(.enumCase("acepted"), as: type) })
        #expect(error.code == .unknownEnumCase)
        #expect(error.suggestion == "accepted")
        #expect(error.message.contains("accepted, declined, tentative, needsAction, delegated"))
        #expect(error.description.hasSuffix("; did you mean 'accepted'?"))

        let caseSensitive = try #require(valueError { () throws(ValueError) in try registry.validate(.enumCase("NeedsAction"), as: type) })
        #expect(caseSensitive.suggestion == "needsAction")

        let farOff = try #require(valueError { () throws(ValueError) in try registry.validate(.enumCase("zzzzzz"), as: type) })
        #expect(farOff.code == .unknownEnumCase)
        #expect(farOff.suggestion == nil)

        let notACase = try #require(valueError { () throws(ValueError) in try registry.validate(.string("accepted"), as: type) })
        #expect(notACase.code == .typeMismatch)
        #expect(notACase.message.contains("one of AttendeeStatus's cases"))
    }

    @Test("A case of one enum is not a case of another")
    func enumCaseOfOtherEnum() throws {
        let registry = try Fixtures.registry()
        let error = try #require(valueError { () throws(ValueError) in
            try registry.validate(.enumCase("needsAction"), as: calendarType("EventStatus", kind: "enum"))
        })
        #expect(error.code == .unknownEnumCase)
    }

    @Test("Union values validate their payload against the chosen case")
    func unionValues() throws {
        let registry = try Fixtures.registry()
        let location = calendarType("Location", kind: "union")
        let alarm = calendarType("Alarm", kind: "union")
        let goodValues: [(Value, TypeExpression)] = [
            (.union("text", .string("Lab 3")), location),
            (.union("place", .place(PlaceValue(name: "Observatory", latitude: 52.5, longitude: 13.4))), location),
            (.union("relative", .duration(DurationValue(isNegative: true, minutes: 15))), alarm),
            (.union("absolute", .dateTime(.utc(Date(timeIntervalSince1970: 1_781_503_200)))), alarm),
        ]
        for (value, type) in goodValues {
            let error = valueError { () throws(ValueError) in try registry.validate(value, as: type) }
            #expect(error == nil, "\(value)")
        }

        let wrongPayload = try #require(valueError { () throws(ValueError) in try registry.validate(.union("text", .int(3)), as: location) })
        #expect(wrongPayload.code == .typeMismatch)
        #expect(wrongPayload.path == "text")

        let deepPayload = try #require(valueError { () throws(ValueError) in
            try registry.validate(.union("place", .place(PlaceValue(latitude: 100, longitude: 0))), as: location)
        })
        #expect(deepPayload.code == .invalidPlace)
        #expect(deepPayload.path == "place.latitude")

        let unknown = try #require(valueError { () throws(ValueError) in try registry.validate(.union("txt", .string("Lab 3")), as: location) })
        #expect(unknown.code == .unknownUnionCase)
        #expect(unknown.suggestion == "text")
        #expect(unknown.message.contains("place, text"))

        let bare = try #require(valueError { () throws(ValueError) in try registry.validate(.string("Lab 3"), as: location) })
        #expect(bare.code == .typeMismatch)
        #expect(bare.message.contains("a Location (one of: place, text)"))

        let swapped = try #require(valueError { () throws(ValueError) in
            try registry.validate(.union("relative", .dateTime(.utc(Date(timeIntervalSince1970: 0)))), as: alarm)
        })
        #expect(swapped.path == "relative")
    }

    // MARK: Transient objects, references, arrays

    @Test("An attendee with only a person validates; its other properties have defaults")
    func minimalAttendee() throws {
        let registry = try Fixtures.registry()
        let attendee = calendarType("Attendee", kind: "entity")
        let error = valueError { () throws(ValueError) in try registry.validate(.object(["person": ada]), as: attendee) }
        #expect(error == nil)
        let full = Value.object(["person": ada, "isOptional": .bool(true), "status": .enumCase("accepted"), "type": .enumCase("room")])
        #expect(valueError { () throws(ValueError) in try registry.validate(full, as: attendee) } == nil)
    }

    @Test("An attendee without a person fails with the path to the missing property")
    func attendeeMissingPerson() throws {
        let registry = try Fixtures.registry()
        let attendee = calendarType("Attendee", kind: "entity")
        let error = try #require(valueError { () throws(ValueError) in
            try registry.validate(.object(["status": .enumCase("accepted")]), as: attendee)
        })
        #expect(error.code == .missingProperty)
        #expect(error.path == "person")
        #expect(error.message.contains("Attendee needs a value for 'person'"))
    }

    @Test("An unknown property of a transient object fails and suggests the closest property")
    func attendeeUnknownProperty() throws {
        let registry = try Fixtures.registry()
        let attendee = calendarType("Attendee", kind: "entity")
        let error = try #require(valueError { () throws(ValueError) in
            try registry.validate(.object(["person": ada, "stauts": .enumCase("accepted")]), as: attendee)
        })
        #expect(error.code == .unknownProperty)
        #expect(error.suggestion == "status")
        #expect(error.message.contains("'stauts' is not a property of Attendee"))
    }

    @Test("A wrong property value inside an attendee is reported at its path")
    func attendeeWrongProperty() throws {
        let registry = try Fixtures.registry()
        let attendee = calendarType("Attendee", kind: "entity")
        let error = try #require(valueError { () throws(ValueError) in
            try registry.validate(.object(["person": ada, "isOptional": .string("yes")]), as: attendee)
        })
        #expect(error.code == .typeMismatch)
        #expect(error.path == "isOptional")
        let person = try #require(valueError { () throws(ValueError) in
            try registry.validate(.object(["person": .person(PersonValue(email: "ada"))]), as: attendee)
        })
        #expect(person.path == "person.email")
    }

    @Test("Array elements are validated one by one and the failing index is in the path")
    func arrayIndexInPath() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        let attendees = Value.array([
            .object(["person": ada, "status": .enumCase("accepted")]),
            .object(["person": .person(PersonValue(name: "Grace Hopper")), "status": .enumCase("maybe")]),
        ])
        let properties: [String: Value] = [
            "calendar": .reference(someID), "title": .string("Launch"),
            "startDate": .dateTime(.utc(Date(timeIntervalSince1970: 1_781_503_200))), "attendees": attendees,
        ]
        let error = try #require(valueError { () throws(ValueError) in try registry.validateObject(properties, of: event) })
        #expect(error.code == .unknownEnumCase)
        #expect(error.path == "attendees[1].status")
        #expect(error.description.hasPrefix("attendees[1].status: 'maybe' is not a case of enum 'AttendeeStatus'"))

        let alarms = Value.array([.union("relative", .duration(DurationValue(minutes: 5))), .union("relative", .string("soon"))])
        let alarmError = try #require(valueError { () throws(ValueError) in
            try registry.validate(alarms, as: calendarType("Alarm", kind: "union", array: true))
        })
        #expect(alarmError.path == "[1].relative")

        let persons = Value.array([ada, ada, .person(PersonValue())])
        let personError = try #require(valueError { () throws(ValueError) in try registry.validate(persons, as: TypeExpression(.builtin(.person), isArray: true)) })
        #expect(personError.path == "[2]")
        #expect(personError.code == .invalidPerson)
    }

    @Test("Arrays and single values do not stand in for each other")
    func arrayShape() throws {
        let registry = try Fixtures.registry()
        let list = TypeExpression(.builtin(.string), isArray: true)
        #expect(valueError { () throws(ValueError) in try registry.validate(.array([]), as: list) } == nil)
        #expect(valueError { () throws(ValueError) in try registry.validate(.string("a"), as: list) }?.code == .typeMismatch)
        #expect(valueError { () throws(ValueError) in try registry.validate(.array([.string("a")]), as: .builtin(.string)) }?.code == .typeMismatch)
        let message = valueError { () throws(ValueError) in try registry.validate(.string("a"), as: list) }?.message
        #expect(message == "expected an array of String, found a string")
    }

    @Test("Indexed entities are referenced by id; transient ones are held as objects")
    func references() throws {
        let registry = try Fixtures.registry()
        let event = calendarType("Event", kind: "entity")
        let attendee = calendarType("Attendee", kind: "entity")
        #expect(valueError { () throws(ValueError) in try registry.validate(.reference(someID), as: event) } == nil)
        #expect(valueError { () throws(ValueError) in try registry.validate(.reference(someID), as: calendarType("Calendar", kind: "entity")) } == nil)

        let object = try #require(valueError { () throws(ValueError) in try registry.validate(.object(["title": .string("x")]), as: event) })
        #expect(object.code == .typeMismatch)
        #expect(object.message == "expected an Event id, found an object")

        let uuid = try #require(valueError { () throws(ValueError) in try registry.validate(.uuid(someID), as: event) })
        #expect(uuid.code == .typeMismatch)

        let referenceToTransient = try #require(valueError { () throws(ValueError) in try registry.validate(.reference(someID), as: attendee) })
        #expect(referenceToTransient.code == .typeMismatch)
        #expect(referenceToTransient.message.contains("Attendee object"))

        let undeclared = TypeExpression(.entity(QualifiedName(domain: "calendar", name: "Task")))
        #expect(valueError { () throws(ValueError) in try registry.validate(.reference(someID), as: undeclared) }?.code == .typeMismatch)
    }

    @Test("An event record needs its required properties; defaulted and optional ones may be absent")
    func eventRecord() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        var properties: [String: Value] = [
            "calendar": .reference(someID), "title": .string("Launch"),
            "startDate": .dateTime(.utc(Date(timeIntervalSince1970: 1_781_503_200))),
        ]
        #expect(valueError { () throws(ValueError) in try registry.validateObject(properties, of: event) } == nil)
        properties["id"] = .uuid(someID)
        properties["status"] = .enumCase("confirmed")
        properties["location"] = .union("text", .string("Pad 39A"))
        #expect(valueError { () throws(ValueError) in try registry.validateObject(properties, of: event) } == nil)

        properties["title"] = nil
        let missing = try #require(valueError { () throws(ValueError) in try registry.validateObject(properties, of: event) })
        #expect(missing.code == .missingProperty)
        #expect(missing.path == "title")

        properties["title"] = .string("Launch")
        properties["location"] = .union("text", .int(39))
        let nested = try #require(valueError { () throws(ValueError) in try registry.validateObject(properties, of: event) })
        #expect(nested.path == "location.text")
    }

    @Test("Error paths join names with dots and indices without")
    func errorPaths() {
        let base = ValueError(.typeMismatch, "bad", path: "status")
        #expect(base.nested(in: "[1]").nested(in: "attendees").path == "attendees[1].status")
        #expect(ValueError(.typeMismatch, "bad").nested(in: "[0]").nested(in: "alarms").path == "alarms[0]")
        #expect(base.nested(in: "").path == "status")
        #expect(ValueError(.unknownEnumCase, "no", path: "a.b", suggestion: "c").description == "a.b: no; did you mean 'c'?")
        #expect(ValueError(.typeMismatch, "no").description == "no")
        #expect(ValueError.Code.clearedRequired.rawValue == "cleared_required")
    }
}
