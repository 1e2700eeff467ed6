/// Declarative description of a positional argument such as `<title>`.
public struct PositionalSpec: Sendable, Equatable {
    /// How many command-line words the positional takes.
    public enum Arity: Sendable, Equatable {
        /// Exactly one; missing it is a `missingArgument` usage error.
        case required
        /// Zero or one.
        case optional
        /// Zero or more (`[<dirs> ...]`).
        case variadic
        /// One or more (`<dirs> ...`).
        case variadicAtLeastOne

        /// Words that must be present for this positional.
        var minimum: Int {
            switch self {
            case .required, .variadicAtLeastOne: 1
            case .optional, .variadic: 0
            }
        }
    }

    /// Name shown as `<name>` in help; also the key used to read the result.
    public var name: String
    public var arity: Arity
    /// One sentence for the help screen.
    public var help: String

    public init(_ name: String, arity: Arity = .required, help: String) {
        self.name = name
        self.arity = arity
        self.help = help
    }

    /// `<title>`, `[<title>]`, `[<dirs> ...]` or `<dirs> ...`, as written in usage lines.
    var synopsis: String {
        switch arity {
        case .required: "<\(name)>"
        case .optional: "[<\(name)>]"
        case .variadic: "[<\(name)> ...]"
        case .variadicAtLeastOne: "<\(name)> ..."
        }
    }
}
