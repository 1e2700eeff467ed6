/// The result of parsing a command line: which command was selected and what
/// was given to it. Values are looked up by the names used in the specs;
/// asking for an undeclared name simply returns false / nil / [].
public struct ParsedCommand: Sendable, Equatable {
    /// Subcommand names after the program name, e.g. `["schema", "check"]`;
    /// empty for the root command.
    public let path: [String]
    /// Spec of the selected command, e.g. to notice that a command group was
    /// invoked without a subcommand and print its help instead.
    public let command: CommandSpec
    /// True for `--help`, `-h` (at any level) or `help <subcommand ...>`.
    /// When set, required positionals are not enforced and other usage errors
    /// are suppressed: the caller should print
    /// `HelpFormatter.render(command: root, path: parsed.path)` and exit 0.
    public let isHelpRequested: Bool

    /// Program name plus `path`; context for caller-made usage errors.
    let fullPath: [String]
    /// Usage synopsis of the selected command; context for caller-made usage errors.
    let usage: String
    private let flagCounts: [String: Int]
    private let optionValues: [String: [String]]
    private let positionalValues: [String: [String]]

    init(
        path: [String], command: CommandSpec, isHelpRequested: Bool, fullPath: [String], usage: String,
        flagCounts: [String: Int], optionValues: [String: [String]], positionalValues: [String: [String]]
    ) {
        self.path = path
        self.command = command
        self.isHelpRequested = isHelpRequested
        self.fullPath = fullPath
        self.usage = usage
        self.flagCounts = flagCounts
        self.optionValues = optionValues
        self.positionalValues = positionalValues
    }

    /// Whether the option `--long` appeared at least once (works for value options too).
    public func flag(_ long: String) -> Bool {
        flagCounts[long, default: 0] > 0 || !(optionValues[long]?.isEmpty ?? true)
    }

    /// The value of `--long`; for a repeatable option, the last one given.
    public func value(_ long: String) -> String? {
        optionValues[long]?.last
    }

    /// Every value of `--long` in command-line order.
    public func values(_ long: String) -> [String] {
        optionValues[long] ?? []
    }

    /// The (first) word bound to the positional `name`.
    public func positional(_ name: String) -> String? {
        positionalValues[name]?.first
    }

    /// All words bound to the positional `name`, in order (for variadics).
    public func positionals(_ name: String) -> [String] {
        positionalValues[name] ?? []
    }
}
