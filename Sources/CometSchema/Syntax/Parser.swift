import CometText

/// A recursive-descent parser for schema files. It never stops at the first error: each
/// problem becomes a diagnostic and parsing resumes at the next line or declaration, so one run
/// reports everything wrong with a file.
struct Parser {
    private let source: SourceFile
    private let tokens: [Token]
    private var index = 0
    private(set) var diagnostics: [Diagnostic] = []

    static let declarationKeywords: Set<String> = ["indexed", "transient", "entity", "enum", "union", "intent"]
    static let actionVerbs = ["creates", "updates", "deletes", "opens", "searches"]

    static func parse(_ source: SourceFile) -> (SchemaFileSyntax, [Diagnostic]) {
        let (tokens, lexical) = Lexer.tokenize(source)
        var parser = Parser(source: source, tokens: tokens)
        let file = parser.parseFile()
        return (file, lexical + parser.diagnostics)
    }

    private init(source: SourceFile, tokens: [Token]) {
        self.source = source
        self.tokens = tokens
    }

    // MARK: Token access

    private var current: Token { tokens[min(index, tokens.count - 1)] }
    private var atEnd: Bool { current.kind == .endOfFile }

    private func peek(_ ahead: Int) -> Token {
        tokens[min(index + ahead, tokens.count - 1)]
    }

    @discardableResult
    private mutating func advance() -> Token {
        let token = current
        if !atEnd { index += 1 }
        return token
    }

    private mutating func consume(_ kind: Token.Kind) -> Bool {
        if current.kind == kind {
            advance()
            return true
        }
        return false
    }

    /// Consumes `kind` or reports "expected X, found Y" with context.
    private mutating func expect(_ kind: Token.Kind, _ what: String, context: String) -> Bool {
        if consume(kind) { return true }
        diagnostics.append(.expected(what, found: current, context: context))
        return false
    }

    private mutating func expectIdentifier(_ what: String, context: String) -> Identifier? {
        if case .identifier(let name) = current.kind {
            let token = advance()
            return Identifier(name: name, location: token.location)
        }
        diagnostics.append(.expected(what, found: current, context: context))
        return nil
    }

    // MARK: File and declarations

    private mutating func parseFile() -> SchemaFileSyntax {
        var domain: DomainSyntax?
        var declarations: [DeclarationSyntax] = []
        var sawDeclaration = false
        while !atEnd {
            let start = index
            let (doc, annotations) = parseDocAndAnnotations()
            if current.isIdentifier("domain") {
                let keyword = advance()
                guard let name = expectIdentifier("a domain name", context: "after 'domain'") else {
                    skipToNextDeclaration()
                    continue
                }
                if domain != nil {
                    diagnostics.append(.duplicateDomainDeclaration(at: keyword.location))
                } else if sawDeclaration {
                    diagnostics.append(.domainNotFirst(at: keyword.location))
                    domain = DomainSyntax(name: name, doc: doc, annotations: annotations)
                } else {
                    domain = DomainSyntax(name: name, doc: doc, annotations: annotations)
                }
                continue
            }
            if atEnd { break }
            if domain == nil, !sawDeclaration {
                diagnostics.append(.missingDomain(at: current.location))
            }
            sawDeclaration = true
            if let declaration = parseDeclaration(doc: doc, annotations: annotations) {
                declarations.append(declaration)
            } else if index == start {
                advance()
            }
        }
        return SchemaFileSyntax(source: source, domain: domain, declarations: declarations)
    }

    /// Doc comments and annotations may come in any order before a declaration or member.
    private mutating func parseDocAndAnnotations() -> (String?, [AnnotationSyntax]) {
        var docLines: [String] = []
        var annotations: [AnnotationSyntax] = []
        while true {
            if case .docComment(let text) = current.kind {
                docLines.append(text)
                advance()
            } else if current.kind == .at {
                if let annotation = parseAnnotation() { annotations.append(annotation) }
            } else {
                break
            }
        }
        return (docLines.isEmpty ? nil : docLines.joined(separator: "\n"), annotations)
    }

