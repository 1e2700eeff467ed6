import CometSchema

/// One request to run an intent, as every front end builds it: typed parameters with their
/// value state, entity parameters still given as text, and the answer to a confirmation.
public struct IntentRequest: Sendable, Hashable {
    public enum Confirmation: String, Sendable, Hashable {
        /// Not asked yet: the engine asks when the intent's policy says so.
        case pending
        /// The person said yes (or `--yes`).
        case confirmed
        /// The person said no: the engine cancels without changing anything.
        case declined
    }

    /// `createEvent` or `calendar.createEvent`.
    public var intent: String
    public var parameters: ParameterBindings
    /// Entity parameters named by text ("the picnic"), resolved through the entity's search.
    public var references: [String: String]
    public var confirmation: Confirmation
    /// For searches: which part of the results to return (all by default).
    public var page: ResultPage

    public init(intent: String, parameters: ParameterBindings = ParameterBindings(), references: [String: String] = [:],
                confirmation: Confirmation = .pending, page: ResultPage = .all) {
        self.intent = intent
        self.parameters = parameters
        self.references = references
        self.confirmation = confirmation
        self.page = page
    }
}
