import CometText
/// Parses command-line words against a `CommandSpec` tree.
///
/// Rules, in short:
/// - A bare word that names a subcommand of the current command selects it,
///   as long as no positional has been given to the current command yet.
///   `help` does the same but only selects the command whose help is wanted.
/// - An option is resolved against the current command and its ancestors, so
///   root options are valid anywhere, while a subcommand's own options must
///   follow its name.
/// - `--name=value`, `--name value` (always consumes the next word, even
///   `-1h`), `-x`, clustered short flags `-xy`, and `-d value` / `-dvalue`.
/// - `--` ends option parsing; `-` alone is a positional.
/// - `--help`/`-h` anywhere (before `--`) wins over every other usage error.
public enum ArgumentParser {
    /// Parses `arguments` (without the program name, e.g.
    /// `Array(CommandLine.arguments.dropFirst())`) against `root`.
    public static func parse(_ arguments: [String], root: CommandSpec) throws(UsageError) -> ParsedCommand {
        var parser = Parser(arguments: arguments, root: root)
        do {
            return try parser.run()
        } catch {
            let optionWords = arguments.prefix { $0 != "--" }
            // `--help` wins, but `help <typo>` must still report the typo.
            if parser.helpFlag || optionWords.contains("--help") || optionWords.contains("-h") {
                return parser.result(helpRequested: true, positionals: [:])
            }
            throw error
        }
    }
}

/// Mutable state of one parse; kept private so `ArgumentParser` stays a
/// stateless namespace.
private struct Parser {
    let arguments: [String]
    let root: CommandSpec
    var chain: [CommandSpec]
    var index = 0
    /// `--help` or `-h` was seen.
    var helpFlag = false
    /// The `help` subcommand was seen; following names select the target.
    var helpCommand = false
    var flagCounts: [String: Int] = [:]
    var optionValues: [String: [String]] = [:]
    var positionalWords: [String] = []

    init(arguments: [String], root: CommandSpec) {
        self.arguments = arguments
        self.root = root
        self.chain = [root]
    }

    var current: CommandSpec { chain.last ?? root }
    var path: [String] { chain.dropFirst().map(\.name) }

