import Testing
import Foundation
import CometSchema

/// `cometcal add`: quick add through the conversation's reader, shown before it is written.
@Suite("cometcal add")
struct AddCommandTests {
    func agenda(_ environment: [String: String]) throws -> String {
        try CLIRunner.run(["agenda", "--from", "2026-06-08", "--to", "2026-06-21"], environment: environment).stdout
    }

    @Test("a sentence without a verb is what to add: shown with the words each value came from, then written, undoably")
    func quickAdd() throws {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLIRunner.run(["add", "lunch with Bob tomorrow at 1pm for an hour"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("title: \"lunch with Bob\" from “lunch with Bob”"), "\(result.stdout)")
        #expect(result.stdout.contains("from “tomorrow at 1pm”"))
        #expect(result.stdout.contains("Created “lunch with Bob” for Tue Jun 9 13:00–14:00."), "\(result.stdout)")
        #expect(try agenda(environment).contains("13:00–14:00  lunch with Bob"))
        #expect(try CLIRunner.run(["undo"], environment: environment).status == 0)
        #expect(try agenda(environment).contains("lunch with Bob") == false)
    }

    @Test("a reminder said in words gets its alarm, and the reply says so")
    func reminder() throws {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLIRunner.run(["add", "--json", "remind", "me", "to", "call", "the", "bank", "at", "4pm"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["written"] == .bool(true))
        #expect(json["outcome"] == "done")
        #expect(json["interpretation"]?["parameters"]?["title"]?["value"] == "call the bank")
        #expect(json["interpretation"]?["parameters"]?["alarms"]?["value"] == .array([.object(JSONObject([("relative", .string("PT0S"))]))]))
        #expect(json["reply"]?.stringValue?.hasSuffix("I'll remind you when it starts.") == true)
    }

    @Test("words that are not an add, or an add that lacks its time, write nothing and exit 65; --dry-run writes nothing")
    func refusals() throws {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try CLIRunner.run(["add", "lunch with Bob tomorrow at 1pm"], environment: environment).status == 0)
        let delete = try CLIRunner.run(["add", "delete the lunch with Bob"], environment: environment)
        #expect(delete.status == 65)
        #expect(delete.stderr.contains("it reads as a delete (calendar.deleteEvent), not an add"), "\(delete.stderr)")
        let refusedJSON = try JSONParser.parse(try CLIRunner.run(["add", "--json", "delete the lunch with Bob"], environment: environment).stdout)
        #expect(refusedJSON["outcome"] == "refused")
        #expect(refusedJSON["written"] == .bool(false))
        #expect(refusedJSON["problem"] == "it reads as a delete (calendar.deleteEvent), not an add")
        let untimed = try CLIRunner.run(["add", "lunch"], environment: environment)
        #expect(untimed.status == 65)
        #expect(untimed.stderr.contains("nothing written: When does it start?"), "\(untimed.stderr)")
        let dry = try CLIRunner.run(["add", "dentist friday 9:15a", "--dry-run"], environment: environment)
        #expect(dry.status == 0)
        #expect(dry.stdout.contains("Nothing written (--dry-run)."))
        let listed = try agenda(environment)
        #expect(listed.contains("lunch with Bob"))
        #expect(!listed.contains("dentist"))
        #expect(!listed.contains("lunch\n"))
    }
}
