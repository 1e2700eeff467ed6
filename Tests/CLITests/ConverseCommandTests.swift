import Foundation
import Testing
import CometSchema

/// `cometcal converse` and `cometcal chat`, run as a person runs them.
@Suite("cometcal converse and chat")
struct ConverseCommandTests {
    static let examples = CLIRunner.repositoryRoot.appendingPathComponent("Examples/conversations")

    /// A scratch script beside the examples (so its seeds resolve), removed after the test.
    private func script(_ name: String, _ text: String) throws -> URL {
        let url = ConverseCommandTests.examples.appendingPathComponent("scratch-\(UUID().uuidString)-\(name).convo")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("passing scripts: one line each, then the count, exit 0")
    func passing() throws {
        let paths = ["01-picnic-guests.convo", "tasks-01-remind-and-list.convo"].map { ConverseCommandTests.examples.appendingPathComponent($0).path }
        let result = try CLIRunner.run(["converse"] + paths)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("pass  ") && lines[0].hasSuffix("01-picnic-guests.convo (1 turn)"))
        #expect(lines.last == "2 passed, 0 failed")
    }

    @Test("a failing and a malformed script are reported with file:line, and the runner goes on; exit 1")
    func failing() throws {
        let wrong = try script("wrong", "@now 2026-06-08 09:00 America/Los_Angeles\n@seed picnic.ics\n> Who's coming to my picnic?\n< Marie Curie\n")
        let broken = try script("broken", "@now 2026-06-08 09:00 America/Los_Angeles\n@sede picnic.ics\n")
        defer { try? FileManager.default.removeItem(at: wrong); try? FileManager.default.removeItem(at: broken) }
        let good = ConverseCommandTests.examples.appendingPathComponent("21-delete-not-found.convo").path
        let result = try CLIRunner.run(["converse", wrong.path, broken.path, good])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  \(wrong.path)"))
        #expect(result.stdout.contains("\(wrong.path):4: expected the reply to contain “Marie Curie”"))
        #expect(result.stdout.contains("got “Invited to “Picnic”: Ada Lovelace (accepted)"))
        #expect(result.stdout.contains("\(broken.path):2: expected a well-formed script"))
        #expect(result.stdout.contains("unknown directive '@sede'"))
        #expect(result.stdout.contains("pass  \(good)"))
        #expect(result.stdout.hasSuffix("1 passed, 2 failed\n"))
    }

    @Test("--json reports every script, its failures and the totals")
    func json() throws {
        let wrong = try script("json", "> blorp\n@expect done\n")
        defer { try? FileManager.default.removeItem(at: wrong) }
        let result = try CLIRunner.run(["converse", wrong.path, "--json"])
        #expect(result.status == 1)
        let report = try JSONParser.parse(result.stdout)
        #expect(report["passed"] == .int(0))
        #expect(report["failed"] == .int(1))
        guard case .array(let scripts)? = report["scripts"], let first = scripts.first else { Issue.record("no scripts"); return }
        #expect(first["turns"] == .int(1))
        guard case .array(let failures)? = first["failures"], let failure = failures.first else { Issue.record("no failures"); return }
        #expect(failure["line"] == .int(2))
        #expect(failure["expected"] == .string("outcome done"))
    }

    @Test("the global --schemas applies to scripts without @schemas")
    func globalSchemas() throws {
        let tasks = try script("tasks", "> remind me to water the plants\n@expect done\n@expect count Task 1\n")
        defer { try? FileManager.default.removeItem(at: tasks) }
        let result = try CLIRunner.run(["--schemas", "Examples/Schemas/tasks", "converse", tasks.path])
        #expect(result.status == 0, "\(result.stdout)")
        let calendar = try CLIRunner.run(["converse", tasks.path])
        #expect(calendar.status == 1, "on the calendar schemas there is no Task")
    }

