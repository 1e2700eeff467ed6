import Foundation
import CometSchema
import CometStore
import CometIntents
import CometConversation

/// An event the dialog talks about, added to the seeded store. The generator's words never
/// name these ("picnic", "crew" and "rocket" are in none of its titles, notes, places or
/// people), so each phrase finds the events meant among the generated thousands, as it would in
/// a person's own large calendar. (A "Team Lunch" would not do: the generator writes thousands
/// of "Team lunch" events, and "lunch" is in its notes too.)
struct NamedEvent {
    let title: String
    let start: (month: Int, day: Int, hour: Int, minute: Int)
    let minutes: Int
    let location: String
    var note: String?
    var travelMinutes: Int?
    /// Name, email, participation status.
    var attendees: [(String, String, String)] = []

    static let picnic = NamedEvent(title: "Picnic", start: (6, 13, 14, 0), minutes: 120, location: "Dolores Park",
                                   note: "Bring a chocolate cake", travelMinutes: 25,
                                   attendees: [("Ada Lovelace", "ada@example.org", "accepted"), ("Grace Hopper", "grace@example.org", "tentative"),
                                               ("Alan Turing", "alan@example.org", "needsAction")])
    /// Tomorrow, as the bench's clock (2026-06-10 12:00 in Berlin) has it.
    static let crewLunch = NamedEvent(title: "Crew Lunch", start: (6, 11, 12, 30), minutes: 60, location: "Galley")
    /// Two events "the rocket test" names: a question, "the second one".
    static let rocketEngineTest = NamedEvent(title: "Rocket Engine Test", start: (6, 16, 14, 0), minutes: 120, location: "Test Stand 4")
    static let rocketStageTest = NamedEvent(title: "Rocket Stage Test", start: (6, 18, 9, 0), minutes: 120, location: "Test Stand 2")

    static let all = [picnic, crewLunch, rocketEngineTest, rocketStageTest]

    func startDate(in frame: TimeFrame) throws -> DateTimeValue {
        guard let date = CalendarDate(year: 2026, month: start.month, day: start.day),
              let local = LocalDateTime(date: date, hour: start.hour, minute: start.minute) else { throw BenchError("bad start of \(title)") }
        return try .zoned(local, timeZone: frame.zoneName)
    }

    /// The values createEvent is given; for updateEvent (the event already there, in a reused
    /// store), what it lacks is cleared.
    func parameters(in frame: TimeFrame, update: Bool) throws -> [String: ParameterValue] {
        let start = try startDate(in: frame)
        var values: [String: ParameterValue] = [
            "title": .set(.string(title)), "startDate": .set(.dateTime(start)),
            "endDate": .set(.dateTime(start.adding(seconds: Int64(60 * minutes)))),
            "location": .set(.union("text", .string(location))),
            "attendees": .set(.array(attendees.map { name, email, status in
                .object(["person": .person(PersonValue(name: name, email: email)), "status": .enumCase(status), "type": .enumCase("person")])
            })),
        ]
        if let note { values["note"] = .set(.string(note)) } else if update { values["note"] = .cleared }
        if let travelMinutes { values["travelTime"] = .set(.duration(DurationValue(minutes: travelMinutes))) } else if update { values["travelTime"] = .cleared }
        return values
    }
}

/// What the engine calls a turn stands for said, for the cross-check with the conversation's reply.
struct EngineSaid {
    /// The prompt or dialog the conversation's reply must repeat, when it must.
    var text: String?
}

/// The engine-only side of one turn: the store work the conversation does to carry it out,
/// called directly. `prepare` and `restore` run outside the clock and keep the store where
/// the conversation will find it (the reference runs just before each conversation turn, on
/// the same records).
struct EngineTurn {
    var prepare: () throws -> Void = {}
    let work: () throws -> EngineSaid
    var restore: () throws -> Void = {}

    /// Words not understood need nothing from the store.
    static var nothing: EngineTurn { EngineTurn(work: { EngineSaid() }) }
}

