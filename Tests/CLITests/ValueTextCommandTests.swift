import Testing
import Foundation
import CometSchema

/// A flag's value is read by its parameter's type: text is text whatever it starts with, and
/// only structured values (places, attendees, unions) are read as JSON.
@Suite("cometcal values by type")
struct ValueTextCommandTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    /// Adds an event with extra flags and returns the stored entity as JSON.
    func add(_ title: String, _ flags: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> JSONValue? {
        let result = try run(["event", "add", title, "--start", "2026-06-15 10:00", "--json"] + flags, sourceLocation: sourceLocation)
        return try JSONParser.parse(result.stdout)["entity"]
    }

    func first(_ array: JSONValue?) -> JSONValue? {
        if case .array(let items)? = array { return items.first }
        return nil
    }

    @Test("text that starts with [, { or \" is stored as written", arguments: [
        (["--note", "[draft] x"], "note", JSONValue.string("[draft] x")),
        (["--note", "{not json"], "note", .string("{not json")),
        (["--note", "\"quoted\" words"], "note", .string("\"quoted\" words")),
        (["--note", "[1, 2]"], "note", .string("[1, 2]")),
        (["--location", "\"quoted\" place"], "location", JSONValue.object(JSONObject([("text", .string("\"quoted\" place"))]))),
        (["--location", "[B2] Lab"], "location", JSONValue.object(JSONObject([("text", .string("[B2] Lab"))]))),
    ])
    func literalText(flags: [String], property: String, expected: JSONValue) throws {
        try run(["calendar", "add", "Work"])
        let entity = try add("Review", flags)
        #expect(entity?[property] == expected)
    }

    @Test("an array of text takes each value as written, brackets and all")
    func textArray() throws {
        try run(["calendar", "add", "Work"])
        let created = try JSONParser.parse(try run(["intent", "run", "createEvent", "title=Review", "startDate=2026-06-16 10:00",
                                                    "categories=[WIP]", #"categories=["a", "b"]"#, "--json"]).stdout)
        #expect(created["entity"]?["categories"] == [.string("[WIP]"), .string(#"["a", "b"]"#)])
    }

    @Test("a title that starts with [ or \" is the title")
    func bracketedTitle() throws {
        try run(["calendar", "add", "Work"])
        #expect(try add("[WIP] Review")?["title"] == "[WIP] Review")
        #expect(try add("\"Quoted\" Review")?["title"] == "\"Quoted\" Review")
        let shown = try JSONParser.parse(try run(["event", "show", "[WIP] Review", "--json"]).stdout)
        #expect(shown["entity"]?["title"] == "[WIP] Review")
        let viaIntent = try JSONParser.parse(try run(["intent", "run", "createEvent", "title=[x] y", "startDate=2026-06-16 10:00", "--json"]).stdout)
        #expect(viaIntent["entity"]?["title"] == "[x] y")
    }

    @Test("structured values still take JSON: a place, an attendee, an array of attendees, an alarm")
    func structuredJSON() throws {
        try run(["calendar", "add", "Work"])
        let place = try add("Stargazing", ["--location", #"{"place": {"name": "Observatory", "latitude": 52.5, "longitude": 13.4}}"#])
        #expect(place?["location"]?["place"]?["name"] == "Observatory")
        let attendee = try add("Briefing", ["--attendee", #"{"person": {"name": "Ada", "email": "ada@example.org"}, "isOptional": true}"#])
        #expect(first(attendee?["attendees"])?["person"]?["email"] == "ada@example.org")
        #expect(first(attendee?["attendees"])?["isOptional"] == true)
        let both = try add("Review", ["--attendee", #"[{"person": {"name": "Ada", "email": "ada@example.org"}}, {"person": {"name": "Bob", "email": "bob@example.org"}}]"#])
        guard case .array(let attendees)? = both?["attendees"] else {
            Issue.record("no attendees")
            return
        }
        #expect(attendees.count == 2)
        let alarm = try add("Launch", ["--alarm", #"{"relative": "-PT15M"}"#])
        #expect(alarm?["alarms"] == [["relative": "-PT15M"]])
        let organizer = try add("Planning", ["--organizer", #"{"name": "Ada", "email": "ada@example.org"}"#])
        #expect(first(organizer?["organizers"])?["email"] == "ada@example.org")
        let braced = try add("Lab tour", ["--location", #"{"text": "{Lab 3}"}"#])
        #expect(braced?["location"] == ["text": "{Lab 3}"], "braces kept as text through the text case")
        let quoted = try add("Lab meeting", ["--location", "\"Lab 3\""])
        #expect(quoted?["location"] == ["text": "Lab 3"], "valid JSON text for a union with a text case is that text")
        let named = try add("Team sync", ["--attendee", "[Team] Ada <ada@example.org>"])
        #expect(first(named?["attendees"])?["person"]?["name"] == "[Team] Ada", "an attendee's text form when it is not JSON")
    }

    @Test("malformed JSON for a structured value is an error that names the flag, and nothing is stored")
    func malformedStructuredJSON() throws {
        try run(["calendar", "add", "Work"])
        let place = try run(["event", "add", "Stargazing", "--start", "2026-06-15 22:00", "--location", #"{"place": {"name": "Observatory""#], expect: 64)
        #expect(place.stderr.contains("--location"), "\(place.stderr)")
        #expect(place.stderr.contains("not valid JSON"), "\(place.stderr)")
        let shape = try run(["event", "add", "Stargazing", "--start", "2026-06-15 22:00", "--location", #"{"plaice": {"name": "Observatory"}}"#], expect: 64)
        #expect(shape.stderr.contains("--location"), "\(shape.stderr)")
        #expect(shape.stderr.contains("plaice"), "\(shape.stderr)")
        let braced = try run(["event", "add", "Stargazing", "--start", "2026-06-15 22:00", "--location", "{Lab 3}"], expect: 64)
        #expect(braced.stderr.contains(#"write {"text": "…"}"#), "a location says how to keep braces as text: \(braced.stderr)")
        let attendees = try run(["event", "add", "Briefing", "--start", "2026-06-15 10:00", "--attendee", #"[{"person": "#], expect: 64)
        #expect(attendees.stderr.contains("--attendee"), "\(attendees.stderr)")
        let listed = try JSONParser.parse(try run(["search", "--json"]).stdout)
        #expect(listed["total"] == 0, "nothing was stored")
    }
}
