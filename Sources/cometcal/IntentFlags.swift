import Foundation
import CometArguments
import CometSchema
import CometIntents

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

    /// `attendees` → `attendee`, `categories` → `category`: one flag per item.
    static func singular(_ name: String) -> String {
        if name.hasSuffix("ies"), name.count > 4 { return String(name.dropLast(3)) + "y" }
        if name.hasSuffix("s"), !name.hasSuffix("ss"), name.count > 3 { return String(name.dropLast()) }
        return name
    }

    static func flagName(_ parameter: ParameterDefinition) -> String {
        if let alias = aliases[parameter.name] { return alias }
        var name = parameter.name
        if parameter.type.base == .builtin(.bool), name.hasPrefix("is"), name.count > 2,
           name[name.index(name.startIndex, offsetBy: 2)].isUppercase {
            name = String(name.dropFirst(2))
        }
        if parameter.type.isArray { name = singular(name) }
        return kebab(name)
    }

    /// The option specs for a command: values, Bool on/off switches, repeatable arrays. Help
    /// comes from the schema's `///` docs, never from the parameter's name.
    func optionSpecs(registry: Registry) -> [OptionSpec] {
        flags.flatMap { flag -> [OptionSpec] in
            let parameter = flag.parameter
            let help = Self.help(for: parameter, of: intent, registry: registry) + (parameter.type.isArray ? " Repeat the flag for several." : "")
            if let negative = flag.negative {
                return [.flag(flag.long, help: help), .flag(negative, help: "The opposite of --\(flag.long).")]
            }
            return [.value(flag.long, valueName: Self.valueName(parameter, registry: registry), repeatable: parameter.type.isArray, help: help)]
        }
    }

    /// What a parameter means, from the first doc that says: the parameter's own, then the
    /// property of the intent's entity it sets, then its type's. A target parameter names the
    /// record the command acts on.
    static func help(for parameter: ParameterDefinition, of intent: IntentDefinition, registry: Registry) -> String {
        if parameter.isTarget, case .entity(let name) = parameter.type.base {
            return "The \(IntentEngine.noun(name, count: 1, in: registry)) to act on: its title (or part of it) or its id."
        }
        let property = intent.entity.flatMap { registry.entity($0)?.property(parameter.name) }
        var typeDoc: String?
        switch parameter.type.base {
        case .enumeration(let name): typeDoc = registry.enumeration(name)?.doc
        case .union(let name): typeDoc = registry.union(name)?.doc
        case .entity(let name): typeDoc = registry.entity(name)?.doc
        case .builtin: typeDoc = nil
        }
        guard let doc = parameter.doc ?? property?.doc ?? typeDoc else { return "" }
        return HelpText.sentence(doc)
    }

    /// `<when>`, `<text>`, and for an enum its cases: `this|future|all`.
    static func valueName(_ parameter: ParameterDefinition, registry: Registry) -> String {
        switch parameter.type.base {
        case .builtin(.dateTime): return "when"
        case .builtin(.date): return "date"
        case .builtin(.duration): return "duration"
        case .builtin(.recurrence): return "rule"
        case .builtin(.person): return "person"
        case .builtin(.url): return "url"
        case .builtin(.string): return parameter.name == "timeZone" ? "zone" : (parameter.name == "color" ? "colour" : "text")
        case .builtin(.int), .builtin(.double): return "number"
        case .entity(let name): return IntentEngine.noun(name, count: 1, in: registry)
        case .enumeration(let name):
            return registry.enumeration(name).map { $0.cases.map(\.name).joined(separator: "|") } ?? "value"
        case .union(let name): return name.name.lowercased()
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

/// Schema docs made into help sentences: one line, no Markdown backticks, a final full stop.
enum HelpText {
    static func sentence(_ doc: String) -> String {
        var text = doc.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        text = text.replacingOccurrences(of: "`", with: "")
        if let last = text.last, !".!?)".contains(last) { text += "." }
        return text
    }
}
