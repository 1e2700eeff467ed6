/// RFC 5545 TEXT (§3.3.11): the one place that escapes and unescapes it, so every TEXT value,
/// calendar properties and x-names included, is decoded once on import and encoded once on export.
enum ICalText {
    /// `\n` `\N` → newline, `\,` `\;` `\\` → the character. A wrong `\:` is read as ':' (common
    /// and unambiguous); other unknown escapes (`\t`) are kept literally, backslash included.
    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "n", "N": result.append("\n")
                case ",", ";", "\\", ":": result.append(character)
                default:
                    result.append("\\")
                    result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }

    /// Backslash, semicolon, comma and newline escaped; CR dropped (a line break is one `\n`).
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n", "\r\n": result += "\\n"
            case "\r": continue
            default: result.append(character)
            }
        }
        return result
    }

    /// RFC 6868 caret escapes in a parameter value: `^n` newline, `^'` double quote, `^^` caret.
    static func decodeParameter(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "^")) else { return text }
        var result = ""
        var caret = false
        for character in text {
            if caret {
                switch character {
                case "n", "N": result.append("\n")
                case "'": result.append("\"")
                case "^": result.append("^")
                default:
                    result.append("^")
                    result.append(character)
                }
                caret = false
            } else if character == "^" {
                caret = true
            } else {
                result.append(character)
            }
        }
        if caret { result.append("^") }
        return result
    }

    /// A parameter value as written: RFC 6868 escapes for what a parameter cannot hold, quoted
    /// when it holds a character that would end it.
    static func encodeParameter(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "^": escaped += "^^"
            case "\"": escaped += "^'"
            case "\n", "\r\n": escaped += "^n"
            case "\r": continue
            default: escaped.append(character)
            }
        }
        return escaped.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"\(escaped)\"" : escaped
    }

    /// Folds a content line at 75 octets (RFC 5545 §3.1) without splitting a UTF-8 character,
    /// ending each line with CRLF: for lines written without libical.
    static func fold(_ line: String) -> String {
        // Most lines fit (a perf profile of an export spent a fifth of it here, making a
        // string of each character to measure it).
        if line.utf8.count <= 75 { return line + "\r\n" }
        var result = ""
        var width = 0
        for character in line {
            let size = character.utf8.count
            if width + size > 75 {
                result += "\r\n "
                width = 1
            }
            result.append(character)
            width += size
        }
        return result + "\r\n"
    }
}
