import CometSchema

/// Human-readable descriptions of the registry for `schema show` and `schema check`.
struct SchemaOverview {
    let registry: Registry
    let terminal: Terminal

    var summaryLine: String {
        let domains = registry.domains
        let entities = domains.reduce(0) { $0 + $1.entities.count }
        let enums = domains.reduce(0) { $0 + $1.enums.count }
        let unions = domains.reduce(0) { $0 + $1.unions.count }
        let intents = domains.reduce(0) { $0 + $1.intents.count }
        let names = domains.map(\.name).joined(separator: ", ")
        return "\(plural(domains.count, "domain")) (\(names)), \(plural(entities, "entity", "entities")), \(plural(enums, "enum")), \(plural(unions, "union")), \(plural(intents, "intent"))"
    }

    func overview() -> String {
        var lines: [String] = []
        for domain in registry.domains {
            lines.append(terminal.style("domain \(domain.name)", .bold))
            if let doc = domain.doc { lines.append(indent(doc, by: 2)) }
            lines.append("")
            if !domain.entities.isEmpty {
                lines.append(heading("ENTITIES"))
                let rows = domain.entities.map { entity -> [String] in
                    let title = entity.titleProperty.map { "title: \($0.name)" } ?? ""
                    return [entity.name.name, entity.kind.rawValue, "\(entity.properties.count) properties", title]
                }
                lines.append(contentsOf: table(rows))
                lines.append("")
            }
            if !domain.enums.isEmpty {
                lines.append(heading("ENUMS"))
                lines.append(contentsOf: table(domain.enums.map { [$0.name.name, $0.cases.map(\.name).joined(separator: " | ")] }))
                lines.append("")
            }
            if !domain.unions.isEmpty {
                lines.append(heading("UNIONS"))
                lines.append(contentsOf: table(domain.unions.map { union in
                    [union.name.name, union.cases.map { "\($0.name): \($0.type)" }.joined(separator: " | ")]
                }))
                lines.append("")
            }
            if !domain.intents.isEmpty {
                lines.append(heading("INTENTS"))
                lines.append(contentsOf: table(domain.intents.map { intent in
                    [intent.name.name, signature(intent), policy(intent)]
                }))
                lines.append("")
            }
        }
        lines.append("Run 'cometcal schema show NAME' for the details of one declaration.")
        return lines.joined(separator: "\n")
    }

    func describe(_ declaration: Declaration) -> String {
        switch declaration {
        case .entity(let entity): return describe(entity)
        case .enumeration(let definition): return describe(definition)
        case .union(let definition): return describe(definition)
        case .intent(let intent): return describe(intent)
        }
    }

    func json(of declaration: Declaration) -> JSONValue { registry.dump(declaration) }

