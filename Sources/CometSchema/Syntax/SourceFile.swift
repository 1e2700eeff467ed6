import Foundation

/// A schema file's text with the line table needed to turn offsets into `line:column`.
public struct SourceFile: Sendable {
    public let path: String
    public let text: String
    /// UTF-8 bytes: the lexer works on bytes so columns count characters only where needed.
    let bytes: [UInt8]
    /// Byte offset at which each line starts (line 1 starts at 0).
    private let lineStarts: [Int]

    public init(path: String, text: String) {
        self.path = path
        self.text = text
        self.bytes = Array(text.utf8)
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        self.lineStarts = starts
    }

    /// Reads a file from disk; the error names the path.
    public static func load(path: String) throws -> SourceFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SchemaLoadError.unreadable(path: path, reason: error.localizedDescription)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SchemaLoadError.notUTF8(path: path)
        }
        return SourceFile(path: path, text: text)
    }

    /// The 1-based line and column of a byte offset; columns count Unicode scalars.
    func location(ofOffset offset: Int) -> SourceLocation {
        let clamped = max(0, min(offset, bytes.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        let lineStart = lineStarts[low]
        let prefix = bytes[lineStart..<clamped]
        let column = (String(decoding: prefix, as: UTF8.self).unicodeScalars.count) + 1
        return SourceLocation(path: path, line: low + 1, column: column, offset: clamped)
    }

    /// The text of a 1-based line without its line terminator.
    public func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] : bytes.count
        while end > start, bytes[end - 1] == UInt8(ascii: "\n") || bytes[end - 1] == UInt8(ascii: "\r") {
            end -= 1
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// A place in a schema file: 1-based line and column, plus the byte offset for ranges.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let line: Int
    public let column: Int
    let offset: Int

    public init(path: String, line: Int, column: Int) {
        self.init(path: path, line: line, column: column, offset: 0)
    }

    init(path: String, line: Int, column: Int, offset: Int) {
        self.path = path
        self.line = line
        self.column = column
        self.offset = offset
    }

    public var description: String { "\(path):\(line):\(column)" }
}

/// Failures to read schema files at all (before any diagnostic can be produced).
public enum SchemaLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notUTF8(path: String)
    case notADirectory(path: String)
    case noSchemaFiles(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): error: cannot read schema file: \(reason)"
        case .notUTF8(let path):
            return "\(path): error: schema file is not valid UTF-8; save it as UTF-8"
        case .notADirectory(let path):
            return "\(path): error: no such schema directory or file"
        case .noSchemaFiles(let path):
            return "\(path): error: no schema files ('*.cal') found; schema files end in '.cal'"
        }
    }
}
