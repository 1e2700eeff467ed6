/// A property of an entity.
/// A property of an entity, as the checker resolved it. A class, though immutable like a value:
/// an import reads every property of every component through the registry, and a struct of
/// six reference-counted fields cost six retains and releases per copy (copies were about 6%
/// of an import's CPU in a profile); a shared instance costs one.
public final class PropertyDefinition: Sendable, Hashable {
    public let name: String
    public let type: TypeExpression
    /// The value filled in when none is given (checked against `type`).
    public let defaultValue: Value?
    public let doc: String?
    public let annotations: [Annotation]
    public let location: SourceLocation
    /// The iCalendar property or parameter this field maps to, if annotated.
    public let ical: Annotation?
    /// The `@ical` property name, upper-cased (`SUMMARY`, `*` for the field that keeps the rest).
    public let icalName: String?
    /// The `@ical(param:)` parameter name, upper-cased, for a field read from a parameter.
    public let icalParameter: String?
    public let isSearchable: Bool

    public init(name: String, type: TypeExpression, defaultValue: Value?, doc: String?, annotations: [Annotation], location: SourceLocation) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.doc = doc
        self.annotations = annotations
        self.location = location
        ical = annotations.first(named: "ical")
        icalName = ical?.firstString?.uppercased()
        icalParameter = ical?.string("param")?.uppercased()
        isSearchable = annotations.contains(named: "searchable")
    }

    public var isRequired: Bool { !type.isOptional }

    public static func == (left: PropertyDefinition, right: PropertyDefinition) -> Bool {
        left === right || (left.name == right.name && left.type == right.type && left.defaultValue == right.defaultValue
                           && left.doc == right.doc && left.annotations == right.annotations && left.location == right.location)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
        hasher.combine(location)
    }
}

public enum EntityKind: String, Sendable, Hashable, Codable {
    /// Stored, queryable, searchable on its own, with an `id`.
    case indexed
    /// Exists only inside another entity (an attendee inside an event).
    case transient
}

public struct EntityDefinition: Sendable, Hashable {
    public let name: QualifiedName
    public let kind: EntityKind
    public let doc: String?
    public let annotations: [Annotation]
    public let properties: [PropertyDefinition]
    public let location: SourceLocation
    /// Which properties carry the entity's time (found once, through their iCalendar mapping).
    public let temporalFields: TemporalFields?
    /// Where each property is in `properties`: records are checked and read by name all the time.
    private let positions: [String: Int]

    init(name: QualifiedName, kind: EntityKind, doc: String?, annotations: [Annotation], properties: [PropertyDefinition], location: SourceLocation) {
        self.name = name
        self.kind = kind
        self.doc = doc
        self.annotations = annotations
        self.properties = properties
        self.location = location
        self.temporalFields = TemporalFields.find(in: properties)
        var positions: [String: Int] = [:]
        for (index, property) in properties.enumerated() where positions[property.name] == nil { positions[property.name] = index }
        self.positions = positions
    }

    public func property(_ name: String) -> PropertyDefinition? {
        positions[name].map { properties[$0] }
    }

    /// The property that gives an entity its display title (`@title`).
    public var titleProperty: PropertyDefinition? {
        properties.first { $0.annotations.contains(named: "title") }
    }

    public var subtitleProperty: PropertyDefinition? {
        properties.first { $0.annotations.contains(named: "subtitle") }
    }

    public var searchableProperties: [PropertyDefinition] {
        properties.filter(\.isSearchable)
    }
}

public struct EnumCaseDefinition: Sendable, Hashable {
    public let name: String
    public let doc: String?
    public let annotations: [Annotation]

    /// How people name the case: `@display` first, then each `@spoken` phrase.
    public var phrases: [String] {
        var result: [String] = []
        if let display = annotations.first(named: "display")?.firstString { result.append(display) }
        for spoken in annotations.filter({ $0.name == "spoken" }) {
            result += spoken.positional.compactMap { if case .string(let text) = $0 { return text } else { return nil } }
        }
        return result
    }
}

public struct EnumDefinition: Sendable, Hashable {
    public let name: QualifiedName
    public let doc: String?
    public let annotations: [Annotation]
    public let cases: [EnumCaseDefinition]
    public let location: SourceLocation

    public func enumCase(_ name: String) -> EnumCaseDefinition? { cases.first { $0.name == name } }

    /// The case an answer names: its name or one of its phrases, in any case, with spaces and
    /// punctuation around words ignored ("All events.", "this and future", "ALL").
    public func enumCase(answering text: String) -> EnumCaseDefinition? {
        let key = Self.answerKey(text)
        guard !key.isEmpty else { return nil }
        return cases.first { $0.name.lowercased() == key } ?? cases.first { $0.phrases.contains { Self.answerKey($0) == key } }
    }

