import Foundation

/// Serializes `JSONValue` deterministically: keys in their order, no trailing spaces. Numbers
/// and strings are spelled by `JSONScalars`, as `JSONText` spells them.
public enum JSONWriter {
    public static func compact(_ value: JSONValue) -> String {
        JSONText(value).description
    }

    /// Two-space indentation, for people and golden files.
    public static func pretty(_ value: JSONValue) -> String {
        var output: [UInt8] = []
        writePretty(value, into: &output, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private static func writePretty(_ value: JSONValue, into output: inout [UInt8], level: Int) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        case .int(let number): JSONScalars.append(number, to: &output)
        case .double(let number): JSONScalars.append(number, to: &output)
        case .string(let text): JSONScalars.appendQuoted(text, to: &output)
        case .array(let items):
            if items.isEmpty {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, level: level + 1)
                writePretty(item, into: &output, level: level + 1)
            }
            newline(&output, level: level)
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.count == 0 {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(&output, level: level + 1)
                JSONScalars.appendQuoted(member.key, to: &output)
                output.append(contentsOf: ": ".utf8)
                writePretty(member.value, into: &output, level: level + 1)
            }
            newline(&output, level: level)
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ output: inout [UInt8], level: Int) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }
}
