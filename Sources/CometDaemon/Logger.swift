import Foundation

/// Structured log lines on stderr, one event per line: `time=… level=info msg="listening" socket=…`.
public struct Logger: Sendable {
    public let verbose: Bool

    public init(verbose: Bool) { self.verbose = verbose }

    public func info(_ message: String, _ fields: [(String, String)]) { write("info", message, fields) }
    public func error(_ message: String, _ fields: [(String, String)]) { write("error", message, fields) }

    private func write(_ level: String, _ message: String, _ fields: [(String, String)]) {
        var line = "time=\(ISO8601DateFormatter().string(from: Date())) level=\(level) msg=\(Logger.quoted(message))"
        for (key, value) in fields { line += " \(key)=\(Logger.quoted(value))" }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A value as logfmt writes it: bare when it is one plain word, else quoted with escapes.
    static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "=" && scalar != "\\"
        }
        if plain { return value }
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { text += String(format: "\\u%04X", scalar.value) } else { text.unicodeScalars.append(scalar) }
            }
        }
        return text + "\""
    }
}
