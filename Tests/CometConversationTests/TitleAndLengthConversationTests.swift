import Foundation
import Testing
import CometSchema
import CometIntents
@testable import CometConversation

/// Issue 20, items 7 and 8 in the conversation: the engine's rules, not the conversation's own.
@Suite("Conversation: the default length and blank titles")
struct TitleAndLengthConversationTests {
    @Test("“schedule Coffee for 8am” lasts an hour, and the reply says the end")
    func scheduleLastsAnHour() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("schedule Coffee for 8am tomorrow")
        #expect(turn.outcome == .done, "\(turn.reply)")
        #expect(turn.reply.contains("08:00–09:00"), "\(turn.reply)")
        let event = try #require(fixture.event("Coffee"))
        guard case .dateTime(let start)? = event["startDate"], case .dateTime(let end)? = event["endDate"] else {
            Issue.record("no start or end: \(event)")
            return
        }
        #expect(end.sortKey - start.sortKey == 3600)
    }

    @Test("“call it” and nothing after, when the title is asked for, is the engine's refusal naming the title, never a title “call it”; nothing is written")
    func callItWithNothing() throws {
        let fixture = try ConversationFixture(seeds: ["lunar-orbit-log.ics"])
        let before = try fixture.fingerprint()
        #expect(fixture.say("Create a new event in the Lunar Orbit Log").outcome == .needsValue(parameter: "title"))
        let turn = fixture.say("call it")
        #expect(turn.outcome == .failed, "\(turn.outcome): \(turn.reply)")
        #expect(turn.reply == "I couldn't do that: A title must have something in it.")
        #expect(fixture.event("call it") == nil)
        #expect(try fixture.fingerprint() == before)
    }
}
