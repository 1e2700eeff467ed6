import Foundation
import Testing
import CometSchema
@testable import CometConversation

/// `Conversation.interpret`: how words read, shown without acting, and the same reading in each turn.
@Suite("Interpretation: how an utterance is read, without acting")
struct InterpretationTests {
    func slots(_ interpretation: Interpretation) -> [String] {
        interpretation.slots.map { "\($0.slot) \($0.entity) \($0.raw)" }
    }

    @Test("a create names its title and its time with the words they came from")
    func create() throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret("schedule Comet Watching on Thursday at 10pm")
        #expect(reading.understood)
        #expect(reading.kind == .request)
        #expect(reading.intent == "calendar.createEvent")
        #expect(reading.action == "create")
        #expect(reading.confidence == 1)
        #expect(slots(reading) == ["title name Comet Watching", "startDate time Thursday at 10pm"])
        let start = try #require(reading.parameters.first { $0.name == "startDate" })
        #expect(start.state == .set)
        #expect(start.value?["kind"] == "instant")
        #expect(start.value?["value"] == "2026-06-11T22:00:00-07:00")
    }

    @Test("a move of a named event: the mention, what it names in the store, and the time")
    func move() throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret("move my crew lunch to 1:30pm")
        #expect(reading.action == "update")
        #expect(reading.confidence == 1)
        #expect(slots(reading) == ["event name my crew lunch", "startDate time 1:30pm"])
        let mention = try #require(reading.mentions.first)
        #expect(mention.by == "words")
        #expect(mention.matches.map(\.title) == ["Crew Lunch"])
    }

    @Test("a named event the store does not have matches only leniently: confidence 0.5, and the mention names nothing")
    func lenient() throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret("delete the harpsichord recital")
        #expect(reading.action == "delete")
        #expect(reading.confidence == 0.5)
        #expect(reading.mentions.first?.matches.isEmpty == true)
    }

    @Test("a question, a command, and words that read as nothing")
    func kinds() throws {
        let fixture = try ConversationFixture()
        let question = fixture.conversation.interpret("where will the picnic be")
        #expect(question.kind == .question)
        #expect(question.question?.property == "location")
        #expect(slots(question) == ["about name the picnic"])
        let undo = fixture.conversation.interpret("undo that")
        #expect(undo.kind == .command)
        #expect(undo.action == "undo")
        let nothing = fixture.conversation.interpret("purple monkey dishwasher")
        #expect(!nothing.understood)
        #expect(nothing.kind == .unknown)
        #expect(nothing.confidence == 0)
        #expect(nothing.json["intent"] == .null)
    }

    @Test("a phrase that clears or sets a value itself has no words for it; a clear has no value")
    func phraseValues() throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret("stop repeating the crew lunch")
        let recurrence = try #require(reading.parameters.first { $0.name == "recurrence" })
        #expect(recurrence.state == .cleared)
        #expect(recurrence.raw == nil)
        #expect(recurrence.value == nil)
        #expect(reading.json["parameters"]?["recurrence"]?["raw"] == .null)
    }

    @Test("interpreting writes nothing and leaves the dialog as it was")
    func writesNothing() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        _ = fixture.conversation.interpret("delete my crew lunch")
        _ = fixture.conversation.interpret("move the picnic to noon")
        #expect(try fixture.fingerprint() == before)
        // Nothing is pending: a yes now answers nothing.
        let yes = fixture.say("yes")
        #expect(!yes.understood)
        #expect(try fixture.fingerprint() == before)
    }

    @Test("every turn carries its reading; an answer to the pending question reads as an answer")
    func turns() throws {
        let fixture = try ConversationFixture()
        let asked = fixture.say("create an event")
        #expect(asked.interpretation?.kind == .request)
        #expect(asked.interpretation?.action == "create")
        let answered = fixture.say("Gravity Yoga")
        #expect(answered.interpretation?.kind == .answer)
        #expect(answered.interpretation?.intent == "calendar.createEvent")
        #expect(answered.interpretation?.parameters.isEmpty == true, "an answer's own values are not shown yet (docs/json.md)")
        // Words that are not the value asked for are still read against the question pending.
        let missed = fixture.say("zorp")
        #expect(missed.interpretation?.kind == .answer)
        #expect(missed.interpretation?.understood == false)
        #expect(try ConversationFixture().say("zorp").interpretation?.kind == .unknown)
    }

    @Test("each action the schemas declare, and what the words of each slot are", arguments: [
        ("move the crew lunch to my Deep Space calendar", "update", ["event name the crew lunch", "calendar calendar my Deep Space calendar"]),
        ("move the picnic to Hangar 9", "update", ["event name the picnic", "location place Hangar 9"]),
        ("make the picnic last 2 hours", "update", ["event name the picnic", "endDate duration 2 hours"]),
        ("make the crew lunch repeat every friday", "update", ["event name the crew lunch", "recurrence recurrence every friday"]),
        ("open the second one", "open", ["event name the second one"]),
        ("what's on tomorrow", "search", ["from time tomorrow"]),
        ("find telescope", "search", ["text name telescope"]),
    ])
    func actionsAndEntities(_ text: String, _ action: String, _ expected: [String]) throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret(text)
        #expect(reading.kind == .request)
        #expect(reading.action == action)
        #expect(slots(reading) == expected)
    }

    @Test("a mention by place in the list keeps its position; help is a command")
    func ordinalAndHelp() throws {
        let fixture = try ConversationFixture()
        let mention = try #require(fixture.conversation.interpret("open the second one").mentions.first)
        #expect(mention.by == "ordinal")
        #expect(mention.details["position"] == .int(2))
        let help = fixture.conversation.interpret("what can you do")
        #expect(help.kind == .command)
        #expect(help.action == "help")
    }

    @Test("in a chat, a correction said on its own after a request reads as a correction of it")
    func correction() throws {
        let fixture = try ConversationFixture()
        #expect(fixture.say("schedule Star Party on Friday at 9pm").outcome == .done)
        let corrected = fixture.say("actually 10pm")
        #expect(corrected.interpretation?.kind == .correction)
        #expect(corrected.interpretation?.intent == "calendar.createEvent")
        #expect(corrected.interpretation.map(slots) == ["title name Star Party", "startDate time 10pm"])
    }
}
