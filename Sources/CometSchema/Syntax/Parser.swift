import CometText

/// A recursive-descent parser for schema files. It never stops at the first error: each
/// problem becomes a diagnostic and parsing resumes at the next line or declaration, so one run
/// reports everything wrong with a file.
struct Parser {
    private let source: SourceFile
    private let tokens: [Token]
    private var index = 0
    private(set) var diagnostics: [Diagnostic] = []
    /// Set after "expected a declaration" until a declaration parses again, so one stretch of
    /// unreadable text is reported once rather than line by line.
    private var skippingUnreadable = false

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

    /// The last token consumed, if any.
    private var previous: Token? { index > 0 ? tokens[index - 1] : nil }

    /// Whether the current token is on a later line than the previous one (or is the end of the file).
    private var lineEnded: Bool {
        guard let previous else { return false }
        return atEnd || current.location.line > previous.location.line
    }

    /// Consumes `kind` or reports "expected X, found Y" with context. With `sameLine`, the token
    /// belongs on the line of what came before it, so a line break counts as not finding it.
    private mutating func expect(_ kind: Token.Kind, _ what: String, context: String, sameLine: Bool = false) -> Bool {
        if !(sameLine && lineEnded), consume(kind) { return true }
        reportExpected(what, context: context, sameLine: sameLine)
        return false
    }

    private mutating func expectIdentifier(_ what: String, context: String, sameLine: Bool = false) -> Identifier? {
        if case .identifier(let name) = current.kind, !(sameLine && lineEnded) {
            let token = advance()
            return Identifier(name: name, location: token.location)
        }
        reportExpected(what, context: context, sameLine: sameLine)
        return nil
    }

    /// Reports "expected X, found Y". When `sameLine` and the line ended first, it says so and
    /// points just past the last token of the line, where the missing piece belongs. Nothing is
    /// reported right after an unterminated string: it swallowed the rest of its line, closing
    /// delimiters included, and has been reported already.
    private mutating func reportExpected(_ what: String, context: String, sameLine: Bool) {
        if let previous, previous.isUnterminated, lineEnded { return }
        if current.isUnterminated { return }  // the string is reported; what it swallowed is unknowable
        if sameLine, lineEnded, let previous, !atEnd || current.location.line > previous.location.line {
            diagnostics.append(.expectedBeforeEndOfLine(what, context: context, at: end(of: previous)))
            return
        }
        diagnostics.append(.expected(what, found: current, context: context))
    }

    /// The column just after a token.
    private func end(of token: Token) -> SourceLocation {
        SourceLocation(path: token.location.path, line: token.location.line, column: token.location.column + token.length,
                       offset: token.location.offset + token.length)
    }

    // MARK: File and declarations

    private mutating func parseFile() -> SchemaFileSyntax {
        var domain: DomainSyntax?
        var domainKeyword: Token?
        var declarations: [DeclarationSyntax] = []
        /// The first declaration, where a missing domain line is reported.
        var firstDeclaration: Token?
        while !atEnd {
            let start = index
            let (doc, annotations) = parseDocAndAnnotations()
            var isDomainLine = current.isIdentifier("domain")
            if !isDomainLine, domainKeyword == nil, let word = current.identifier,
               EditDistance.closest(to: word, among: ["domain"], maxDistance: 1) != nil,
               peek(1).identifier != nil, peek(2).startsLine || peek(2).kind == .endOfFile {
                // `domian calendar`: report the spelling, then read the line as the domain it is.
                diagnostics.append(.expectedDeclaration(found: current, suggestion: "domain"))
                isDomainLine = true
            }
            if isDomainLine {
                let keyword = advance()
                guard let name = expectIdentifier("a domain name", context: "after 'domain'", sameLine: true) else {
                    skipToNextDeclaration()
                    continue
                }
                if let domainKeyword {
                    diagnostics.append(.duplicateDomainDeclaration(at: keyword.location, first: domainKeyword.location))
                } else {
                    if firstDeclaration != nil {
                        diagnostics.append(.domainNotFirst(at: keyword.location))
                    }
                    domain = DomainSyntax(name: name, doc: doc, annotations: annotations)
                    domainKeyword = keyword
                }
                skippingUnreadable = false
                continue
            }
            if atEnd {
                reportDanglingAnnotations(annotations)
                break
            }
            if firstDeclaration == nil { firstDeclaration = current }
            if let declaration = parseDeclaration(doc: doc, annotations: annotations) {
                declarations.append(declaration)
                skippingUnreadable = false
            } else if index == start {
                advance()
            }
        }
        // Reported once, and not at all when the domain line is merely late (that has its own error).
        if domain == nil, let firstDeclaration {
            diagnostics.append(.missingDomain(at: firstDeclaration.location, length: firstDeclaration.length))
        }
        return SchemaFileSyntax(source: source, domain: domain, declarations: declarations)
    }

