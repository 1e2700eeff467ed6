import Foundation
import Testing
import CometSchema
@testable import CometConversation

/// The pieces of understanding, as tables: answers, clauses, mentions and pattern matching.
@Suite("Understanding: answers, corrections, mentions, patterns")
struct UnderstandingTests {
    @Test("yes and no, with what people say around them", arguments: [
        ("yes", "yes"), ("Yep, that's fine", "yes"), ("sounds good, thanks", "yes"), ("Yes, delete it", "yes"), ("ok", "yes"),
        ("Sounds good", "yes"), ("go ahead", "yes"), ("no", "no"), ("never mind", "no"), ("Oh… actually, never mind", "no"),
        ("cancel", "no"), ("nope", "no"), ("no, make it 1pm", "no+"), ("yes but at 3pm", "yes+"), ("move it to 3pm", "-"),
        ("who's coming", "-"),
    ])
    func verdicts(_ text: String, _ expected: String) {
        let verdict = Answers.classify(Utterance(text))
        let spelled: String
        switch verdict {
        case .yes(nil): spelled = "yes"
        case .yes: spelled = "yes+"
        case .no(nil): spelled = "no"
        case .no: spelled = "no+"
        case nil: spelled = "-"
        }
        #expect(spelled == expected, "\(text)")
    }

    @Test("a correction in the same breath is cut from the request at the pause or the “actually”")
    func clauses() {
        let (request, corrections) = Corrections.clauses(Utterance("Move it to noon… actually 11:30 am"))
        #expect(request.keyText == "move it to noon")
        #expect(corrections.map(\.keyText) == ["actually 11:30 am"])
        #expect(Corrections.clauses(Utterance("move the picnic to noon")).corrections.isEmpty)
        #expect(Corrections.clauses(Utterance("move it to 2pm, no wait, 3pm")).corrections.map(\.keyText) == ["no wait 3pm"])
    }

    @Test("mentions: the focus, a place in the last list, a time, or words", arguments: [
        ("it", "focus"), ("this event", "focus"), ("that one", "focus"), ("that third event", "ordinal 3"), ("the second one", "ordinal 2"),
        ("the last one", "ordinal -1"), ("number 4", "ordinal 4"), ("the event happening June 9th", "time June 9th"),
        ("the one on friday", "time friday"), ("my crew lunch", "text crew lunch"), ("the Picnic", "text Picnic"),
        ("my Deep Space calendar", "text Deep Space calendar"), ("the event", "focus"),
    ])
    func mentions(_ text: String, _ expected: String) {
        let parser = TemporalParser(now: ConversationFixture.now, timeZone: ConversationFixture.zone)
        let mention = MentionReader.read(Utterance(text), nouns: ["event", "events"]) { try? parser.parse($0) }
        let spelled: String
        switch mention {
        case .focus?: spelled = "focus"
        case .ordinal(let number)?: spelled = "ordinal \(number)"
        case .time(_, let said)?: spelled = "time \(said)"
        case .text(let said)?: spelled = "text \(said)"
        default: spelled = "-"
        }
        #expect(spelled == expected, "\(text)")
    }

    @Test("a pattern covers the words every way its slots can, early slots shortest first")
    func matching() {
        let pattern: [PhraseBook.Element] = [.word("move"), .slot("event"), .slot("when")]
        let matches = PhraseBook.matches(pattern, ["move", "the", "picnic", "tomorrow"])
        #expect(matches.map { $0["event"]! } == [1..<2, 1..<3])
        #expect(PhraseBook.matches(pattern, ["move", "it"]).isEmpty)
        #expect(PhraseBook.matches([.word("undo")], ["undo"]).count == 1)
        #expect(PhraseBook.matches([.slot("a"), .word("to"), .slot("b")], ["x", "to", "y", "to", "z"]).count == 2)
    }

    @Test("the phrase book holds the schemas' phrases and questions, most specific first, and a clearing phrase per optional value")
    func book() throws {
        let registry = try Registry.load(paths: [ConversationFixture.root.appendingPathComponent("Schemas").path])
        let book = PhraseBook(registry: registry)
        #expect(zip(book.patterns, book.patterns.dropFirst()).allSatisfy { $0.wordCount >= $1.wordCount })
        let spelled = book.patterns.map { $0.elements.map { element -> String in
            if case .word(let word) = element { return word }
            if case .slot(let name) = element { return "{\(name)}" }
            return ""
        }.joined(separator: " ") }
        #expect(spelled.contains("remove the location from {event}"))
        #expect(spelled.contains("who's coming to {}"))
        #expect(!spelled.contains("remove the span"), "role parameters are not values to clear")
    }
}
