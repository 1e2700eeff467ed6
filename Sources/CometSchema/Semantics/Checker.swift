import CometText

/// Resolves names and types across every parsed file and checks the rules the grammar cannot
/// express. Produces the registry (meaningful only if no error was reported) and diagnostics.
struct Checker {
    let files: [SchemaFileSyntax]
    var diagnostics: [Diagnostic] = []

    /// Every declaration by qualified name, with the domain it belongs to.
    var table: [QualifiedName: DeclarationSyntax] = [:]

    /// Every case of every enum property of the entity a list property holds: what a
    /// `@question(only:)` may name.
    func itemCases(of type: TypeExpression, in domain: String) -> Set<String> {
        guard case .entity(let name) = type.base, case .entity(let entity)? = table[name] else { return [] }
        var cases = Set<String>()
        for member in entity.properties {
            let enumName = QualifiedName(domain: member.type.domain?.name ?? domain, name: member.type.name.name)
            if case .enumeration(let syntax)? = table[enumName] { cases.formUnion(syntax.cases.map(\.name.name)) }
        }
        return cases
    }
    /// Declarations per domain in file order (the registry keeps this order).
    var order: [String: [DeclarationSyntax]] = [:]
    var domainDocs: [String: String] = [:]

    init(files: [SchemaFileSyntax]) {
        self.files = files
    }

    mutating func check() -> Registry {
        declareAll()
        let declarationDiagnostics = diagnostics
        // Build once without defaults so default values can be decoded through a registry that
        // knows every type; then build again, for real, with the defaults in place.
        let provisional = Registry(domains: order.keys.sorted().map { buildDomain($0, defaultsFrom: nil) })
        diagnostics = declarationDiagnostics
        let domains = order.keys.sorted().map { buildDomain($0, defaultsFrom: provisional) }
        let registry = Registry(domains: domains)
        checkTransientCycles(registry)
        return registry
    }

    // MARK: Declaring names

