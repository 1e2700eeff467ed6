import Testing
@testable import CometDAV

/// A time-range stand-in: a component or property overlaps when its name is in the list.
/// The real answer comes from the engine; these tests check the filter logic around it.
func evaluator(overlapping components: Set<String> = [], properties: Set<String> = []) -> DAVFilterEvaluator {
    DAVFilterEvaluator(
        componentOverlaps: { component, _, _ in components.contains(component.name) },
        propertyOverlaps: { property, _, _ in properties.contains(property.name) })
}

let anyRange = DAVTimeRange(start: DAVUTCTime("20060104T000000Z"), end: DAVUTCTime("20060105T000000Z"))

func calendar(_ components: [DAVComponent]) -> DAVComponent {
    DAVComponent(name: "VCALENDAR", properties: [DAVComponentProperty(name: "VERSION", value: "2.0")], components: components)
}

func query(_ children: [DAVCompFilter]) -> DAVCompFilter {
    DAVCompFilter(name: "VCALENDAR", test: .matches(timeRange: nil, propFilters: [], compFilters: children))
}

func component(_ name: String, _ propFilters: [DAVPropFilter] = [], _ compFilters: [DAVCompFilter] = [], timeRange: DAVTimeRange? = nil) -> DAVCompFilter {
    DAVCompFilter(name: name, test: .matches(timeRange: timeRange, propFilters: propFilters, compFilters: compFilters))
}

func property(_ name: String, _ textMatch: DAVTextMatch? = nil, params: [DAVParamFilter] = [], timeRange: DAVTimeRange? = nil) -> DAVPropFilter {
    DAVPropFilter(name: name, test: .matches(timeRange: timeRange, textMatch: textMatch, paramFilters: params))
}

let meeting = DAVComponent(name: "VEVENT", properties: [
    DAVComponentProperty(name: "UID", value: "DC6C50A017428C5216A2F1CD@example.com"),
    DAVComponentProperty(name: "SUMMARY", value: "Café Planning"),
    DAVComponentProperty(name: "ATTENDEE", value: "mailto:lisa@example.com", parameters: [DAVComponentParameter(name: "PARTSTAT", values: ["NEEDS-ACTION"])]),
    DAVComponentProperty(name: "ATTENDEE", value: "mailto:bernard@example.com", parameters: [DAVComponentParameter(name: "PARTSTAT", values: ["ACCEPTED"])]),
], components: [DAVComponent(name: "VALARM", properties: [DAVComponentProperty(name: "ACTION", value: "DISPLAY")])])

let openTodo = DAVComponent(name: "VTODO", properties: [DAVComponentProperty(name: "STATUS", value: "NEEDS-ACTION")])
let doneTodo = DAVComponent(name: "VTODO", properties: [DAVComponentProperty(name: "STATUS", value: "COMPLETED"), DAVComponentProperty(name: "COMPLETED", value: "20060101T000000Z")])
let cancelledTodo = DAVComponent(name: "VTODO", properties: [DAVComponentProperty(name: "STATUS", value: "CANCELLED")])

@Suite("Filter evaluation (RFC 4791 §9.7)")
struct DAVFilterEvaluationTests {
    @Test("comp-filter: present, absent, is-not-defined, and the outermost on the object itself")
    func componentPresence() throws {
        let events = calendar([meeting])
        let todos = calendar([openTodo])
        let check = evaluator()
        #expect(try check.matches(query([component("VEVENT")]), calendar: events))
        #expect(try !check.matches(query([component("VEVENT")]), calendar: todos))
        let noEvents = query([DAVCompFilter(name: "VEVENT", test: .isNotDefined)])
        #expect(try !check.matches(noEvents, calendar: events))
        #expect(try check.matches(noEvents, calendar: todos))
        #expect(try check.matches(query([]), calendar: todos))
        #expect(try !check.matches(DAVCompFilter(name: "VCARD", test: .matches(timeRange: nil, propFilters: [], compFilters: [])), calendar: todos))
        // Names compare without case on the component side.
        #expect(try check.matches(query([component("VEVENT")]), calendar: calendar([DAVComponent(name: "vevent")])))
    }