    private func describe(_ entity: EntityDefinition) -> String {
        var lines = [terminal.style("\(entity.kind.rawValue) entity \(entity.name)", .bold)]
        if let doc = entity.doc { lines.append(indent(doc, by: 2)) }
        lines.append("")
        var rows = [["PROPERTY", "TYPE", "DEFAULT", "ICALENDAR", "NOTES"]]
        for property in entity.properties {
            var notes: [String] = []
            if property.annotations.contains(named: "title") { notes.append("title") }
            if property.annotations.contains(named: "subtitle") { notes.append("subtitle") }
            if property.isSearchable { notes.append("searchable") }
            if case .entity(let name) = property.type.base {
                notes.append(registry.entity(name)?.kind == .indexed ? "reference" : "embedded")
            }
            rows.append([property.name, property.type.description, property.defaultValue.map(render) ?? "",
                         ical(property.annotations), notes.joined(separator: ", ")])
        }
        lines.append(contentsOf: table(rows, header: true))
        let docs = entity.properties.compactMap { property in property.doc.map { "  \(property.name): \($0.replacingOccurrences(of: "\n", with: " "))" } }
        if !docs.isEmpty {
            lines.append("")
            lines.append(contentsOf: docs)
        }
        let intents = registry.allIntents.filter { $0.entity == entity.name }
        if !intents.isEmpty {
            lines.append("")
            lines.append("Intents: " + intents.map(\.name.name).joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    private func describe(_ definition: EnumDefinition) -> String {
        var lines = [terminal.style("enum \(definition.name)", .bold)]
        if let doc = definition.doc { lines.append(indent(doc, by: 2)) }
        lines.append("")
        var rows = [["CASE", "ICALENDAR", "DESCRIPTION"]]
        for enumCase in definition.cases {
            rows.append([enumCase.name, ical(enumCase.annotations), enumCase.doc ?? enumCase.annotations.first(named: "display")?.firstString ?? ""])
        }
        lines.append(contentsOf: table(rows, header: true))
        return lines.joined(separator: "\n")
    }

    private func describe(_ definition: UnionDefinition) -> String {
        var lines = [terminal.style("union \(definition.name)", .bold)]
        if let doc = definition.doc { lines.append(indent(doc, by: 2)) }
        lines.append("")
        var rows = [["CASE", "TYPE", "ICALENDAR", "DESCRIPTION"]]
        for unionCase in definition.cases {
            rows.append([unionCase.name, unionCase.type.description, ical(unionCase.annotations), unionCase.doc ?? ""])
        }
        lines.append(contentsOf: table(rows, header: true))
        lines.append("")
        lines.append("In JSON: {\"\(definition.cases.first?.name ?? "case")\": …}, or the bare value when only one case can hold it.")
        return lines.joined(separator: "\n")
    }

    private func describe(_ intent: IntentDefinition) -> String {
        var lines = [terminal.style("intent \(intent.name)", .bold) + "  " + signature(intent)]
        if let doc = intent.doc { lines.append(indent(doc, by: 2)) }
        lines.append("")
        lines.append("Policy: " + (policy(intent).isEmpty ? "runs without confirmation; not undoable" : policy(intent)))
        lines.append("")
        var rows = [["PARAMETER", "TYPE", "REQUIRED", "DEFAULT", "NOTES"]]
        for parameter in intent.parameters {
            var notes: [String] = []
            if parameter.isTarget { notes.append("target") }
            if let prompt = parameter.annotations.first(named: "prompt")?.firstString { notes.append("asks: \"\(prompt)\"") }
            rows.append([parameter.name, parameter.type.description, parameter.isRequired ? "yes" : "no",
                         parameter.defaultValue.map(render) ?? "", notes.joined(separator: "; ")])
        }
        lines.append(contentsOf: table(rows, header: true))
        if !intent.phrases.isEmpty {
            lines.append("")
            lines.append("Phrases:")
            lines.append(contentsOf: intent.phrases.map { "  \"\($0)\"" })
        }
        lines.append("")
        lines.append("Optional parameters have three states: absent (leave as is), a value (set), or cleared (null in JSON, --clear NAME on the command line).")
        return lines.joined(separator: "\n")
    }

    private func signature(_ intent: IntentDefinition) -> String {
        var parts: [String] = []
        if let action = intent.action, let entity = intent.entity { parts.append("\(action.verb) \(entity.name)") }
        if let returns = intent.returns { parts.append("→ \(returns)") }
        let required = intent.parameters.filter(\.isRequired).map(\.name)
        if !required.isEmpty { parts.append("(requires \(required.joined(separator: ", ")))") }
        return parts.joined(separator: " ")
    }

    private func policy(_ intent: IntentDefinition) -> String {
        var parts: [String] = []
        switch intent.confirmation {
        case .never: break
        case .always: parts.append("confirm")
        case .whenTargetHas(let property): parts.append("confirm when it has \(property)")
        }
        if intent.isUndoable { parts.append("undoable") }
        return parts.joined(separator: ", ")
    }

    private func ical(_ annotations: [Annotation]) -> String {
        guard let ical = annotations.first(named: "ical") else { return "" }
        var text = ical.firstString ?? ""
        if let param = ical.string("param") {
            text += (text.isEmpty ? "" : ";") + param + (ical.string("whenTrue").map { "=" + $0 } ?? "")
        }
        if let value = ical.string("value") { text += ";VALUE=\(value)" }
        return text
    }

    private func render(_ value: Value) -> String {
        switch value {
        case .enumCase(let name): return "." + name
        case .array(let items) where items.isEmpty: return "[]"
        case .string(let text): return "\"\(text)\""
        default: return JSONWriter.compact(registry.encode(value))
        }
    }

    private func heading(_ text: String) -> String { terminal.style(text, .bold) }

    /// Left-aligned columns separated by two spaces; trailing blanks trimmed.
    private func table(_ rows: [[String]], header: Bool = false) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.enumerated().map { rowIndex, row in
            var line = "  "
            for (index, cell) in row.enumerated() {
                let padded = index == row.count - 1 ? cell : cell.padding(toLength: widths[index] + 2, withPad: " ", startingAt: 0)
                line += padded
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return header && rowIndex == 0 ? terminal.style(line, .dim) : line
        }
    }

    private func indent(_ text: String, by spaces: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String(repeating: " ", count: spaces) + $0 }.joined(separator: "\n")
    }

    private func plural(_ count: Int, _ singular: String, _ pluralForm: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : (pluralForm ?? singular + "s"))"
    }
}