    /// The domain a file's declarations belong to. Without a domain line (already reported), the
    /// file is taken to belong with the other files of its directory, if they agree on one domain,
    /// else to the domain named like the directory, so checking goes on without cascades.
    static func domainName(of file: SchemaFileSyntax, among files: [SchemaFileSyntax]) -> String {
        if let domain = file.domain { return domain.name.name }
        let parts = file.source.path.split(separator: "/", omittingEmptySubsequences: false)
        let directory = parts.dropLast().joined(separator: "/")
        let neighbours = Set(files.filter { $0.source.path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") == directory }
            .compactMap { $0.domain?.name.name })
        if neighbours.count == 1, let only = neighbours.first { return only }
        return parts.count >= 2 ? String(parts[parts.count - 2]) : "default"
    }

    private mutating func declareAll() {
        for file in files {
            let domain = Checker.domainName(of: file, among: files)
            if order[domain] == nil { order[domain] = [] }
            if let doc = file.domain?.doc, domainDocs[domain] == nil { domainDocs[domain] = doc }
            if let annotations = file.domain?.annotations, !annotations.isEmpty {
                for annotation in annotations {
                    diagnostics.append(.annotationOnDomain(annotation.name.name, at: annotation.location))
                }
            }
            for declaration in file.declarations {
                let name = declaration.name
                if BuiltinType(rawValue: name.name) != nil {
                    diagnostics.append(.shadowsBuiltin(name))
                    continue
                }
                let qualified = QualifiedName(domain: domain, name: name.name)
                if let existing = table[qualified] {
                    diagnostics.append(.duplicateDeclaration(name, kind: declaration.kindName, existingKind: existing.kindName, domain: domain,
                                                             first: existing.name.location))
                    continue
                }
                table[qualified] = declaration
                order[domain, default: []].append(declaration)
            }
        }
    }

    // MARK: Building a domain

    private mutating func buildDomain(_ domain: String, defaultsFrom registry: Registry?) -> DomainDefinition {
        var entities: [EntityDefinition] = []
        var enums: [EnumDefinition] = []
        var unions: [UnionDefinition] = []
        var intents: [IntentDefinition] = []
        for declaration in order[domain] ?? [] {
            switch declaration {
            case .entity(let syntax): entities.append(buildEntity(syntax, domain: domain, registry: registry))
            case .enumeration(let syntax): enums.append(buildEnum(syntax, domain: domain))
            case .union(let syntax): unions.append(buildUnion(syntax, domain: domain))
            case .intent(let syntax): intents.append(buildIntent(syntax, domain: domain, registry: registry))
            }
        }
        return DomainDefinition(name: domain, doc: domainDocs[domain], entities: entities, enums: enums, unions: unions, intents: intents)
    }

    private mutating func buildEntity(_ syntax: EntitySyntax, domain: String, registry: Registry?) -> EntityDefinition {
        let kind: EntityKind = syntax.kind == .indexed ? .indexed : .transient
        let owner = "entity '\(syntax.name.name)'"
        var properties: [PropertyDefinition] = []
        var seen: [String: SourceLocation] = [:]
        var titleAt: SourceLocation?
        for member in syntax.properties {
            if let first = seen[member.name.name] {
                diagnostics.append(.duplicateMember(.duplicateProperty, what: "property", name: member.name, owner: owner, first: first))
                continue
            }
            seen[member.name.name] = member.name.location
            let annotations = checkAnnotations(member.annotations, on: .property)
            // Before the type: a '@title' property whose type is wrong still is the title.
            if annotations.contains(named: "title") {
                if let titleAt {
                    diagnostics.append(.duplicateTitle(member.name, entity: syntax.name.name, first: titleAt))
                } else {
                    titleAt = member.name.location
                }
            }
            guard let type = resolve(member.type, in: domain) else { continue }
            if let searchable = annotations.first(named: "searchable"), !holdsText(type, in: domain) {
                diagnostics.append(.searchableNotText(member.name, type: type.description, at: searchable.location))
            }
            if let nonBlank = annotations.first(named: "nonBlank"), type.base != .builtin(.string) || type.isArray {
                diagnostics.append(.nonBlankNotText(member.name, type: type.description, at: nonBlank.location))
            }
            if let length = annotations.first(named: "defaultLength") {
                checkDefaultLength(length)
            }
            for question in annotations where question.name == "question" {
                guard case .name(let only)? = question.labelled["only"] else { continue }
                if !itemCases(of: type, in: domain).contains(only) {
                    diagnostics.append(.annotationArgument("question", "only: names '\(only)', which is no case of an enum of the items of '\(member.name.name)'",
                                                           at: question.location, length: 9))
                }
            }
            let defaultValue = member.defaultValue.flatMap { checkDefault($0, for: member.name, type: type, registry: registry) }
            properties.append(PropertyDefinition(
                name: member.name.name, type: type, defaultValue: defaultValue, doc: member.doc,
                annotations: annotations, location: member.name.location
            ))
        }
        let end = TemporalFields.find(in: properties)?.end
        for property in properties where property.name != end {
            if let length = property.annotations.first(named: "defaultLength"),
               let name = syntax.properties.first(where: { $0.name.name == property.name })?.name {
                diagnostics.append(.defaultLengthMisplaced(name, entity: syntax.name.name, at: length.location))
            }
        }
        if kind == .indexed, !syntax.bodyMissing {
            if let id = properties.first(where: { $0.name == "id" }) {
                if id.type != .builtin(.uuid) {
                    let name = syntax.properties.first { $0.name.name == "id" }?.name ?? syntax.name
                    diagnostics.append(.invalidIdentifier(name, entity: syntax.name.name, found: id.type.description))
                }
            } else if !syntax.properties.contains(where: { $0.name.name == "id" }) {
                diagnostics.append(.missingIdentifier(syntax.name))
            }
            if titleAt == nil { diagnostics.append(.missingTitle(syntax.name)) }
        }
        return EntityDefinition(
            name: QualifiedName(domain: domain, name: syntax.name.name), kind: kind, doc: syntax.doc,
            annotations: checkAnnotations(syntax.annotations, on: .entity), properties: properties, location: syntax.name.location
        )
    }

    private mutating func buildEnum(_ syntax: EnumSyntax, domain: String) -> EnumDefinition {
        var cases: [EnumCaseDefinition] = []
        var seen: [String: SourceLocation] = [:]
        for enumCase in syntax.cases {
            if let first = seen[enumCase.name.name] {
                diagnostics.append(.duplicateMember(.duplicateEnumCase, what: "case", name: enumCase.name, owner: "enum '\(syntax.name.name)'", first: first))
                continue
            }
            seen[enumCase.name.name] = enumCase.name.location
            cases.append(EnumCaseDefinition(name: enumCase.name.name, doc: enumCase.doc, annotations: checkAnnotations(enumCase.annotations, on: .enumCase)))
        }
        if syntax.cases.isEmpty, !syntax.bodyMissing { diagnostics.append(.emptyEnum(syntax.name)) }
        return EnumDefinition(
            name: QualifiedName(domain: domain, name: syntax.name.name), doc: syntax.doc,
            annotations: checkAnnotations(syntax.annotations, on: .enumeration), cases: cases, location: syntax.name.location
        )
    }

    private mutating func buildUnion(_ syntax: UnionSyntax, domain: String) -> UnionDefinition {
        var cases: [UnionCaseDefinition] = []
        var seen: [String: SourceLocation] = [:]
        for unionCase in syntax.cases {
            if let first = seen[unionCase.name.name] {
                diagnostics.append(.duplicateMember(.duplicateUnionCase, what: "case", name: unionCase.name, owner: "union '\(syntax.name.name)'", first: first))
                continue
            }
            seen[unionCase.name.name] = unionCase.name.location
            let annotations = checkAnnotations(unionCase.annotations, on: .unionCase)
            guard let type = resolve(unionCase.type, in: domain) else { continue }
            if type.isOptional {
                diagnostics.append(.unionCaseType(unionCase.name, union: syntax.name.name, problem: "cannot be optional; the union itself can be ('\(syntax.name.name)?')"))
            } else if type.isArray {
                diagnostics.append(.unionCaseType(unionCase.name, union: syntax.name.name, problem: "cannot be an array; use an array of the union instead"))
            } else if case .union = type.base {
                diagnostics.append(.unionCaseType(unionCase.name, union: syntax.name.name, problem: "cannot hold another union; list its cases here instead"))
            }
            cases.append(UnionCaseDefinition(name: unionCase.name.name, type: type, doc: unionCase.doc, annotations: annotations))
        }
        if syntax.cases.isEmpty, !syntax.bodyMissing { diagnostics.append(.emptyUnion(syntax.name)) }
        return UnionDefinition(
            name: QualifiedName(domain: domain, name: syntax.name.name), doc: syntax.doc,
            annotations: checkAnnotations(syntax.annotations, on: .union), cases: cases, location: syntax.name.location
        )
    }

    // MARK: Types

    /// Resolves a written type in the context of `domain`; reports unknown names with a suggestion.
    mutating func resolve(_ syntax: TypeSyntax, in domain: String) -> TypeExpression? {
        if syntax.isMissing { return nil }  // the parser reported it
        let base: NamedType
        if let qualifier = syntax.domain {
            guard order[qualifier.name] != nil else {
                let known = order.keys.sorted()
                diagnostics.append(.unknownDomain(qualifier.name, at: qualifier.location,
                                                  suggestion: EditDistance.closest(to: qualifier.name, among: known), known: known))
                return nil
            }
            guard let found = namedType(QualifiedName(domain: qualifier.name, name: syntax.name.name)) else {
                reportUnknownType(syntax, domain: qualifier.name)
                return nil
            }
            base = found
        } else if let builtin = BuiltinType(rawValue: syntax.name.name) {
            base = .builtin(builtin)
        } else if let found = namedType(QualifiedName(domain: domain, name: syntax.name.name)) {
            base = found
        } else {
            reportUnknownType(syntax, domain: domain)
            return nil
        }
        return TypeExpression(base, isArray: syntax.isArray, isOptional: syntax.isOptional)
    }

    private func namedType(_ name: QualifiedName) -> NamedType? {
        switch table[name] {
        case .entity?: return .entity(name)
        case .enumeration?: return .enumeration(name)
        case .union?: return .union(name)
        case .intent?, nil: return nil
        }
    }

    private mutating func reportUnknownType(_ syntax: TypeSyntax, domain: String) {
        let typeNames = (order[domain] ?? []).filter { if case .intent = $0 { return false } else { return true } }.map(\.name.name)
        var suggestion = EditDistance.closest(to: syntax.name.name, among: BuiltinType.allCases.map(\.rawValue) + typeNames)
        if suggestion == nil, syntax.domain == nil {
            // Declared in another domain: suggest the qualified name.
            let elsewhere = table.keys.filter { $0.name == syntax.name.name && $0.domain != domain && namedType($0) != nil }.sorted()
            suggestion = elsewhere.first?.description
        }
        var diagnostic = Diagnostic.unknownType(syntax.name.name, at: syntax.name.location, length: syntax.name.length, suggestion: suggestion)
        if case .intent? = table[QualifiedName(domain: syntax.domain?.name ?? domain, name: syntax.name.name)] {
            diagnostic = Diagnostic(.unknownType, "'\(syntax.name.name)' is an intent, not a type", at: syntax.name.location, length: syntax.name.length)
        }
        diagnostics.append(diagnostic)
    }

    /// Whether full-text search finds text in values of this type.
    private func holdsText(_ type: TypeExpression, in domain: String, visited: Set<QualifiedName> = []) -> Bool {
        switch type.base {
        case .builtin(let builtin): return builtin.holdsText
        case .enumeration: return false
        case .union(let name):
            guard case .union(let syntax)? = table[name] else { return false }
            return syntax.cases.contains { unionCase in
                BuiltinType(rawValue: unionCase.type.name.name)?.holdsText ?? false
            }
        case .entity(let name):
            guard !visited.contains(name), case .entity(let syntax)? = table[name], syntax.kind == .transient else { return false }
            return syntax.properties.contains { member in
                BuiltinType(rawValue: member.type.name.name)?.holdsText ?? false
            }
        }
    }

    // MARK: Defaults

    /// Decodes a default literal through the registry so defaults obey exactly the rules of
    /// runtime values. Returns nil (after reporting) when it does not fit.
    mutating func checkDefault(_ literal: LiteralSyntax, for name: Identifier, type: TypeExpression, registry: Registry?) -> Value? {
        if case .entity(let entityName) = type.base, table[entityName].map({ if case .entity(let e) = $0 { return e.kind == .indexed } else { return false } }) == true {
            diagnostics.append(.referenceDefault(name, entity: entityName.name, at: literal.location, length: literal.length))
            return nil
        }
        guard let registry else { return nil }
        if case .builtin(let builtin) = type.base, !type.isArray, builtin == .person || builtin == .place {
            diagnostics.append(.invalidDefault(literal, type: type.description, reason: "\(builtin.rawValue) values cannot have a default"))
            return nil
        }
        // Common slips among the built-ins, answered with what to write instead.
        if !type.isArray, case .builtin(let builtin) = type.base {
            var advice: String?
            let unquoted: Bool
            switch literal {
            case .integer, .double, .bool: unquoted = true
            case .name(_, let span): unquoted = !span.isDotted
            case .string, .array: unquoted = false
            }
            switch (builtin, literal) {
            case (.bool, .bool): break
            case (.bool, _): advice = "write true or false"
            case (.int, .double): advice = "an Int is a whole number, such as 1 or -3"
            default:
                if unquoted, builtin.isWrittenAsText { advice = "write text values in quotes, as \"\(literal.spelling)\"" }
            }
            if let advice {
                diagnostics.append(.invalidDefault(literal, type: type.description, reason: advice))
                return nil
            }
        }
        guard let json = jsonForDefault(literal, type: type) else {
            let expected = isEnum(type) ? "write a case name such as .\(enumCases(type).first ?? "case")" : "expected \(registry.describe(type.required))"
            diagnostics.append(.invalidDefault(literal, type: type.description, reason: expected))
            return nil
        }
        do {
            return try registry.decode(json, as: type.required)
        } catch {
            diagnostics.append(.invalidDefault(literal, type: type.description, reason: error.description))
            return nil
        }
    }

    /// Literal → JSON, refusing forms that do not belong to the type (a bare name only for enums).
    private func jsonForDefault(_ literal: LiteralSyntax, type: TypeExpression) -> JSONValue? {
        if type.isArray {
            guard case .array(let items, _) = literal else { return nil }
            var values: [JSONValue] = []
            for item in items {
                guard let value = jsonForDefault(item, type: type.element) else { return nil }
                values.append(value)
            }
            return .array(values)
        }
        switch literal {
        case .string(let text, _): return isEnum(type) ? nil : .string(text)
        case .integer(let number, _): return .int(number)
        case .double(let number, _): return .double(number)
        case .bool(let flag, _): return .bool(flag)
        case .name(let name, _): return isEnum(type) ? .string(name) : nil
        case .array: return nil
        }
    }

    fileprivate func isEnum(_ type: TypeExpression) -> Bool {
        if case .enumeration = type.base { return true }
        return false
    }

    private func enumCases(_ type: TypeExpression) -> [String] {
        guard case .enumeration(let name) = type.base, case .enumeration(let syntax)? = table[name] else { return [] }
        return syntax.cases.map(\.name.name)
    }

    // MARK: Transient containment

    /// A transient entity that contains itself (directly or through others) has no finite value.
    /// The error points at the property that starts the cycle and names every step of it.
    private mutating func checkTransientCycles(_ registry: Registry) {
        var reported = Set<QualifiedName>()
        for entity in registry.allEntities where entity.kind == .transient {
            guard !reported.contains(entity.name),
                  let cycle = findCycle(from: entity.name, registry: registry, path: [])
            else { continue }
            cycle.forEach { reported.insert($0.entity) }
            guard let first = cycle.first, let property = registry.entity(first.entity)?.property(first.property) else { continue }
            let steps = cycle.map { "\($0.entity.name).\($0.property)" } + [entity.name.name]
            diagnostics.append(.recursiveTransient(entity: entity.name.name, property: first.property, type: property.type.description,
                                                   cycle: steps, at: property.location))
        }
    }

    /// The chain of required, single-valued properties leading from `name` back to the start of `path`.
    private func findCycle(from name: QualifiedName, registry: Registry,
                           path: [(entity: QualifiedName, property: String)]) -> [(entity: QualifiedName, property: String)]? {
        guard let entity = registry.entity(name) else { return nil }
        let start = path.first?.entity ?? name
        for property in entity.properties {
            // An array may be empty and an optional absent, so only required single values recurse forever.
            guard !property.type.isOptional, !property.type.isArray,
                  case .entity(let target) = property.type.base, registry.entity(target)?.kind == .transient else { continue }
            let step = path + [(entity: name, property: property.name)]
            if target == start { return step }
            if path.contains(where: { $0.entity == target }) || target == name { continue }
            if let cycle = findCycle(from: target, registry: registry, path: step) { return cycle }
        }
        return nil
    }
}

extension BuiltinType {
    /// Values written as quoted text in defaults (`"PT15M"`, `"2026-06-15"`).
    var isWrittenAsText: Bool {
        switch self {
        case .int, .double, .bool, .person, .place: return false
        case .string, .date, .dateTime, .duration, .url, .uuid, .recurrence: return true
        }
    }
}
