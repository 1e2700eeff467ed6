import Foundation
import CometSchema
import CometIntents

/// One conversation with one person: the dialog state between turns and the turn itself. A
/// turn is, in order, an answer to the pending question (yes, no, a correction, a choice, the
/// value asked for), else a request or a question matched through the schemas, else a reply
/// saying what CometCal can do. The engine decides every policy; nothing is written unless it
/// says `done`.
public final class Conversation {
    /// What a turn gives back: the reply to say, the engine's outcome, and the card to show.
    public struct Turn: Sendable {
        public let reply: String
        public let outcome: TurnOutcome
        public let snippet: Snippet?
        /// False when nothing in the schemas matched the words.
        public let understood: Bool
        /// How the words were read (unknown for a turn refused before reading: too long, empty);
        /// nil only when a turn comes from elsewhere without one.
        public let interpretation: Interpretation?

        public init(reply: String, outcome: TurnOutcome, snippet: Snippet?, understood: Bool, interpretation: Interpretation? = nil) {
            self.reply = reply
            self.outcome = outcome
            self.snippet = snippet
            self.understood = understood
            self.interpretation = interpretation
        }

        func read(as interpretation: Interpretation) -> Turn {
            Turn(reply: reply, outcome: outcome, snippet: snippet, understood: understood, interpretation: interpretation)
        }
    }

    public let engine: IntentEngine
    public let registry: Registry
    public let timeZone: TimeZone
    let clock: () -> Date
    let understander: Understander
    var state = DialogState()
    /// Whether what the declared phrases do not cover goes to the statistical reader (on by
    /// default; `cometcal understand --reader phrases` turns it off, to measure the phrases alone).
    public var statisticalReading = true

    /// `now` fixes the clock (scripts); nil reads the engine's.
    public init(engine: IntentEngine, book: ConversationBook? = nil, now: Date? = nil, timeZone: TimeZone? = nil) {
        self.engine = engine
        self.registry = engine.registry
        let zone = timeZone ?? engine.timeZone
        self.timeZone = zone
        let clock: () -> Date = now.map { fixed in { fixed } } ?? { [engine] in engine.now }
        self.clock = clock
        understander = Understander(registry: engine.registry, engine: engine, book: (book ?? ConversationBook(registry: engine.registry)).phrases,
                                    parser: TemporalParser(now: clock(), timeZone: zone))
    }

    var parser: TemporalParser { TemporalParser(now: clock(), timeZone: timeZone) }

    /// Whether a question CometCal asked (a confirmation, a value, a choice) waits for its
    /// answer: a voice front end asks before it passes on an unsure hearing as that answer.
    public var isWaitingForAnswer: Bool { state.pending != nil }

    /// The longest turn read; longer ones are refused with a reply saying so.
    public static let maximumWords = 40
    public static let maximumCharacters = 1_000

    /// Plays one turn.
    public func say(_ text: String) -> Turn {
        prepareReader()
        // Bounded work on any input: a turn is one request, not an essay.
        guard text.count <= Conversation.maximumCharacters else {
            return Turn(reply: "That's more than I can take in at once (\(Conversation.maximumCharacters) characters at most); say one thing at a time.",
                        outcome: .failed, snippet: nil, understood: false,
                        interpretation: .unknown(text))
        }
        let utterance = Utterance(text)
        guard utterance.words.count <= Conversation.maximumWords else {
            return Turn(reply: "That's more than I can take in at once (\(Conversation.maximumWords) words at most); say one thing at a time.",
                        outcome: .failed, snippet: nil, understood: false,
                        interpretation: .unknown(text))
        }
        guard !utterance.isEmpty else {
            return Turn(reply: "I didn't catch that. " + capabilities(), outcome: .failed, snippet: nil, understood: false,
                        interpretation: .unknown(text))
        }
        if let pending = state.pending, let turn = answer(pending, utterance) {
            return turn.read(as: answerInterpretation(pending, text: text, understood: turn.understood))
        }
        let interrupted = state.pending
        let turn = request(utterance, text: text)
        // A new request drops the question it interrupts: said, so a later "yes" is not taken
        // for an answer to it. (A question about the store keeps it pending, and says nothing.)
        guard let interrupted, state.pending?.prompt != interrupted.prompt, turn.understood,
              case .request(let dropped) = interrupted.subject else { return turn }
        let what = dropped.intent.action.map { "the \(engine.noun(dropped.intent.entity ?? QualifiedName(domain: "", name: ""), count: 1)) \($0 == .create ? "being added" : $0 == .delete ? "deletion" : "change")" }
            ?? "the last request"
        return Turn(reply: turn.reply + " (I've dropped \(what) I was asking about; nothing was written for it.)", outcome: turn.outcome,
                    snippet: turn.snippet, understood: turn.understood, interpretation: turn.interpretation)
    }

