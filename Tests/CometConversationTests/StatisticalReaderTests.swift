import Foundation
import Testing
import CometSchema
@testable import CometConversation

/// The statistical reader: requests no declared phrase covers, read by the model the schemas'
/// declarations train. The sentences are the issue's and our own, never the scored corpus's.
@Suite("Statistical reader: what people say that no phrase lists")
struct StatisticalReaderTests {
    static func slots(_ interpretation: Interpretation) -> [String] {
        interpretation.slots.map { "\($0.slot) \($0.entity) \($0.raw)" }
    }

    struct Case: Sendable, CustomStringConvertible {
        let text: String
        let action: String?
        let kind: Interpretation.Kind
        /// Every slot, as "slot entity raw", in the interpretation's order.
        let slots: [String]
        var description: String { text }
    }

    static let cases: [Case] = [
        // Creation said naturally.
        .init(text: "add lunch with Bob tomorrow at 1pm", action: "create", kind: .request,
              slots: ["title name lunch with Bob", "startDate time tomorrow at 1pm"]),
        .init(text: "put a bike ride on my calendar Sunday at 8am for two hours", action: "create", kind: .request,
              slots: ["title name bike ride", "startDate time Sunday at 8am", "endDate duration for two hours"]),
        .init(text: "set up an appointment for Tuesday at 3:45", action: "create", kind: .request,
              slots: ["startDate time Tuesday at 3:45", "kind name appointment"]),
        .init(text: "add yoga every Monday and Wednesday at 7pm", action: "create", kind: .request,
              slots: ["title name yoga", "startDate time at 7pm", "recurrence recurrence every Monday and Wednesday"]),
        .init(text: "pencil in a haircut next Thursday at 4", action: "create", kind: .request,
              slots: ["title name haircut", "startDate time next Thursday at 4"]),
        // Changes and deletions that name the event by description.
        .init(text: "move next Monday's meeting to 10", action: "update", kind: .request,
              slots: ["event name meeting", "startDate time 10", "event time next Monday's"]),
        .init(text: "shift the standup to 11", action: "update", kind: .request, slots: ["event name standup", "startDate time 11"]),
        .init(text: "postpone the dentist to Thursday", action: "update", kind: .request, slots: ["event name dentist", "startDate time Thursday"]),
        .init(text: "cancel my meeting on the fourteenth", action: "delete", kind: .request,
              slots: ["event name meeting", "event time on the fourteenth"]),
        .init(text: "get rid of the picnic", action: "delete", kind: .request, slots: ["event name picnic"]),
        .init(text: "scrap my appointment on Friday", action: "delete", kind: .request,
              slots: ["event name appointment", "event time on Friday"]),
        // Questions and searches.
        .init(text: "what am I doing on Friday", action: "search", kind: .request, slots: ["from time on Friday"]),
        .init(text: "what time is the recital on Sunday", action: nil, kind: .question, slots: ["about name recital", "about time on Sunday"]),
        .init(text: "when is the next choir practice", action: nil, kind: .question, slots: ["about name choir practice"]),
        .init(text: "upcoming events", action: "search", kind: .request, slots: ["from time upcoming", "kind name events"]),
        // A verb alone asks for the rest; checking, asking about and being told of an event.
        .init(text: "i'd like to add something to my calendar", action: "create", kind: .request, slots: []),
        .init(text: "did you add the dentist to my calendar", action: "search", kind: .request, slots: ["text name dentist"]),
        .init(text: "have you scheduled the plumber", action: "search", kind: .request, slots: ["text name plumber"]),
        .init(text: "give me information about the harpsichord recital", action: "search", kind: .request,
              slots: ["text name harpsichord recital"]),
        .init(text: "tell me more about the garden party", action: "search", kind: .request, slots: ["text name garden party"]),
        .init(text: "let me know of the budget review on thursday", action: "create", kind: .request,
              slots: ["title name budget review", "startDate time on thursday", "alarms reminder let me know of"]),
        .init(text: "what's on for the next three days", action: "search", kind: .request, slots: ["from time the next three days"]),
        .init(text: "my schedule for next week", action: "search", kind: .request, slots: ["from time next week", "kind name schedule"]),
        // Where a new event goes is not its title; the kind said in a search is shown with its words.
        .init(text: "add tennis to my calendar on saturday", action: "create", kind: .request,
              slots: ["title name tennis", "startDate time on saturday"]),
        .init(text: "put gym class on calendar every friday", action: "create", kind: .request,
              slots: ["title name gym class", "recurrence recurrence every friday"]),
        .init(text: "are there any dentist appointments this afternoon", action: "search", kind: .request,
              slots: ["text name dentist", "from time this afternoon", "kind name appointments"]),
        .init(text: "how many meetings did i have last year", action: "search", kind: .request,
              slots: ["from time last year", "kind name meetings"]),
        .init(text: "when are the school holidays this year", action: "search", kind: .request,
              slots: ["text name school holidays", "from time this year"]),
        .init(text: "set a reminder for me to pick up the dry cleaning in twenty minutes", action: "create", kind: .request,
              slots: ["title name pick up the dry cleaning", "startDate time in twenty minutes", "alarms reminder set a reminder for"]),
        // About nothing the schemas know.
        .init(text: "what's the weather like out there", action: nil, kind: .unknown, slots: []),
        .init(text: "order a pizza for the crew", action: nil, kind: .unknown, slots: []),
    ]