    @Test("RFC 4791 §7.8.9 truth table: pending to-dos are those without COMPLETED and not CANCELLED")
    func pendingTodos() throws {
        let pending = query([component("VTODO", [
            DAVPropFilter(name: "COMPLETED", test: .isNotDefined),
            property("STATUS", DAVTextMatch(text: "CANCELLED", negate: true)),
        ])])
        let check = evaluator()
        #expect(try check.matches(pending, calendar: calendar([openTodo])))
        #expect(try !check.matches(pending, calendar: calendar([doneTodo])))
        #expect(try !check.matches(pending, calendar: calendar([cancelledTodo])))
        // A to-do without STATUS has no instance for the negated text-match to pass on.
        #expect(try !check.matches(pending, calendar: calendar([DAVComponent(name: "VTODO")])))
        // Any one matching to-do in the object is enough.
        #expect(try check.matches(pending, calendar: calendar([doneTodo, openTodo])))
    }

    @Test("RFC 4791 §7.8.7: the param-filter applies to the same ATTENDEE as the text-match")
    func partstatPerInstance() throws {
        func attendee(_ address: String, _ partstat: String) -> DAVCompFilter {
            query([component("VEVENT", [property("ATTENDEE", DAVTextMatch(text: address), params: [
                DAVParamFilter(name: "PARTSTAT", test: .matches(textMatch: DAVTextMatch(text: partstat))),
            ])])])
        }
        let check = evaluator()
        let events = calendar([meeting])
        #expect(try check.matches(attendee("mailto:LISA@example.com", "needs-action"), calendar: events))
        #expect(try !check.matches(attendee("mailto:lisa@example.com", "ACCEPTED"), calendar: events))
        #expect(try check.matches(attendee("bernard", "accepted"), calendar: events))
        let noRole = query([component("VEVENT", [property("ATTENDEE", params: [DAVParamFilter(name: "ROLE", test: .isNotDefined)])])])
        #expect(try check.matches(noRole, calendar: events))
        let hasRole = query([component("VEVENT", [property("ATTENDEE", params: [DAVParamFilter(name: "ROLE", test: .matches(textMatch: nil))])])])
        #expect(try !check.matches(hasRole, calendar: events))
    }

    @Test("text-match truth table: collations and negate-condition")
    func textMatchTable() {
        let rows: [(text: String, collation: DAVCollation, negate: Bool, value: String, expected: Bool)] = [
            ("planning", .asciiCasemap, false, "Café Planning", true),
            ("PLANNING", .asciiCasemap, false, "Café Planning", true),
            ("planning", .octet, false, "Café Planning", false),
            ("Planning", .octet, false, "Café Planning", true),
            ("planning", .asciiCasemap, true, "Café Planning", false),
            ("planning", .octet, true, "Café Planning", true),
            // i;ascii-casemap folds ASCII only: É and é stay different.
            ("CAFÉ", .asciiCasemap, false, "Café Planning", false),
            ("CAFé", .asciiCasemap, false, "Café Planning", true),
            ("", .octet, false, "anything", true),
            ("", .octet, true, "anything", false),
            ("longer than the value", .asciiCasemap, false, "short", false),
        ]
        for row in rows {
            let match = DAVTextMatch(text: row.text, collation: row.collation, negate: row.negate)
            #expect(match.matches(row.value) == row.expected, "\(row)")
        }
    }

    @Test("RFC 4791 §7.8.6: UID by i;octet")
    func uidOctet() throws {
        let check = evaluator()
        let uid = { (text: String) in query([component("VEVENT", [property("UID", DAVTextMatch(text: text, collation: .octet))])]) }
        #expect(try check.matches(uid("DC6C50A017428C5216A2F1CD@example.com"), calendar: calendar([meeting])))
        #expect(try !check.matches(uid("dc6c50a017428c5216a2f1cd@example.com"), calendar: calendar([meeting])))
    }

