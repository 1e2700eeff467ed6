import CometSchema
import CometConversation

/// A conversation heard instead of read: the same `Conversation` as chat, behind a gate that
/// never acts on a bad hearing (docs/voice.md, "The gate").
///
/// - Nothing heard (silence, noise the decoder takes for fillers): "I didn't catch that", no turn.
/// - A sure hearing (every word's posterior at least `threshold`, 0.3 by default) is said to the conversation
///   as typed text would be.
/// - An unsure hearing that reads as a change (create, update, delete, undo, redo), or that
///   would answer the question the conversation is waiting on, is asked back: "Did you say …?".
///   A yes plays it; a no drops it; anything else drops it and is heard as a new turn.
/// - An unsure hearing that reads as a question or a search is answered (reading changes
///   nothing), marked unsure; one that reads as nothing is "I didn't catch that".
public final class VoiceConversation {
    public let conversation: Conversation
    /// The weakest word's posterior a hearing needs to be acted on without asking.
    public let threshold: Double
    /// A hearing asked back, waiting for the yes.
    private var held: String?

    /// Chosen from the voice suite's sweep (docs/voice.md, "The threshold").
    public static let defaultThreshold = 0.3

    /// What the gate made of a hearing.
    public enum Decision: String, Sendable, Hashable {
        /// Sure: said to the conversation.
        case passed
        /// Unsure, but it reads without changing anything: said to the conversation.
        case passedUnsure
        /// Unsure and a change (or an answer): asked back.
        case asked
        /// The yes to a hearing asked back: it was said to the conversation.
        case confirmed
        /// The no to a hearing asked back: dropped.
        case declined
        /// Nothing heard, or nothing that reads: no turn.
        case notCaught
    }

    public struct Turn: Sendable {
        public let hearing: Hearing
        public let decision: Decision
        /// What was said to the conversation (the hearing, or for a yes the hearing asked back).
        public let said: String?
        public let reply: String
        public let outcome: TurnOutcome
        /// The conversation's turn, when there was one.
        public let turn: Conversation.Turn?
        /// Which of the decoder's readings the gate took: 1 is the best; a higher rank is an
        /// alternative taken because the ones before it read as nothing (`why` says so).
        public var rank = 1
        public var why: String?
        /// The words of the reading the gate took (the hearing's own, or an alternative's).
        public var taken: String { rank > 1 ? hearing.alternatives[rank - 2].text : hearing.text }

        /// {heard, gate: {decision, threshold, said}, reply, outcome, understood, interpretation}.
        public func json(threshold: Double) -> JSONValue {
            var gate = JSONObject([("decision", .string(decision.rawValue)), ("threshold", .double(threshold))])
            gate["said"] = said.map(JSONValue.string) ?? .null
            gate["rank"] = .int(rank)
            gate["why"] = why.map(JSONValue.string) ?? .null
            var object = JSONObject([("heard", hearing.json), ("gate", .object(gate)), ("reply", .string(reply)), ("outcome", .string(outcome.name))])
            object["understood"] = .bool(turn?.understood ?? false)
            object["interpretation"] = turn?.interpretation?.json ?? .null
            return .object(object)
        }
    }

    public init(conversation: Conversation, threshold: Double = VoiceConversation.defaultThreshold) {
        self.conversation = conversation
        self.threshold = threshold
    }

    public static let notCaught = "I didn't catch that."

    /// Whether a reading is one of the schemas' declared phrases or questions, word for word,
    /// with every record it names found (the deterministic reader, strictly): the only kind of
    /// reading an alternative is taken for. The statistical reader reads something into nearly
    /// any words, so its readings of the decoder's lesser guesses say little.
    static func readsWordForWord(_ reading: Interpretation) -> Bool {
        reading.understood && reading.reader == "phrase" && reading.confidence >= 1
    }

    public func hear(_ hearing: Hearing) -> Turn {
        if let asked = held {
            if hearing.isEmpty {
                return Turn(hearing: hearing, decision: .notCaught, said: nil, reply: VoiceConversation.notCaught + " Did you say “\(asked)”?",
                            outcome: .needsConfirmation, turn: nil)
            }
            held = nil
            switch SpokenLanguage.yesOrNo(hearing.text) {
            case true?:
                let turn = conversation.say(asked)
                return Turn(hearing: hearing, decision: .confirmed, said: asked, reply: turn.reply, outcome: turn.outcome, turn: turn)
            case false?:
                return Turn(hearing: hearing, decision: .declined, said: nil, reply: "OK, I've let “\(asked)” go. Nothing was changed.",
                            outcome: .cancelled, turn: nil)
            case nil:
                break
            }
        }
        guard !hearing.isEmpty else {
            return Turn(hearing: hearing, decision: .notCaught, said: nil, reply: VoiceConversation.notCaught, outcome: .failed, turn: nil)
        }
        if hearing.confidence >= threshold {
            let text = hearing.text
            let turn = conversation.say(text)
            return Turn(hearing: hearing, decision: .passed, said: text, reply: turn.reply, outcome: turn.outcome, turn: turn)
        }
        // Unsure. When the best reading reads as nothing, the decoder's next readings are
        // tried in order, and the first the conversation reads is taken instead, never as a
        // sure hearing: it is asked back or answered as an unsure one.
        var reading = conversation.interpret(hearing.text)
        var text = hearing.text
        var rank = 1
        var why: String?
        if !reading.understood {
            for (index, other) in hearing.alternatives.enumerated() {
                let otherReading = conversation.interpret(other.text)
                guard VoiceConversation.readsWordForWord(otherReading) else { continue }
                why = "the decoder's best reading" + (index == 0 ? "" : " and the \(index) after it") + " read as nothing; reading \(index + 2) is one of the schemas' phrases word for word"
                    + (otherReading.intent.map { " (\($0))" } ?? "")
                (reading, text, rank) = (otherReading, other.text, index + 2)
                break
            }
        }
        let changes = reading.understood && (reading.kind == .request ? !["search", "open"].contains(reading.action ?? "") : reading.kind == .command && reading.action != "help")
        if changes || conversation.isWaitingForAnswer {
            held = text
            var turn = Turn(hearing: hearing, decision: .asked, said: nil, reply: "Did you say “\(text)”?", outcome: .needsConfirmation, turn: nil)
            (turn.rank, turn.why) = (rank, why)
            return turn
        }
        if reading.understood {
            let said = conversation.say(text)
            var turn = Turn(hearing: hearing, decision: .passedUnsure, said: text, reply: said.reply, outcome: said.outcome, turn: said)
            (turn.rank, turn.why) = (rank, why)
            return turn
        }
        return Turn(hearing: hearing, decision: .notCaught, said: nil, reply: VoiceConversation.notCaught, outcome: .failed, turn: nil)
    }
}