/// One thing the person says, what the conversation must make of it, and the engine calls it
/// stands for.
struct DialogTurn {
    enum Check {
        /// Only the outcome is checked.
        case outcome
        /// The reply is the engine's prompt or dialog, word for word.
        case sameText
        /// The reply starts with the engine's dialog (a list follows it).
        case startsWithText
    }

    let text: String
    /// What kind of turn it is: the report breaks the figures down by it.
    let kind: String
    let outcome: TurnOutcome
    var understood = true
    /// A question among as many events as the store happens to hold: any count will do (the
    /// prompt, checked against the engine's, says how many).
    var anyCount = false
    var check = Check.outcome
    let engine: EngineTurn
}

/// The shared state of the conversation scenario and its engine-only reference: the named
/// events, the dialog, and where each side is in it. Both play turn i in lockstep (the
/// reference first), so they must agree on i; after every pass through the dialog the named
/// events are checked to be as seeded, so the measured store does not drift.
final class ConversationBench {
    let fixture: Fixture
    let frame: TimeFrame
    let store: CountingStore
    let engine: IntentEngine
    let book: ConversationBook
    let event: QualifiedName
    /// The named events as seeded, by title.
    private(set) var seeded: [String: EntityRecord] = [:]
    private(set) var turns: [DialogTurn] = []
    private(set) var conversation: Conversation

    enum Dialog: String {
        /// The realistic mix of the default run.
        case mix
        /// Turns whose lookups grow with the store (a misheard name, a word thousands of events
        /// share): run on their own, with few samples.
        case lookups
    }

    /// Turns played by each side, warm-up included.
    var engineTurns = 0
    var conversationTurns = 0
    /// What the reference's last turn said, checked against the conversation's reply.
    var engineSaid = EngineSaid()
    /// The candidates of the reference's last ambiguous lookup ("the second one" picks from them).
    var candidates: [Candidate] = []

    init(run: BenchRun, dialog: Dialog) throws {
        fixture = try run.fixture()
        frame = run.frame
        event = fixture.event
        store = CountingStore(fixture.store)
        let now = frame.now
        engine = IntentEngine(store: store, timeZone: frame.zone, clock: { now })
        book = ConversationBook(registry: run.registry)
        conversation = Conversation(engine: engine, book: book, now: now, timeZone: frame.zone)
        try seedNamedEvents()
        switch dialog {
        case .mix: turns = try mixTurns()
        case .lookups: turns = lookupTurns()
        }
    }

    /// A new conversation for the next pass through the dialog (outside the clock: a person
    /// opens a conversation once and says many things in it).
    func startConversation() {
        conversation = Conversation(engine: engine, book: book, now: frame.now, timeZone: frame.zone)
    }

    // MARK: The named events