    private mutating func parseDeclaration(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let keyword = current.identifier else {
            diagnostics.append(.expectedDeclaration(found: current))
            skipToNextDeclaration()
            return nil
        }
        switch keyword {
        case "indexed", "transient":
            let kind = EntityKindSyntax(rawValue: keyword) ?? .indexed
            advance()
            guard expect(.identifier("entity"), "'entity'", context: "after '\(keyword)'") else {
                skipToNextDeclaration()
                return nil
            }
            return parseEntity(kind: kind, doc: doc, annotations: annotations)
        case "entity":
            diagnostics.append(.entityKindMissing(at: current.location))
            return parseEntity(kind: .indexed, doc: doc, annotations: annotations, keywordConsumed: false)
        case "enum":
            advance()
            return parseEnum(doc: doc, annotations: annotations)
        case "union":
            advance()
            return parseUnion(doc: doc, annotations: annotations)
        case "intent":
            advance()
            return parseIntent(doc: doc, annotations: annotations)
        default:
            diagnostics.append(.expectedDeclaration(found: current))
            skipToNextDeclaration()
            return nil
        }
    }

    private mutating func parseEntity(
        kind: EntityKindSyntax, doc: String?, annotations: [AnnotationSyntax], keywordConsumed: Bool = true
    ) -> DeclarationSyntax? {
        if !keywordConsumed { advance() }
        guard let name = expectIdentifier("an entity name", context: "after 'entity'") else {
            skipToNextDeclaration()
            return nil
        }
        let properties = parseMemberBlock(owner: "entity '\(name.name)'", ownerLocation: name.location)
        return .entity(EntitySyntax(name: name, kind: kind, doc: doc, annotations: annotations, properties: properties))
    }

    private mutating func parseEnum(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let name = expectIdentifier("an enum name", context: "after 'enum'") else {
            skipToNextDeclaration()
            return nil
        }
        let owner = "enum '\(name.name)'"
        var cases: [EnumCaseSyntax] = []
        guard openBlock(owner: owner) else { return .enumeration(EnumSyntax(name: name, doc: doc, annotations: annotations, cases: [])) }
        while !atEnd, current.kind != .rightBrace {
            let start = index
            let (caseDoc, caseAnnotations) = parseDocAndAnnotations()
            if current.kind == .rightBrace { break }
            if let caseName = expectIdentifier("a case name", context: "in \(owner)") {
                cases.append(EnumCaseSyntax(name: caseName, doc: caseDoc, annotations: caseAnnotations))
                if current.kind == .colon || current.kind == .equals {
                    diagnostics.append(.enumCaseWithValue(found: current, owner: owner))
                    skipToNextLine()
                }
                _ = consume(.comma)
            } else {
                skipToNextLine(from: start)
            }
        }
        closeBlock(owner: owner, openedAt: name.location)
        return .enumeration(EnumSyntax(name: name, doc: doc, annotations: annotations, cases: cases))
    }

    private mutating func parseUnion(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let name = expectIdentifier("a union name", context: "after 'union'") else {
            skipToNextDeclaration()
            return nil
        }
        let owner = "union '\(name.name)'"
        var cases: [UnionCaseSyntax] = []
        guard openBlock(owner: owner) else { return .union(UnionSyntax(name: name, doc: doc, annotations: annotations, cases: [])) }
        while !atEnd, current.kind != .rightBrace {
            let start = index
            let (caseDoc, caseAnnotations) = parseDocAndAnnotations()
            if current.kind == .rightBrace { break }
            guard let caseName = expectIdentifier("a case name", context: "in \(owner)") else {
                skipToNextLine(from: start)
                continue
            }
            guard expect(.colon, "':'", context: "after case name '\(caseName.name)' (a union case is 'name: Type')"),
                  let type = parseType(context: "for case '\(caseName.name)'")
            else {
                skipToNextLine(from: start)
                continue
            }
            cases.append(UnionCaseSyntax(name: caseName, type: type, doc: caseDoc, annotations: caseAnnotations))
            _ = consume(.comma)
        }
        closeBlock(owner: owner, openedAt: name.location)
        return .union(UnionSyntax(name: name, doc: doc, annotations: annotations, cases: cases))
    }

