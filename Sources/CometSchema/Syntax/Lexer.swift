/// Turns schema text into tokens. `//` comments are skipped; `///` comments are kept as doc
/// comments. Every lexical problem becomes a diagnostic and lexing goes on.
struct Lexer {
    private let source: SourceFile
    private var offset = 0
    private var lineHasToken = false
    private(set) var diagnostics: [Diagnostic] = []

    init(source: SourceFile) {
        self.source = source
    }

    static func tokenize(_ source: SourceFile) -> (tokens: [Token], diagnostics: [Diagnostic]) {
        var lexer = Lexer(source: source)
        var tokens: [Token] = []
        while true {
            let token = lexer.next()
            tokens.append(token)
            if token.kind == .endOfFile { break }
        }
        return (tokens, lexer.diagnostics)
    }

    private var bytes: [UInt8] { source.bytes }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        let index = offset + ahead
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func next() -> Token {
        // A loop, not a recursion past unexpected characters: thousands of them in a row (a
        // binary file) overflowed the stack of a debug build (found by the fuzz corpus replay).
        while true {
            if let token = nextOrSkip() { return token }
        }
    }

    /// The next token, or nil after reporting an unexpected character (the caller goes on).
    private mutating func nextOrSkip() -> Token? {
        skipTriviaAndComments()
        let start = offset
        let startsLine = !lineHasToken
        guard let byte = peek() else {
            return make(.endOfFile, from: start, startsLine: startsLine)
        }
        lineHasToken = true
        if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/"), peek(2) == UInt8(ascii: "/") {
            return lexDocComment(startsLine: startsLine)
        }
        switch byte {
        case UInt8(ascii: "{"): offset += 1; return make(.leftBrace, from: start, startsLine: startsLine)
        case UInt8(ascii: "}"): offset += 1; return make(.rightBrace, from: start, startsLine: startsLine)
        case UInt8(ascii: "("): offset += 1; return make(.leftParen, from: start, startsLine: startsLine)
        case UInt8(ascii: ")"): offset += 1; return make(.rightParen, from: start, startsLine: startsLine)
        case UInt8(ascii: "["): offset += 1; return make(.leftBracket, from: start, startsLine: startsLine)
        case UInt8(ascii: "]"): offset += 1; return make(.rightBracket, from: start, startsLine: startsLine)
        case UInt8(ascii: ":"): offset += 1; return make(.colon, from: start, startsLine: startsLine)
        case UInt8(ascii: ","): offset += 1; return make(.comma, from: start, startsLine: startsLine)
        case UInt8(ascii: "="): offset += 1; return make(.equals, from: start, startsLine: startsLine)
        case UInt8(ascii: "?"): offset += 1; return make(.question, from: start, startsLine: startsLine)
        case UInt8(ascii: "@"): offset += 1; return make(.at, from: start, startsLine: startsLine)
        case UInt8(ascii: "."): offset += 1; return make(.dot, from: start, startsLine: startsLine)
        case UInt8(ascii: "\""): return lexString(startsLine: startsLine)
        default:
            if isIdentifierStart(byte) { return lexIdentifier(startsLine: startsLine) }
            if isDigit(byte) || (byte == UInt8(ascii: "-") && peek(1).map(isDigit) == true) {
                return lexNumber(startsLine: startsLine)
            }
            // Report a run of unexpected characters (whole UTF-8 scalars) once and move past
            // it: one diagnostic per character made binary input quadratic (each one's column
            // is counted from its line's start).
            repeat {
                offset = min(bytes.count, offset + utf8Length(leading: bytes[offset]))
            } while offset < bytes.count && isUnexpected(bytes[offset]) && offset - start < 64
            let text = String(decoding: bytes[start..<offset], as: UTF8.self)
            while offset < bytes.count, isUnexpected(bytes[offset]) { offset = min(bytes.count, offset + utf8Length(leading: bytes[offset])) }
            diagnostics.append(.unexpectedCharacter(text, at: source.location(ofOffset: start)))
            return nil
        }
    }

    /// A byte no token starts with, and not space or a line break.
    private func isUnexpected(_ byte: UInt8) -> Bool {
        if isIdentifierStart(byte) || isDigit(byte) { return false }
        return !Lexer.tokenOrSpaceBytes.contains(byte)
    }

    private static let tokenOrSpaceBytes = Set("{}()[]:,=?@.\"/- \t\r\n".utf8)

    private mutating func skipTriviaAndComments() {
        while let byte = peek() {
            if byte == UInt8(ascii: "\n") {
                lineHasToken = false
                offset += 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                offset += 1
            } else if byte == 0xEF, peek(1) == 0xBB, peek(2) == 0xBF, offset == 0 {
                offset += 3  // a UTF-8 byte-order mark at the start of the file
            } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/"), peek(2) != UInt8(ascii: "/") {
                skipToEndOfLine()
            } else if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/"), peek(2) == UInt8(ascii: "/"),
                      peek(3) == UInt8(ascii: "/") {
                skipToEndOfLine()  // "////" is a plain comment, as in Swift
            } else {
                return
            }
        }
    }

    private mutating func skipToEndOfLine() {
        while let byte = peek(), byte != UInt8(ascii: "\n") { offset += 1 }
    }

    private mutating func lexDocComment(startsLine: Bool) -> Token {
        let start = offset
        offset += 3
        if peek() == UInt8(ascii: " ") { offset += 1 }
        let textStart = offset
        skipToEndOfLine()
        var text = String(decoding: bytes[textStart..<offset], as: UTF8.self)
        while text.hasSuffix("\r") { text.removeLast() }
        return make(.docComment(text), from: start, startsLine: startsLine)
    }

    private mutating func lexIdentifier(startsLine: Bool) -> Token {
        let start = offset
        var hyphens: [Int] = []
        while let byte = peek() {
            if isIdentifierStart(byte) || isDigit(byte) {
                offset += 1
            } else if byte == UInt8(ascii: "-"), peek(1).map(isIdentifierStart) == true {
                // "start-date": one mistake, reported once; lexing goes on as if it were camelCase.
                hyphens.append(offset)
                offset += 1
            } else {
                break
            }
        }
        let written = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let first = hyphens.first else {
            return make(.identifier(written), from: start, startsLine: startsLine)
        }
        let camelCase = written.split(separator: "-").enumerated().map { index, part in
            index == 0 ? String(part) : part.prefix(1).uppercased() + part.dropFirst()
        }.joined()
        diagnostics.append(.hyphenInName(written, camelCase: camelCase, at: source.location(ofOffset: first)))
        return make(.identifier(camelCase), from: start, startsLine: startsLine)
    }

    private mutating func lexNumber(startsLine: Bool) -> Token {
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        var sawDot = false
        var malformed = false
        while let byte = peek() {
            if isDigit(byte) || byte == UInt8(ascii: "_") {
                offset += 1
            } else if byte == UInt8(ascii: "."), peek(1).map(isDigit) == true {
                if sawDot { malformed = true }
                sawDot = true
                offset += 1
            } else if isIdentifierStart(byte) {
                malformed = true  // "12abc"
                offset += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        let digits = text.replacingOccurrences(of: "_", with: "")
        let location = source.location(ofOffset: start)
        if !malformed, !sawDot, let value = Int(digits) {
            return make(.integer(value), from: start, startsLine: startsLine)
        }
        if !malformed, sawDot, let value = Double(digits) {
            return make(.double(value), from: start, startsLine: startsLine)
        }
        diagnostics.append(.invalidNumber(text, at: location, length: text.count))
        return make(.integer(0), from: start, startsLine: startsLine)
    }

    private mutating func lexString(startsLine: Bool) -> Token {
        let start = offset
        offset += 1
        var value: [UInt8] = []
        while true {
            guard let byte = peek(), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") || peek(1) != UInt8(ascii: "\n") else {
                var token = make(.string(String(decoding: value, as: UTF8.self)), from: start, startsLine: startsLine)
                token.isUnterminated = true
                diagnostics.append(.unterminatedString(at: token.location, length: token.length))
                return token
            }
            offset += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte != UInt8(ascii: "\\") {
                value.append(byte)
                continue
            }
            let escapeStart = offset - 1
            // A backslash at the end of the line escapes nothing: the string is unterminated.
            guard let escaped = peek(), escaped != UInt8(ascii: "\n"), escaped != UInt8(ascii: "\r") else { continue }
            offset += 1
            switch escaped {
            case UInt8(ascii: "\""): value.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): value.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "n"): value.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): value.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "{"): value.append(contentsOf: Array("\\{".utf8))  // literal brace in phrases
            case UInt8(ascii: "}"): value.append(contentsOf: Array("\\}".utf8))
            default:
                let text = String(decoding: bytes[escapeStart..<offset], as: UTF8.self)
                diagnostics.append(.invalidEscape(text, at: source.location(ofOffset: escapeStart)))
            }
        }
        return make(.string(String(decoding: value, as: UTF8.self)), from: start, startsLine: startsLine)
    }

    private func make(_ kind: Token.Kind, from start: Int, startsLine: Bool) -> Token {
        let location = source.location(ofOffset: start)
        let width = String(decoding: bytes[start..<max(start, offset)], as: UTF8.self).unicodeScalars.count
        return Token(kind: kind, location: location, length: max(1, width), startsLine: startsLine)
    }

    private func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func utf8Length(leading byte: UInt8) -> Int {
        switch byte {
        case 0xF0...0xF7: return 4
        case 0xE0...0xEF: return 3
        case 0xC0...0xDF: return 2
        default: return 1
        }
    }
}
