/// A strict JSON (RFC 8259) parser whose errors say `line:column` and what was expected,
/// so a broken request or file gets an answer a person can act on.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let message: String

    public var description: String { "\(line):\(column): \(message)" }
}

public enum JSONParser {
    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    static let maximumDepth = 512

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try parse(String(decoding: bytes, as: UTF8.self))
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset >= bytes.count }
        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        func error(_ message: String) -> JSONParseError {
            var line = 1
            var column = 1
            var index = 0
            while index < min(offset, bytes.count) {
                if bytes[index] == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if bytes[index] & 0xC0 != 0x80 {
                    column += 1
                }
                index += 1
            }
            return JSONParseError(line: line, column: column, message: message)
        }

        func describeCurrent() -> String {
            guard let byte = current else { return "end of input" }
            if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
            return "byte 0x" + String(byte, radix: 16)
        }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth < JSONParser.maximumDepth else { throw error("JSON nested more than \(JSONParser.maximumDepth) levels deep") }
            guard let byte = current else { throw error("expected a JSON value, found end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("expected a JSON value, found \(describeCurrent())")
            }
        }

        mutating func literal(_ word: String) throws(JSONParseError) {
            let expected = Array(word.utf8)
            guard offset + expected.count <= bytes.count, Array(bytes[offset..<offset + expected.count]) == expected else {
                throw error("expected '\(word)'")
            }
            offset += expected.count
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            offset += 1
            var object = JSONObject()
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                offset += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a string key in object, found \(describeCurrent())") }
                let keyStart = offset
                let key = try parseString()
                if object[key] != nil {
                    offset = keyStart
                    throw error("duplicate key \"\(key)\" in object")
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\", found \(describeCurrent())") }
                offset += 1
                skipWhitespace()
                object[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if current == UInt8(ascii: "}") {
                    offset += 1
                    return .object(object)
                }
                throw error("expected ',' or '}' in object, found \(describeCurrent())")
            }
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            offset += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if current == UInt8(ascii: "]") {
                    offset += 1
                    return .array(items)
                }
                throw error("expected ',' or ']' in array, found \(describeCurrent())")
            }
        }

        /// Reads a string starting at its opening quote. Errors point where a person would look:
        /// an unterminated string at its opening quote (not at the end of the file), a bad
        /// escape at its backslash, a raw control character at itself.
        mutating func parseString() throws(JSONParseError) -> String {
            let stringStart = offset
            offset += 1
            // Most strings hold no escape: made from their bytes at once. Made byte by byte, and
            // through the generic initializer, strings were 49% of the bench's daemon clients'
            // CPU (perf). The bytes came from a String, so they are valid UTF-8.
            var end = offset
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                let start = offset
                offset = end + 1
                return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
            }
            var scalars: [UInt8] = []
            while true {
                guard let byte = current else {
                    offset = stringStart
                    throw error("unterminated string")
                }
                if byte == UInt8(ascii: "\"") {
                    offset += 1
                    break
                }
                if byte < 0x20 { throw error("control character in string; escape it as \\u00\(String(format: "%02X", byte))") }
                if byte != UInt8(ascii: "\\") {
                    scalars.append(byte)
                    offset += 1
                    continue
                }
                let escapeStart = offset
                offset += 1
                guard let escaped = current else {
                    offset = stringStart
                    throw error("unterminated string")
                }
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard var code = hex4() else {
                        offset = escapeStart
                        throw error("expected four hex digits after \\u")
                    }
                    if (0xD800...0xDBFF).contains(code) {
                        guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                            offset = escapeStart
                            throw error("unpaired surrogate in \\u escape")
                        }
                        let lowStart = offset
                        offset += 2
                        guard let low = hex4() else {
                            offset = lowStart
                            throw error("expected four hex digits after \\u")
                        }
                        guard (0xDC00...0xDFFF).contains(low) else {
                            offset = escapeStart
                            throw error("invalid low surrogate in \\u escape")
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        offset = escapeStart
                        throw error("unpaired surrogate in \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else {
                        offset = escapeStart
                        throw error("invalid \\u escape")
                    }
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    offset = escapeStart
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(escaped)))' in string")
                }
            }
            guard let string = String(validating: scalars, as: UTF8.self) else { throw error("string is not valid UTF-8") }
            return string
        }

        /// Exactly four hex digits (no sign, no spaces), or nil without moving.
        mutating func hex4() -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            var code: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                code = code << 4 | UInt32(digit)
            }
            offset += 4
            return code
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONValue {
            let start = offset
            if current == UInt8(ascii: "-") { offset += 1 }
            guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw error("expected a digit") }
            if first == UInt8(ascii: "0") {
                offset += 1
                if let next = current, next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") {
                    offset = start
                    throw error("leading zeros are not allowed in numbers")
                }
            } else {
                digits()
            }
            var isInteger = true
            if current == UInt8(ascii: ".") {
                isInteger = false
                offset += 1
                guard digits() > 0 else { throw error("expected digits after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard digits() > 0 else { throw error("expected digits in exponent") }
            }
            let text = String(decoding: bytes[start..<offset], as: UTF8.self)
            if isInteger, let value = Int(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else {
                offset = start
                throw error("number \(text) is out of range")
            }
            return .double(value)
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                offset += 1
                count += 1
            }
            return count
        }
    }
}
