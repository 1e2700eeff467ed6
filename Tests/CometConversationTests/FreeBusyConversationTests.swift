import Foundation
import Testing
import CometSchema
import CometIntents
@testable import CometConversation

@Suite("Free and busy in the conversation: the engine's one rule")
struct FreeBusyConversationTests {
    @Test("a reply to a create onto another event says the overlap")
    func overlapInReply() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("schedule Lunch with Ada on June 13th at 3pm")
        #expect(turn.reply.contains("This overlaps “Picnic” (Sat Jun 13 14:00–16:00)."), "\(turn.reply)")
    }

    @Test("am I free: an all-day event leaves the time free, and is said")
    func allDayLeavesTimeFree() throws {
        let fixture = try ConversationFixture()
        let day = try DateTimeValue(parsing: "2026-06-14T00:00:00-07:00[America/Los_Angeles]")
        let outcome = fixture.engine.perform(IntentRequest(intent: "createEvent", parameters: ParameterBindings([
            "title": .set(.string("Beach day")), "startDate": .set(.dateTime(day)), "isAllDay": .set(.bool(true)),
        ]), confirmation: .confirmed))
        guard case .done = outcome else { Issue.record("the all-day event was not made: \(outcome)"); return }
        let turn = fixture.say("am I free on June 14th at 10am")
        #expect(turn.reply.hasPrefix("Yes, you're free then: only 1 event that leaves the time free (all day, or marked free).\n1. Beach day"), "\(turn.reply)")
    }
}
