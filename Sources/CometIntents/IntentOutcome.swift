import Foundation
import CometSchema
import CometStore

/// What the engine answers. A closed set: front ends render these and never re-implement policy.
public enum IntentOutcome: Sendable {
    case done(IntentResult)
    /// A required value is missing: ask `prompt`, then run again with the parameter set.
    case needsValue(parameter: String, prompt: String)
    /// The policy asks for a yes: show `prompt` (and the snippet), then run again confirmed or declined.
    case needsConfirmation(prompt: String, snippet: Snippet)
    /// The text matched several entities: ask which, then run again with the chosen id.
    case needsDisambiguation(parameter: String, prompt: String, candidates: [Candidate])
    /// The person declined; nothing changed.
    case cancelled(Dialog)
    case failed(IntentError)

    /// `done`, `needsValue`, … — the `outcome` key of the JSON shape.
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

/// An entity a text might mean, with what tells it apart from the others.
public struct Candidate: Sendable, Hashable {
    public let id: UUID
    public let title: String
    public let subtitle: String?

    public init(id: UUID, title: String, subtitle: String?) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
    }
}

/// A full sentence for voice, and a short supporting text for a screen.
public struct Dialog: Sendable, Hashable {
    public let full: String
    public let supporting: String

    public init(full: String, supporting: String) {
        self.full = full
        self.supporting = supporting
    }
}

/// A compact card: a title, a subtitle, and labelled lines. The terminal prints it aligned;
/// JSON clients get the same content structured.
public struct Snippet: Sendable, Hashable {
    public struct Field: Sendable, Hashable {
        public let label: String
        public let value: String
    }

    public let title: String
    public let subtitle: String?
    public let fields: [Field]
}

/// A performed intent.
public struct IntentResult: Sendable {
    public let intent: QualifiedName
    public let action: IntentAction?
    /// The entity acted on or created (after the change); nil for deletes.
    public let record: EntityRecord?
    /// Search results, in order.
    public let records: [EntityRecord]
    /// For searches with a time range: the matching occurrences.
    public let occurrences: [Occurrence]
    public let dialog: Dialog
    public let snippet: Snippet?
    /// The undo journal entry, when the intent is undoable.
    public let journalSequence: Int64?
    /// For searches: how the results returned relate to everything that matched.
    public internal(set) var page: PageInfo? = nil
    /// Things worth knowing about what was done (a repeat that crowds a day), also in the dialog.
    public internal(set) var warnings: [String] = []
}
