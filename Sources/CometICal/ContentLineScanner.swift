import Foundation

/// One unfolded iCalendar content line and the physical line it starts on. The structure of
/// the line (where the name ends, where the value starts) is found once, on its UTF-8 bytes:
/// every byte that matters (`;`, `:`, `"`, `=`) is ASCII, and an import asks a line for its
/// name, head and value many times (profiles showed Character iteration here as 8% of an import).
struct ContentLine {
    let text: String
    let line: Int
    /// Where the name ends: the first ';' or ':' (the end when there is neither).
    private let nameEnd: String.Index
    /// The ':' that separates name and parameters from the value: the first one outside a
    /// quoted parameter value. Nil for a line that has none (a broken fold).
    let valueSeparator: String.Index?

    init(text: String, line: Int) {
        self.text = text
        self.line = line
        let utf8 = text.utf8
        var nameEnd: String.Index?
        var separator: String.Index?
        var quoted = false
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if nameEnd == nil, byte == 0x3B || byte == 0x3A { nameEnd = index }
            if byte == 0x22 { quoted.toggle() }
            if byte == 0x3A, !quoted {
                separator = index
                break
            }
            index = utf8.index(after: index)
        }
        let end = nameEnd ?? text.endIndex
        self.nameEnd = end
        valueSeparator = separator
        // Made once: every check of a line asks for its name, some several times.
        let raw = text[..<end]
        // Names are ASCII and almost always written in capitals already.
        name = raw.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) || !raw.utf8.allSatisfy({ $0 < 0x80 }) ? raw.uppercased() : String(raw)
    }

    /// The property name: up to the first ';' or ':' (upper-cased).
    let name: String

    /// The value after the first ':' outside a quoted parameter value.
    var value: String {
        guard let separator = valueSeparator else { return "" }
        return String(text[text.utf8.index(after: separator)...])
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
        guard nameEnd < text.endIndex, nameEnd > text.startIndex else { return false }
        return text[..<nameEnd].utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
        }
    }

    /// A parameter's value, unquoted (RFC 5545 §3.2) and with RFC 6868 caret escapes decoded.
    func parameter(_ wanted: String) -> String? {
        // Most lines have none (the name ends at the value's ':'): nothing to parse.
        guard nameEnd != valueSeparator, nameEnd < text.endIndex else { return nil }
        return ContentLine.rawParameter(wanted, in: head).map(ContentLine.unquoted)
    }

    /// Parameters in order, names upper-cased, values unquoted.
    static func parameters(of head: Substring) -> [(name: String, value: String)] {
        rawParameters(of: head).map { parameter in (parameter.name, unquoted(Substring(parameter.value))) }
    }

    private static func unquoted(_ raw: Substring) -> String {
        var value = raw
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
        return String(value)
    }

    /// The first parameter named `wanted` (its name upper-cased, as `rawParameters` gives it),
    /// its value as written. Only that value is made: making every parameter of the line for
    /// each question (a line is asked for VALUE, TZID… several times) was 2% of an import.
    static func rawParameter(_ wanted: String, in head: Substring) -> Substring? {
        let utf8 = head.utf8
        var quoted = false
        var pieceStart: String.Index?
        var equals: String.Index?
        func matches() -> Bool {
            guard let start = pieceStart, let equals else { return false }
            let name = head[start..<equals]
            if name.utf8.allSatisfy({ $0 < 0x80 }), wanted.utf8.allSatisfy({ $0 < 0x80 }) {
                // ASCII: upper-case byte by byte, as `uppercased()` would.
                return name.utf8.count == wanted.utf8.count
                    && zip(name.utf8, wanted.utf8).allSatisfy { ($0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0) == $1 }
            }
            return (name.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) ? name.uppercased() : String(name)) == wanted
        }
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 { quoted.toggle() }
            if byte == 0x3B, !quoted {
                if matches(), let equals { return head[utf8.index(after: equals)..<index] }
                pieceStart = utf8.index(after: index)
                equals = nil
            } else if byte == 0x3D, !quoted, equals == nil, pieceStart != nil {
                equals = index
            }
            index = utf8.index(after: index)
        }
        if matches(), let equals { return head[utf8.index(after: equals)...] }
        return nil
    }

    /// Parameters in order, names upper-cased, values exactly as written (quotes included).
    static func rawParameters(of head: Substring) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        let utf8 = head.utf8
        var quoted = false
        var pieceStart: String.Index?
        var equals: String.Index?
        func finish(_ end: String.Index) {
            guard let start = pieceStart, let equals else { return }
            let name = head[start..<equals]
            let upper = name.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) ? name.uppercased() : String(name)
            result.append((upper, String(head[utf8.index(after: equals)..<end])))
        }
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 { quoted.toggle() }
            if byte == 0x3B, !quoted {
                // The name before the first ';' is the property's: only later pieces are parameters.
                finish(index)
                pieceStart = utf8.index(after: index)
                equals = nil
            } else if byte == 0x3D, !quoted, equals == nil, pieceStart != nil {
                equals = index
            }
            index = utf8.index(after: index)
        }
        finish(utf8.endIndex)
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
    /// Where the search for the next line feed goes on: bytes before it (from `position`) are
    /// known to hold none. Without it, a line longer than a chunk was searched again from its
    /// start after every chunk, which is quadratic in the line's length (a 16 MB inline ATTACH).
    private var searchFrom = 0

    private mutating func physicalLineBytes() -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[max(position, searchFrom)...].firstIndex(of: 0x0A) {
                searchFrom = newline + 1
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
            searchFrom = buffer.count
            // Compact what was consumed, then read more.
            if position > 0 {
                buffer.removeSubrange(0..<position)
                searchFrom -= position
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
