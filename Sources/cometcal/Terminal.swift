import Foundation

/// Where output goes and how it looks: colour only on a terminal and never with NO_COLOR
/// (https://no-color.org) or --no-color.
struct Terminal {
    let useColor: Bool
    let isInteractive: Bool

    static func detect(noColorFlag: Bool) -> Terminal {
        let environment = ProcessInfo.processInfo.environment
        let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
        let noColor = noColorFlag || (environment["NO_COLOR"].map { !$0.isEmpty } ?? false) || environment["TERM"] == "dumb"
        return Terminal(useColor: stdoutIsTTY && !noColor, isInteractive: stdoutIsTTY && isatty(STDIN_FILENO) == 1)
    }

    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
    }

    func style(_ text: String, _ styles: Style...) -> String {
        guard useColor, !styles.isEmpty else { return text }
        return "\u{1B}[" + styles.map(\.rawValue).joined(separator: ";") + "m" + text + "\u{1B}[0m"
    }

    func out(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func err(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// Text from data (a title, a reply quoting what was said) made safe to print: control
    /// characters other than line breaks and tabs are shown as `\u{1B}`, so an escape sequence
    /// in a calendar never reaches the terminal raw.
    static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value == 0x0A || value == 0x09 || !(value < 0x20 || (0x7F...0x9F).contains(value)) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }
}
