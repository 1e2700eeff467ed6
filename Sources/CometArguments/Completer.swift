/// Shell completion from the same command specs `--help` renders, so the two never drift. The
/// shell scripts (`ShellScript`) only pass the words typed so far to `cometcal __complete`;
/// this decides what may come next.
public struct Completer {
    /// What the word being typed may be.
    public enum Slot: Equatable, Sendable {
        /// Subcommand names, option names and/or fixed values: the candidates themselves.
        case words([String])
        /// The value of an option or a positional argument whose kind only the program knows:
        /// its value name (`calendar`, `event`, `when`, `path`) or positional name (`files`).
        case value(kind: String, fixed: [String])
    }

    let root: CommandSpec

    public init(root: CommandSpec) {
        self.root = root
    }

    /// `words` are the words after the program name, the last being the one under the cursor
    /// (possibly empty).
    public func slot(for words: [String]) -> Slot {
        let current = words.last ?? ""
        var chain = [root]
        var positionalIndex = 0
        var index = 0
        var afterDoubleDash = false
        let typed = words.dropLast()
        while index < typed.count {
            let word = typed[typed.startIndex + index]
            index += 1
            if afterDoubleDash {
                positionalIndex += 1
                continue
            }
            if word == "--" {
                afterDoubleDash = true
                continue
            }
            if word.hasPrefix("-"), word.count > 1 {
                if word.contains("=") { continue }
                if let option = option(named: word, in: chain), option.takesValue {
                    if index == typed.count { return valueSlot(option) }
                    index += 1
                }
                continue
            }
            if let next = chain.last?.subcommand(named: word), positionalIndex == 0 {
                chain.append(next)
                continue
            }
            positionalIndex += 1
        }
        guard let command = chain.last else { return .words([]) }
        if current.hasPrefix("-"), !afterDoubleDash {
            if let equals = current.firstIndex(of: "="), let option = option(named: String(current[..<equals]), in: chain), option.takesValue {
                return valueSlot(option)
            }
            let options = chain.reversed().flatMap(\.options)
            var names: [String] = []
            for option in options where !names.contains("--" + option.long) { names.append("--" + option.long) }
            return .words((names + ["--help"]).filter { $0.hasPrefix(current) })
        }
        if !command.subcommands.isEmpty, positionalIndex == 0 {
            let names = command.subcommands.flatMap { [$0.name] + $0.aliases } + (chain.count == 1 ? ["help"] : [])
            return .words(names.filter { $0.hasPrefix(current) })
        }
        guard !command.positionals.isEmpty else { return .words([]) }
        let positional = positionalIndex < command.positionals.count ? command.positionals[positionalIndex]
            : (command.positionals.last.flatMap { $0.arity == .variadic || $0.arity == .variadicAtLeastOne ? $0 : nil })
        guard let positional else { return .words([]) }
        return .value(kind: positional.name, fixed: [])
    }

    private func valueSlot(_ option: OptionSpec) -> Slot {
        let name = option.valueName ?? "value"
        if name.contains("|") {
            return .value(kind: "choice", fixed: name.split(separator: "|").map(String.init))
        }
        return .value(kind: name, fixed: [])
    }

    private func option(named word: String, in chain: [CommandSpec]) -> OptionSpec? {
        for command in chain.reversed() {
            for option in command.options {
                if word == "--" + option.long { return option }
                if let short = option.short, word == "-" + String(short) { return option }
            }
        }
        return nil
    }
}
