import CometArguments
import CometSchema

/// Command-line flags derived from an intent's parameters, so every optional parameter has a
/// flag without Swift code per parameter: `startDate` → `--start-date` (with the friendlier
/// alias `--start`), Bool `isAllDay` → `--all-day`/`--no-all-day`, array `attendees` →
/// repeatable `--attendee`.
struct IntentFlags {
    struct Flag {
        let parameter: ParameterDefinition
        let long: String
        /// For Bool parameters: the flag that sets false.
        let negative: String?
    }

    /// Friendlier names for common calendar parameters; anything else is derived.
    static let aliases: [String: String] = [
        "startDate": "start", "endDate": "end", "recurrence": "repeat", "virtualLocation": "url",
    ]

    let intent: IntentDefinition
    let flags: [Flag]

    init(intent: IntentDefinition, skipping skipped: Set<String> = []) {
        self.intent = intent
        flags = intent.parameters.filter { !skipped.contains($0.name) }.map { parameter in
            let long = IntentFlags.flagName(parameter)
            let negative = parameter.type == .builtin(.bool, optional: true) || parameter.type == .builtin(.bool) ? "no-" + long : nil
            return Flag(parameter: parameter, long: long, negative: negative)
        }
    }

    static func kebab(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                if !result.isEmpty { result += "-" }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func flagName(_ parameter: ParameterDefinition) -> String {
        if let alias = aliases[parameter.name] { return alias }
        var name = parameter.name
        if parameter.type.base == .builtin(.bool), name.hasPrefix("is"), name.count > 2,
           name[name.index(name.startIndex, offsetBy: 2)].isUppercase {
            name = String(name.dropFirst(2))
        }
        if parameter.type.isArray, name.hasSuffix("s"), name.count > 3 { name.removeLast() }
        return kebab(name)
    }

    /// The option specs for a command: values, Bool on/off switches, repeatable arrays.
    var optionSpecs: [OptionSpec] {
        flags.flatMap { flag -> [OptionSpec] in
            let parameter = flag.parameter
            let help = (parameter.doc?.replacingOccurrences(of: "\n", with: " ") ?? Self.describe(parameter)) + typeHint(parameter)
            if let negative = flag.negative {
                return [.flag(flag.long, help: help), .flag(negative, help: "Sets \(parameter.name) to false.")]
            }
            return [.value(flag.long, valueName: Self.valueName(parameter), repeatable: parameter.type.isArray, help: help)]
        }
    }

    private static func describe(_ parameter: ParameterDefinition) -> String {
        let words = parameter.name.reduce(into: "") { text, character in
            if character.isUppercase { text += " " + character.lowercased() } else { text.append(character) }
        }
        return words.prefix(1).uppercased() + words.dropFirst() + "."
    }

    private func typeHint(_ parameter: ParameterDefinition) -> String {
        if parameter.type.isArray { return " Repeat the flag for several." }
        return ""
    }

    static func valueName(_ parameter: ParameterDefinition) -> String {
        switch parameter.type.base {
        case .builtin(.dateTime): return "when"
        case .builtin(.date): return "date"
        case .builtin(.duration): return "duration"
        case .builtin(.recurrence): return "rule"
        case .builtin(.person): return "person"
        case .builtin(.url): return "url"
        case .entity(let name): return name.name.lowercased()
        case .enumeration(let name): return name.name.prefix(1).lowercased() + name.name.dropFirst()
        default: return "value"
        }
    }

    /// The parameter a `--clear` argument names: a parameter name or its flag.
    func parameter(forClearName name: String) -> ParameterDefinition? {
        intent.parameter(name) ?? flags.first { $0.long == name || $0.long == name.replacingOccurrences(of: "--", with: "") }?.parameter
    }

    var clearableNames: [String] {
        flags.filter { !$0.parameter.isRequired }.map(\.long) + intent.parameters.filter { !$0.isRequired }.map(\.name)
    }

    func flag(for parameter: String) -> Flag? { flags.first { $0.parameter.name == parameter } }
}
