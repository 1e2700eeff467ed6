import Foundation

/// Hears a script's `> @audio FILE.wav` turns. The conversation layer knows no sound: the voice
/// module (`CometVoice`'s `ScriptHearing`) hears the file and plays what it heard through its
/// gate, and the runner checks the reply, the outcome and the store as for a typed turn.
public protocol ScriptListener: AnyObject {
    /// Hears the WAVE file at `path` and plays it as a turn of `conversation`, in `world` (whose
    /// store gives the words listened for).
    func play(audio path: String, conversation: any ScriptConversation, world: any ScriptWorld) -> Result<ScriptHeardTurn, ScriptListenerProblem>
}

/// An `@audio` turn played: what was heard, and the turn it made.
public struct ScriptHeardTurn {
    public let heard: String
    public let confidence: Double
    /// The voice gate's decision (docs/voice.md).
    public let decision: String
    public let turn: Conversation.Turn

    public init(heard: String, confidence: Double, decision: String, turn: Conversation.Turn) {
        self.heard = heard
        self.confidence = confidence
        self.decision = decision
        self.turn = turn
    }
}

/// Why an `@audio` turn could not be heard: the file, and what to do.
public struct ScriptListenerProblem: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
