/// A man page (roff, `man 7 man` macros) made from the command specs `--help` renders: the
/// root's overview and options, then every command with its usage, description, arguments,
/// options and examples, then the sections the program adds (files, environment, exit status).
public enum ManPage {
    public struct Section: Sendable {
        public let title: String
        /// Each entry is a tagged paragraph (term, text); a nil term is a plain paragraph.
        public let entries: [(term: String?, text: String)]

        public init(title: String, entries: [(term: String?, text: String)]) {
            self.title = title
            self.entries = entries
        }
    }

    public static func render(root: CommandSpec, section: Int = 1, source: String, extra: [Section] = []) -> String {
        var out: [String] = []
        out.append(".TH \(root.name.uppercased()) \(section) \"\" \"\(escape(source))\" \"User Commands\"")
        out.append(".SH NAME")
        out.append("\(root.name) \\- \(escape(root.abstract))")
        out.append(".SH SYNOPSIS")
        out.append(".B \(root.name)")
        out.append("[\\fIoptions\\fR] \\fIcommand\\fR [\\fIarguments\\fR]")
        if let discussion = root.discussion {
            out.append(".SH DESCRIPTION")
            out.append(escape(discussion))
        }
        if !root.options.isEmpty {
            out.append(".SH OPTIONS")
            out += root.options.flatMap(option)
        }
        out.append(".SH COMMANDS")
        for (path, command) in leaves(of: root, path: [root.name]) {
            out.append(".SS \"\(escape(path.joined(separator: " ")))\"")
            var summary = escape(command.abstract)
            if !command.aliases.isEmpty { summary += " Also: " + command.aliases.map { "\\fB\(escape($0))\\fR" }.joined(separator: ", ") + "." }
            out.append(summary)
            out.append(".PP")
            out.append(".nf")
            out.append(escape(usage(of: command, path: path)))
            out.append(".fi")
            if let discussion = command.discussion {
                out.append(".PP")
                out.append(escape(discussion))
            }
            for positional in command.positionals {
                out.append(".TP")
                out.append("\\fI\(escape(positional.name))\\fR")
                out.append(escape(positional.help))
            }
            out += command.options.flatMap(option)
            if !command.examples.isEmpty {
                out.append(".PP")
                out.append("Examples:")
                out.append(".RS")
                out.append(".nf")
                out += command.examples.map(escape)
                out.append(".fi")
                out.append(".RE")
            }
        }
        for extraSection in extra {
            out.append(".SH \(extraSection.title.uppercased())")
            for entry in extraSection.entries {
                if let term = entry.term {
                    out.append(".TP")
                    out.append("\\fB\(escape(term))\\fR")
                } else {
                    out.append(".PP")
                }
                out.append(escape(entry.text))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Every command that runs (has no subcommands), depth first, with its full path.
    private static func leaves(of command: CommandSpec, path: [String]) -> [([String], CommandSpec)] {
        command.subcommands.flatMap { child -> [([String], CommandSpec)] in
            let childPath = path + [child.name]
            return child.subcommands.isEmpty ? [(childPath, child)] : leaves(of: child, path: childPath)
        }
    }

    private static func usage(of command: CommandSpec, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        for positional in command.positionals {
            switch positional.arity {
            case .required: parts.append("<\(positional.name)>")
            case .optional: parts.append("[<\(positional.name)>]")
            case .variadic: parts.append("[<\(positional.name)> ...]")
            case .variadicAtLeastOne: parts.append("<\(positional.name)> ...")
            }
        }
        if !command.options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    private static func option(_ spec: OptionSpec) -> [String] {
        var term = spec.short.map { "\\fB\\-\(escape(String($0)))\\fR, " } ?? ""
        term += "\\fB\\-\\-\(escape(spec.long))\\fR"
        if let value = spec.valueName { term += " \\fI\(escape(value))\\fR" }
        return [".TP", term, escape(spec.help)]
    }

    /// Text made safe for roff: backslashes doubled as `\e`, hyphens as `\-` (so they stay
    /// ASCII hyphens, which people copy), other characters as Unicode escapes, and a line
    /// starting with `.` or `'` guarded by `\&`.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\e"
            case "-": escaped += "\\-"
            default:
                // Non-ASCII as roff's Unicode escapes (\[u2026]): any troff reads them.
                for scalar in character.unicodeScalars {
                    if scalar.isASCII {
                        escaped.unicodeScalars.append(scalar)
                    } else {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                    }
                }
            }
        }
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}
