/// The syntax tree of one schema file, before names are resolved.
/// Every node keeps its location so the checker can point at it.
struct SchemaFileSyntax: Sendable {
    let source: SourceFile
    let domain: DomainSyntax?
    let declarations: [DeclarationSyntax]
}

struct Identifier: Sendable, Hashable {
    let name: String
    let location: SourceLocation
    var length: Int { name.unicodeScalars.count }
}

struct DomainSyntax: Sendable {
    let name: Identifier
    let doc: String?
    let annotations: [AnnotationSyntax]
}

/// `@name` or `@name(arg, label: arg)`.
struct AnnotationSyntax: Sendable {
    struct Argument: Sendable {
        let label: Identifier?
        let value: LiteralSyntax
    }

    let name: Identifier
    let arguments: [Argument]
    /// Location of the `@`.
    let location: SourceLocation
}

/// Where a literal is written: its first column and how many columns it spans on that line.
struct LiteralSpan: Sendable {
    let location: SourceLocation
    let length: Int
    /// A name written with a leading dot (`.confirmed`).
    var isDotted = false
}

/// A literal as written: in defaults and annotation arguments.
indirect enum LiteralSyntax: Sendable {
    case string(String, LiteralSpan)
    case integer(Int, LiteralSpan)
    case double(Double, LiteralSpan)
    case bool(Bool, LiteralSpan)
    /// A bare or dotted name: `.confirmed`, `confirmed`, `attendees`.
    case name(String, LiteralSpan)
    case array([LiteralSyntax], LiteralSpan)

    var span: LiteralSpan {
        switch self {
        case .string(_, let span), .integer(_, let span), .double(_, let span),
             .bool(_, let span), .name(_, let span), .array(_, let span):
            return span
        }
    }

    var location: SourceLocation { span.location }
    /// Columns the literal spans, for caret underlines.
    var length: Int { span.length }

    /// How the literal reads in a message.
    var spelling: String {
        switch self {
        case .string(let value, _): return "\"\(value)\""
        case .integer(let value, _): return String(value)
        case .double(let value, _): return String(value)
        case .bool(let value, _): return value ? "true" : "false"
        case .name(let name, let span): return (span.isDotted ? "." : "") + name
        case .array(let items, _): return "[" + items.map(\.spelling).joined(separator: ", ") + "]"
        }
    }
}

/// `Type`, `Type?`, `[Type]`, `[Type]?`, `domain.Type`.
struct TypeSyntax: Sendable {
    let domain: Identifier?
    let name: Identifier
    let isArray: Bool
    let isOptional: Bool
    let location: SourceLocation
    let length: Int

    /// A placeholder for a type the parser could not read (already reported). It keeps the
    /// member, and its annotations, in the tree so the checker reports no cascade errors.
    static func missing(at location: SourceLocation) -> TypeSyntax {
        TypeSyntax(domain: nil, name: Identifier(name: "", location: location), isArray: false, isOptional: false,
                   location: location, length: 1)
    }

    var isMissing: Bool { name.name.isEmpty }

    var spelling: String {
        let base = (domain.map { $0.name + "." } ?? "") + name.name
        return (isArray ? "[\(base)]" : base) + (isOptional ? "?" : "")
    }
}

/// A property of an entity or a parameter of an intent: `name: Type = default`.
struct MemberSyntax: Sendable {
    let name: Identifier
    let type: TypeSyntax
    let defaultValue: LiteralSyntax?
    let doc: String?
    let annotations: [AnnotationSyntax]
}

struct EnumCaseSyntax: Sendable {
    let name: Identifier
    let doc: String?
    let annotations: [AnnotationSyntax]
}

struct UnionCaseSyntax: Sendable {
    let name: Identifier
    let type: TypeSyntax
    let doc: String?
    let annotations: [AnnotationSyntax]
}

enum EntityKindSyntax: String, Sendable {
    case indexed
    case transient
}

/// What an intent does to its entity: `intent createEvent creates Event`.
struct IntentActionSyntax: Sendable {
    let verb: Identifier
    let entity: TypeSyntax
}

enum DeclarationSyntax: Sendable {
    case entity(EntitySyntax)
    case enumeration(EnumSyntax)
    case union(UnionSyntax)
    case intent(IntentSyntax)

    var name: Identifier {
        switch self {
        case .entity(let node): return node.name
        case .enumeration(let node): return node.name
        case .union(let node): return node.name
        case .intent(let node): return node.name
        }
    }

    var kindName: String {
        switch self {
        case .entity: return "entity"
        case .enumeration: return "enum"
        case .union: return "union"
        case .intent: return "intent"
        }
    }
}

struct EntitySyntax: Sendable {
    let name: Identifier
    let kind: EntityKindSyntax
    let doc: String?
    let annotations: [AnnotationSyntax]
    let properties: [MemberSyntax]
    /// The block could not be opened and was skipped (already reported): its members are unknown,
    /// so checks about what it lacks are not made.
    var bodyMissing = false
}

struct EnumSyntax: Sendable {
    let name: Identifier
    let doc: String?
    let annotations: [AnnotationSyntax]
    let cases: [EnumCaseSyntax]
    /// The block could not be opened and was skipped (already reported): its members are unknown,
    /// so checks about what it lacks are not made.
    var bodyMissing = false
}

struct UnionSyntax: Sendable {
    let name: Identifier
    let doc: String?
    let annotations: [AnnotationSyntax]
    let cases: [UnionCaseSyntax]
    /// The block could not be opened and was skipped (already reported): its members are unknown,
    /// so checks about what it lacks are not made.
    var bodyMissing = false
}

struct IntentSyntax: Sendable {
    let name: Identifier
    let doc: String?
    let annotations: [AnnotationSyntax]
    let action: IntentActionSyntax?
    let returns: TypeSyntax?
    let parameters: [MemberSyntax]
    /// The block could not be opened and was skipped (already reported): its members are unknown,
    /// so checks about what it lacks are not made.
    var bodyMissing = false
}
