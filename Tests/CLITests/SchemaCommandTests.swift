import Testing
import Foundation
import CometSchema

@Suite("cometcal schema")
struct SchemaCommandTests {
    @Test("schema check on the shipped schemas exits 0 with a one-line summary")
    func checkShippedSchemas() throws {
        let result = try CLIRunner.run(["schema", "check", "Schemas"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(result.stdout.contains("1 domain (calendar)"))
        #expect(result.stdout.contains("no problems"))
    }

    @Test("a misspelled type prints file:line:col, the line, a caret and a suggestion, and exits 65")
    func misspelledType() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("note.cal")
        try """
        domain notes

        indexed entity Note {
            id: UUID
            @title
            title: Strng
        }
        """.write(to: file, atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["schema", "check", file.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(file.path):6:12: error: unknown type 'Strng'; did you mean 'String'? [E100]"))
        #expect(result.stderr.contains("        title: Strng\n               ^~~~~"))
        #expect(result.stderr.contains("1 error"))
    }

    @Test("every error of a run is reported, not just the first")
    func allErrorsReported() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
        domain notes

        indexed entity Note {
            id: UUID
            @title @serchable
            title: Strng
            pinned: Bool = maybe
        }

        enum Colour { red green red }
        """.write(to: directory.appendingPathComponent("note.cal"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["schema", "check", directory.path])
        #expect(result.status == 65)
        for code in ["E200", "E100", "E300", "E103"] {
            #expect(result.stderr.contains("[\(code)]"), "missing \(code) in:\n\(result.stderr)")
        }
        #expect(result.stderr.contains("4 errors"))
    }

    @Test("schema check --json gives machine-readable diagnostics")
    func checkJSON() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "domain x\nenum E { a a }\n".write(to: directory.appendingPathComponent("e.cal"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["schema", "check", directory.path, "--json"])
        #expect(result.status == 65)
        let json = try JSONParser.parse(result.stdout)
        #expect(json["ok"] == .bool(false))
        #expect(json["errors"] == .int(1))
        guard case .array(let diagnostics)? = json["diagnostics"] else {
            Issue.record("no diagnostics array")
            return
        }
        let first = try #require(diagnostics.first)
        #expect(first["code"] == .string("E103"))
        #expect(first["line"] == .int(2))
        #expect(first["column"] == .int(12))
    }

    @Test("a missing schema directory exits 66 and names it")
    func missingDirectory() throws {
        let result = try CLIRunner.run(["schema", "check", "/nonexistent/schemas"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent/schemas"))
    }

    @Test("schema dump --json shows entities, enums, unions and intents with parameter optionality")
    func dumpJSON() throws {
        let result = try CLIRunner.run(["schema", "dump", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["formatVersion"] == .int(1))
        guard case .array(let domains)? = json["domains"], let calendar = domains.first else {
            Issue.record("no domains")
            return
        }
        #expect(calendar["name"] == .string("calendar"))
        func names(_ key: String) -> [String] {
            guard case .array(let items)? = calendar[key] else { return [] }
            return items.compactMap { $0["name"]?.stringValue }
        }
        #expect(Set(names("entities")) == ["Calendar", "Event", "Attendee"])
        #expect(Set(names("enums")).isSuperset(of: ["EventStatus", "AttendeeStatus", "AttendeeType", "EditSpan"]))
        #expect(Set(names("unions")) == ["Location", "Alarm"])
        #expect(Set(names("intents")).isSuperset(of: ["createEvent", "updateEvent", "deleteEvent", "openEvent", "searchEvents",
                                                     "createCalendar", "updateCalendar", "deleteCalendar"]))
        guard case .array(let intents)? = calendar["intents"],
              let create = intents.first(where: { $0["name"] == .string("createEvent") }),
              case .array(let parameters)? = create["parameters"] else {
            Issue.record("createEvent missing")
            return
        }
        var required: [String: Bool] = [:]
        for parameter in parameters {
            if let name = parameter["name"]?.stringValue, case .bool(let flag)? = parameter["required"] { required[name] = flag }
        }
        #expect(required["title"] == true)
        #expect(required["startDate"] == true)
        #expect(required["location"] == false)
        #expect(required["recurrence"] == false)
    }

    @Test("schema show describes one declaration and suggests a name for a typo")
    func show() throws {
        let event = try CLIRunner.run(["schema", "show", "updateEvent"])
        #expect(event.status == 0)
        #expect(event.stdout.contains("intent calendar.updateEvent"))
        #expect(event.stdout.contains("confirm when it has attendees, undoable"))
        let typo = try CLIRunner.run(["schema", "show", "Evnt"])
        #expect(typo.status == 65)
        #expect(typo.stderr.contains("did you mean 'Event'?"))
    }

    @Test("an unknown flag gets a suggestion, the usage line and exit 64")
    func unknownFlag() throws {
        let result = try CLIRunner.run(["schema", "check", "--jsn"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '--jsn'. Did you mean '--json'?"))
        #expect(result.stderr.contains("Usage: cometcal schema check"))
    }

    @Test("an unknown command gets a suggestion and exit 64")
    func unknownCommand() throws {
        let result = try CLIRunner.run(["shcema", "check"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Did you mean 'schema'?"))
    }

    @Test("--help works at every level and exits 0", arguments: [["--help"], ["schema", "--help"], ["schema", "check", "--help"], ["help", "schema", "dump"]])
    func help(arguments: [String]) throws {
        let result = try CLIRunner.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: cometcal"))
        #expect(result.stdout.contains("OVERVIEW:"))
    }
}