    /// Creates the named events (or, in a reused store that has them, puts them back as seeded).
    private func seedNamedEvents() throws {
        for named in NamedEvent.all {
            // Full-text only: the engine's lookup of a title nothing has yet reads every event.
            let existing = try fixture.store.readTransaction { try $0.search(event, text: named.title, limit: 50) }
                .filter { registry.title(of: $0) == named.title }.map(\.id)
            guard existing.count <= 1 else {
                throw BenchError("the store holds \(existing.count) events called “\(named.title)”; the conversation scenario needs one (seed a new store)")
            }
            var parameters = try named.parameters(in: frame, update: !existing.isEmpty)
            let request: IntentRequest
            if let id = existing.first {
                parameters["event"] = .set(.reference(id))
                request = IntentRequest(intent: "updateEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed)
            } else {
                request = IntentRequest(intent: "createEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed)
            }
            guard let record = try fixture.perform(request).record else { throw BenchError("no record for \(named.title)") }
            seeded[named.title] = record
        }
    }

    private var registry: Registry { fixture.registry }

    private func named(_ event: NamedEvent) throws -> EntityRecord {
        guard let record = seeded[event.title] else { throw BenchError("\(event.title) was not seeded") }
        return record
    }

    /// Throws when a named event is not as seeded: a turn wrote something it should not have,
    /// or an undo did not put it back.
    func checkStore() throws {
        for (title, seededRecord) in seeded {
            guard let current = try fixture.store.readTransaction({ try $0.fetch(event, id: seededRecord.id) }) else {
                throw BenchError("the conversation scenario lost “\(title)”")
            }
            for property in ["title", "startDate", "endDate", "location", "attendees"] where current[property] != seededRecord[property] {
                throw BenchError("the conversation scenario changed the \(property) of “\(title)”: \(String(describing: current[property])) "
                                 + "instead of \(String(describing: seededRecord[property]))")
            }
        }
    }

    // MARK: Engine calls

    private func intent(_ name: String) -> String { QualifiedName(domain: "calendar", name: name).description }

    private func lookup(_ text: String, finds title: String) throws -> EntityRecord {
        guard case .found(let record) = engine.lookup(event, text: text), registry.title(of: record) == title else {
            throw BenchError("engine lookup of '\(text)' did not find \(title)")
        }
        return record
    }

    private func fetch(_ id: UUID) throws -> EntityRecord {
        guard let record = try engine.record(event, id: id) else { throw BenchError("engine fetch of \(id) found nothing") }
        return record
    }

    /// Performs and insists on the outcome; returns the text the conversation repeats.
    @discardableResult
    private func perform(_ request: IntentRequest, expecting outcome: String) throws -> EngineSaid {
        let result = engine.perform(request)
        guard result.name == outcome else { throw BenchError("engine \(request.intent) gave \(result.name), not \(outcome): \(result)") }
        switch result {
        case .done(let done): return EngineSaid(text: done.dialog.full)
        case .needsConfirmation(let prompt, _): return EngineSaid(text: prompt)
        case .needsDisambiguation(_, let prompt, _): return EngineSaid(text: prompt)
        case .needsValue(_, let prompt): return EngineSaid(text: prompt)
        case .cancelled(let dialog): return EngineSaid(text: dialog.full)
        case .failed: return EngineSaid()
        }
    }

    private func undo() throws {
        let outcome = engine.undo()
        guard outcome.name == "done" else { throw BenchError("engine undo gave \(outcome.name): \(outcome)") }
    }

    /// The request a move of `record` makes: its start on its own day and clock at hour:minute
    /// (the length is the engine's to keep).
    private func move(_ record: EntityRecord, hour: Int, minute: Int, confirmation: IntentRequest.Confirmation = .pending) throws -> IntentRequest {
        guard case .dateTime(let start)? = record["startDate"], let zone = start.timeZoneIdentifier,
              let local = LocalDateTime(date: start.localTime.date, hour: hour, minute: minute) else {
            throw BenchError("\(registry.title(of: record)) has no zoned start")
        }
        return moveRequest(record, to: try .zoned(local, timeZone: zone), confirmation: confirmation)
    }

    private func moveRequest(_ record: EntityRecord, to start: DateTimeValue, confirmation: IntentRequest.Confirmation = .pending) -> IntentRequest {
        IntentRequest(intent: intent("updateEvent"), parameters: ParameterBindings([
            "event": .set(.reference(record.id)), "startDate": .set(.dateTime(start)),
        ]), confirmation: confirmation)
    }

    private func startDate(_ record: EntityRecord) throws -> DateTimeValue {
        guard case .dateTime(let start)? = record["startDate"] else { throw BenchError("\(registry.title(of: record)) has no start") }
        return start
    }

    /// The reference's "undo that": a change of its own to `record` (its start an hour later,
    /// outside the clock), then the timed undo of it. The conversation's undo that follows
    /// takes back the conversation's own change, which the reference's left on top.
    private func undoTurn(_ id: @escaping () throws -> UUID) -> EngineTurn {
        EngineTurn(prepare: { [unowned self] in
            let record = try self.fetch(try id())
            try self.perform(self.moveRequest(record, to: try self.startDate(record).adding(seconds: 3_600), confirmation: .confirmed), expecting: "done")
        }, work: { [unowned self] in
            try self.undo()
            return EngineSaid()
        })
    }

    // MARK: The dialog

    /// One pass: questions, an agenda, moves asked about, corrected and refused, a change done
    /// and undone, a choice between two events, and words CometCal does not understand. Every
    /// change is refused or undone, so each pass finds the store as seeded.
    private func mixTurns() throws -> [DialogTurn] {
        let picnic = try named(.picnic)
        let crewLunch = try named(.crewLunch)
        let tomorrow = TimeFrame.date(day: DateTimeValue.utc(frame.now).wallTime(in: frame.zone).date.dayNumber + 1)
        guard let midnight = LocalDateTime(date: tomorrow, hour: 0, minute: 0) else { throw BenchError("bad day \(tomorrow)") }
        let from = midnight.dateTime(in: frame.zone)
        let agenda = IntentRequest(intent: intent("searchEvents"), parameters: ParameterBindings([
            "from": .set(.dateTime(from)), "to": .set(.dateTime(from.adding(days: 1))),
        ]), confirmation: .pending)
        let picnicAtNoon = try move(picnic, hour: 12, minute: 0)
        let picnicAt1130 = try move(picnic, hour: 11, minute: 30)
        let picnicAt1130Declined = try move(picnic, hour: 11, minute: 30, confirmation: .declined)
        let crewLunchLater = moveRequest(crewLunch, to: try startDate(crewLunch).adding(DurationValue(hours: 1)))
        let deleteCrewLunch = IntentRequest(intent: intent("deleteEvent"), parameters: ParameterBindings(["event": .set(.reference(crewLunch.id))]),
                                            confirmation: .pending)
        let deleteCrewLunchDeclined = IntentRequest(intent: intent("deleteEvent"), parameters: ParameterBindings(["event": .set(.reference(crewLunch.id))]),
                                                    confirmation: .declined)
        // "the second one": whichever the engine listed second, moved to 1pm on its own day.
        var chosenMove: IntentRequest?
        var chosen: UUID?

        return [
            DialogTurn(text: "Who's coming to the picnic?", kind: "question", outcome: .done, engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("picnic", finds: "Picnic"); return EngineSaid()
            })),
            DialogTurn(text: "Where is the crew lunch?", kind: "question", outcome: .done, engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("crew lunch", finds: "Crew Lunch"); return EngineSaid()
            })),
            DialogTurn(text: "What's on tomorrow?", kind: "agenda", outcome: .done, check: .startsWithText, engine: EngineTurn(work: { [unowned self] in
                try self.perform(agenda, expecting: "done")
            })),
            DialogTurn(text: "Move the picnic to noon", kind: "asks to confirm", outcome: .needsConfirmation, check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("picnic", finds: "Picnic")
                return try self.perform(picnicAtNoon, expecting: "needsConfirmation")
            })),
            DialogTurn(text: "actually 11:30 am", kind: "correction", outcome: .needsConfirmation, check: .sameText, engine: EngineTurn(work: { [unowned self] in
                _ = try self.fetch(picnic.id)
                return try self.perform(picnicAt1130, expecting: "needsConfirmation")
            })),
            DialogTurn(text: "never mind", kind: "refusal", outcome: .cancelled, check: .sameText, engine: EngineTurn(work: { [unowned self] in
                _ = try self.fetch(picnic.id)
                return try self.perform(picnicAt1130Declined, expecting: "cancelled")
            })),
            DialogTurn(text: "When is the picnic?", kind: "question", outcome: .done, engine: EngineTurn(work: { [unowned self] in
                let record = try self.lookup("picnic", finds: "Picnic")
                guard try self.engine.nextOccurrence(of: record, after: self.frame.now) != nil else { throw BenchError("the picnic has no next occurrence") }
                return EngineSaid()
            })),
            DialogTurn(text: "Push the crew lunch out by an hour", kind: "change done", outcome: .done, check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("crew lunch", finds: "Crew Lunch")
                return try self.perform(crewLunchLater, expecting: "done")
            }, restore: { [unowned self] in try self.undo() })),
            DialogTurn(text: "undo that", kind: "undo", outcome: .done, engine: undoTurn { crewLunch.id }),
            DialogTurn(text: "Move the rocket test to 1pm", kind: "asks which one", outcome: .needsDisambiguation(count: 2), check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                guard case .ambiguous(let prompt, let candidates) = self.engine.lookup(self.event, text: "rocket test"), candidates.count == 2 else {
                    throw BenchError("engine lookup of 'rocket test' did not ask between the two rocket tests")
                }
                self.candidates = candidates
                return EngineSaid(text: prompt)
            })),
            DialogTurn(text: "the second one", kind: "change done", outcome: .done, check: .sameText, engine: EngineTurn(prepare: { [unowned self] in
                guard self.candidates.count == 2 else { throw BenchError("no candidates to choose from") }
                chosen = self.candidates[1].id
                chosenMove = try self.move(try self.fetch(self.candidates[1].id), hour: 13, minute: 0)
            }, work: { [unowned self] in
                guard let id = chosen, let request = chosenMove else { throw BenchError("nothing chosen") }
                _ = try self.fetch(id)
                return try self.perform(request, expecting: "done")
            }, restore: { [unowned self] in try self.undo() })),
            DialogTurn(text: "Undo that", kind: "undo", outcome: .done, engine: undoTurn {
                guard let id = chosen else { throw BenchError("nothing chosen") }
                return id
            }),
            DialogTurn(text: "What's the weather like out there?", kind: "not understood", outcome: .failed, understood: false, engine: .nothing),
            DialogTurn(text: "Move the picnic to noon… actually 11:30 am", kind: "asks to confirm", outcome: .needsConfirmation, check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("picnic", finds: "Picnic")
                return try self.perform(picnicAt1130, expecting: "needsConfirmation")
            })),
            DialogTurn(text: "no", kind: "refusal", outcome: .cancelled, check: .sameText, engine: EngineTurn(work: { [unowned self] in
                _ = try self.fetch(picnic.id)
                return try self.perform(picnicAt1130Declined, expecting: "cancelled")
            })),
            DialogTurn(text: "Email everyone going to the picnic", kind: "question", outcome: .done, engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("picnic", finds: "Picnic"); return EngineSaid()
            })),
            DialogTurn(text: "What did I need to bring to the picnic?", kind: "question", outcome: .done, engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("picnic", finds: "Picnic"); return EngineSaid()
            })),
            DialogTurn(text: "Delete the crew lunch", kind: "asks to confirm", outcome: .needsConfirmation, check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                _ = try self.lookup("crew lunch", finds: "Crew Lunch")
                return try self.perform(deleteCrewLunch, expecting: "needsConfirmation")
            })),
            DialogTurn(text: "cancel", kind: "refusal", outcome: .cancelled, check: .sameText, engine: EngineTurn(work: { [unowned self] in
                _ = try self.fetch(crewLunch.id)
                return try self.perform(deleteCrewLunchDeclined, expecting: "cancelled")
            })),
            DialogTurn(text: "Order a pizza for the crew", kind: "not understood", outcome: .failed, understood: false, engine: .nothing),
        ]
    }

    /// Turns whose cost grows with the store: a name misheard ("pinic": nothing matches, and
    /// the engine then reads every event to match titles exactly and to suggest one), and a
    /// word thousands of generated events share ("lunch": a question naming ten and counting
    /// the rest), refused.
    private func lookupTurns() -> [DialogTurn] {
        [
            DialogTurn(text: "Move the pinic to 3pm", kind: "misheard name", outcome: .failed, engine: EngineTurn(work: { [unowned self] in
                guard case .notFound = self.engine.lookup(self.event, text: "pinic") else { throw BenchError("engine lookup of 'pinic' found something") }
                return EngineSaid()
            })),
            DialogTurn(text: "Move lunch to 1pm", kind: "common word", outcome: .needsDisambiguation(count: 0), anyCount: true, check: .sameText,
                       engine: EngineTurn(work: { [unowned self] in
                guard case .ambiguous(let prompt, _) = self.engine.lookup(self.event, text: "lunch") else {
                    throw BenchError("engine lookup of 'lunch' did not ask which one")
                }
                return EngineSaid(text: prompt)
            })),
            DialogTurn(text: "never mind", kind: "refusal", outcome: .cancelled, engine: .nothing),
        ]
    }
}