    private mutating func parseIntent(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let name = expectIdentifier("an intent name", context: "after 'intent'") else {
            skipToNextDeclaration()
            return nil
        }
        var action: IntentActionSyntax?
        var returns: TypeSyntax?
        if let verb = current.identifier, Parser.actionVerbs.contains(verb) {
            let verbToken = advance()
            if let entity = parseType(context: "after '\(verb)'") {
                action = IntentActionSyntax(verb: Identifier(name: verb, location: verbToken.location), entity: entity)
            }
        } else if let word = current.identifier, word != "returns",
                  let guess = EditDistance.closest(to: word, among: Parser.actionVerbs) {
            diagnostics.append(.unknownActionVerb(word, suggestion: guess, at: current.location))
            advance()
            _ = parseType(context: "after '\(word)'")
        }
        if current.isIdentifier("returns") {
            advance()
            returns = parseType(context: "after 'returns'")
        }
        let parameters = parseMemberBlock(owner: "intent '\(name.name)'", ownerLocation: name.location)
        return .intent(IntentSyntax(
            name: name, doc: doc, annotations: annotations, action: action, returns: returns, parameters: parameters
        ))
    }

    // MARK: Blocks and members

    private mutating func openBlock(owner: String) -> Bool {
        if consume(.leftBrace) { return true }
        diagnostics.append(.expected("'{'", found: current, context: "to open \(owner)"))
        skipToNextDeclaration()
        return false
    }

    private mutating func closeBlock(owner: String, openedAt: SourceLocation) {
        if consume(.rightBrace) { return }
        diagnostics.append(.unclosedBlock(owner: owner, found: current, openedAt: openedAt))
    }

    /// `{ member* }` for entity properties and intent parameters.
    private mutating func parseMemberBlock(owner: String, ownerLocation: SourceLocation) -> [MemberSyntax] {
        guard openBlock(owner: owner) else { return [] }
        var members: [MemberSyntax] = []
        while !atEnd, current.kind != .rightBrace {
            if startsTopLevelDeclaration() { break }  // a forgotten '}': let closeBlock report it
            let start = index
            if let member = parseMember(owner: owner) {
                members.append(member)
                _ = consume(.comma)
            } else {
                skipToNextLine(from: start)
            }
        }
        closeBlock(owner: owner, openedAt: ownerLocation)
        return members
    }

    private mutating func parseMember(owner: String) -> MemberSyntax? {
        let (doc, annotations) = parseDocAndAnnotations()
        if current.kind == .rightBrace { return nil }
        guard let name = expectIdentifier("a name", context: "in \(owner)") else { return nil }
        guard expect(.colon, "':'", context: "after '\(name.name)' (write 'name: Type')") else { return nil }
        guard let type = parseType(context: "for '\(name.name)'") else { return nil }
        var defaultValue: LiteralSyntax?
        if consume(.equals) {
            guard let literal = parseLiteral(context: "as the default of '\(name.name)'") else { return nil }
            defaultValue = literal
        }
        if !current.startsLine, current.kind != .rightBrace, current.kind != .comma, !atEnd {
            diagnostics.append(.expected("a new line", found: current, context: "after the declaration of '\(name.name)'"))
            return nil
        }
        return MemberSyntax(name: name, type: type, defaultValue: defaultValue, doc: doc, annotations: annotations)
    }

    private mutating func parseType(context: String) -> TypeSyntax? {
        let start = current.location
        var isArray = false
        if consume(.leftBracket) {
            isArray = true
            if current.kind == .leftBracket {
                diagnostics.append(.nestedArray(at: current.location))
                return nil
            }
        }
        guard let first = expectIdentifier("a type", context: context) else { return nil }
        var domain: Identifier?
        var name = first
        if current.kind == .dot, case .identifier = peek(1).kind {
            advance()
            domain = first
            if let qualified = expectIdentifier("a type", context: context) { name = qualified }
        }
        if isArray {
            if current.kind == .question {
                diagnostics.append(.optionalArrayElement(at: current.location))
                advance()
            }
            guard expect(.rightBracket, "']'", context: "to close the array type") else { return nil }
        }
        let isOptional = consume(.question)
        let endToken = tokens[max(0, index - 1)]
        let length = endToken.location.line == start.line
            ? endToken.location.column + endToken.length - start.column
            : name.length
        return TypeSyntax(domain: domain, name: name, isArray: isArray, isOptional: isOptional, location: start, length: length)
    }

