import Foundation

/// Compact JSON written straight into UTF-8 bytes, the way `JSONWriter.compact` writes a tree:
/// keys in the order written, no spaces. The daemon writes its answers with it, without making
/// a `JSONValue` tree first (building the tree was 44% of the daemon's own CPU in a profile of
/// the benchmark's mixed load).
public struct JSONText: JSONSink, CustomStringConvertible {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next item follows another in the same object or array.
    private var followsItem = false
    /// The texts of records written before, copied for an equal record (nil: always written).
    private let recordTexts: RecordTextCache?

    public init(recordTexts: RecordTextCache? = nil) {
        self.recordTexts = recordTexts
        bytes.reserveCapacity(256)
    }

    /// The text of a tree (what `JSONWriter.compact` gives).
    public init(_ tree: JSONValue) {
        self.init()
        write(tree)
    }

    public var description: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if followsItem { bytes.append(UInt8(ascii: ",")) }
        followsItem = true
    }

    public mutating func writeNull() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    public mutating func write(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
    }

    public mutating func write(_ number: Int) {
        separate()
        JSONScalars.append(number, to: &bytes)
    }

    public mutating func write(_ number: Double) {
        separate()
        JSONScalars.append(number, to: &bytes)
    }

    public mutating func write(_ text: String) {
        separate()
        JSONScalars.appendQuoted(text, to: &bytes)
    }

    public mutating func write(_ dateTime: DateTimeValue) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        // A zone name is tzdata's (letters, digits, `/_+-`): nothing in it needs an escape.
        dateTime.appendText(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func write(_ id: UUID) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        id.appendLowercasedText(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        followsItem = false
    }

    public mutating func key(_ name: String) {
        separate()
        JSONScalars.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        followsItem = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        followsItem = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        followsItem = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        followsItem = true
    }

    public mutating func writeRecord(_ record: EntityRecord, _ writing: (inout JSONText) -> Void) {
        guard let recordTexts else {
            writing(&self)
            return
        }
        if let written = recordTexts.bytes(for: record) {
            separate()
            bytes.append(contentsOf: written)
            return
        }
        // Written where it goes, then kept from its first byte (after any comma before it).
        if followsItem {
            bytes.append(UInt8(ascii: ","))
            followsItem = false
        }
        let start = bytes.count
        writing(&self)
        recordTexts.keep(record, bytes: Array(bytes[start...]))
    }

    /// A document written before (a cached record, a whole answer), as the next item.
    public mutating func write(_ written: JSONText) {
        separate()
        bytes.append(contentsOf: written.bytes)
    }

    /// The text of what a writer writes (copying the kept texts of equal records, when given).
    public static func write(recordTexts: RecordTextCache? = nil, _ writing: (inout JSONText) -> Void) -> JSONText {
        var text = JSONText(recordTexts: recordTexts)
        writing(&text)
        return text
    }
}

/// How numbers and strings are spelled, for the text sink and for `JSONWriter`'s pretty form.
enum JSONScalars {
    static func append(_ number: Int, to bytes: inout [UInt8]) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(number.magnitude, to: &bytes)
    }

    static func appendDigits(_ magnitude: UInt, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(truncatingIfNeeded: rest % 10) + 48
                rest /= 10
                count += 1
            } while rest > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Whole numbers below 10^15 keep a `.0` (so a Double reads back as one); others are
    /// Swift's shortest round-trip spelling; NaN and the infinities, which JSON lacks, are null.
    static func append(_ number: Double, to bytes: inout [UInt8]) {
        guard number.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        if number == number.rounded() && abs(number) < 1e15 {
            if number.sign == .minus { bytes.append(UInt8(ascii: "-")) }
            appendDigits(UInt(abs(number)), to: &bytes)
            bytes.append(contentsOf: ".0".utf8)
        } else {
            bytes.append(contentsOf: number.description.utf8)
        }
    }

    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most strings need no escape: copied whole (appending scalar by scalar was a tenth
            // of the daemon's CPU in a perf profile of the benchmark's mixed load).
            if !needsEscape(utf8) {
                bytes.append(contentsOf: utf8)
            } else {
                appendEscaped(utf8, to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any byte starts something written as an escape: a quote, a backslash, a control
    /// character, or U+2028 and U+2029 (E2 80 A8 and E2 80 A9 in UTF-8).
    private static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
            if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return true }
            index += 1
        }
        return false
    }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        let hex = Array("0123456789ABCDEF".utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            switch byte {
            case 0x22: bytes.append(contentsOf: "\\\"".utf8)
            case 0x5C: bytes.append(contentsOf: "\\\\".utf8)
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                bytes.append(contentsOf: (utf8[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 2
            default: bytes.append(byte)
            }
            index += 1
        }
    }
}
