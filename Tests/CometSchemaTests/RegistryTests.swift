import Foundation
import Testing
@testable import CometSchema

@Suite("Registry of the calendar domain")
struct RegistryTests {
    // MARK: Declarations

    @Test("The calendar domain loads with its entities, enums, unions and intents")
    func domainLoads() throws {
        let registry = try Fixtures.registry()
        let domain = try #require(registry.domain("calendar"))
        #expect(registry.domains.map(\.name) == ["calendar"])
        // The domain may grow; these declarations must be there.
        #expect(Set(["Calendar", "Event", "Attendee"]).isSubset(of: domain.entities.map(\.name.name)))
        #expect(Set(["EventStatus", "AttendeeStatus", "AttendeeType", "EditSpan"]).isSubset(of: domain.enums.map(\.name.name)))
        #expect(Set(["Location", "Alarm"]).isSubset(of: domain.unions.map(\.name.name)))
        #expect(Set(["createCalendar", "updateCalendar", "deleteCalendar", "createEvent", "updateEvent", "deleteEvent", "openEvent", "searchEvents"])
            .isSubset(of: domain.intents.map(\.name.name)))
        // Every declaration is reachable through the registry's kind-specific accessors.
        for entity in domain.entities { #expect(registry.entity(entity.name) == entity) }
        for enumeration in domain.enums { #expect(registry.enumeration(enumeration.name) == enumeration) }
        for union in domain.unions { #expect(registry.union(union.name) == union) }
        for intent in domain.intents { #expect(registry.intent(intent.name) == intent) }
        #expect(domain.doc?.hasPrefix("Calendars, the events on them and the people who attend them") == true)
        #expect(registry.domain("tasks") == nil)
    }

    @Test("Calendar and Event are indexed entities, Attendee is transient")
    func entityKinds() throws {
        let registry = try Fixtures.registry()
        let calendar = try registry.requireEntity("Calendar")
        let event = try registry.requireEntity("Event")
        let attendee = try registry.requireEntity("Attendee")
        #expect(calendar.kind == .indexed)
        #expect(event.kind == .indexed)
        #expect(attendee.kind == .transient)
        #expect(registry.declaration(QualifiedName(domain: "calendar", name: "Event"))?.kindName == "indexed entity")
        #expect(registry.declaration(QualifiedName(domain: "calendar", name: "Attendee"))?.kindName == "transient entity")
        // Kind-specific accessors do not answer for a declaration of another kind.
        #expect(registry.entity(QualifiedName(domain: "calendar", name: "EventStatus")) == nil)
        #expect(registry.enumeration(QualifiedName(domain: "calendar", name: "Event")) == nil)
        #expect(registry.union(QualifiedName(domain: "calendar", name: "createEvent")) == nil)
        #expect(registry.intent(QualifiedName(domain: "calendar", name: "Location")) == nil)
    }

    @Test("Event declares its properties in order with their exact types")
    func eventProperties() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        let expected: [(String, String, String)] = [
            ("id", "UUID", "builtin"), ("uid", "String?", "builtin"), ("calendar", "Calendar", "entity"),
            ("title", "String", "builtin"), ("startDate", "DateTime", "builtin"), ("endDate", "DateTime?", "builtin"),
            ("isAllDay", "Bool", "builtin"), ("timeZone", "String?", "builtin"), ("recurrence", "Recurrence?", "builtin"),
            ("note", "String?", "builtin"), ("travelTime", "Duration?", "builtin"), ("location", "Location?", "union"),
            ("virtualLocation", "URL?", "builtin"), ("status", "EventStatus?", "enum"), ("alarms", "[Alarm]", "union"),
            ("organizers", "[Person]", "builtin"), ("attendees", "[Attendee]", "entity"), ("isFavorite", "Bool", "builtin"),
        ]
        // Other properties may be added to the schema; these must stay, in this order, with these types.
        let names = event.properties.map(\.name)
        try #require(expected.allSatisfy { names.contains($0.0) }, "missing: \(expected.map(\.0).filter { !names.contains($0) })")
        #expect(isOrderedSubsequence(expected.map(\.0), of: names))
        for (name, spelling, kind) in expected {
            let property = try #require(event.property(name))
            #expect(property.type.description == spelling, "\(name)")
            #expect(property.type.base.kindName == kind, "\(name)")
            #expect(property.isRequired == !spelling.hasSuffix("?"), "\(name)")
        }
        #expect(event.titleProperty?.name == "title")
        #expect(event.subtitleProperty?.name == "startDate")
        #expect(Set(["title", "note", "location", "organizers", "attendees"]).isSubset(of: event.searchableProperties.map(\.name)))
        #expect(event.annotations.first(named: "ical")?.firstString == "VEVENT")
        #expect(event.property("startDate")?.ical?.firstString == "DTSTART")
        #expect(event.property("nope") == nil)
    }

    @Test("Calendar and Attendee declare their properties with defaults")
    func calendarAndAttendeeProperties() throws {
        let registry = try Fixtures.registry()
        let calendar = try registry.requireEntity("Calendar")
        #expect(isOrderedSubsequence(["id", "title", "color", "isDefault", "description"], of: calendar.properties.map(\.name)))
        #expect(calendar.property("isDefault")?.defaultValue == .bool(false))
        #expect(calendar.property("color")?.isRequired == false)
        #expect(calendar.titleProperty?.name == "title")

        let attendee = try registry.requireEntity("Attendee")
        #expect(isOrderedSubsequence(["person", "isOptional", "status", "type"], of: attendee.properties.map(\.name)))
        #expect(attendee.property("person")?.type == .builtin(.person))
        #expect(attendee.property("person")?.isRequired == true)
        #expect(attendee.property("person")?.defaultValue == nil)
        #expect(attendee.property("isOptional")?.defaultValue == .bool(false))
        #expect(attendee.property("status")?.defaultValue == .enumCase("needsAction"))
        #expect(attendee.property("type")?.defaultValue == .enumCase("person"))
        #expect(attendee.property("status")?.ical?.string("param") == "PARTSTAT")
    }

    @Test("Event defaults are typed values of their property types")
    func eventDefaults() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        #expect(event.property("isAllDay")?.defaultValue == .bool(false))
        #expect(event.property("isFavorite")?.defaultValue == .bool(false))
        #expect(event.property("alarms")?.defaultValue == .array([]))
        #expect(event.property("organizers")?.defaultValue == .array([]))
        #expect(event.property("attendees")?.defaultValue == .array([]))
        #expect(event.property("title")?.defaultValue == nil)
        for property in event.properties {
            guard let value = property.defaultValue else { continue }
            let error = valueError { () throws(ValueError) in try registry.validate(value, as: property.type) }
            #expect(error == nil, "default of \(property.name)")
        }
    }

    @Test("Every enum has its cases in declaration order")
    func enumCases() throws {
        let registry = try Fixtures.registry()
        #expect(try registry.requireEnum("EventStatus").cases.map(\.name) == ["confirmed", "tentative", "cancelled"])
        #expect(try registry.requireEnum("AttendeeStatus").cases.map(\.name) == ["accepted", "declined", "tentative", "needsAction", "delegated"])
        #expect(try registry.requireEnum("AttendeeType").cases.map(\.name) == ["person", "group", "resource", "room", "unknown"])
        #expect(try registry.requireEnum("EditSpan").cases.map(\.name) == ["this", "future", "all"])

        let status = try registry.requireEnum("AttendeeStatus")
        let needsAction = try #require(status.enumCase("needsAction"))
        #expect(needsAction.annotations.first(named: "ical")?.firstString == "NEEDS-ACTION")
        #expect(needsAction.annotations.first(named: "display")?.firstString == "needs action")
        #expect(status.enumCase("NeedsAction") == nil)
    }

    @Test("Location is place or text, Alarm is a relative Duration or an absolute DateTime")
    func unions() throws {
        let registry = try Fixtures.registry()
        let location = try registry.requireUnion("Location")
        #expect(location.cases.map(\.name) == ["place", "text"])
        #expect(location.unionCase("place")?.type == .builtin(.place))
        #expect(location.unionCase("text")?.type == .builtin(.string))

        let alarm = try registry.requireUnion("Alarm")
        #expect(alarm.cases.map(\.name) == ["relative", "absolute"])
        #expect(alarm.unionCase("relative")?.type == .builtin(.duration))
        #expect(alarm.unionCase("absolute")?.type == .builtin(.dateTime))
        #expect(alarm.unionCase("absolute")?.annotations.first(named: "ical")?.string("value") == "DATE-TIME")
        #expect(alarm.unionCase("other") == nil)
    }

    @Test("Every property, parameter, union case and return type resolves to a declaration of its kind")
    func everyTypeResolves() throws {
        let registry = try Fixtures.registry()
        var named = 0
        func check(_ type: TypeExpression, _ context: String) {
            switch type.base {
            case .builtin:
                return
            case .entity(let name):
                #expect(registry.entity(name) != nil, "\(context): entity \(name) does not resolve")
            case .enumeration(let name):
                #expect(registry.enumeration(name) != nil, "\(context): enum \(name) does not resolve")
            case .union(let name):
                #expect(registry.union(name) != nil, "\(context): union \(name) does not resolve")
            }
            named += 1
        }
        for entity in registry.allEntities {
            for property in entity.properties { check(property.type, "\(entity.name).\(property.name)") }
        }
        for domain in registry.domains {
            for union in domain.unions {
                for unionCase in union.cases {
                    check(unionCase.type, "\(union.name).\(unionCase.name)")
                    #expect(!unionCase.type.isOptional, "union case \(unionCase.name) is optional")
                }
            }
        }
        for intent in registry.allIntents {
            for parameter in intent.parameters { check(parameter.type, "\(intent.name)(\(parameter.name))") }
            if let returns = intent.returns { check(returns, "\(intent.name) returns") }
            if let entity = intent.entity { #expect(registry.entity(entity)?.kind == .indexed, "\(intent.name)") }
        }
        // Calendar, Event, Attendee, the enums and the unions are all used somewhere.
        #expect(named >= 30)
    }

    // MARK: Intents

    @Test("createEvent needs a title and a start date; everything else is optional")
    func createEvent() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("createEvent")
        #expect(intent.action == .create)
        #expect(intent.entity == QualifiedName(domain: "calendar", name: "Event"))
        #expect(intent.returns == calendarType("Event", kind: "entity"))
        #expect(intent.targetParameter == nil)
        #expect(intent.confirmation == .never)
        #expect(intent.isUndoable)
        #expect(intent.parameters.filter(\.isRequired).map(\.name) == ["title", "startDate"])
        for name in ["endDate", "isAllDay", "timeZone", "calendar", "recurrence", "note", "travelTime", "location",
                     "virtualLocation", "status", "alarms", "organizers", "attendees", "isFavorite"] {
            #expect(intent.parameter(name)?.isRequired == false, "\(name)")
        }
        #expect(intent.parameter("title")?.type == .builtin(.string))
        #expect(intent.parameter("startDate")?.type == .builtin(.dateTime))
        #expect(intent.parameter("alarms")?.type == calendarType("Alarm", kind: "union", array: true, optional: true))
        #expect(intent.parameter("attendees")?.type == calendarType("Attendee", kind: "entity", array: true, optional: true))
        #expect(intent.parameter("location")?.type == calendarType("Location", kind: "union", optional: true))
        #expect(intent.parameter("title")?.annotations.first(named: "prompt")?.firstString == "What's the event called?")
        #expect(intent.phrases.map(\.description).contains("create an event {title} on {startDate}"))
    }

    @Test("updateEvent requires only its target event; span and every property are optional")
    func updateEvent() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("updateEvent")
        #expect(intent.action == .update)
        #expect(intent.returns == calendarType("Event", kind: "entity"))
        let target = try #require(intent.targetParameter)
        #expect(target.name == "event")
        #expect(target.isRequired)
        #expect(target.type == calendarType("Event", kind: "entity"))
        #expect(intent.parameters.filter(\.isRequired).map(\.name) == ["event"])
        #expect(intent.parameters.filter(\.isTarget).map(\.name) == ["event"])
        #expect(intent.parameters.first?.name == "event")
        #expect(isOrderedSubsequence([
            "event", "occurrence", "span", "title", "startDate", "endDate", "isAllDay", "timeZone", "calendar",
            "recurrence", "note", "travelTime", "location", "virtualLocation", "status", "alarms", "organizers",
            "attendees", "isFavorite",
        ], of: intent.parameters.map(\.name)))
        #expect(intent.parameter("span")?.type == calendarType("EditSpan", kind: "enum", optional: true))
        #expect(intent.parameter("span")?.isRequired == false)
        #expect(intent.confirmation == .whenTargetHas(property: "attendees"))
        #expect(intent.isUndoable)
        #expect(intent.phrases.first?.parameterNames == ["event", "startDate"])
    }

    @Test("deleteEvent always asks for confirmation and can be undone")
    func deleteEvent() throws {
        let registry = try Fixtures.registry()
        let intent = try registry.requireIntent("deleteEvent")
        #expect(intent.action == .delete)
        #expect(intent.confirmation == .always)
        #expect(intent.isUndoable)
        #expect(intent.returns == nil)
        #expect(intent.targetParameter?.name == "event")
        #expect(isOrderedSubsequence(["event", "occurrence", "span"], of: intent.parameters.map(\.name)))
        #expect(intent.parameters.filter(\.isRequired).map(\.name) == ["event"])

        let deleteCalendar = try registry.requireIntent("deleteCalendar")
        #expect(deleteCalendar.confirmation == .always)
        #expect(deleteCalendar.targetParameter?.type == calendarType("Calendar", kind: "entity"))
    }

    @Test("openEvent and searchEvents are neither confirmed nor undoable; search returns an array of events")
    func openAndSearch() throws {
        let registry = try Fixtures.registry()
        let open = try registry.requireIntent("openEvent")
        #expect(open.action == .open)
        #expect(open.returns == calendarType("Event", kind: "entity"))
        #expect(open.confirmation == .never)
        #expect(!open.isUndoable)

        let search = try registry.requireIntent("searchEvents")
        #expect(search.action == .search)
        #expect(search.returns == calendarType("Event", kind: "entity", array: true))
        #expect(search.returns?.description == "[Event]")
        #expect(search.targetParameter == nil)
        #expect(isOrderedSubsequence(["text", "from", "to", "calendar"], of: search.parameters.map(\.name)))
        #expect(search.parameters.allSatisfy { !$0.isRequired })
        #expect(search.confirmation == .never)
        #expect(!search.isUndoable)
    }

    @Test("Calendar intents: create needs a title, update targets a calendar")
    func calendarIntents() throws {
        let registry = try Fixtures.registry()
        let create = try registry.requireIntent("createCalendar")
        #expect(create.parameters.filter(\.isRequired).map(\.name) == ["title"])
        #expect(create.returns == calendarType("Calendar", kind: "entity"))
        let update = try registry.requireIntent("updateCalendar")
        #expect(update.targetParameter?.name == "calendar")
        #expect(update.confirmation == .never)
        #expect(isOrderedSubsequence(["rename {calendar} to {title}", "make {calendar} my default calendar"], of: update.phrases.map(\.description)))
    }

    // MARK: Lookup

    @Test("lookup finds a declaration by plain or qualified name")
    func lookup() throws {
        let registry = try Fixtures.registry()
        let plain = registry.lookup("Event")
        try #require(plain.count == 1)
        #expect(plain[0].name == QualifiedName(domain: "calendar", name: "Event"))
        #expect(plain[0].kindName == "indexed entity")

        let qualified = registry.lookup("calendar.Event")
        try #require(qualified.count == 1)
        #expect(qualified[0] == plain[0])

        #expect(registry.lookup("createEvent").first?.kindName == "intent")
        #expect(registry.lookup("calendar.Location").first?.kindName == "union")
        #expect(registry.lookup("EditSpan").first?.kindName == "enum")
        #expect(registry.lookup("event").isEmpty)
        #expect(registry.lookup("tasks.Event").isEmpty)
        #expect(registry.lookup("calendar.Nope").isEmpty)
        #expect(registry.lookup("").isEmpty)
        #expect(registry.allNames.contains("Attendee"))
        #expect(registry.allNames == registry.allNames.sorted())
        #expect(registry.allIntents.count >= 8)
    }

    @Test("A plain name declared in two domains matches both, in domain order")
    func lookupAcrossDomains() throws {
        let registry = try Fixtures.registry(files: [
            "a.cal": "domain alpha\nindexed entity Item {\n  id: UUID\n  @title name: String\n}\n",
            "b.cal": "domain beta\nindexed entity Item {\n  id: UUID\n  @title name: String\n}\n",
        ])
        let matches = registry.lookup("Item")
        try #require(matches.count == 2)
        #expect(matches.map(\.name.domain) == ["alpha", "beta"])
        #expect(registry.lookup("beta.Item").map(\.name.domain) == ["beta"])
        #expect(registry.domains.map(\.name) == ["alpha", "beta"])
        #expect(registry.allNames == ["Item"])
    }

    @Test("A schema with an unknown type does not load and says so")
    func unresolvedTypeFails() throws {
        do {
            _ = try Fixtures.registry(schema: "domain alpha\nindexed entity Item {\n  id: UUID\n  @title name: Strng\n}\n")
            Issue.record("a schema with an unknown type loaded")
        } catch let error as SchemaError {
            #expect(error.errorCount >= 1)
            #expect(error.description.contains("Strng"))
            #expect(error.description.contains("String"))
        }
    }

    // MARK: Dump

    @Test("dump lists every intent parameter with its optionality")
    func dumpParameters() throws {
        let registry = try Fixtures.registry()
        let dump = registry.dump()
        #expect(dump["formatVersion"] == .int(Registry.dumpFormatVersion))
        #expect(dump["builtinTypes"] == .array(BuiltinType.allCases.map { .string($0.rawValue) }))
        guard case .array(let domains)? = dump["domains"], let calendar = domains.first,
              case .array(let intents)? = calendar["intents"] else {
            Issue.record("dump has no calendar intents: \(JSONWriter.compact(dump))")
            return
        }
        #expect(intents.count == registry.allIntents.count)
        var parametersSeen = 0
        for (intentJSON, intent) in zip(intents, registry.allIntents) {
            #expect(intentJSON["name"] == .string(intent.name.name))
            guard case .array(let parameters)? = intentJSON["parameters"] else {
                Issue.record("\(intent.name) has no parameters in the dump")
                continue
            }
            try #require(parameters.count == intent.parameters.count)
            for (parameterJSON, parameter) in zip(parameters, intent.parameters) {
                parametersSeen += 1
                #expect(parameterJSON["name"] == .string(parameter.name))
                #expect(parameterJSON["required"] == .bool(parameter.isRequired), "\(intent.name.name).\(parameter.name)")
                #expect(parameterJSON["type"]?["optional"] == .bool(parameter.type.isOptional), "\(intent.name.name).\(parameter.name)")
                #expect(parameterJSON["type"]?["spelling"] == .string(parameter.type.description))
            }
        }
        #expect(parametersSeen > 50)
    }

    @Test("dump describes intents' policy, targets and types")
    func dumpIntentPolicy() throws {
        let registry = try Fixtures.registry()
        let update = registry.dump(.intent(try registry.requireIntent("updateEvent")))
        #expect(update["domain"] == "calendar")
        #expect(update["declaration"] == "intent")
        #expect(update["action"] == "update")
        #expect(update["target"] == "event")
        #expect(update["confirmation"] == ["when": "targetHas", "property": "attendees"])
        #expect(update["undoable"] == true)
        #expect(update["returns"] == ["spelling": "Event", "name": "Event", "kind": "entity", "domain": "calendar", "array": false, "optional": false])

        let delete = registry.dump(.intent(try registry.requireIntent("deleteEvent")))
        #expect(delete["confirmation"] == ["when": "always"])
        #expect(delete["returns"] == nil)
        let search = registry.dump(.intent(try registry.requireIntent("searchEvents")))
        #expect(search["confirmation"] == ["when": "never"])
        #expect(search["returns"]?["spelling"] == "[Event]")
        #expect(search["returns"]?["array"] == true)
    }

    @Test("dump describes entities with kinds, defaults and property types")
    func dumpEntities() throws {
        let registry = try Fixtures.registry()
        let attendee = registry.dump(.entity(try registry.requireEntity("Attendee")))
        #expect(attendee["declaration"] == "transient entity")
        #expect(attendee["kind"] == "transient")
        #expect(attendee["titleProperty"] == "person")
        guard case .array(let properties)? = attendee["properties"] else {
            Issue.record("no properties")
            return
        }
        let definition = try registry.requireEntity("Attendee")
        try #require(properties.count == definition.properties.count)
        #expect(properties.map { $0["name"] } == definition.properties.map { .string($0.name) })
        let status = try #require(properties.first { $0["name"] == "status" })
        #expect(status["default"] == "needsAction")
        #expect(status["required"] == true)
        #expect(status["type"]?["kind"] == "enum")
        #expect(status["type"]?["spelling"] == "AttendeeStatus")
        let person = try #require(properties.first { $0["name"] == "person" })
        #expect(person["default"] == nil)
        #expect(person["type"]?["kind"] == "builtin")

        let location = registry.dump(.union(try registry.requireUnion("Location")))
        #expect(location["declaration"] == "union")
        guard case .array(let cases)? = location["cases"] else {
            Issue.record("no cases")
            return
        }
        #expect(cases.map { $0["name"] } == ["place", "text"])
        #expect(cases.map { $0["type"]?["kind"] } == ["builtin", "builtin"])
        // The dump is deterministic: loading the schemas again prints the same text.
        let reloaded = try Registry.load(paths: [Fixtures.repoRoot + "/Schemas"])
        #expect(JSONWriter.pretty(registry.dump()) == JSONWriter.pretty(reloaded.dump()))
    }
}
