import Foundation
import Testing
import CometSQLiteStore
import CometSchema
@testable import CometConversation

/// The example conversations pass, and the runner fails as loudly as a test framework does.
@Suite("Conversation scripts")
struct ScriptTests {
    static let scripts: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: ConversationFixture.examples.path)) ?? [])
        .filter { $0.hasSuffix(".convo") }.sorted()

    static let registry: Registry = try! Registry.load(paths: [ConversationFixture.root.appendingPathComponent("Schemas").path])

    @Test("every example conversation passes", arguments: scripts)
    func example(_ name: String) {
        let result = ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(path: ConversationFixture.examples.appendingPathComponent(name).path)
        #expect(result.passed, "\(result.failures.map(\.description).joined(separator: "\n"))")
        #expect(result.turns > 0)
    }

    /// The floor is the number of scripts that pass today (issue 19 added the people-* ones), so
    /// a script that is deleted or moved out instead of fixed is noticed. Scripts that CometCal
    /// still misreads wait in Tests/Fixtures/conversations-pending, which nothing runs.
    @Test("there are at least 88 calendar scripts and 17 tasks scripts")
    func enoughExamples() {
        #expect(ScriptTests.scripts.filter { !$0.hasPrefix("tasks-") }.count >= 88)
        #expect(ScriptTests.scripts.filter { $0.hasPrefix("tasks-") }.count >= 17)
    }

    private func run(_ text: String) throws -> ScriptRunner.Result {
        let path = ConversationFixture.examples.appendingPathComponent("scratch-\(UUID().uuidString).convo").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(path: path)
    }

    @Test("a wrong expectation fails at its line, saying what was expected and what came")
    func failuresNameTheLine() throws {
        let result = try run("""
            @now 2026-06-08 09:00 America/Los_Angeles
            @seed picnic.ics
            > Who's coming to my picnic?
            < Marie Curie
            @expect needsConfirmation
            @expect event "Picnic" startDate 2026-06-13 09:00
            @expect events 9
            @expect event "Nothing Like It" exists
            """)
        #expect(!result.passed)
        #expect(result.failures.map(\.line) == [4, 5, 6, 7, 8])
        #expect(result.failures[0].expected == "the reply to contain “Marie Curie”")
        #expect(result.failures[0].got.contains("Ada Lovelace"))
        #expect(result.failures[1].got.hasPrefix("done"))
        #expect(result.failures[2].got == "2026-06-13 14:00")
        #expect(result.failures[3].got == "2")
    }

    @Test("a malformed line fails the script with its line and the reason", arguments: [
        ("@nwo 2026-06-08 09:00", "unknown directive '@nwo'"),
        ("@now 2026-06-08 09:00 Mars/Olympus", "not a known time zone"),
        ("@expect donee", "write an outcome"),
        ("@expect Done", "did you mean 'done'"),
        ("< /[unclosed/", "not a valid regular expression"),
        ("hello there", "is not a directive"),
        (">   ", "needs the words said"),
        ("> @audio", "takes one WAVE file"),
        ("> @audio one.wav two.wav", "takes one WAVE file"),
        ("@expect needsDisambiguation two", "takes a number"),
    ])
    func malformed(_ line: String, _ message: String) throws {
        let result = try run("# a comment\n\(line)\n> hello\n")
        #expect(result.failures.count == 1)
        #expect(result.failures.first?.line == 2)
        #expect(result.failures.first?.got.contains(message) == true, "\(result.failures.first?.got ?? "")")
    }

    @Test("# starts a comment outside quotes and after a regular expression; inside quotes it is text")
    func comments() throws {
        let script = try ConversationScript.parse("""
            > Who's #1? # asked
            < Ada   # the first guest
            < /a#b/ # a regex with a hash
            @expect event "Room #2" exists # quoted
            < /Dolores/   # a park and/or a lawn
            < /a/b/ # a slash inside
            """, path: "comments.convo")
        guard case .say(let said) = script.lines[0].directive, case .reply(.contains(let reply)) = script.lines[1].directive,
              case .reply(.matches(let pattern)) = script.lines[2].directive, case .exists(_, let title, _) = script.lines[3].directive,
              case .reply(.matches(let park)) = script.lines[4].directive, case .reply(.matches(let slash)) = script.lines[5].directive else {
            Issue.record("unexpected directives"); return
        }
        #expect(said == "Who's #1?")
        #expect(reply == "Ada")
        #expect(pattern == "a#b")
        #expect(title == "Room #2")
        #expect(park == "Dolores")
        #expect(slash == "a/b")
    }

    @Test("> @audio FILE is a turn of sound, its path kept as written; a runner with no listener fails it at its line")
    func audioTurns() throws {
        let script = try ConversationScript.parse("> @audio \"sounds/move it.wav\" # spoken\n> @audio where.wav\n> @audiobook please\n", path: "audio.convo")
        guard case .audio(let first) = script.lines[0].directive, case .audio(let second) = script.lines[1].directive,
              case .say(let said) = script.lines[2].directive else {
            Issue.record("unexpected directives"); return
        }
        #expect(first == "sounds/move it.wav")
        #expect(second == "where.wav")
        #expect(said == "@audiobook please")

        let result = try run("@seed picnic.ics\n> @audio where.wav\n< Dolores Park\n")
        #expect(result.failures.map(\.line) == [2, 3])
        #expect(result.failures.first?.got.contains("hears no sound") == true, "\(result.failures)")
        #expect(result.turns == 0)
    }
}
