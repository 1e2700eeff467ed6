/// Renders help screens in the style of swift-argument-parser: OVERVIEW,
/// discussion, USAGE, ARGUMENTS, OPTIONS, GLOBAL OPTIONS, EXAMPLES and
/// SUBCOMMANDS, with help text in an aligned column that wraps with a
/// hanging indent.
public enum HelpFormatter {
    /// Total line width of help output.
    static let width = 80
    /// Column where help text starts in ARGUMENTS/OPTIONS/SUBCOMMANDS lists.
    static let helpColumn = 26

    /// Help for the command reached from `root` by following `path`
    /// (subcommand names, as in `ParsedCommand.path`). Names that do not match
    /// a subcommand are ignored, so the deepest valid command is described.
    ///
    /// Options inherited from ancestors are listed under `GLOBAL OPTIONS:`.
    /// The result has no trailing newline.
    public static func render(command root: CommandSpec, path: [String] = []) -> String {
        let chain = root.chain(following: path)
        guard let command = chain.last else { return "" }
        var sections: [[String]] = []

        if !command.abstract.isEmpty {
            sections.append(TextWrapper.wrap(command.abstract, width: width, firstPrefix: "OVERVIEW: ", indent: 10))
        }
        if let discussion = command.discussion, !discussion.isEmpty {
            sections.append(TextWrapper.wrap(discussion, width: width))
        }
        sections.append(TextWrapper.wrapUsage(chain.usage, width: width, firstPrefix: "USAGE: ", indent: 7))

        if !command.positionals.isEmpty {
            sections.append(["ARGUMENTS:"] + command.positionals.flatMap { entry("<\($0.name)>", $0.help) })
        }
        let help = OptionSpec.flag("help", short: "h", help: "Show help information.")
        sections.append(["OPTIONS:"] + (command.options + [help]).flatMap { entry(label(for: $0), $0.help) })

        let inherited = chain.inheritedOptions
        if !inherited.isEmpty {
            sections.append(["GLOBAL OPTIONS:"] + inherited.flatMap { entry(label(for: $0), $0.help) })
        }
        if !command.examples.isEmpty {
            sections.append(["EXAMPLES:"] + command.examples.flatMap { wrapExample($0) })
        }
        if !command.subcommands.isEmpty {
            let helpCommand = ([root.name, "help"] + chain.dropFirst().map(\.name)).joined(separator: " ")
            sections.append(
                ["SUBCOMMANDS:"] + command.subcommands.flatMap { entry($0.name, $0.abstract + ($0.aliases.isEmpty ? "" : " (Also: \($0.aliases.joined(separator: ", ")).)")) }
                    + ["", "  See '\(helpCommand) <subcommand>' for detailed help."]
            )
        }
        return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
    }

    /// A shell command indented by two and broken, where it is wider than the screen, between
    /// words outside quotes, each broken line ending in ` \` so it can still be pasted.
    public static func wrapExample(_ example: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in example {
            if character == " ", quote == nil {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if character == "'" || character == "\"" {
                if quote == character { quote = nil } else if quote == nil { quote = character }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        var lines: [String] = []
        var line = "  "
        for word in words {
            let indent = lines.isEmpty ? 2 : 6
            if line.count > indent, line.count + 1 + word.count + 2 > width {
                lines.append(line + " \\")
                line = String(repeating: " ", count: 6) + word
            } else {
                line += (line.count > indent ? " " : "") + word
            }
        }
        lines.append(line)
        return lines
    }

    /// `-d, --db <path>`; repeatable options end in ` ...`.
    private static func label(for option: OptionSpec) -> String {
        var label = option.short.map { "-\($0), " } ?? ""
        label += option.synopsis
        if option.repeatable { label += " ..." }
        return label
    }

    /// One list entry: the label indented by two, the help text in the help
    /// column (on the next line when the label is too wide to leave a gap).
    private static func entry(_ label: String, _ text: String) -> [String] {
        let indentedLabel = "  " + label
        if indentedLabel.count + 2 <= helpColumn {
            let prefix = indentedLabel + String(repeating: " ", count: helpColumn - indentedLabel.count)
            return TextWrapper.wrap(text, width: width, firstPrefix: prefix, indent: helpColumn)
        }
        guard !text.isEmpty else { return [indentedLabel] }
        return [indentedLabel] + TextWrapper.wrap(
            text, width: width, firstPrefix: String(repeating: " ", count: helpColumn), indent: helpColumn)
    }
}
