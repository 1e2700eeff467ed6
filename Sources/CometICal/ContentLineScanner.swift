import Foundation

/// One unfolded iCalendar content line and the physical line it starts on.
struct ContentLine {
    let text: String
    let line: Int

    /// The property name: up to the first ';' or ':' (upper-cased).
    var name: String {
        let end = text.firstIndex { $0 == ";" || $0 == ":" } ?? text.endIndex
        return text[..<end].uppercased()
    }

    /// The index of the ':' that separates name and parameters from the value: the first one
    /// outside a quoted parameter value. Nil for a line that has none (a broken fold).
    var valueSeparator: String.Index? {
        var quoted = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { quoted.toggle() }
            if character == ":", !quoted { return index }
        }
        return nil
    }

    /// The value after the first ':' outside a quoted parameter value.
    var value: String {
        guard let separator = valueSeparator else { return "" }
        return String(text[text.index(after: separator)...])
    }

    /// Name and parameters: everything before the value separator.
    var head: Substring {
        text[..<(valueSeparator ?? text.endIndex)]
    }

    /// A line that starts a property as RFC 5545 §3.1 writes one: a name of letters, digits and
    /// dashes, then parameters or the value. A line that does not is the rest of a broken fold,
    /// or text that is not iCalendar.
    var startsProperty: Bool { hasPropertyName && valueSeparator != nil }

    /// The line begins with a property name and ';' or ':' (whether or not its value follows:
    /// an unclosed quote hides it).
    var hasPropertyName: Bool {
        let name = text.prefix { $0 != ";" && $0 != ":" }
        return name.endIndex < text.endIndex && !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// A parameter's value, unquoted (RFC 5545 §3.2) and with RFC 6868 caret escapes decoded.
    func parameter(_ wanted: String) -> String? {
        ContentLine.parameters(of: head).first { $0.name == wanted }?.value
    }

    /// Parameters in order, names upper-cased, values unquoted.
    static func parameters(of head: Substring) -> [(name: String, value: String)] {
        rawParameters(of: head).map { parameter in
            var value = Substring(parameter.value)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return (parameter.name, String(value))
        }
    }

    /// Parameters in order, names upper-cased, values exactly as written (quotes included).
    static func rawParameters(of head: Substring) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var pieces: [Substring] = []
        var quoted = false
        var start = head.startIndex
        for index in head.indices {
            let character = head[index]
            if character == "\"" { quoted.toggle() }
            if character == ";", !quoted {
                pieces.append(head[start..<index])
                start = head.index(after: index)
            }
        }
        pieces.append(head[start...])
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            result.append((piece[..<equals].uppercased(), String(piece[piece.index(after: equals)...])))
        }
        return result
    }
}

/// A problem found while reading a file, with its line.
public struct ICalProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let line: Int
    public let uid: String?
    public let message: String

    public init(line: Int, uid: String?, message: String) {
        self.line = line
        self.uid = uid
        self.message = message
    }

    public var description: String {
        "line \(line)" + (uid.map { " (UID \($0))" } ?? "") + ": " + message
    }
}

/// Reads iCalendar text in chunks and yields unfolded content lines with their line numbers:
/// CRLF or LF endings, a UTF-8 byte-order mark, folding that splits a multi-byte character
/// (bytes are joined before decoding), and invalid UTF-8 reported with its line.
struct ContentLineScanner {
    private let read: (inout [UInt8]) -> Bool
    private var buffer: [UInt8] = []
    private var position = 0
    private var physicalLine = 0
    private var atStart = true
    private var finished = false
    /// Bytes consumed so far (for progress).
    private(set) var bytesRead = 0

    /// `read` appends the next chunk to its argument and returns false at the end of input.
    init(read: @escaping (inout [UInt8]) -> Bool) {
        self.read = read
    }

    static func reading(_ handle: FileHandle, chunkSize: Int = 1 << 16) -> ContentLineScanner {
        ContentLineScanner { buffer in
            let data = handle.readData(ofLength: chunkSize)
            guard !data.isEmpty else { return false }
            buffer.append(contentsOf: data)
            return true
        }
    }

    static func reading(_ text: String) -> ContentLineScanner {
        var pending: [UInt8]? = Array(text.utf8)
        return ContentLineScanner { buffer in
            guard let bytes = pending else { return false }
            buffer.append(contentsOf: bytes)
            pending = nil
            return true
        }
    }

    /// One physical line's bytes (without its terminator), or nil at the end.
    private mutating func physicalLineBytes() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                // Any run of CRs before the LF is one line ending (some tools write CR CR LF).
                var end = newline
                while end > position, buffer[end - 1] == 0x0D { end -= 1 }
                let slice = buffer[position..<end]
                bytesRead += newline + 1 - position
                position = newline + 1
                physicalLine += 1
                return slice
            }
            if finished {
                guard position < buffer.count else { return nil }
                var end = buffer.count
                while end > position, buffer[end - 1] == 0x0D { end -= 1 }
                let slice = buffer[position..<end]
                bytesRead += buffer.count - position
                position = buffer.count
                physicalLine += 1
                return slice
            }
            // Compact what was consumed, then read more.
            if position > 0 {
                buffer.removeSubrange(0..<position)
                position = 0
            }
            if !read(&buffer) { finished = true }
        }
    }

    private var pendingLine: (bytes: [UInt8], line: Int)?

    /// The next unfolded content line, or nil at the end. Blank lines are skipped.
    mutating func next() -> Result<ContentLine, ICalProblem>? {
        while true {
            guard let current = pendingLine ?? nextPhysical() else { return nil }
            pendingLine = nil
            var bytes = current.bytes
            // Continuation lines start with a space or a tab (RFC 5545 §3.1).
            while let following = nextPhysical() {
                if let first = following.bytes.first, first == 0x20 || first == 0x09 {
                    bytes.append(contentsOf: following.bytes.dropFirst())
                } else {
                    pendingLine = following
                    break
                }
            }
            if atStart {
                atStart = false
                if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(ICalProblem(line: current.line, uid: nil, message: "the line is not valid UTF-8; CometCal does not guess an encoding, so convert the file first (for Windows or Latin-1 text: iconv -f WINDOWS-1252 -t UTF-8)"))
            }
            if text.isBlank { continue }
            return .success(ContentLine(text: text, line: current.line))
        }
    }

    private mutating func nextPhysical() -> (bytes: [UInt8], line: Int)? {
        guard let slice = physicalLineBytes() else { return nil }
        return (Array(slice), physicalLine)
    }
}
