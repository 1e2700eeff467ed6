/// A lexical token of the schema language.
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case string(String)
        case integer(Int)
        case double(Double)
        case docComment(String)
        case leftBrace, rightBrace, leftParen, rightParen, leftBracket, rightBracket
        case colon, comma, equals, question, at, dot
        case endOfFile
    }

    let kind: Kind
    let location: SourceLocation
    /// Length in columns, for caret underlines.
    let length: Int
    /// True when nothing but whitespace precedes the token on its line (used for error recovery).
    let startsLine: Bool
    /// A string literal missing its closing quote (already reported): the parser does not also
    /// report the delimiters the rest of the line lost.
    var isUnterminated = false

    /// How the token reads in a message ("identifier 'Strng'", "'{'", "end of file").
    var spelling: String {
        switch kind {
        case .identifier(let name): return "'\(name)'"
        case .string(let value): return "string \"\(value)\""
        case .integer(let value): return "number \(value)"
        case .double(let value): return "number \(value)"
        case .docComment: return "doc comment"
        case .leftBrace: return "'{'"
        case .rightBrace: return "'}'"
        case .leftParen: return "'('"
        case .rightParen: return "')'"
        case .leftBracket: return "'['"
        case .rightBracket: return "']'"
        case .colon: return "':'"
        case .comma: return "','"
        case .equals: return "'='"
        case .question: return "'?'"
        case .at: return "'@'"
        case .dot: return "'.'"
        case .endOfFile: return "end of file"
        }
    }

    var identifier: String? {
        if case .identifier(let name) = kind { return name }
        return nil
    }

    func isIdentifier(_ word: String) -> Bool { identifier == word }
}
