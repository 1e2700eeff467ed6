/// The built-in types every domain can use.
public enum BuiltinType: String, Sendable, Hashable, CaseIterable, Codable {
    case string = "String"
    case int = "Int"
    case double = "Double"
    case bool = "Bool"
    /// A calendar day with no time: all-day events.
    case date = "Date"
    /// An instant with the IANA zone it was expressed in, or a floating wall-clock time.
    case dateTime = "DateTime"
    /// An RFC 5545 duration (`PT15M`, `-P1D`, `P2W`).
    case duration = "Duration"
    case url = "URL"
    case uuid = "UUID"
    /// A name with an email address and/or phone number.
    case person = "Person"
    /// A named place with an address and/or coordinates.
    case place = "Place"
    /// An RFC 5545 recurrence rule.
    case recurrence = "Recurrence"

    /// Whether full-text search can index values of this type.
    var holdsText: Bool {
        switch self {
        case .string, .person, .place, .url: return true
        default: return false
        }
    }
}

/// What a name in a type position resolved to.
public enum NamedType: Sendable, Hashable {
    case builtin(BuiltinType)
    case entity(QualifiedName)
    case enumeration(QualifiedName)
    case union(QualifiedName)

    public var name: String {
        switch self {
        case .builtin(let type): return type.rawValue
        case .entity(let name), .enumeration(let name), .union(let name): return name.name
        }
    }

    /// `builtin`, `entity`, `enum` or `union`: how `schema dump --json` names the kind.
    public var kindName: String {
        switch self {
        case .builtin: return "builtin"
        case .entity: return "entity"
        case .enumeration: return "enum"
        case .union: return "union"
        }
    }
}

/// A resolved type expression: `String`, `Event?`, `[Attendee]`, `[Alarm]?`.
/// Arrays do not nest and their elements are never optional (the parser refuses both).
public struct TypeExpression: Sendable, Hashable, CustomStringConvertible {
    public let base: NamedType
    public let isArray: Bool
    public let isOptional: Bool

    public init(_ base: NamedType, isArray: Bool = false, isOptional: Bool = false) {
        self.base = base
        self.isArray = isArray
        self.isOptional = isOptional
    }

    public static func builtin(_ type: BuiltinType, optional: Bool = false) -> TypeExpression {
        TypeExpression(.builtin(type), isOptional: optional)
    }

    /// The same type without the optional marker: what a present value must be.
    public var required: TypeExpression { TypeExpression(base, isArray: isArray, isOptional: false) }
    /// The element type of an array, or the type itself.
    public var element: TypeExpression { TypeExpression(base) }

    public var description: String {
        (isArray ? "[\(base.name)]" : base.name) + (isOptional ? "?" : "")
    }
}