    @Test("each request reads as its action, with every slot from the words it came from", arguments: cases)
    func reads(_ item: Case) throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret(item.text)
        #expect(reading.kind == item.kind, "\(item.text): \(reading.kind)")
        #expect(reading.action == item.action, "\(item.text): \(reading.action ?? "nil")")
        #expect(StatisticalReaderTests.slots(reading) == item.slots, "\(item.text)")
        if item.kind != .unknown { #expect(reading.reader == "statistical") }
    }

    @Test("a statistical reading says which reader made it, how sure it is, and what came next")
    func confidence() throws {
        let fixture = try ConversationFixture()
        let reading = fixture.conversation.interpret("get rid of the picnic")
        #expect(reading.reader == "statistical")
        #expect(reading.confidence > 0.5 && reading.confidence <= 1)
        let runnerUp = try #require(reading.runnerUp)
        #expect(runnerUp.confidence < reading.confidence)
        #expect(reading.json["reader"] == "statistical")
        let phrase = fixture.conversation.interpret("move my crew lunch to 1:30pm")
        #expect(phrase.reader == "phrase")
        #expect(phrase.runnerUp == nil)
    }

    @Test("with the statistical reader off, only the declared phrases read")
    func phrasesAlone() throws {
        let fixture = try ConversationFixture()
        fixture.conversation.statisticalReading = false
        #expect(fixture.conversation.interpret("get rid of the picnic").understood == false)
        #expect(fixture.conversation.interpret("move my crew lunch to 1:30pm").understood)
    }

    @Test("the model is trained the same on every run: two trainings read alike")
    func deterministic() throws {
        let registry = try Registry.load(paths: [ConversationFixture.root.appendingPathComponent("Schemas").path])
        let first = StatisticalModel(registry: registry), second = StatisticalModel(registry: registry)
        let tokens = ["get", "rid", "of", "the", "<w>", "<time>"]
        #expect(first.classifier.probabilities(first.intentFeatures(tokens)) == second.classifier.probabilities(second.intentFeatures(tokens)))
        #expect(first.tagger.tag(tokens, context: "calendar.deleteEvent") == second.tagger.tag(tokens, context: "calendar.deleteEvent"))
    }

    // MARK: In the dialog

