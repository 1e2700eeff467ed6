import Foundation
import Testing
import CometSchema
import CometIntents
@testable import CometConversation

/// The dialog's promises, checked on the store itself: value states, corrections, answers,
/// references, and that nothing is written unless the engine says done.
@Suite("Conversation: the dialog against a real store")
struct ConversationTests {
    @Test("a move of a shared event asks first; a correction before the yes replaces the time; one change is journaled")
    func correctionBeforeConfirmation() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        let ask = fixture.say("Move the picnic to noon")
        #expect(ask.outcome == .needsConfirmation)
        #expect(ask.reply.contains("12:00"))
        let again = fixture.say("actually 11:30 am")
        #expect(again.outcome == .needsConfirmation)
        #expect(again.reply.contains("11:30"))
        #expect(try fixture.fingerprint() == before, "nothing is written before the yes")
        let done = fixture.say("sounds good, thanks")
        #expect(done.outcome == .done)
        #expect(fixture.start("Picnic") == "2026-06-13 11:30")
        let history = try fixture.engine.history(limit: 10)
        #expect(history.map(\.intent) == ["calendar.updateEvent", "ical.import"], "the seeds' import, then one change")
    }

    @Test("“never mind”, “no” and “cancel” leave the store exactly as it was")
    func refusalsWriteNothing() throws {
        for refusal in ["never mind", "Oh… actually, never mind", "no", "cancel", "nope, leave it"] {
            let fixture = try ConversationFixture()
            let before = try fixture.fingerprint()
            #expect(fixture.say("Delete that party").outcome == .needsConfirmation)
            let turn = fixture.say(refusal)
            #expect(turn.outcome == .cancelled, "\(refusal): \(turn.reply)")
            #expect(try fixture.fingerprint() == before, "\(refusal)")
        }
    }

    @Test("“do not repeat this event” clears the recurrence: cleared, not unset, and nothing else changes")
    func doNotRepeatClears() throws {
        let fixture = try ConversationFixture(seeds: ["lunar-orbit-log.ics"])
        fixture.say("open the oxygen systems check")
        let note = fixture.event("Oxygen Systems Check")?["note"]
        let turn = fixture.say("Actually, do not repeat this event")
        #expect(turn.outcome == .done, "\(turn.reply)")
        let event = try #require(fixture.event("Oxygen Systems Check"))
        #expect(event["recurrence"] == nil)
        #expect(event["note"] == note)
        let entry = try #require(try fixture.engine.history(limit: 1).first)
        #expect(entry.changeCount == 1)
    }

    @Test("“remove the location” clears only the location of the event in focus")
    func removeTheLocation() throws {
        let fixture = try ConversationFixture(seeds: ["crew.ics"])
        fixture.say("where is the crew lunch?")
        let turn = fixture.say("remove the location")
        #expect(turn.outcome == .done, "\(turn.reply)")
        #expect(fixture.event("Crew Lunch")?["location"] == nil)
        #expect(fixture.start("Crew Lunch") == "2026-06-10 12:00")
    }

    @Test("“repeat weekly and move it to my Deep Space calendar” sets both in one update")
    func twoChangesInOneUpdate() throws {
        let fixture = try ConversationFixture()
        fixture.say("open the crew lunch")
        let turn = fixture.say("Also, change this to repeat weekly and move it to my Deep Space calendar")
        #expect(turn.outcome == .done, "\(turn.reply)")
        let event = try #require(fixture.event("Crew Lunch"))
        guard case .recurrence(let rule)? = event["recurrence"] else { Issue.record("no rule"); return }
        #expect(rule.frequency == .weekly)
        let deepSpace = try #require(try fixture.engine.records(QualifiedName(domain: "calendar", name: "Calendar")).first { fixture.registry.title(of: $0) == "Deep Space" })
        #expect(event["calendar"] == .reference(deepSpace.id))
        #expect(try fixture.engine.history(limit: 10).map(\.intent) == ["calendar.updateEvent", "ical.import"], "the seeds' import, then one update")
    }

    @Test("two events matching “lunch” lead to a question, and “the second one” answers it")
    func disambiguation() throws {
        let fixture = try ConversationFixture(seeds: ["crew.ics"])
        let ask = fixture.say("Move lunch to 1pm")
        #expect(ask.outcome == .needsDisambiguation(count: 2))
        #expect(ask.reply.contains("Crew Lunch") && ask.reply.contains("Team Lunch"))
        let done = fixture.say("the second one")
        #expect(done.outcome == .done, "\(done.reply)")
        #expect(fixture.start("Team Lunch") == "2026-06-16 13:00")
        #expect(fixture.start("Crew Lunch") == "2026-06-10 12:00")
    }

    @Test("a choice can also be named: “the team lunch”")
    func choiceByName() throws {
        let fixture = try ConversationFixture(seeds: ["crew.ics"])
        #expect(fixture.say("push lunch out by an hour").outcome == .needsDisambiguation(count: 2))
        #expect(fixture.say("the team lunch").outcome == .done)
        #expect(fixture.start("Team Lunch") == "2026-06-16 13:30")
    }

    @Test("“open that third event” focuses the third listed result, and “it” then means it")
    func thirdListed() throws {
        let fixture = try ConversationFixture()
        let list = fixture.say("What's on this week?")
        #expect(list.outcome == .done)
        let lines = list.reply.split(separator: "\n").filter { $0.hasPrefix("3. ") }
        let third = try #require(lines.first).dropFirst(3).components(separatedBy: " — ")[0]
        let open = fixture.say("Open that third event")
        #expect(open.outcome == .done)
        #expect(open.reply.contains(third))
        let place = fixture.say("where is it?")
        #expect(place.reply.contains(third))
    }

    @Test("a question reads the store: attendees and their answers, the note, the travel time, the next occurrence")
    func questions() throws {
        let fixture = try ConversationFixture()
        let guests = fixture.say("Who's coming to my picnic?")
        #expect(guests.reply.contains("Ada Lovelace (accepted)"))
        #expect(guests.reply.contains("Grace Hopper (tentative)"))
        #expect(guests.reply.contains("(needs action)"))
        #expect(fixture.say("What did I need to bring to the picnic again?").reply.contains("chocolate cake"))
        #expect(fixture.say("How long will it take to get there?").reply.contains("25 minutes"))
        let soon = fixture.say("Is the Meteor Shower Party happening anytime soon?")
        #expect(soon.reply.contains("Fri Jun 12 21:00"))
        #expect(soon.reply.contains("in 4 days"))
        #expect(fixture.say("how long will it take to get to the crew lunch").reply.contains("no travel time"))
    }

    @Test("“email the people in this event” gives their addresses and a mailto: link, and sends nothing")
    func email() throws {
        let fixture = try ConversationFixture()
        fixture.say("open the meteor shower watch party")
        let before = try fixture.fingerprint()
        let turn = fixture.say("Email the people in this event")
        #expect(turn.reply.contains("mailto:ada@example.org,"))
        #expect(turn.reply.contains("subject=Meteor%20Shower%20Watch%20Party"))
        #expect(try fixture.fingerprint() == before)
    }

    @Test("words that match nothing get what CometCal can do, write nothing, and are not understood")
    func notUnderstood() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        for text in ["What's the weather like out there?", "blorp", "move", "…", "delete"] {
            let turn = fixture.say(text)
            #expect(turn.outcome == .failed || turn.outcome == .needsValue(parameter: "event"), "\(text): \(turn.reply)")
            if turn.outcome == .failed { #expect(turn.reply.contains("I can") || turn.reply.contains("didn't catch"), "\(text): \(turn.reply)") }
        }
        #expect(try fixture.fingerprint() == before)
    }

    @Test("an understood request that names nothing says so by name")
    func notFoundByName() throws {
        let fixture = try ConversationFixture()
        let turn = fixture.say("Delete the asteroid mining seminar")
        #expect(turn.outcome == .failed)
        #expect(turn.understood)
        #expect(turn.reply == "I couldn't find an event called “asteroid mining seminar”.")
    }

    @Test("a series' delete asks which occurrences; “only this one” takes out the next one and keeps the series")
    func seriesSpan() throws {
        let fixture = try ConversationFixture(seeds: ["lunar-orbit-log.ics"])
        let span = fixture.say("delete the oxygen systems check")
        #expect(span.outcome == .needsValue(parameter: "span"), "\(span.reply)")
        let confirm = fixture.say("just this one")
        #expect(confirm.outcome == .needsConfirmation, "\(confirm.reply)")
        #expect(fixture.say("yes, delete it").outcome == .done)
        let event = try #require(fixture.event("Oxygen Systems Check"))
        guard case .array(let excluded)? = event["excludedDates"] else { Issue.record("no EXDATE"); return }
        #expect(excluded.count == 1)
    }

    @Test("“undo that” reverses the last change; a correction after a done move moves it again")
    func undoAndLateCorrection() throws {
        let fixture = try ConversationFixture(seeds: ["crew.ics"])
        #expect(fixture.say("move the crew lunch to 3pm").outcome == .done)
        #expect(fixture.say("actually 4pm").outcome == .done)
        #expect(fixture.start("Crew Lunch") == "2026-06-10 16:00")
        #expect(fixture.say("undo that").outcome == .done)
        #expect(fixture.start("Crew Lunch") == "2026-06-10 15:00")
    }

    @Test("a create answers its missing title with more than the title: “Call it Zero Gravity Yoga for June 15th, 8am”")
    func createInTwoTurns() throws {
        let fixture = try ConversationFixture(seeds: ["lunar-orbit-log.ics", "picnic.ics"])
        let ask = fixture.say("Create a new event in the Lunar Orbit Log")
        #expect(ask.outcome == .needsValue(parameter: "title"))
        let done = fixture.say("Call it Zero Gravity Yoga for June 15th, 8am")
        #expect(done.outcome == .done, "\(done.reply)")
        #expect(fixture.start("Zero Gravity Yoga") == "2026-06-15 08:00")
    }

    @Test("the tasks domain converses through its own phrases: a phrase constant sets done: true")
    func tasks() throws {
        let fixture = try ConversationFixture(seeds: [], schemas: "Examples/Schemas/tasks")
        let added = fixture.say("remind me to buy cake")
        #expect(added.outcome == .done)
        #expect(added.reply == "Added “buy cake” to your tasks.", "the intent's own @reply")
        #expect(fixture.say("mark buy cake as done").outcome == .done)
        let task = try #require(try fixture.engine.records(QualifiedName(domain: "tasks", name: "Task")).first)
        #expect(task["done"] == .bool(true))
        #expect(fixture.say("what's the weather").reply.contains("tasks"))
    }

    @Test("“help” and “what can you do” say what the schemas allow, and are understood")
    func help() throws {
        let fixture = try ConversationFixture(seeds: [])
        let turn = fixture.say("What can you do?")
        #expect(turn.understood)
        #expect(turn.reply.hasPrefix("I can create, change, find and delete calendars and create, change, delete, open and find events"))
        #expect(turn.reply.contains("Try “move <event> to <start date>”."))
    }

    @Test("hostile words: search syntax, control characters and very long turns get a reply in bounded time and write nothing")
    func hostileWords() throws {
        let fixture = try ConversationFixture()
        let before = try fixture.fingerprint()
        let started = Date()
        // Each is answered with what it is, never with an action: the words name nothing that
        // exists, are too long, or (a search word that every title's note holds) ask which one.
        let cases: [(text: String, outcome: TurnOutcome, reply: String)] = [
            ("open \"quoted* NEAR(", .failed, "I couldn't find an event called “quoted* NEAR(”."),
            ("delete -", .failed, "I couldn't find an event called “-”."),
            ("move OR to noon", .needsDisambiguation(count: 2), "Which event did you mean: “Picnic”"),
            ("who's coming to \u{1B}[31mred", .failed, "I couldn't find an event called “\u{1B}[31mred”."),
            ("open \0nul", .failed, "I couldn't find an event called “\0nul”."),
            (String(repeating: "move it to noon ", count: 20), .failed, "That's more than I can take in at once (40 words at most)"),
            (String(repeating: "x", count: 5_000), .failed, "That's more than I can take in at once (1000 characters at most)"),
            ("where is ******", .failed, "I couldn't find an event called “******”."),
        ]
        for item in cases {
            let turn = fixture.say(item.text)
            #expect(turn.outcome == item.outcome, "\(item.text.prefix(40)): \(turn.outcome) \(turn.reply)")
            #expect(turn.reply.hasPrefix(item.reply), "\(item.text.prefix(40)): \(turn.reply)")
            fixture.say("never mind")
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(fixture.say(String(repeating: "move it to noon ", count: 20)).reply.contains("40 words at most"))
        #expect(try fixture.fingerprint() == before)
    }
}
