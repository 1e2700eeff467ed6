import Foundation
import Testing
import CometSQLiteStore
import CometSchema
@testable import CometConversation

/// docs/conversation.md states facts: its example script passes, its reply table is what the
/// conversation says, and the smaller claims hold.
@Suite("docs/conversation.md")
struct DocConversationTests {
    static let doc = (try? String(contentsOf: ConversationFixture.root.appendingPathComponent("docs/conversation.md"), encoding: .utf8)) ?? ""

    /// The first ```convo block and the reply table under it.
    static func example() throws -> (script: String, replies: [(said: String, reply: String)]) {
        let start = try #require(doc.range(of: "```convo\n"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        let script = String(doc[start.upperBound..<end.lowerBound])
        let tableStart = try #require(doc.range(of: "| turn | reply |", range: end.upperBound..<doc.endIndex))
        var replies: [(String, String)] = []
        for line in doc[tableStart.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            replies.append((cells[0], cells[1]))
        }
        return (script, replies)
    }

    @Test("the example script passes and is the one in Examples/conversations")
    func examplePasses() throws {
        let (script, _) = try DocConversationTests.example()
        let file = try String(contentsOf: ConversationFixture.examples.appendingPathComponent("02-picnic-move-correction.convo"), encoding: .utf8)
        #expect(file.hasSuffix(script), "the doc shows the example file as it is")
        let parsed = try ConversationScript.parse(script, path: ConversationFixture.examples.appendingPathComponent("doc.convo").path)
        let result = ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(parsed)
        #expect(result.passed, "\(result.failures.map(\.description))")
    }

    @Test("the reply table is what the conversation says, turn by turn")
    func replyTable() throws {
        let (_, replies) = try DocConversationTests.example()
        #expect(replies.count == 5)
        let fixture = try ConversationFixture(seeds: ["picnic.ics"])
        for (said, reply) in replies {
            #expect(fixture.say(said).reply == reply, "\(said)")
        }
    }

    @Test("a question keeps a pending request pending; a new request drops it; other words ask again")
    func pendingSurvivesQuestions() throws {
        let fixture = try ConversationFixture(seeds: ["picnic.ics"])
        #expect(fixture.say("move the picnic to noon").outcome == .needsConfirmation)
        #expect(fixture.say("where is the picnic?").reply.contains("Dolores Park"))
        #expect(fixture.say("yes").outcome == .done)
        #expect(fixture.start("Picnic") == "2026-06-13 12:00")

        #expect(fixture.say("create an event").outcome == .needsValue(parameter: "title"))
        let again = fixture.say("…")
        #expect(again.outcome == .failed)
        let asked = fixture.say("what's on tomorrow")
        #expect(asked.outcome == .done)
        #expect(fixture.say("yes").outcome == .failed, "the pending create was dropped by the new request")
    }

    @Test("for a create, a day alone is all-day and a time alone is the next time the clock shows it")
    func createTimes() throws {
        let fixture = try ConversationFixture(seeds: ["picnic.ics"])
        #expect(fixture.say("schedule Launch Review for June 20th").outcome == .done)
        #expect(fixture.event("Launch Review")?["isAllDay"] == .bool(true))
        #expect(fixture.say("schedule Coffee for 8am").outcome == .done)
        #expect(fixture.start("Coffee") == "2026-06-09 08:00", "09:00 has passed 08:00 today, so tomorrow")
        #expect(fixture.say("schedule Tea for 3pm").outcome == .done)
        #expect(fixture.start("Tea") == "2026-06-08 15:00")
    }

    @Test("a repeating event named without a day means its next occurrence: “…, only this one” deletes that one alone")
    func onlyThisOneInOneBreath() throws {
        let fixture = try ConversationFixture(seeds: ["lunar-orbit-log.ics"])
        let before = fixture.events.count
        let asked = fixture.say("delete the oxygen systems check, only this one")
        #expect(asked.outcome == .needsConfirmation, "\(asked.reply)")
        #expect(asked.reply.contains("only the occurrence on Tue Jun 16"), "\(asked.reply)")
        #expect(fixture.say("yes").outcome == .done)
        let series = try #require(fixture.events.first { fixture.registry.title(of: $0) == "Oxygen Systems Check" && $0["recurrenceId"] == nil })
        #expect(series["recurrence"] != nil, "the series stays")
        #expect(fixture.events.count == before, "one occurrence is excluded; no event is removed")
        let excluded = fixture.registry.displayText(series["excludedDates"] ?? .array([]))
        #expect(excluded.contains("2026-06-16"), "the June 16 occurrence is excluded: \(excluded)")
    }

    @Test("a list names 20 items and counts the rest")
    func longLists() throws {
        let fixture = try ConversationFixture(seeds: [])
        for number in 1...24 { fixture.say("schedule Standup \(number) for June \(9 + number % 20)th at \(number > 20 ? 10 : 9)am") }
        let list = fixture.say("what's on between June 1st and June 30th")
        #expect(list.reply.contains("\n20. "))
        #expect(!list.reply.contains("\n21. "))
        #expect(list.reply.hasSuffix("…and 4 more."))
    }

    @Test("without @now the clock is Monday 2026-06-08 09:00 UTC; scripts over 1 MB are refused")
    func scriptDefaults() throws {
        // Events at fixed instants: "today" must be Monday June 8 2026, and "at 8am" (a time
        // alone, for a create) must fall on Tuesday because 09:00 UTC has passed 08:00 UTC.
        let text = """
            > schedule Dentist on June 8 2026 at 3pm
            > schedule Haircut on June 9 2026 at 3pm
            > what's on today
            < Dentist
            < Jun 8
            < 15:00
            > schedule Coffee for 8am
            @expect event "Coffee" startDate 2026-06-09 08:00
            > schedule Tea for 10am
            @expect event "Tea" startDate 2026-06-08 10:00

            """
        let script = try ConversationScript.parse(text, path: ConversationFixture.examples.appendingPathComponent("x.convo").path)
        let result = ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(script)
        #expect(result.failures.isEmpty, "\(result.failures.map(\.description))")
        let wrongDay = try ConversationScript.parse(text.replacingOccurrences(of: "< Dentist", with: "< Haircut"), path: ConversationFixture.examples.appendingPathComponent("x.convo").path)
        #expect(!ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(wrongDay).failures.isEmpty, "the check itself can fail")
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(UUID().uuidString).convo")
        try String(repeating: "# padding\n", count: 110_000).write(to: big, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: big) }
        let refused = ScriptRunner(registry: ScriptTests.registry, opener: SQLiteStore.opener).run(path: big.path)
        #expect(refused.failures.first?.got.contains("limited to 1000000 bytes") == true)
    }
}