    @Test("a description finds the event: its words and its day")
    func deleteByDescription() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("cancel the lunch on the tenth")
        #expect(turn.reply.contains("Crew Lunch"), "\(turn.reply)")
        #expect(turn.outcome == .needsConfirmation)
        fixture.say("yes")
        #expect(fixture.event("Crew Lunch") == nil)
        #expect(fixture.event("Team Lunch") != nil)
    }

    @Test("the next one: the first from now that the words match")
    func nextByDescription() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("when is my next lunch")
        #expect(turn.reply.hasPrefix("“Crew Lunch” is"), "\(turn.reply)")
    }

    @Test("a move of an event named by its day keeps the day out of the new time")
    func moveByDay() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("push the lunch on the 16th to 1pm")
        #expect(turn.outcome == .done, "\(turn.reply)")
        let moved = try #require(fixture.event("Team Lunch"))
        #expect(fixture.engine.display(try #require(moved["startDate"]), type: TypeExpression(.builtin(.dateTime))).contains("13:00"), "\(String(describing: moved["startDate"]))")
    }

    @Test("a description that matches nothing says what it looked for")
    func notFound() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        let turn = fixture.say("cancel my dentist appointment on Friday")
        #expect(turn.outcome == .failed)
        #expect(turn.reply == "I couldn't find an event called “dentist” on Friday.", "\(turn.reply)")
        #expect(try fixture.fingerprint() == before)
    }

    // MARK: docs/conversation.md

    @Test("the table of statistical readings in docs/conversation.md is what the reader reads")
    func docTable() throws {
        let doc = DocConversationTests.doc
        let start = try #require(doc.range(of: "| said | action | slots |"))
        var rows: [(said: String, action: String, slots: [String])] = []
        for line in doc[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("| ") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append((cells[0], cells[1], cells[2].components(separatedBy: "; ")))
        }
        #expect(rows.count == 10)
        let fixture = try ConversationFixture()
        for row in rows {
            let reading = fixture.conversation.interpret(row.said)
            #expect(reading.reader == "statistical", "\(row.said)")
            #expect((reading.kind == .question ? "question" : reading.action) == row.action, "\(row.said)")
            #expect(StatisticalReaderTests.slots(reading) == row.slots, "\(row.said)")
        }
    }

    @Test("am I free: a yes or a no, with what is in the way")
    func free() throws {
        let fixture = try ConversationFixture()
        let busy = fixture.say("am I free saturday afternoon")
        #expect(busy.reply.hasPrefix("No, you have 1 event then.\n1. Picnic"), "\(busy.reply)")
        let clear = fixture.say("am I available next sunday morning")
        #expect(clear.reply == "Yes, you're free then: nothing is on.", "\(clear.reply)")
    }

    @Test("what the assistant is called is a filler; a reading not taken names its closest class and why")
    func fillersAndClosest() throws {
        let fixture = try ConversationFixture()
        for name in ["alexa", "ok google", "olly", "computer"] {
            #expect(fixture.conversation.interpret("\(name) get rid of the picnic").action == "delete", "\(name)")
        }
        let pizza = fixture.conversation.interpret("order a pizza for the crew")
        #expect(!pizza.understood)
        #expect(pizza.closest?.reason == "elsewhere")
        #expect(pizza.closest?.label == "none")
        #expect(pizza.json["closest"]?["reason"] == "elsewhere")
    }

    @Test("all of several matches asks which, and says it changes one at a time")
    func allOfThem() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        let turn = fixture.say("cancel all my lunches")
        #expect(turn.outcome == .needsDisambiguation(count: 2), "\(turn.reply)")
        #expect(turn.reply.hasPrefix("I can only change one event at a time. Which event did you mean: “Crew Lunch”"), "\(turn.reply)")
        #expect(try fixture.fingerprint() == before)
    }

    @Test("a clock time said without morning or evening keeps the one of the time it replaces")
    func meridiem() throws {
        let fixture = try ConversationFixture()
        fixture.say("add dinner with Priya friday at 8pm")
        let turn = fixture.say("make it 7:30")
        #expect(turn.outcome == .done, "\(turn.reply)")
        #expect(turn.reply.contains("19:30"), "\(turn.reply)")
        let morning = fixture.say("make it 7:30am")
        #expect(morning.reply.contains("07:30"), "\(morning.reply)")
    }

    @Test("a part of one day starts a new event at its start, said; a vaguer span is shown as not used and the start is asked for")
    func partsOfDays() throws {
        let fixture = try ConversationFixture()
        let lunch = fixture.say("add lunch with Ada tomorrow afternoon")
        #expect(lunch.reply.hasPrefix("Created “lunch with Ada” for Tue Jun 9 12:00–13:00."), "\(lunch.reply)")
        #expect(lunch.reply.hasSuffix("It starts at the start of “tomorrow afternoon”; say a time to change it."), "\(lunch.reply)")
        // The same through a declared phrase; a range said as one is kept.
        let tea = fixture.say("schedule Tea for tomorrow afternoon")
        #expect(tea.reply.hasPrefix("Created “Tea” for Tue Jun 9 12:00–13:00."), "\(tea.reply)")
        #expect(tea.reply.hasSuffix("It starts at the start of “tomorrow afternoon”; say a time to change it."), "\(tea.reply)")
        let cake = fixture.say("schedule Cake for tomorrow from 2 to 4pm")
        #expect(cake.reply.hasPrefix("Created “Cake” for Tue Jun 9 14:00–16:00."), "\(cake.reply)")
        let reading = fixture.conversation.interpret("remind me about the upcoming holiday party")
        #expect(StatisticalReaderTests.slots(reading).contains("unused time upcoming"), "\(StatisticalReaderTests.slots(reading))")
        let party = fixture.say("remind me about the upcoming holiday party")
        #expect(party.outcome == .needsValue(parameter: "startDate"))
        #expect(party.reply == "When does it start? (I didn't use “upcoming”: it isn't a time I can set here.)", "\(party.reply)")
        let answered = fixture.say("friday at 6pm")
        #expect(answered.reply.hasPrefix("Created “holiday party” for Fri Jun 12 18:00–19:00."), "\(answered.reply)")
        #expect(!answered.reply.contains("didn't use"))
    }

    @Test("a repeat does not narrow which event is meant: the clock time does")
    func repeatIsNoConstraint() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("cancel my daily 2pm rocket test")
        #expect(turn.outcome == .needsConfirmation, "\(turn.reply)")
        #expect(turn.reply.contains("Rocket Engine Test"), "\(turn.reply)")
    }

    @Test("a reminder about an event that exists adds an alarm to it, before its start by what is said; its other alarms stay")
    func reminderOnExisting() throws {
        let fixture = try ConversationFixture()
        let first = fixture.say("remind me about the rocket engine test 30 minutes before")
        #expect(first.reply == "Changed the alarms of “Rocket Engine Test”. I'll remind you 30 minutes before it starts.", "\(first.reply)")
        let second = fixture.say("remind me about the rocket engine test")
        #expect(second.reply.hasSuffix("I'll remind you when it starts."), "\(second.reply)")
        let test = try #require(fixture.event("Rocket Engine Test"))
        guard case .array(let alarms)? = test["alarms"] else { Issue.record("no alarms"); return }
        #expect(alarms.count == 2)
        #expect(fixture.events.count == 6)
    }

    @Test("who declined, accepted or hasn't answered: the attendees in that state, by the question's own answer")
    func attendeeStates() throws {
        let fixture = try ConversationFixture()
        #expect(fixture.say("who declined the picnic").reply == "Nobody has declined “Picnic”.")
        #expect(fixture.say("who hasn't answered about the picnic").reply == "Alan Turing hasn't answered about “Picnic”.")
        #expect(fixture.say("who said yes to the picnic").reply == "Ada Lovelace accepted “Picnic”.")
        #expect(fixture.say("who might come to the picnic").reply == "Grace Hopper might come to “Picnic”.")
        #expect(fixture.say("who's coming to the picnic").reply.contains("Alan Turing (needs action)"))
    }

    @Test("a new request that interrupts a question drops it, and says so; a later yes answers nothing")
    func interrupted() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        #expect(fixture.say("move the picnic to 5pm").outcome == .needsConfirmation)
        let search = fixture.say("what's on tomorrow")
        #expect(search.reply.hasSuffix("(I've dropped the event change I was asking about; nothing was written for it.)"), "\(search.reply)")
        #expect(fixture.say("yes").reply.hasPrefix("There's nothing waiting for a yes or a no right now."))
        #expect(try fixture.fingerprint() == before)
    }

    @Test("my next meeting is the first from now, not a list; a clock time is the nearer of its two readings; who follows with")
    func nextNearestAndWith() throws {
        let fixture = try ConversationFixture()
        #expect(fixture.say("what's my next meeting").reply == "Next: “Rocket Engine Test”, Tue Jun 9 14:00–16:00.")
        let moved = fixture.say("move the rocket engine test on Tuesday to 10")
        #expect(moved.reply == "Moved “Rocket Engine Test” to Tue Jun 9 10:00–12:00.", "\(moved.reply)")
        let call = fixture.say("book a call with Priya at ten am on Monday")
        #expect(call.reply.hasPrefix("Created “call with Priya” for Mon Jun 15 10:00–11:00."), "\(call.reply)")
    }

    @Test("remind me three days before the picnic: an alarm on the picnic, asked first since it has attendees")
    func reminderBefore() throws {
        let fixture = try ConversationFixture()
        let asked = fixture.say("remind me three days before the picnic")
        #expect(asked.outcome == .needsConfirmation, "\(asked.reply)")
        let done = fixture.say("yes")
        #expect(done.reply == "Changed the alarms of “Picnic”. I'll remind you 3 days before it starts.", "\(done.reply)")
    }

    @Test("a create phrase said of it changes the event in focus when nothing is asked, and reads as that change")
    func callItRenames() throws {
        let fixture = try ConversationFixture()
        fixture.say("when's the rocket engine test")
        let turn = fixture.say("call it Static Fire Test")
        #expect(turn.outcome == .done, "\(turn.reply)")
        #expect(turn.interpretation?.action == "update")
        #expect(fixture.event("Static Fire Test") != nil)
        #expect(fixture.event("Rocket Engine Test") == nil)
        #expect(fixture.events.count == 6)
    }

    // MARK: The training, as docs/conversation.md states it

    @Test("220 generated requests per intent, plus three of each phrase; a verb after a determiner is a noun; a phrase's first word is not a verb another intent declares")
    func training() throws {
        let registry = try Registry.load(paths: [ConversationFixture.root.appendingPathComponent("Schemas").path])
        let language = DeclaredLanguage(registry: registry)
        var generator = TrainingSentences(registry: registry, language: language)
        let sentences = generator.generate(perClass: StatisticalModel.sentencesPerClass)
        let delete = try #require(registry.allIntents.first { $0.name.name == "deleteEvent" })
        #expect(StatisticalModel.sentencesPerClass == 220)
        #expect(sentences.filter { $0.label == delete.name.description }.count == 220 + 3 * delete.phrases.count)
        let update = try #require(registry.allIntents.first { $0.name.name == "updateEvent" })
        #expect(update.phrases.contains { if case .text(let text)? = $0.parts.first { return text.hasPrefix("make ") } else { return false } })
        #expect(language.verbs[update.name]?.contains(["make"]) == false, "createEvent declares make")
        #expect(language.verbs[update.name]?.contains(["reschedule"]) == true)
        let model = StatisticalModel.shared(for: registry)
        #expect(!model.intentFeatures(["my", "schedule"]).contains { $0.hasPrefix("v:") })
        #expect(model.intentFeatures(["schedule", "<w>"]).contains("v:calendar.createEvent"))
        // A word that is a verb and a noun, after other words, is the noun; after "to", the verb.
        #expect(!model.intentFeatures(["my", "<w>", "schedule"]).contains { $0.hasPrefix("v:") })
        #expect(model.intentFeatures(["i", "need", "to", "schedule", "<w>"]).contains("v:calendar.createEvent"))
        #expect(model.saysLongVerb(["let", "me", "know", "of", "the", "<w>"]))
        #expect(!model.saysLongVerb(["tell", "me", "<w>"]))
        #expect(model.verbsBeginningWithFillers.contains(["let", "me", "know", "about"]))
    }

    @Test("every word of every declared verb is one the model has seen: each verb is in the training sentences")
    func everyVerbTrained() throws {
        let fixture = try ConversationFixture()
        let registry = fixture.conversation.registry
        let model = StatisticalModel.shared(for: registry)
        let unseen = model.language.verbs.values.flatMap { $0 }.flatMap { $0 }.filter { !model.vocabulary.contains($0) }
        #expect(unseen.isEmpty, "\(Set(unseen).sorted())")
    }

    @Test("a declared verb that begins with a filler is read whole; the filler alone is dropped")
    func fillerVerbs() throws {
        let fixture = try ConversationFixture()
        let told = fixture.conversation.interpret("let me know about the bake sale")
        #expect(told.action == "create", "\(told.action ?? "nil")")
        #expect(Self.slots(told).contains("alarms reminder let me know about"), "\(Self.slots(told))")
        let seen = fixture.conversation.interpret("let me see what's on tomorrow")
        #expect(seen.action == "search")
    }

    @Test("a create verb said with nothing else asks what to call the event")
    func verbAloneAsks() throws {
        let fixture = try ConversationFixture()
        let reply = fixture.say("i'd like to add something to my calendar").reply
        #expect(reply == "What's the event called?", "\(reply)")
    }

    @Test("noise never names the domain's kinds: a request with a noun is read among the other classes")
    func noiseAndNouns() throws {
        let fixture = try ConversationFixture()
        let meeting = fixture.conversation.interpret("i need a meeting with the treasurer on friday")
        #expect(meeting.closest.map { $0.label != "none" } ?? meeting.understood, "\(String(describing: meeting.closest))")
        #expect(fixture.conversation.interpret("order a pizza for the crew").closest?.label == "none")
    }

    @Test("the thresholds docs/conversation.md states")
    func thresholds() {
        #expect(Understander.statisticalThreshold == 0.35)
        #expect(Understander.leadingThreshold == 0.2)
        #expect(Understander.verbBackedThreshold == 0.1)
        #expect(Understander.overridesPhrase == 0.6)
    }
}