    /// Annotations followed by the end of their block or file belong to nothing.
    private mutating func reportDanglingAnnotations(_ annotations: [AnnotationSyntax]) {
        guard let last = annotations.last else { return }
        diagnostics.append(.danglingAnnotation(last.name.name, found: current, at: last.location))
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
        guard var keyword = current.identifier else {
            reportExpectedDeclaration(suggestion: nil)
            skipToNextDeclaration()
            return nil
        }
        if !Parser.declarationKeywords.contains(keyword) {
            let suggestion = EditDistance.closest(to: keyword, among: ["indexed", "transient", "enum", "union", "intent", "domain"], maxDistance: 1)
            reportExpectedDeclaration(suggestion: suggestion)
            // A misspelled keyword before a well-formed header (`Intent createTask creates Task {`):
            // read the declaration as if it were spelled right, so its contents are still checked.
            guard let suggestion, looksLikeHeader(of: suggestion) else {
                skipToNextDeclaration()
                return nil
            }
            keyword = suggestion
        }
        switch keyword {
        case "indexed", "transient":
            let kind = EntityKindSyntax(rawValue: keyword) ?? .indexed
            advance()
            if !expect(.identifier("entity"), "'entity'", context: "after '\(keyword)'", sameLine: true) {
                // `indexed Task {`: the name and body are there, so read the entity anyway.
                guard current.identifier != nil, !lineEnded, peek(1).kind == .leftBrace else {
                    skipToNextDeclaration()
                    return nil
                }
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
        default:
            advance()
            return parseIntent(doc: doc, annotations: annotations)
        }
    }

    private mutating func reportExpectedDeclaration(suggestion: String?) {
        if skippingUnreadable { return }
        skippingUnreadable = true
        if current.isUnterminated { return }
        diagnostics.append(.expectedDeclaration(found: current, suggestion: suggestion))
    }

    /// Whether the tokens after the current (misspelled) keyword read like a `keyword` header.
    private func looksLikeHeader(of keyword: String) -> Bool {
        let name = peek(1), third = peek(2)
        guard !name.startsLine else { return false }
        switch keyword {
        case "indexed", "transient":
            return name.isIdentifier("entity")
        case "enum", "union":
            return name.identifier != nil && third.kind == .leftBrace
        case "intent":
            return name.identifier != nil
                && (third.kind == .leftBrace || Parser.actionVerbs.contains(third.identifier ?? "") || third.isIdentifier("returns"))
        default:
            return false
        }
    }

    private mutating func parseEntity(
        kind: EntityKindSyntax, doc: String?, annotations: [AnnotationSyntax], keywordConsumed: Bool = true
    ) -> DeclarationSyntax? {
        if !keywordConsumed { advance() }
        guard let name = expectIdentifier("an entity name", context: "after 'entity'", sameLine: true) else {
            skipToNextDeclaration()
            return nil
        }
        let properties = parseMemberBlock(owner: "entity '\(name.name)'", ownerLocation: name.location)
        return .entity(EntitySyntax(name: name, kind: kind, doc: doc, annotations: annotations, properties: properties ?? [],
                                    bodyMissing: properties == nil))
    }

    private mutating func parseEnum(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let name = expectIdentifier("an enum name", context: "after 'enum'", sameLine: true) else {
            skipToNextDeclaration()
            return nil
        }
        let owner = "enum '\(name.name)'"
        var cases: [EnumCaseSyntax] = []
        guard openBlock(owner: owner) else {
            return .enumeration(EnumSyntax(name: name, doc: doc, annotations: annotations, cases: [], bodyMissing: true))
        }
        while !atEnd, current.kind != .rightBrace {
            if startsTopLevelDeclaration() { break }  // a forgotten '}': let closeBlock report it
            let (caseDoc, caseAnnotations) = parseDocAndAnnotations()
            let start = index
            if current.kind == .rightBrace || atEnd {
                reportDanglingAnnotations(caseAnnotations)
                break
            }
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
        guard let name = expectIdentifier("a union name", context: "after 'union'", sameLine: true) else {
            skipToNextDeclaration()
            return nil
        }
        let owner = "union '\(name.name)'"
        var cases: [UnionCaseSyntax] = []
        guard openBlock(owner: owner) else {
            return .union(UnionSyntax(name: name, doc: doc, annotations: annotations, cases: [], bodyMissing: true))
        }
        while !atEnd, current.kind != .rightBrace {
            if startsTopLevelDeclaration() { break }  // a forgotten '}': let closeBlock report it
            let (caseDoc, caseAnnotations) = parseDocAndAnnotations()
            let start = index
            if current.kind == .rightBrace || atEnd {
                reportDanglingAnnotations(caseAnnotations)
                break
            }
            guard let caseName = expectIdentifier("a case name", context: "in \(owner)") else {
                skipToNextLine(from: start)
                continue
            }
            guard expect(.colon, "':'", context: "after case name '\(caseName.name)' (a union case is 'name: Type')", sameLine: true),
                  let type = parseType(context: "for case '\(caseName.name)'")
            else {
                skipToNextLine(from: start)
                continue
            }
            cases.append(UnionCaseSyntax(name: caseName, type: type, doc: caseDoc, annotations: caseAnnotations))
            if !consume(.comma), !lineEnded, current.kind != .rightBrace {
                diagnostics.append(.expected("a new line", found: current, context: "after case '\(caseName.name)'"))
                skipRestOfLine()
            }
        }
        closeBlock(owner: owner, openedAt: name.location)
        return .union(UnionSyntax(name: name, doc: doc, annotations: annotations, cases: cases))
    }

    private mutating func parseIntent(doc: String?, annotations: [AnnotationSyntax]) -> DeclarationSyntax? {
        guard let name = expectIdentifier("an intent name", context: "after 'intent'", sameLine: true) else {
            skipToNextDeclaration()
            return nil
        }
        var action: IntentActionSyntax?
        var returns: TypeSyntax?
        if let verb = current.identifier, Parser.actionVerbs.contains(verb), !lineEnded {
            let verbToken = advance()
            if let entity = parseType(context: "after '\(verb)'") {
                action = IntentActionSyntax(verb: Identifier(name: verb, location: verbToken.location), entity: entity)
            }
        } else if let word = current.identifier, word != "returns", !lineEnded,
                  peek(1).identifier != nil || peek(1).kind == .leftBracket {
            // `intent createEvent creats Event`: a misspelled verb before the entity.
            let guess = EditDistance.closest(to: word, among: Parser.actionVerbs)
            diagnostics.append(.unknownActionVerb(word, suggestion: guess, at: current.location))
            advance()
            _ = parseType(context: "after '\(word)'")
        } else if current.identifier != nil, !current.isIdentifier("returns"), !lineEnded, peek(1).kind == .leftBrace {
            // `intent createTask Task {`: the verb is missing; skip the word and read the body.
            diagnostics.append(.expected("an action ('creates Task', 'updates Task', …), 'returns Type' or '{'", found: current,
                                         context: "after intent name '\(name.name)'"))
            advance()
        }
        if current.isIdentifier("returns"), !lineEnded {
            advance()
            returns = parseType(context: "after 'returns'")
        }
        let parameters = parseMemberBlock(owner: "intent '\(name.name)'", ownerLocation: name.location)
        return .intent(IntentSyntax(
            name: name, doc: doc, annotations: annotations, action: action, returns: returns, parameters: parameters ?? [],
            bodyMissing: parameters == nil
        ))
    }

    // MARK: Blocks and members

    private mutating func openBlock(owner: String) -> Bool {
        if consume(.leftBrace) { return true }
        reportExpected("'{'", context: "to open \(owner)", sameLine: true)
        // Stray tokens before a '{' on the same line (`intent x creates Ev=ent {`): skip to the '{'.
        if !lineEnded {
            var ahead = 0
            while peek(ahead).kind != .endOfFile, peek(ahead).location.line == current.location.line {
                if peek(ahead).kind == .leftBrace {
                    index += ahead + 1
                    return true
                }
                ahead += 1
            }
        }
        // A forgotten '{' before a body on the following lines: read the body anyway.
        if lineEnded, !atEnd, current.kind != .rightBrace, !startsTopLevelDeclaration(),
           let word = firstWordAfterAnnotations(), !Parser.declarationKeywords.contains(word), word != "domain" {
            return true
        }
        skipToNextDeclaration()
        return false
    }

    private mutating func closeBlock(owner: String, openedAt: SourceLocation) {
        if consume(.rightBrace) { return }
        diagnostics.append(.unclosedBlock(owner: owner, found: current, openedAt: openedAt))
    }

    /// `{ member* }` for entity properties and intent parameters; nil when the block could not be opened.
    private mutating func parseMemberBlock(owner: String, ownerLocation: SourceLocation) -> [MemberSyntax]? {
        guard openBlock(owner: owner) else { return nil }
        var members: [MemberSyntax] = []
        while !atEnd, current.kind != .rightBrace {
            if startsTopLevelDeclaration() { break }  // a forgotten '}': let closeBlock report it
            let start = index
            if let member = parseMember(owner: owner) {
                members.append(member)
                _ = consume(.comma)
            } else if index == start {
                skipToNextLine(from: start)
            }
        }
        closeBlock(owner: owner, openedAt: ownerLocation)
        return members
    }

    /// One `name: Type [= default]` line. Once the name is read the member is kept even if the
    /// rest of the line is broken, so its annotations still count and nothing cascades.
    private mutating func parseMember(owner: String) -> MemberSyntax? {
        let (doc, annotations) = parseDocAndAnnotations()
        if current.kind == .rightBrace || atEnd {
            reportDanglingAnnotations(annotations)
            return nil
        }
        guard let name = expectIdentifier("a name", context: "in \(owner)") else {
            skipToNextLine(from: index)  // the line does not start with a name: skip it, reported token included
            return nil
        }
        let member = { (type: TypeSyntax, defaultValue: LiteralSyntax?) in
            MemberSyntax(name: name, type: type, defaultValue: defaultValue, doc: doc, annotations: annotations)
        }
        if !expect(.colon, "':'", context: "after '\(name.name)' (write '\(name.name): Type')", sameLine: true) {
            // `title String`: only the colon is missing, so read the type; otherwise give up on the line.
            let next = peek(1)
            let typeFollows = !lineEnded && (current.kind == .leftBracket || current.identifier != nil
                && (next.location.line > current.location.line || next.kind == .endOfFile
                    || [.question, .equals, .dot, .comma, .rightBrace].contains(next.kind)))
            guard typeFollows else {
                skipRestOfLine()
                return member(.missing(at: name.location), nil)
            }
        }
        guard let type = parseType(context: "for '\(name.name)'") else {
            skipRestOfLine()
            return member(.missing(at: name.location), nil)
        }
        var defaultValue: LiteralSyntax?
        if current.kind == .equals, !lineEnded {
            advance()
            guard let literal = parseLiteral(context: "as the default of '\(name.name)'") else {
                skipRestOfLine()
                return member(type, nil)
            }
            defaultValue = literal
        }
        if !lineEnded, current.kind != .rightBrace, current.kind != .comma {
            diagnostics.append(.expected("a new line", found: current, context: "after the declaration of '\(name.name)'"))
            skipRestOfLine()
        }
        return member(type, defaultValue)
    }

    private mutating func parseType(context: String) -> TypeSyntax? {
        let start = current.location
        var isArray = false
        if !lineEnded, consume(.leftBracket) {
            isArray = true
            if current.kind == .leftBracket {
                diagnostics.append(.nestedArray(at: current.location))
                return nil
            }
        }
        guard let first = expectIdentifier("a type", context: context, sameLine: true) else { return nil }
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
            guard expect(.rightBracket, "']'", context: "to close the array type", sameLine: true) else { return nil }
        }
        let isOptional = !lineEnded && consume(.question)
        let endToken = tokens[max(0, index - 1)]
        let length = endToken.location.line == start.line
            ? endToken.location.column + endToken.length - start.column
            : name.length
        return TypeSyntax(domain: domain, name: name, isArray: isArray, isOptional: isOptional, location: start, length: length)
    }

    // MARK: Annotations and literals

    private mutating func parseAnnotation() -> AnnotationSyntax? {
        let at = advance()
        guard let name = expectIdentifier("an annotation name", context: "after '@'", sameLine: true) else {
            if !lineEnded, current.kind == .leftParen { skipPast(.rightParen) }  // `@("x")`: its arguments go with it
            return nil
        }
        var arguments: [AnnotationSyntax.Argument] = []
        if !lineEnded, consume(.leftParen) {
            while !atEnd, current.kind != .rightParen {
                var label: Identifier?
                if case .identifier(let word) = current.kind, peek(1).kind == .colon {
                    label = Identifier(name: word, location: current.location)
                    advance()
                    advance()
                }
                guard let value = parseLiteral(context: "in the arguments of '@\(name.name)'", sameLine: false) else {
                    skipPast(.rightParen)
                    return AnnotationSyntax(name: name, arguments: arguments, location: at.location)
                }
                arguments.append(.init(label: label, value: value))
                if !consume(.comma) { break }
            }
            // Arguments may span lines, so may the ')'; when it is missing, say where it belongs.
            if !consume(.rightParen) {
                reportExpected("')'", context: "to close the arguments of '@\(name.name)'", sameLine: true)
                skipPast(.rightParen)
            }
        }
        return AnnotationSyntax(name: name, arguments: arguments, location: at.location)
    }

    /// A default value or annotation argument. With `sameLine`, it must start on the line of what
    /// introduces it (`=`); array items and annotation arguments may continue on later lines.
    private mutating func parseLiteral(context: String, sameLine: Bool = true) -> LiteralSyntax? {
        let token = current
        if sameLine, lineEnded {
            reportExpected("a value", context: context, sameLine: true)
            return nil
        }
        switch token.kind {
        case .string(let value): advance(); return .string(value, span(from: token))
        case .integer(let value): advance(); return .integer(value, span(from: token))
        case .double(let value): advance(); return .double(value, span(from: token))
        case .identifier("true"): advance(); return .bool(true, span(from: token))
        case .identifier("false"): advance(); return .bool(false, span(from: token))
        case .identifier(let name): advance(); return .name(name, span(from: token))
        case .dot:
            advance()
            guard let name = expectIdentifier("a case name", context: "after '.'", sameLine: true) else { return nil }
            var dotted = span(from: token)
            dotted.isDotted = true
            return .name(name.name, dotted)
        case .leftBracket:
            advance()
            var items: [LiteralSyntax] = []
            while !atEnd, current.kind != .rightBracket {
                guard let item = parseLiteral(context: context, sameLine: false) else { return nil }
                items.append(item)
                if !consume(.comma) { break }
            }
            guard expect(.rightBracket, "']'", context: "to close the array literal") else { return nil }
            return .array(items, span(from: token))
        default:
            reportExpected("a value", context: context, sameLine: false)
            return nil
        }
    }

    /// The span from `first` to the last token consumed (or just `first` across lines).
    private func span(from first: Token) -> LiteralSpan {
        let last = previous ?? first
        let length = last.location.line == first.location.line
            ? last.location.column + last.length - first.location.column
            : first.length
        return LiteralSpan(location: first.location, length: length)
    }

    // MARK: Recovery

    /// Whether the current line starts a declaration (perhaps after doc comments and annotations):
    /// inside a block, that means the block's '}' was forgotten.
    private func startsTopLevelDeclaration() -> Bool {
        guard current.startsLine, let (word, at) = firstWordAfterAnnotationsWithIndex() else { return false }
        switch word {
        case "domain":
            return peek(at + 1 - index).identifier != nil && peek(at + 2 - index).startsLine
        case "indexed", "transient":
            return peek(at + 1 - index).isIdentifier("entity")
        case "enum", "union", "intent", "entity":
            guard case .identifier = peek(at + 1 - index).kind else { return false }
            let third = peek(at + 2 - index)
            return third.kind == .leftBrace || Parser.actionVerbs.contains(third.identifier ?? "") || third.isIdentifier("returns")
        default:
            return false
        }
    }

    /// The first identifier after any doc comments and annotations at the current position.
    private func firstWordAfterAnnotations() -> String? {
        firstWordAfterAnnotationsWithIndex()?.word
    }

    private func firstWordAfterAnnotationsWithIndex() -> (word: String, index: Int)? {
        var position = index
        func token(_ at: Int) -> Token { tokens[min(at, tokens.count - 1)] }
        while true {
            switch token(position).kind {
            case .docComment:
                position += 1
            case .at:
                position += 2  // '@' and the name
                if token(position).kind == .leftParen {
                    var depth = 0
                    repeat {
                        if token(position).kind == .leftParen { depth += 1 }
                        if token(position).kind == .rightParen { depth -= 1 }
                        position += 1
                    } while depth > 0 && token(position).kind != .endOfFile && !token(position).startsLine
                }
            case .identifier(let word):
                return (word, position)
            default:
                return nil
            }
        }
    }

    /// Skips to the first token on a later line (or a closing brace), guaranteeing progress.
    private mutating func skipToNextLine(from start: Int? = nil) {
        if let start, index == start { advance() }
        while !atEnd, !current.startsLine, current.kind != .rightBrace { advance() }
    }

    /// Skips what is left of the current line (stopping at a closing brace).
    private mutating func skipRestOfLine() {
        while !atEnd, !lineEnded, current.kind != .rightBrace { advance() }
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
