import Foundation
import CometSchema

/// How one utterance was read, without acting on it: what `cometcal understand` prints and what
/// every chat reply carries, so that understanding can be measured, debugged and explained.
/// The JSON shape is in docs/json.md.
public struct Interpretation: Sendable {
    public enum Kind: String, Sendable, Hashable {
        /// An intent to run (create, update, delete, search, open).
        case request
        /// A property asked about (`@question`).
        case question
        /// Words answering what the dialog had asked (chat only: `understand` reads each text fresh).
        case answer
        /// A correction of the request just made, said on its own (chat only).
        case correction
        /// undo, redo, help.
        case command
        case unknown
    }

    /// One parameter the words (or the phrase itself) set or cleared.
    public struct Parameter: Sendable, Hashable {
        public enum State: String, Sendable, Hashable { case set, cleared }

        public let name: String
        public let state: State
        /// The value as read, before the dialog binds it to a record; nil when cleared.
        public let value: JSONValue?
        /// The words it was read from, as said; nil when the phrase itself sets it
        /// ("star {event}" sets isFavorite).
        public let raw: String?
        /// What the words are: time, duration, recurrence, name, person, place, number, text,
        /// enum, or the name of the entity they refer to (calendar).
        public let entity: String
    }

    /// Words naming a record, and what they name in the store now.
    public struct Mention: Sendable, Hashable {
        /// The parameter it fills; "about" for the record a question asks about.
        public let slot: String
        public let raw: String
        /// focus ("it"), ordinal ("the second one"), time ("the one on Friday"), words, id.
        public let by: String
        /// For `words`: every record the words match (none, one, or the candidates).
        public let matches: [Match]
        public let details: JSONObject

        public struct Match: Sendable, Hashable {
            public let id: UUID
            public let title: String
        }
    }

    public let text: String
    public let understood: Bool
    public let kind: Kind
    /// The intent's qualified name ("calendar.createEvent"); nil for questions, commands and
    /// what was not understood.
    public let intent: String?
    /// The intent's declared kind: create, update, delete, search, open; for a command, undo,
    /// redo or help.
    public let action: String?
    /// The deterministic reader's: 1 when a phrase matched strictly (every named record
    /// exists), 0.5 when only the lenient pass matched (a named record was not found), 0 when
    /// nothing matched.
    public let confidence: Double
    public let parameters: [Parameter]
    public let mentions: [Mention]
    /// For a question: the entity and property asked about.
    public let question: (entity: String, property: String)?
    /// Which reader gave the reading: "phrase" (a declared phrase or question, word for word)
    /// or "statistical" (the model trained from the schemas' declarations); nil when none did.
    public var reader: String? = nil
    /// For a statistical reading: the class it nearly chose, and how sure it was of it.
    public var runnerUp: (label: String, confidence: Double)? = nil
    /// Words that said only which kind of record a search is about ("any appointments").
    public var kindWords: String? = nil
    /// Time expressions said and put in no parameter ("tomorrow afternoon" as a new event's
    /// start): shown as slots named "unused", and said in the reply.
    public var unusedTimes: [String] = []
    /// For what was not understood: the statistical reader's closest class, how sure it was,
    /// and why it was not taken (unsure, elsewhere, unplaced, empty).
    public var closest: (label: String, confidence: Double, reason: String)? = nil

    static func unknown(_ text: String) -> Interpretation {
        Interpretation(text: text, understood: false, kind: .unknown, intent: nil, action: nil, confidence: 0, parameters: [], mentions: [], question: nil)
    }

    static func command(_ text: String, _ name: String) -> Interpretation {
        Interpretation(text: text, understood: true, kind: .command, intent: nil, action: name, confidence: 1, parameters: [], mentions: [], question: nil)
    }

    /// One JSON object: text, understood, kind, intent, action, confidence, parameters (name →
    /// {state, value?, raw}), slots ([{slot, entity, raw}] for every parameter read from words
    /// and every mention), mentions, and question for a question.
    public var json: JSONValue {
        var object = JSONObject([("text", .string(text)), ("understood", .bool(understood)), ("kind", .string(kind.rawValue)),
                                 ("intent", intent.map(JSONValue.string) ?? .null), ("action", action.map(JSONValue.string) ?? .null),
                                 ("confidence", .double(confidence))])
        var parameterObject = JSONObject()
        for parameter in parameters {
            var entry = JSONObject([("state", .string(parameter.state.rawValue))])
            if let value = parameter.value { entry["value"] = value }
            entry["raw"] = parameter.raw.map(JSONValue.string) ?? .null
            entry["entity"] = .string(parameter.entity)
            parameterObject[parameter.name] = .object(entry)
        }
        object["parameters"] = .object(parameterObject)
        object["slots"] = .array(slots.map { slot in
            .object(JSONObject([("slot", .string(slot.slot)), ("entity", .string(slot.entity)), ("raw", .string(slot.raw))]))
        })
        object["mentions"] = .array(mentions.map { mention in
            var entry = JSONObject([("slot", .string(mention.slot)), ("raw", .string(mention.raw)), ("by", .string(mention.by))])
            for key in mention.details.keys { entry[key] = mention.details[key] }
            if mention.by == "words" {
                entry["matches"] = .array(mention.matches.map { .object(JSONObject([("id", .string($0.id.uuidString.lowercased())), ("title", .string($0.title))])) })
            }
            return .object(entry)
        })
        object["reader"] = reader.map(JSONValue.string) ?? .null
        if let closest {
            object["closest"] = .object(JSONObject([("label", .string(closest.label)), ("confidence", .double(closest.confidence)),
                                                    ("reason", .string(closest.reason))]))
        }
        if let runnerUp {
            object["runnerUp"] = .object(JSONObject([("label", .string(runnerUp.label)), ("confidence", .double(runnerUp.confidence))]))
        }
        if let question {
            object["question"] = .object(JSONObject([("entity", .string(question.entity)), ("property", .string(question.property))]))
        }
        return .object(object)
    }

    /// Every stretch of words read as something: the parameters read from words, then the
    /// record a question asks about.
    public var slots: [(slot: String, entity: String, raw: String)] {
        var slots = parameters.compactMap { parameter in parameter.raw.map { (parameter.name, parameter.entity, $0) } }
        for mention in mentions where mention.slot == "about" {
            slots.append((mention.slot, mention.by == "time" ? "time" : "name", mention.raw))
        }
        // A description also says when and with whom: each is a slot of its own.
        for mention in mentions where mention.by == "description" {
            if case .string(let text)? = mention.details["timeText"] { slots.append((mention.slot, "time", text)) }
            if case .string(let person)? = mention.details["person"] { slots.append((mention.slot, "person", person)) }
        }
        if let kindWords { slots.append(("kind", "name", kindWords)) }
        for unused in unusedTimes { slots.append(("unused", "time", unused)) }
        return slots
    }
}
