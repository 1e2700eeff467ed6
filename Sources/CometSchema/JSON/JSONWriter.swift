import Foundation

/// Serializes `JSONValue` deterministically: keys in their order, no trailing spaces.
public enum JSONWriter {
    public static func compact(_ value: JSONValue) -> String {
        var output = ""
        write(value, into: &output, indent: nil, level: 0)
        return output
    }

    /// Two-space indentation, for people and golden files.
    public static func pretty(_ value: JSONValue) -> String {
        var output = ""
        write(value, into: &output, indent: "  ", level: 0)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout String, indent: String?, level: Int) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .int(let number): output += String(number)
        case .double(let number):
            output += number.isFinite ? (number == number.rounded() && abs(number) < 1e15 ? String(format: "%.1f", number) : "\(number)") : "null"
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            if items.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                newline(&output, indent: indent, level: level + 1)
                write(item, into: &output, indent: indent, level: level + 1)
            }
            newline(&output, indent: indent, level: level)
            output += "]"
        case .object(let object):
            if object.count == 0 {
                output += "{}"
                return
            }
            output += "{"
            for (index, member) in object.enumerated() {
                if index > 0 { output += "," }
                newline(&output, indent: indent, level: level + 1)
                writeString(member.key, into: &output)
                output += indent == nil ? ":" : ": "
                write(member.value, into: &output, indent: indent, level: level + 1)
            }
            newline(&output, indent: indent, level: level)
            output += "}"
        }
    }

    private static func newline(_ output: inout String, indent: String?, level: Int) {
        guard let indent else { return }
        output += "\n" + String(repeating: indent, count: level)
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        // Most strings need no escape: copied whole, where appending scalar by scalar was a
        // tenth of the daemon's CPU in a perf profile of the benchmark's mixed load.
        if text.utf8.withContiguousStorageIfAvailable({ !needsEscape($0) }) == true {
            output += text
        } else {
            writeEscaped(text, into: &output)
        }
        output += "\""
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

    private static func writeEscaped(_ text: String, into output: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                output += String(format: "\\u%04X", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
    }
}
