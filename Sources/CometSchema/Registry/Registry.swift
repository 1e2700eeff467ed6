import Foundation

/// Every declaration of one domain.
public struct DomainDefinition: Sendable, Hashable {
    public let name: String
    public let doc: String?
    public let entities: [EntityDefinition]
    public let enums: [EnumDefinition]
    public let unions: [UnionDefinition]
    public let intents: [IntentDefinition]
}

/// A named declaration of any kind, for lookups that accept any name.
public enum Declaration: Sendable, Hashable {
    case entity(EntityDefinition)
    case enumeration(EnumDefinition)
    case union(UnionDefinition)
    case intent(IntentDefinition)

    public var name: QualifiedName {
        switch self {
        case .entity(let definition): return definition.name
        case .enumeration(let definition): return definition.name
        case .union(let definition): return definition.name
        case .intent(let definition): return definition.name
        }
    }

    public var kindName: String {
        switch self {
        case .entity(let definition): return "\(definition.kind.rawValue) entity"
        case .enumeration: return "enum"
        case .union: return "union"
        case .intent: return "intent"
        }
    }
}

/// The typed registry: every domain's entities, enums, unions and intents, with all type
/// references resolved. Every other layer asks it what a thing is. Immutable once built.
public struct Registry: Sendable {
    public let domains: [DomainDefinition]
    private let declarations: [QualifiedName: Declaration]

    init(domains: [DomainDefinition]) {
        self.domains = domains.sorted { $0.name < $1.name }
        var table: [QualifiedName: Declaration] = [:]
        for domain in domains {
            for entity in domain.entities { table[entity.name] = .entity(entity) }
            for enumeration in domain.enums { table[enumeration.name] = .enumeration(enumeration) }
            for union in domain.unions { table[union.name] = .union(union) }
            for intent in domain.intents { table[intent.name] = .intent(intent) }
        }
        self.declarations = table
    }

    /// Loads and checks every `*.cal` file under the given directories (or files).
    /// Throws `SchemaError` carrying all diagnostics when any is an error.
    public static func load(paths: [String]) throws -> Registry {
        let result = try SchemaCompiler.compile(paths: paths)
        guard let registry = result.registry else {
            throw SchemaError(diagnostics: result.diagnostics, sources: result.sources)
        }
        return registry
    }

    public func domain(_ name: String) -> DomainDefinition? { domains.first { $0.name == name } }

    public func declaration(_ name: QualifiedName) -> Declaration? { declarations[name] }

    public func entity(_ name: QualifiedName) -> EntityDefinition? {
        if case .entity(let definition)? = declarations[name] { return definition }
        return nil
    }

    public func enumeration(_ name: QualifiedName) -> EnumDefinition? {
        if case .enumeration(let definition)? = declarations[name] { return definition }
        return nil
    }

    public func union(_ name: QualifiedName) -> UnionDefinition? {
        if case .union(let definition)? = declarations[name] { return definition }
        return nil
    }

    public func intent(_ name: QualifiedName) -> IntentDefinition? {
        if case .intent(let definition)? = declarations[name] { return definition }
        return nil
    }

    /// Every declaration whose name matches `text`: `Event`, `calendar.Event`, or an intent
    /// name. Plain names may match in several domains; callers ask the user to qualify.
    public func lookup(_ text: String) -> [Declaration] {
        let parts = text.split(separator: ".", maxSplits: 1).map(String.init)
        if parts.count == 2 {
            return declarations[QualifiedName(domain: parts[0], name: parts[1])].map { [$0] } ?? []
        }
        return declarations.values.filter { $0.name.name == text }.sorted { $0.name < $1.name }
    }

    /// All declared names (plain), for "did you mean" suggestions.
    public var allNames: [String] {
        Array(Set(declarations.keys.map(\.name))).sorted()
    }

    /// Intents of every domain, in a stable order.
    public var allIntents: [IntentDefinition] { domains.flatMap(\.intents) }
    public var allEntities: [EntityDefinition] { domains.flatMap(\.entities) }
    public var allEnums: [EnumDefinition] { domains.flatMap(\.enums) }
}

/// A schema that did not compile: all of its diagnostics, renderable with their sources.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    public let diagnostics: [Diagnostic]
    public let sources: [SourceFile]

    public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }

    public var description: String {
        DiagnosticRenderer(sources: sources).render(diagnostics)
    }
}