    /// An answer is read against the question pending: it carries the intent asked for, with
    /// no parameters of its own yet.
    private func answerInterpretation(_ pending: DialogState.Pending, text: String, understood: Bool) -> Interpretation {
        guard case .request(let draft) = pending.subject else {
            return Interpretation(text: text, understood: understood, kind: .answer, intent: nil, action: nil, confidence: understood ? 1 : 0,
                                  parameters: [], mentions: [], question: nil)
        }
        return Interpretation(text: text, understood: understood, kind: .answer, intent: draft.intent.name.description,
                              action: draft.intent.action?.rawValue, confidence: understood ? 1 : 0, parameters: [], mentions: [], question: nil)
    }

    // MARK: New requests

    static let helpWords: Set<String> = ["help", "help me", "what can you do", "what can i say", "what can i ask", "what do you do"]

    private func request(_ utterance: Utterance, text: String) -> Turn {
        let read = readRequest(utterance)
        let interpretation = interpretation(of: read, text: text)
        if read.isHelp {
            return Turn(reply: capabilities(), outcome: .done, snippet: nil, understood: true, interpretation: interpretation)
        }
        guard let reading = read.reading else {
            // A correction on its own revises what was just done ("actually 4pm").
            if let last = state.lastRequest, let revised = Corrections.revise(last, with: utterance, understander: understander) {
                return perform(revised).read(as: self.interpretation(of: revised, text: text, kind: .correction, confidence: 1))
            }
            if Answers.classify(utterance) != nil {
                return Turn(reply: "There's nothing waiting for a yes or a no right now. " + capabilities(), outcome: .failed, snippet: nil,
                            understood: false, interpretation: interpretation)
            }
            return notUnderstood(utterance).read(as: interpretation)
        }
        switch reading {
        case .undo: return replay(engine.undo()).read(as: interpretation)
        case .redo: return replay(engine.redo()).read(as: interpretation)
        case .question(let question): return ask(question).read(as: interpretation)
        case .request(let draft):
            state.pending = nil
            if let changed = changingFocus(draft, utterance) {
                // Shown as what it now is: a change of the record in focus.
                return perform(changed).read(as: self.interpretation(of: changed, text: text, kind: .request, confidence: interpretation.confidence))
            }
            return perform(draft).read(as: interpretation)
        }
    }

    /// "call it Static Fire Test" with an event in focus and nothing asked: a create phrase said
    /// of "it" changes the record in focus, through its entity's update intent, when that intent
    /// takes every value the words set. (While a new record is being made, the same words answer
    /// its question instead.)
    private func changingFocus(_ draft: Draft, _ utterance: Utterance) -> Draft? {
        guard draft.intent.action == .create, let focus = state.focus, focus.entity == draft.intent.entity,
              utterance.keys.contains("it"),
              let update = registry.allIntents.first(where: { $0.action == .update && $0.entity == focus.entity }),
              let target = update.targetParameter, draft.slots.keys.allSatisfy({ update.parameter($0) != nil }) else { return nil }
        var changed = Draft(intent: update, slots: draft.slots, timeParameter: draft.timeParameter)
        changed.sourceWords = draft.sourceWords
        changed.slots[target.name] = .mention(.focus)
        return changed
    }

    private func replay(_ outcome: IntentOutcome) -> Turn {
        state.pending = nil
        state.lastRequest = nil
        if case .failed(let error) = outcome {
            return Turn(reply: Replies.sentence(error.message), outcome: .failed, snippet: nil, understood: true)
        }
        return render(outcome, draft: nil)
    }

    // MARK: Answers to the pending question

