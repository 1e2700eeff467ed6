import Foundation
import CometSchema
import CometIntents

/// What a conversation remembers between turns: what "it" is, what "the third one" is, and at
/// most one question waiting for its answer.
struct DialogState {
    /// A record a person can point at, and the occurrence meant when it repeats.
    struct Focus: Sendable, Hashable {
        let entity: QualifiedName
        let id: UUID
        let occurrence: DateTimeValue?
    }

    enum Waiting: Sendable {
        case confirmation
        case value(parameter: String)
        /// Which of these the parameter (or the question's subject, "") means.
        case choice(parameter: String, candidates: [Candidate])
        /// "Did you mean “Picnic”?": a yes means this record.
        case suggestion(parameter: String, id: UUID)
    }

    /// What the pending question is about: a request to perform, or a question to answer.
    enum Subject: Sendable {
        case request(Draft)
        case question(QuestionDraft)
    }

    struct Pending: Sendable {
        let subject: Subject
        let waiting: Waiting
        /// The question as asked, to ask again.
        let prompt: String
        /// For a choice among repeating records: the occurrence each candidate stood for.
        var occurrences: [UUID: DateTimeValue] = [:]
    }

    var focus: Focus?
    /// The last list shown, in its order.
    var lastResults: [Focus] = [] {
        didSet { listedEntities = Set(lastResults.map(\.entity)) }
    }
    /// The kinds of entity in the last list, kept with it (a list may hold thousands).
    private(set) var listedEntities: Set<QualifiedName> = []
    var pending: Pending?
    /// The last request performed, which a lone correction ("actually 4pm") revises.
    var lastRequest: Draft?
}

extension QuestionDraft {
    func about(_ mention: Mention) -> QuestionDraft {
        QuestionDraft(entity: entity, property: property, annotation: annotation, mention: mention)
    }
}