    // MARK: Annotations and literals

    private mutating func parseAnnotation() -> AnnotationSyntax? {
        let at = advance()
        guard let name = expectIdentifier("an annotation name", context: "after '@'") else { return nil }
        var arguments: [AnnotationSyntax.Argument] = []
        if consume(.leftParen) {
            while !atEnd, current.kind != .rightParen {
                var label: Identifier?
                if case .identifier(let word) = current.kind, peek(1).kind == .colon {
                    label = Identifier(name: word, location: current.location)
                    advance()
                    advance()
                }
                guard let value = parseLiteral(context: "in the arguments of '@\(name.name)'") else {
                    skipPast(.rightParen)
                    return AnnotationSyntax(name: name, arguments: arguments, location: at.location)
                }
                arguments.append(.init(label: label, value: value))
                if !consume(.comma) { break }
            }
            if !expect(.rightParen, "')'", context: "to close the arguments of '@\(name.name)'") {
                skipPast(.rightParen)
            }
        }
        return AnnotationSyntax(name: name, arguments: arguments, location: at.location)
    }

    private mutating func parseLiteral(context: String) -> LiteralSyntax? {
        let token = current
        switch token.kind {
        case .string(let value): advance(); return .string(value, token.location)
        case .integer(let value): advance(); return .integer(value, token.location)
        case .double(let value): advance(); return .double(value, token.location)
        case .identifier("true"): advance(); return .bool(true, token.location)
        case .identifier("false"): advance(); return .bool(false, token.location)
        case .identifier(let name): advance(); return .name(name, token.location)
        case .dot:
            advance()
            guard let name = expectIdentifier("a case name", context: "after '.'") else { return nil }
            return .name(name.name, token.location)
        case .leftBracket:
            advance()
            var items: [LiteralSyntax] = []
            while !atEnd, current.kind != .rightBracket {
                guard let item = parseLiteral(context: context) else { return nil }
                items.append(item)
                if !consume(.comma) { break }
            }
            guard expect(.rightBracket, "']'", context: "to close the array literal") else { return nil }
            return .array(items, token.location)
        default:
            diagnostics.append(.expected("a value", found: token, context: context))
            return nil
        }
    }

    // MARK: Recovery

    private func startsTopLevelDeclaration() -> Bool {
        guard current.startsLine, let word = current.identifier else { return false }
        switch word {
        case "indexed", "transient":
            return peek(1).isIdentifier("entity")
        case "enum", "union", "intent", "entity":
            if case .identifier = peek(1).kind { return peek(2).kind == .leftBrace || Parser.actionVerbs.contains(peek(2).identifier ?? "") || peek(2).isIdentifier("returns") }
            return false
        default:
            return false
        }
    }

    /// Skips to the first token on a later line (or a closing brace), guaranteeing progress.
    private mutating func skipToNextLine(from start: Int? = nil) {
        if let start, index == start { advance() }
        while !atEnd, !current.startsLine, current.kind != .rightBrace { advance() }
    }

    private mutating func skipPast(_ kind: Token.Kind) {
        while !atEnd, !current.startsLine, current.kind != kind { advance() }
        _ = consume(kind)
    }

    /// After a broken declaration header: skip to the next line that starts a declaration.
    private mutating func skipToNextDeclaration() {
        var depth = 0
        while !atEnd {
            if current.kind == .leftBrace { depth += 1 }
            if current.kind == .rightBrace {
                depth -= 1
                advance()
                if depth <= 0 { return }
                continue
            }
            if depth <= 0, current.startsLine,
               let word = current.identifier, Parser.declarationKeywords.contains(word) || word == "domain" {
                return
            }
            if depth <= 0, current.startsLine, current.kind == .at || isDocComment(current) { return }
            advance()
        }
    }

    private func isDocComment(_ token: Token) -> Bool {
        if case .docComment = token.kind { return true }
        return false
    }
}
