/// Greedy word wrapping shared by help and error rendering.
public enum TextWrapper {
    /// Wraps `text` to `width` columns. The first output line starts with
    /// `firstPrefix`, later ones with `indent` spaces. Existing newlines are
    /// kept; words longer than a line are never split. No trailing spaces.
    public static func wrap(_ text: String, width: Int, firstPrefix: String = "", indent: Int = 0) -> [String] {
        var lines: [String] = []
        let indentation = String(repeating: " ", count: indent)
        for (index, sourceLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let prefix = index == 0 ? firstPrefix : indentation
            let words = sourceLine.split(separator: " ").map(String.init)
            lines += wrap(words: words, width: width, firstPrefix: prefix, indentation: indentation)
        }
        return lines
    }

    /// Like `wrap`, but only breaks between whole usage elements, so
    /// `[--db <path>]` or `[<dirs> ...]` are never split across lines.
    static func wrapUsage(_ usage: String, width: Int, firstPrefix: String, indent: Int) -> [String] {
        var units: [String] = []
        var current = ""
        var depth = 0
        for character in usage {
            switch character {
            case "[", "<": depth += 1
            case "]", ">": depth = Swift.max(0, depth - 1)
            default: break
            }
            if character == " ", depth == 0 {
                if !current.isEmpty { units.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { units.append(current) }
        // Keep a trailing "..." with the element it repeats.
        var merged: [String] = []
        for unit in units {
            if unit == "...", let last = merged.popLast() {
                merged.append(last + " ...")
            } else {
                merged.append(unit)
            }
        }
        return wrap(words: merged, width: width, firstPrefix: firstPrefix, indentation: String(repeating: " ", count: indent))
    }

    private static func wrap(words: [String], width: Int, firstPrefix: String, indentation: String) -> [String] {
        var lines: [String] = []
        var line = firstPrefix
        var lineHasWord = false
        for word in words {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = indentation
                lineHasWord = false
            }
            line += lineHasWord ? " " + word : word
            lineHasWord = true
        }
        lines.append(trimmingTrailingSpaces(line))
        return lines
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