    @Test("time-range tests go to the caller's closures, with the component's ancestors")
    func timeRangeDelegated() throws {
        let alarmInRange = query([component("VEVENT", [], [component("VALARM", timeRange: anyRange)])])
        #expect(try evaluator(overlapping: ["VALARM"]).matches(alarmInRange, calendar: calendar([meeting])))
        #expect(try !evaluator(overlapping: ["VEVENT"]).matches(alarmInRange, calendar: calendar([meeting])))

        var seenAncestors: [[String]] = []
        let recording = DAVFilterEvaluator(
            componentOverlaps: { _, ancestors, range in
                seenAncestors.append(ancestors.map(\.name))
                #expect(range == anyRange)
                return true
            },
            propertyOverlaps: { _, _, _ in false })
        #expect(try recording.matches(alarmInRange, calendar: calendar([meeting])))
        #expect(seenAncestors == [["VCALENDAR", "VEVENT"]])

        let dtstampInRange = query([component("VEVENT", [property("UID", timeRange: anyRange)])])
        #expect(try evaluator(properties: ["UID"]).matches(dtstampInRange, calendar: calendar([meeting])))
        #expect(try !evaluator().matches(dtstampInRange, calendar: calendar([meeting])))
    }

    @Test("A time-range closure's error reaches the caller")
    func timeRangeErrorPropagates() {
        struct ExpansionRefused: Error {}
        let failing = DAVFilterEvaluator(componentOverlaps: { _, _, _ in throw ExpansionRefused() }, propertyOverlaps: { _, _, _ in false })
        #expect(throws: ExpansionRefused.self) {
            try failing.matches(query([component("VEVENT", timeRange: anyRange)]), calendar: calendar([meeting]))
        }
    }

    @Test("Nested filters: every prop-filter and comp-filter of a component must pass on that same component")
    func nestedAllOf() throws {
        let check = evaluator()
        let other = DAVComponent(name: "VEVENT", properties: [DAVComponentProperty(name: "SUMMARY", value: "Planning")])
        // SUMMARY matches in `other`, VALARM exists only in `meeting`; a summary "café" only in `meeting`.
        let both = query([component("VEVENT", [property("SUMMARY", DAVTextMatch(text: "café"))], [component("VALARM")])])
        #expect(try check.matches(both, calendar: calendar([other, meeting])))
        let split = query([component("VEVENT", [property("SUMMARY", DAVTextMatch(text: "café"))], [DAVCompFilter(name: "VALARM", test: .isNotDefined)])])
        #expect(try !check.matches(split, calendar: calendar([meeting])))
        #expect(try !check.matches(split, calendar: calendar([other])))
        let alarmAction = query([component("VEVENT", [], [component("VALARM", [property("ACTION", DAVTextMatch(text: "display"))])])])
        #expect(try check.matches(alarmAction, calendar: calendar([meeting])))
        let audio = query([component("VEVENT", [], [component("VALARM", [property("ACTION", DAVTextMatch(text: "AUDIO"))])])])
        #expect(try !check.matches(audio, calendar: calendar([meeting])))
    }

    @Test("A filter decoded from RFC 4791 §7.8.7's body selects the event with Lisa still to answer")
    func decodedFilterEvaluated() throws {
        let decoded = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:prop-filter name="ATTENDEE">
                      <C:text-match collation="i;ascii-casemap">mailto:lisa@example.com</C:text-match>
                      <C:param-filter name="PARTSTAT">
                        <C:text-match collation="i;ascii-casemap">NEEDS-ACTION</C:text-match>
                      </C:param-filter>
                    </C:prop-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        #expect(try evaluator().matches(decoded.filter, calendar: calendar([meeting])))
        let answered = DAVComponent(name: "VEVENT", properties: [
            DAVComponentProperty(name: "ATTENDEE", value: "mailto:lisa@example.com", parameters: [DAVComponentParameter(name: "PARTSTAT", values: ["ACCEPTED"])]),
        ])
        #expect(try !evaluator().matches(decoded.filter, calendar: calendar([answered])))
    }
}