    /// The turn when the words answer what is pending; nil when they are a new request.
    private func answer(_ pending: DialogState.Pending, _ utterance: Utterance) -> Turn? {
        switch pending.waiting {
        case .confirmation:
            guard case .request(let draft) = pending.subject else { return nil }
            switch Answers.classify(utterance) {
            case .yes(let rest):
                if let rest, let revised = Corrections.revise(draft, with: rest, understander: understander) {
                    return perform(revised)
                }
                return perform(draft, confirmation: .confirmed)
            case .no(let rest):
                if let rest, let revised = Corrections.revise(draft, with: rest, understander: understander) {
                    return perform(revised)
                }
                return perform(draft, confirmation: .declined)
            case nil:
                if let revised = Corrections.revise(draft, with: utterance, understander: understander) { return perform(revised) }
                return nil
            }
        case .value(let parameterName):
            if case .no(nil) = Answers.classify(utterance) { return cancel() }
            // "Which event?" for a question: the answer names it.
            if case .question(let question) = pending.subject {
                let words = utterance.droppingLeading(Fillers.leading).droppingTrailing(Fillers.trailing)
                if understander.read(utterance) == nil, let mention = understander.mention(words, of: question.entity.name) { return ask(question.about(mention)) }
                return nil
            }
            guard case .request(let draft) = pending.subject, let parameter = draft.intent.parameter(parameterName) else { return nil }
            // Free text takes any words: words that read as another request or a question are that.
            if parameter.type.base == .builtin(.string), let reading = understander.read(utterance), !reads(reading, as: draft.intent) { return nil }
            if var revised = Answers.value(utterance, for: parameter, in: draft, understander: understander) {
                // What was not used was said with the question; the answer is not about it.
                revised.unusedTimes = []
                return perform(revised)
            }
            // Not the value: a new request, or ask again saying what is needed.
            if understander.read(utterance) != nil { return nil }
            return Turn(reply: "Sorry, I didn't get that. " + pending.prompt,
                        outcome: .needsValue(parameter: parameterName), snippet: nil, understood: false)
        case .suggestion(let parameterName, let id):
            switch Answers.classify(utterance) {
            case .yes(nil):
                switch pending.subject {
                case .request(var draft):
                    draft.slots[parameterName] = .mention(.id(id, occurrence: nil))
                    draft.sourceWords[parameterName] = utterance
                    return perform(draft)
                case .question(let question):
                    return ask(question.about(.id(id, occurrence: nil)))
                }
            case .no(nil):
                state.pending = nil
                return Turn(reply: "OK. Nothing was changed.", outcome: .cancelled, snippet: nil, understood: true)
            default:
                // Anything else is a new request; the suggestion is let go without a word.
                state.pending = nil
                return nil
            }
        case .choice(let parameterName, let candidates):
            if case .no(nil) = Answers.classify(utterance) { return cancel() }
            if let index = Answers.choice(utterance, among: candidates) {
                let chosen = Mention.id(candidates[index].id, occurrence: pending.occurrences[candidates[index].id])
                switch pending.subject {
                case .request(var draft):
                    draft.slots[parameterName] = .mention(chosen)
                    draft.sourceWords[parameterName] = utterance
                    return perform(draft)
                case .question(let question):
                    return ask(question.about(chosen))
                }
            }
            if understander.read(utterance) != nil { return nil }
            return Turn(reply: "Sorry, which one? Say its number or more of its name. " + pending.prompt,
                        outcome: .needsDisambiguation(count: candidates.count), snippet: nil, understood: false)
        }
    }

    private func reads(_ reading: Reading, as intent: IntentDefinition) -> Bool {
        if case .request(let other) = reading { return other.intent.name == intent.name }
        return false
    }

    private func cancel() -> Turn {
        state.pending = nil
        return Turn(reply: "OK, I won't do that. Nothing was changed.", outcome: .cancelled, snippet: nil, understood: true)
    }

    // MARK: Capabilities

    private func notUnderstood(_ utterance: Utterance) -> Turn {
        Turn(reply: "Sorry, I didn't understand “\(utterance.text)”. " + capabilities(), outcome: .failed, snippet: nil, understood: false)
    }

    /// What the loaded schemas let a person say, with an example of each kind.
    public func capabilities() -> String {
        Replies.capabilities(registry: registry, engine: engine, book: understander.book)
    }
}

/// The outcome of a turn, as scripts and clients see it: the engine's, or `failed` when the
/// words were not understood or named nothing in the store.
public enum TurnOutcome: Sendable, Hashable {
    case done
    case needsValue(parameter: String)
    case needsConfirmation
    case needsDisambiguation(count: Int)
    case cancelled
    case failed

    public var name: String {
        switch self {
        case .done: return "done"
        case .needsValue: return "needsValue"
        case .needsConfirmation: return "needsConfirmation"
        case .needsDisambiguation: return "needsDisambiguation"
        case .cancelled: return "cancelled"
        case .failed: return "failed"
        }
    }
}

/// The phrase book of a registry, compiled once and shared by every conversation on it.
public struct ConversationBook: Sendable {
    let phrases: PhraseBook

    public init(registry: Registry) { phrases = PhraseBook(registry: registry) }
}