    private static func answerKey(_ text: String) -> String {
        text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "'") }.joined(separator: " ")
    }
}

public struct UnionCaseDefinition: Sendable, Hashable {
    public let name: String
    /// A single, non-optional type: the value held when this case is chosen.
    public let type: TypeExpression
    public let doc: String?
    public let annotations: [Annotation]
}

public struct UnionDefinition: Sendable, Hashable {
    public let name: QualifiedName
    public let doc: String?
    public let annotations: [Annotation]
    public let cases: [UnionCaseDefinition]
    public let location: SourceLocation

    public func unionCase(_ name: String) -> UnionCaseDefinition? { cases.first { $0.name == name } }
}

/// What an intent does, so a generic engine can run intents of any domain.
public enum IntentAction: String, Sendable, Hashable, Codable, CaseIterable {
    case create, update, delete, open, search

    /// The verb as written in schema files (`creates`).
    public var verb: String { self == .search ? "searches" : rawValue + "s" }

    init?(verb: String) {
        guard let action = IntentAction.allCases.first(where: { $0.verb == verb }) else { return nil }
        self = action
    }
}

public struct ParameterDefinition: Sendable, Hashable {
    public let name: String
    public let type: TypeExpression
    public let defaultValue: Value?
    public let doc: String?
    public let annotations: [Annotation]
    public let location: SourceLocation

    /// A required parameter must be given; when it is missing the engine asks for it.
    public var isRequired: Bool { !type.isOptional }
    /// The parameter naming the entity an update, delete or open acts on.
    public var isTarget: Bool { annotations.contains(named: "target") }
    /// What the parameter means beyond its type (`@role(span)`), for the engine and the
    /// conversation; nil for an ordinary value.
    public var role: ParameterRole? {
        guard case .name(let name)? = annotations.first(named: "role")?.positional.first else { return nil }
        return ParameterRole(rawValue: name)
    }
}

/// The parts a parameter can play, declared with `@role` so that no layer knows a parameter by
/// its name.
public enum ParameterRole: String, Sendable, Hashable, CaseIterable {
    /// For a repeating entity: the start of the occurrence acted on (DateTime).
    case occurrence
    /// For a repeating entity: which occurrences change (an enum with cases this, future, all).
    case span
    /// A search's words (String).
    case text
    /// A search range's start and end (DateTime): occurrences ending after `from` and starting before `to`.
    case from, to

    /// The type a parameter with this role must have, as the checker words it.
    public var expectedType: String {
        switch self {
        case .occurrence, .from, .to: return "a DateTime"
        case .span: return "an enum with the cases this, future and all"
        case .text: return "a String"
        }
    }
}

/// When an intent must be confirmed before it is performed.
public enum ConfirmationPolicy: Sendable, Hashable {
    case never
    case always
    /// Only when this property of the target entity holds a value (e.g. `attendees`: shared events).
    case whenTargetHas(property: String)
}

/// A phrase the conversation layer matches: literal text and `{parameter}` slots.
public struct Phrase: Sendable, Hashable, CustomStringConvertible {
    public enum Part: Sendable, Hashable {
        case text(String)
        case parameter(String)
    }

    public let parts: [Part]
    /// Parameters the phrase sets to a constant (`mark {task} as done` with `done: true`).
    public let constants: [String: Value]
    /// Parameters the phrase clears (`do not repeat {event}` with `clear: recurrence`).
    public let clears: [String]

    public init(parts: [Part], constants: [String: Value] = [:], clears: [String] = []) {
        self.parts = parts
        self.constants = constants
        self.clears = clears
    }

    public var description: String {
        parts.map {
            switch $0 {
            case .text(let text): return text.replacingOccurrences(of: "{", with: "\\{").replacingOccurrences(of: "}", with: "\\}")
            case .parameter(let name): return "{\(name)}"
            }
        }.joined()
    }

    public var parameterNames: [String] {
        parts.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } }
    }
}

public struct IntentDefinition: Sendable, Hashable {
    public let name: QualifiedName
    public let doc: String?
    public let annotations: [Annotation]
    /// What the intent does to which entity; nil for intents the engine does not run generically.
    public let action: IntentAction?
    public let entity: QualifiedName?
    public let returns: TypeExpression?
    public let parameters: [ParameterDefinition]
    public let confirmation: ConfirmationPolicy
    public let isUndoable: Bool
    public let phrases: [Phrase]
    public let location: SourceLocation

    public func parameter(_ name: String) -> ParameterDefinition? { parameters.first { $0.name == name } }
    public func parameter(role: ParameterRole) -> ParameterDefinition? { parameters.first { $0.role == role } }
    public var targetParameter: ParameterDefinition? { parameters.first(where: \.isTarget) }
}