    mutating func run() throws(UsageError) -> ParsedCommand {
        var optionsEnded = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if optionsEnded {
                positionalWords.append(word)
            } else if helpCommand {
                try selectHelpTarget(word)
            } else if word == "--" {
                optionsEnded = true
            } else if word.hasPrefix("--") {
                try parseLongOption(word)
            } else if word.hasPrefix("-"), word.count > 1 {
                try parseShortOptions(word)
            } else if positionalWords.isEmpty, !current.subcommands.isEmpty {
                if let subcommand = current.subcommand(named: word) {
                    chain.append(subcommand)
                } else if word == "help" {
                    helpCommand = true
                } else if current.positionals.isEmpty {
                    throw unknownCommand(word, orHelp: true)
                } else {
                    positionalWords.append(word)
                }
            } else {
                positionalWords.append(word)
            }
        }
        if helpFlag || helpCommand {
            return result(helpRequested: true, positionals: [:])
        }
        return result(helpRequested: false, positionals: try bindPositionals())
    }

    func result(helpRequested: Bool, positionals: [String: [String]]) -> ParsedCommand {
        ParsedCommand(
            path: path, command: current, isHelpRequested: helpRequested,
            fullPath: chain.map(\.name), usage: chain.usage,
            flagCounts: flagCounts, optionValues: optionValues, positionalValues: positionals
        )
    }

    // MARK: - Subcommands

    /// After `help`: options are ignored, names walk down the tree.
    mutating func selectHelpTarget(_ word: String) throws(UsageError) {
        guard !word.hasPrefix("-") else { return }
        if let subcommand = current.subcommand(named: word) {
            chain.append(subcommand)
        } else if current.subcommands.isEmpty {
            throw error(.unexpectedArgument, "Unexpected argument '\(word)'.")
        } else {
            throw unknownCommand(word)
        }
    }

    /// `orHelp` adds the built-in `help` to the candidates (after the real
    /// subcommands, so they win ties).
    func unknownCommand(_ word: String, orHelp: Bool = false) -> UsageError {
        let names = current.subcommands.map(\.name) + (orHelp ? ["help"] : [])
        var message = "Unknown command '\(word)'."
        if let suggestion = EditDistance.closest(to: word, among: names) {
            message += " Did you mean '\(suggestion)'?"
        }
        return error(.unknownCommand, message)
    }

    // MARK: - Options

    mutating func parseLongOption(_ word: String) throws(UsageError) {
        let body = word.dropFirst(2)
        let name: String
        let inlineValue: String?
        if let equals = body.firstIndex(of: "=") {
            name = String(body[..<equals])
            inlineValue = String(body[body.index(after: equals)...])
        } else {
            name = String(body)
            inlineValue = nil
        }
        if name == "help" {
            helpFlag = true
            return
        }
        guard let option = chain.option(long: name) else {
            throw unknownOption("--\(name)", lookingLike: name)
        }
        switch option.kind {
        case .flag:
            if inlineValue != nil {
                throw error(.unexpectedArgument, "Option '--\(name)' does not take a value.")
            }
            try recordFlag(option)
        case .value:
            let value = if let inlineValue { inlineValue } else { try nextWord(for: option) }
            try recordValue(option, value)
        }
    }

    /// `-y`, `-yq` (cluster of flags), `-d path`, `-dpath`, `-d=path`.
    mutating func parseShortOptions(_ word: String) throws(UsageError) {
        let characters = Array(word.dropFirst())
        var position = 0
        while position < characters.count {
            let character = characters[position]
            position += 1
            if character == "h" {
                helpFlag = true
                continue
            }
            guard let option = chain.option(short: character) else {
                // `-json` is more likely a mistyped `--json` than a cluster.
                if characters.count > 1 {
                    let name = String(characters)
                    if chain.option(long: name) != nil {
                        throw error(.unknownOption, "Unknown option '\(word)'. Did you mean '--\(name)'?")
                    }
                    throw unknownOption(word, lookingLike: name)
                }
                throw unknownOption(word, lookingLike: String(character))
            }
            switch option.kind {
            case .flag:
                try recordFlag(option)
            case .value:
                var rest = String(characters[position...])
                position = characters.count
                if rest.hasPrefix("=") { rest.removeFirst() }
                let value = if rest.isEmpty { try nextWord(for: option) } else { rest }
                try recordValue(option, value)
            }
        }
    }

    mutating func nextWord(for option: OptionSpec) throws(UsageError) -> String {
        guard index < arguments.count else {
            throw error(.missingValue, "Missing value for option '\(option.synopsis)'.")
        }
        defer { index += 1 }
        return arguments[index]
    }

    mutating func recordFlag(_ option: OptionSpec) throws(UsageError) {
        try rejectDuplicate(option)
        flagCounts[option.long, default: 0] += 1
    }

    mutating func recordValue(_ option: OptionSpec, _ value: String) throws(UsageError) {
        try rejectDuplicate(option)
        optionValues[option.long, default: []].append(value)
    }

    func rejectDuplicate(_ option: OptionSpec) throws(UsageError) {
        guard !option.repeatable else { return }
        if flagCounts[option.long] != nil || optionValues[option.long] != nil {
            throw error(.duplicateOption, "Option '--\(option.long)' can only be given once.")
        }
    }

    func unknownOption(_ shown: String, lookingLike name: String) -> UsageError {
        var message = "Unknown option '\(shown)'."
        if let suggestion = EditDistance.closest(to: name, among: chain.visibleLongNames + ["help"]) {
            message += " Did you mean '--\(suggestion)'?"
        }
        return error(.unknownOption, message)
    }

    // MARK: - Positionals

    /// Distributes the positional words over the specs in order. Each spec
    /// takes as many words as it can while leaving enough for the minimums
    /// of the specs after it.
    func bindPositionals() throws(UsageError) -> [String: [String]] {
        let specs = current.positionals
        var bound: [String: [String]] = [:]
        var remaining = positionalWords[...]
        for (offset, spec) in specs.enumerated() {
            let reserved = specs[(offset + 1)...].reduce(0) { $0 + $1.arity.minimum }
            let available = Swift.max(0, remaining.count - reserved)
            let take: Int
            switch spec.arity {
            case .required: take = 1
            case .optional: take = Swift.min(1, available)
            case .variadic: take = available
            case .variadicAtLeastOne: take = Swift.max(1, available)
            }
            if remaining.count < take || take < spec.arity.minimum {
                throw error(.missingArgument, "Missing expected argument '<\(spec.name)>'.")
            }
            bound[spec.name] = Array(remaining.prefix(take))
            remaining = remaining.dropFirst(take)
        }
        if let extra = remaining.first {
            throw error(.unexpectedArgument, "Unexpected argument '\(extra)'.")
        }
        return bound
    }

    // MARK: - Errors

    func error(_ code: UsageError.Code, _ message: String) -> UsageError {
        UsageError(code: code, message: message, commandPath: chain.map(\.name), usage: chain.usage)
    }
}
