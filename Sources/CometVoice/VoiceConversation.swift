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

        /// {heard, gate: {decision, threshold, said}, reply, outcome, understood, interpretation}.
        public func json(threshold: Double) -> JSONValue {
            var gate = JSONObject([("decision", .string(decision.rawValue)), ("threshold", .double(threshold))])
            gate["said"] = said.map(JSONValue.string) ?? .null
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
        let text = hearing.text
        if hearing.confidence >= threshold {
            let turn = conversation.say(text)
            return Turn(hearing: hearing, decision: .passed, said: text, reply: turn.reply, outcome: turn.outcome, turn: turn)
        }
        let reading = conversation.interpret(text)
        let changes = reading.understood && (reading.kind == .request ? !["search", "open"].contains(reading.action ?? "") : reading.kind == .command && reading.action != "help")
        if changes || conversation.isWaitingForAnswer {
            held = text
            return Turn(hearing: hearing, decision: .asked, said: nil, reply: "Did you say “\(text)”?", outcome: .needsConfirmation, turn: nil)
        }
        if reading.understood {
            let turn = conversation.say(text)
            return Turn(hearing: hearing, decision: .passedUnsure, said: text, reply: turn.reply, outcome: turn.outcome, turn: turn)
        }
        return Turn(hearing: hearing, decision: .notCaught, said: nil, reply: VoiceConversation.notCaught, outcome: .failed, turn: nil)
    }
}
