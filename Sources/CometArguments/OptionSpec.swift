/// Declarative description of a named option such as `--json` or `--db <path>`.
public struct OptionSpec: Sendable, Equatable {
    /// Whether the option is a boolean switch or carries a value.
    public enum Kind: Sendable, Equatable {
        /// A boolean switch (`--json`); giving it a value (`--json=x`) is an error.
        case flag
        /// Takes exactly one value, written `--db PATH` or `--db=PATH`.
        /// The separate form always consumes the next argument, even if it
        /// starts with `-`, so `--offset -1h` works.
        case value(valueName: String)
    }

    /// Long name without the leading dashes, e.g. `"json"` for `--json`.
    /// Also the key used to read the result from `ParsedCommand`.
    public var long: String
    /// Optional single-character alias, e.g. `"y"` for `-y`.
    public var short: Character?
    public var kind: Kind
    /// When false, giving the option twice is a `duplicateOption` usage error.
    public var repeatable: Bool
    /// One sentence for the help screen.
    public var help: String

    public init(_ long: String, short: Character? = nil, kind: Kind = .flag, repeatable: Bool = false, help: String) {
        self.long = long
        self.short = short
        self.kind = kind
        self.repeatable = repeatable
        self.help = help
    }

    /// Shorthand for a boolean switch.
    public static func flag(_ long: String, short: Character? = nil, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(long, short: short, kind: .flag, repeatable: repeatable, help: help)
    }

    /// Shorthand for an option taking one value, shown as `<valueName>` in help.
    public static func value(
        _ long: String, short: Character? = nil, valueName: String, repeatable: Bool = false, help: String
    ) -> OptionSpec {
        OptionSpec(long, short: short, kind: .value(valueName: valueName), repeatable: repeatable, help: help)
    }

    /// Whether the option carries a value.
    public var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// The value's name (`path`, `this|future|all`), nil for flags.
    public var valueName: String? {
        if case .value(let name) = kind { return name }
        return nil
    }

    /// `--db <path>`, or `--json` for flags: how the option is written in usage and errors.
    var synopsis: String {
        switch kind {
        case .flag: "--\(long)"
        case .value(let valueName): "--\(long) <\(valueName)>"
        }
    }
}
