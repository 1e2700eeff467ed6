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

    /// The value after the first ':' outside a quoted parameter value.
    var value: String {
        var quoted = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { quoted.toggle() }
            if character == ":", !quoted { return String(text[text.index(after: index)...]) }
        }
        return ""
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
                var end = newline
                if end > position, buffer[end - 1] == 0x0D { end -= 1 }
                let slice = buffer[position..<end]
                bytesRead += newline + 1 - position
                position = newline + 1
                physicalLine += 1
                return slice
            }
            if finished {
                guard position < buffer.count else { return nil }
                var end = buffer.count
                if buffer[end - 1] == 0x0D { end -= 1 }
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
                return .failure(ICalProblem(line: current.line, uid: nil, message: "the line is not valid UTF-8 (save the file as UTF-8; Latin-1 or Windows-1252 bytes are not decoded by guessing)"))
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
