import Foundation
import CometSchema

/// Where output goes and how it looks: colour only on a terminal and never with NO_COLOR
/// (https://no-color.org) or --no-color.
struct Terminal {
    let useColor: Bool
    let isInteractive: Bool
    /// How many colours the terminal draws: COLORTERM=truecolor (or 24bit) says 24-bit, a TERM
    /// with 256color says 256, anything else gets the 8 basic ones.
    var depth: ColorDepth = .basic

    enum ColorDepth { case basic, palette256, trueColor }

    static func detect(noColorFlag: Bool) -> Terminal {
        let environment = ProcessInfo.processInfo.environment
        let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
        let noColor = noColorFlag || (environment["NO_COLOR"].map { !$0.isEmpty } ?? false) || environment["TERM"] == "dumb"
        var depth = ColorDepth.basic
        if ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "") {
            depth = .trueColor
        } else if environment["TERM"]?.contains("256color") == true {
            depth = .palette256
        }
        return Terminal(useColor: stdoutIsTTY && !noColor, isInteractive: stdoutIsTTY && isatty(STDIN_FILENO) == 1, depth: depth)
    }

    /// The width to fit lines to: the terminal's (TIOCGWINSZ on standard error, then output),
    /// else $COLUMNS, else 80.
    static var columns: Int {
        var size = winsize()
        for descriptor in [STDERR_FILENO, STDOUT_FILENO] where isatty(descriptor) == 1 {
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return 80
    }

    /// Text drawn in a calendar's own colour (a CSS colour), at the depth the terminal has;
    /// plain when colour is off or the colour is not one.
    func colored(_ text: String, css: String?) -> String {
        guard useColor, let css, let color = CSSColor(parsing: css) else { return text }
        let code: String
        switch depth {
        case .trueColor: code = "38;2;\(color.red);\(color.green);\(color.blue)"
        case .palette256:
            // The 6×6×6 cube of the 256-colour palette.
            func level(_ value: UInt8) -> Int { Int((Double(value) / 255 * 5).rounded()) }
            code = "38;5;\(16 + 36 * level(color.red) + 6 * level(color.green) + level(color.blue))"
        case .basic:
            let bits = (color.red > 127 ? 1 : 0) | (color.green > 127 ? 2 : 0) | (color.blue > 127 ? 4 : 0)
            code = "3\(bits == 0 ? 7 : bits)"
        }
        return "\u{1B}[" + code + "m" + text + "\u{1B}[0m"
    }

    /// A coloured dot for a calendar ("● "), or nothing without colour.
    func swatch(_ css: String?) -> String {
        guard useColor, let css, CSSColor(parsing: css) != nil else { return "" }
        return colored("●", css: css) + " "
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
