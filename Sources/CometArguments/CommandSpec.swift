/// Declarative description of one command in a command tree.
///
/// Specs are plain data so that the parser, the help formatter and the
/// executables all read the same single source of truth; no property wrappers
/// or reflection are involved.
///
/// Options declared on a command are visible to that command *and to every
/// descendant*, so options declared on the root (e.g. `--db`) are global and may
/// appear anywhere after the program name. When a descendant declares an option
/// with the same long name as an ancestor, the nearest declaration wins.
///
/// The names `help`, `--help` and `-h` are reserved: help is built into every
/// level of the tree.
public struct CommandSpec: Sendable, Equatable {
    /// The word typed to select this command (for the root, the program name).
    public var name: String
    /// One-line summary shown in help overviews and subcommand lists.
    public var abstract: String
    /// Optional longer explanation, wrapped at 80 columns in help output.
    public var discussion: String?
    /// Options declared here; inherited by all descendants.
    public var options: [OptionSpec]
    /// Positional arguments, filled in declaration order.
    public var positionals: [PositionalSpec]
    /// Child commands, matched by exact name.
    public var subcommands: [CommandSpec]
    /// Complete example command lines shown under `EXAMPLES:` in help.
    public var examples: [String]
    /// Other words that select this command (`rm` for `delete`); the path keeps `name`.
    public var aliases: [String]

    public init(
        name: String,
        abstract: String,
        discussion: String? = nil,
        options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [],
        subcommands: [CommandSpec] = [],
        examples: [String] = [],
        aliases: [String] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.examples = examples
        self.aliases = aliases
    }

    /// The direct subcommand called `name`, if any.
    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name } ?? subcommands.first { $0.aliases.contains(name) }
    }
}

extension CommandSpec {
    /// The commands from `self` down along `path`, stopping at the first name
    /// that does not match a subcommand. Never empty: starts with `self`.
    func chain(following path: [String]) -> [CommandSpec] {
        var chain = [self]
        for name in path {
            guard let next = chain.last?.subcommand(named: name) else { break }
            chain.append(next)
        }
        return chain
    }
}

extension [CommandSpec] {
    /// Options declared by ancestors (all but the last element) that are not
    /// shadowed by a nearer declaration of the same long name, root first.
    var inheritedOptions: [OptionSpec] {
        guard count > 1 else { return [] }
        var seen = Set((last?.options ?? []).map(\.long))
        var result: [[OptionSpec]] = []
        for command in dropLast().reversed() {
            result.append(command.options.filter { seen.insert($0.long).inserted })
        }
        return result.reversed().flatMap { $0 }
    }

    /// The nearest declaration of `--long`.
    func option(long: String) -> OptionSpec? {
        for command in reversed() {
            if let option = command.options.first(where: { $0.long == long }) { return option }
        }
        return nil
    }

    /// The nearest declaration of `-short`.
    func option(short: Character) -> OptionSpec? {
        for command in reversed() {
            if let option = command.options.first(where: { $0.short == short }) { return option }
        }
        return nil
    }

    /// Every long name visible here, nearest command first; used for suggestions.
    var visibleLongNames: [String] {
        var seen = Set<String>()
        return reversed().flatMap(\.options).map(\.long).filter { seen.insert($0).inserted }
    }

    /// Usage synopsis, e.g. `cometcal schema check [<dirs> ...] [--json]`.
    /// Lists the command's own options; inherited ones are documented under
    /// `GLOBAL OPTIONS:` instead of cluttering every usage line.
    var usage: String {
        guard let command = last else { return "" }
        var parts = map(\.name)
        parts += command.positionals.map(\.synopsis)
        for option in command.options {
            parts.append(option.repeatable ? "[\(option.synopsis) ...]" : "[\(option.synopsis)]")
        }
        if !command.subcommands.isEmpty { parts.append("<subcommand>") }
        return parts.joined(separator: " ")
    }
}