    @Test("chat on your own store: replies per line, JSON per line, :history, and nothing written by words it does not understand")
    func chat() throws {
        let (directory, environment) = try CLIRunner.freshStoreEnvironment()
        defer { try? FileManager.default.removeItem(at: directory) }
        let seeded = try CLIRunner.run(["import", ConverseCommandTests.examples.appendingPathComponent("crew.ics").path], environment: environment)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let session = try CLIRunner.run(["chat"], environment: environment, stdin: "what's on this week?\nopen the second one\nblorp\n:history\nmove it to 3pm\n")
        #expect(session.status == 0)
        let lines = session.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("I found 2 events.") })
        #expect(lines.contains("2. Crew Lunch — Wed Jun 10 12:00–13:00"))
        #expect(lines.contains { $0.hasPrefix("Here's “Crew Lunch”.") })
        #expect(lines.contains { $0.hasPrefix("Sorry, I didn't understand “blorp”.") })
        #expect(lines.contains("3  blorp"))
        #expect(lines.contains { $0.hasPrefix("Moved “Crew Lunch” to Wed Jun 10 15:00–16:00.") })
        let escaped = try CLIRunner.run(["chat"], environment: environment, stdin: "delete the \u{1B}[2Jparty\n")
        #expect(!escaped.stdout.contains("\u{1B}"), "an escape sequence said is never printed raw")
        #expect(escaped.stdout.contains("\\u{1B}[2Jparty"))
        let json = try CLIRunner.run(["chat", "--json"], environment: environment, stdin: "undo that\n")
        let reply = try JSONParser.parse(json.stdout)
        #expect(reply["outcome"] == .string("done"))
        #expect(reply["reply"]?.stringValue?.hasPrefix("Undone") == true)
        #expect(reply["interpretation"]?["kind"] == "command")
        #expect(reply["interpretation"]?["action"] == "undo")
        let read = try CLIRunner.run(["chat", "--json"], environment: environment, stdin: "move the crew lunch to 1pm\n")
        let moved = try JSONParser.parse(read.stdout)
        #expect(moved["interpretation"]?["action"] == "update")
        #expect(moved["interpretation"]?["text"] == "move the crew lunch to 1pm")
    }

    @Test("chat on a terminal edits lines: the up arrow recalls the last request, no escape arrives as text, and the history is kept")
    func chatLineEditing() throws {
        let (directory, base) = try CLIRunner.freshStoreEnvironment()
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = base
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        let seeded = try CLIRunner.run(["import", ConverseCommandTests.examples.appendingPathComponent("crew.ics").path], environment: environment)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let session = try PseudoTerminal(["chat"], environment: environment)
        try session.answer(after: "› ", with: "what's on this week?")
        try session.wait(for: "I found 2 events.")
        // Up arrow, then Enter: the same request again, not "^[[A" read as words.
        session.type("\u{1B}[A\r")
        try session.wait(for: "2. Crew Lunch")
        session.type(":history\r")
        try session.wait(for: "2  what's on this week?")
        session.type(":quit\r")
        let (status, output) = try session.finish()
        #expect(status == 0)
        #expect(!output.contains("didn't understand"), "\(output)")
        let history = try String(contentsOf: directory.appendingPathComponent("state/cometcal/chat_history"), encoding: .utf8)
        // libedit's own format: spaces written as \040.
        #expect(history.contains("what's\\040on\\040this\\040week?"), "\(history)")
    }
}

extension CLIRunner {
    /// A fresh store for a test that runs the CLI itself: the clock is Monday 2026-06-08 09:00 in Los Angeles.
    static func freshStoreEnvironment() throws -> (URL, [String: String]) {
        let directory = try temporaryDirectory()
        return (directory, ["COMETCAL_DB": directory.appendingPathComponent("cal.sqlite").path,
                            "COMETCAL_NOW": "2026-06-08T09:00:00-07:00", "TZ": "America/Los_Angeles"])
    }
}
