import Testing
import Foundation
import CometSchema

/// `cometcal understand`: how words read, printed without acting on them.
@Suite("cometcal understand")
struct UnderstandCommandTests {
    static let clock = ["--now", "2026-06-08T09:00:00-07:00", "--tz", "America/Los_Angeles"]

    /// A store holding the crew seeds (Crew Lunch on Wednesday at noon).
    func seededStore() throws -> (URL, [String: String]) {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        let seeded = try CLIRunner.run(["import", ConverseCommandTests.examples.appendingPathComponent("crew.ics").path], environment: environment)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return (directory, environment)
    }

    func readings(_ texts: [String], environment: [String: String]) throws -> [JSONValue] {
        let result = try CLIRunner.run(["understand", "--json"] + UnderstandCommandTests.clock + texts, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    func slots(_ reading: JSONValue) -> [String] {
        guard case .array(let slots)? = reading["slots"] else { return [] }
        return slots.map { "\($0["slot"]?.stringValue ?? "?") \($0["entity"]?.stringValue ?? "?") \($0["raw"]?.stringValue ?? "?")" }
    }

    @Test("--json gives one line per text, in order: a create, a move, a delete, a question, and words not understood")
    func json() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = ["add Rocket Club on Saturday at 4pm", "reschedule the crew lunch for 2pm", "cancel the crew lunch", "who's coming to the crew lunch",
                     "flibber the wobble"]
        let lines = try readings(texts, environment: environment)
        try #require(lines.count == texts.count)
        #expect(lines.map { $0["text"]?.stringValue ?? "" } == texts)

        #expect(lines[0]["action"] == "create")
        #expect(lines[0]["kind"] == "request")
        #expect(lines[0]["confidence"] == .double(1))
        #expect(slots(lines[0]) == ["title name Rocket Club", "startDate time Saturday at 4pm"])
        #expect(lines[0]["parameters"]?["title"]?["state"] == "set")
        #expect(lines[0]["parameters"]?["title"]?["raw"] == "Rocket Club")

        #expect(lines[1]["action"] == "update")
        #expect(lines[1]["intent"] == "calendar.updateEvent")
        #expect(slots(lines[1]) == ["event name the crew lunch", "startDate time 2pm"])

        #expect(lines[2]["action"] == "delete")
        #expect(lines[3]["kind"] == "question")
        #expect(slots(lines[3]) == ["about name the crew lunch"])

        #expect(lines[4]["understood"] == false)
        #expect(lines[4]["kind"] == "unknown")
        #expect(lines[4]["action"] == .null)
    }

    @Test("the mention names the event it matches in the store")
    func mentionMatches() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reading = try #require(try readings(["reschedule the crew lunch for 2pm"], environment: environment).first)
        guard case .array(let mentions)? = reading["mentions"], let mention = mentions.first, case .array(let matches)? = mention["matches"] else {
            Issue.record("no mention: \(reading)")
            return
        }
        #expect(mention["by"] == "words")
        #expect(matches.map { $0["title"] } == ["Crew Lunch"])
    }

    @Test("text that is not understood exits 0 and says so; the text form is aligned lines")
    func text() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLIRunner.run(["understand"] + UnderstandCommandTests.clock + ["flibber the wobble", "cancel the crew lunch"], environment: environment)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  understood  no, unknown, confidence 0.0"), "\(result.stdout)")
        #expect(lines.contains("  intent         calendar.deleteEvent (delete)"), "\(result.stdout)")
        #expect(lines.contains("  event          set name from “the crew lunch”: {\"mention\":\"words\"}"), "\(result.stdout)")
    }

    @Test("nothing is written to the store: the journal and the events are the same after")
    func writesNothing() throws {
        let (directory, environment) = try seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        func state() throws -> (String, String) {
            (try CLIRunner.run(["history", "--json"], environment: environment).stdout, try CLIRunner.run(["search", "--json"], environment: environment).stdout)
        }
        let before = try state()
        _ = try readings(["cancel the crew lunch", "reschedule the crew lunch for 2pm", "add Rocket Club on Saturday at 4pm", "undo"], environment: environment)
        let after = try state()
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(before.1.contains("Crew Lunch"))
    }

    @Test("without a store, mentions name nothing and a note says so; no store is made")
    func noStore() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("none.sqlite").path
        let result = try CLIRunner.run(["understand", "--json"] + UnderstandCommandTests.clock + ["cancel the crew lunch"], environment: ["COMETCAL_DB": path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: there is no store at \(path)"))
        #expect(!FileManager.default.fileExists(atPath: path))
        let reading = try JSONParser.parse(result.stdout)
        #expect(reading["confidence"] == .double(0.5))
    }

    @Test("a --now that is not a date-time, and --connect, are usage errors (64)")
    func usage() throws {
        let bad = try CLIRunner.run(["understand", "--now", "soonish", "add lunch on friday"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("soonish"), "\(bad.stderr)")
        #expect(bad.stderr.contains("ISO 8601"), "\(bad.stderr)")
        let connect = try CLIRunner.run(["understand", "--connect", "add lunch on friday"])
        #expect(connect.status == 64)
        #expect(connect.stderr.contains("drop --connect"), "\(connect.stderr)")
    }
}
