import CometText

extension Checker {
    /// Checks spelling, placement, repetition and arguments of annotations, returning the valid ones.
    mutating func checkAnnotations(_ annotations: [AnnotationSyntax], on target: AnnotationTarget) -> [Annotation] {
        var result: [Annotation] = []
        var firstSeen: [String: SourceLocation] = [:]
        for syntax in annotations {
            let name = syntax.name.name
            guard let spec = AnnotationSpec.byName[name] else {
                let known = AnnotationSpec.all.filter { $0.targets.contains(target) }.map(\.name)
                let suggestion = EditDistance.closest(to: name, among: known)
                    ?? EditDistance.closest(to: name, among: AnnotationSpec.all.map(\.name))
                diagnostics.append(.unknownAnnotation(syntax.name, at: syntax.location, suggestion: suggestion))
                continue
            }
            guard spec.targets.contains(target) else {
                let allowed = AnnotationTarget.allCases.filter { spec.targets.contains($0) }
                diagnostics.append(.misplacedAnnotation(name, on: target, allowed: allowed, at: syntax.location))
                continue
            }
            if let first = firstSeen[name], !spec.repeatable {
                diagnostics.append(.duplicateAnnotation(name, at: syntax.location, first: first))
                continue
            }
            firstSeen[name] = syntax.location
            if let annotation = checkArguments(syntax, spec: spec) { result.append(annotation) }
        }
        return result
    }

    private mutating func checkArguments(_ syntax: AnnotationSyntax, spec: AnnotationSpec) -> Annotation? {
        var positional: [Annotation.Argument] = []
        var labelled: [String: Annotation.Argument] = [:]
        var valid = true
        for argument in syntax.arguments {
            if let label = argument.label {
                guard let kind = spec.labelled[label.name] ?? (spec.openLabels ? .literal : nil) else {
                    let labels = spec.labelled.keys.sorted()
                    let suggestion = EditDistance.closest(to: label.name, among: labels)
                    let accepted = labels.isEmpty ? "it takes no labelled arguments"
                        : "it takes " + labels.map { "'\($0):'" }.joined(separator: ", ")
                    diagnostics.append(.annotationArgument(spec.name, "has no argument '\(label.name):'" + (suggestion == nil ? "; \(accepted)" : ""),
                                                           at: label.location, length: label.length, suggestion: suggestion.map { $0 + ":" }))
                    valid = false
                    continue
                }
                guard labelled[label.name] == nil else {
                    diagnostics.append(.annotationArgument(spec.name, "is given '\(label.name):' twice", at: label.location, length: label.length))
                    valid = false
                    continue
                }
                guard let value = convert(argument.value, kind: kind, spec: spec) else { valid = false; continue }
                labelled[label.name] = value
            } else {
                guard positional.count < spec.positional.count || (spec.variadic && !spec.positional.isEmpty) else {
                    let expected = spec.positional.isEmpty
                        ? (spec.labelled.isEmpty ? "takes no arguments; write it as '@\(spec.name)'" : "takes only labelled arguments")
                        : "takes at most \(spec.positional.count) unlabelled argument"
                    diagnostics.append(.annotationArgument(spec.name, expected, at: argument.value.location, length: argument.value.length))
                    valid = false
                    continue
                }
                guard let value = convert(argument.value, kind: spec.positional[min(positional.count, spec.positional.count - 1)], spec: spec) else { valid = false; continue }
                positional.append(value)
            }
        }
        if positional.count < spec.requiredPositional {
            diagnostics.append(.annotationArgument(spec.name, "needs \(spec.positional[positional.count].rawValue) argument, e.g. @\(spec.name)(\"…\")",
                                                   at: syntax.location, length: spec.name.count + 1))
            valid = false
        }
        if spec.name == "ical", positional.isEmpty, labelled["param"] == nil, valid {
            diagnostics.append(.annotationArgument(spec.name, "needs the iCalendar name it maps to, e.g. @ical(\"SUMMARY\") or @ical(param: \"PARTSTAT\")",
                                                   at: syntax.location, length: spec.name.count + 1))
            valid = false
        }
        guard valid else { return nil }
        return Annotation(name: spec.name, positional: positional, labelled: labelled, location: syntax.location)
    }

    /// `@defaultLength("PT1H")`: a length a new record can last, so a duration of more than nothing.
    mutating func checkDefaultLength(_ annotation: Annotation) {
        guard let text = annotation.firstString else { return }
        if let length = DurationValue(parsing: text), !length.isNegative, length.approximateSeconds > 0 { return }
        diagnostics.append(.annotationArgument("defaultLength", "needs a length of more than nothing, such as \"PT1H\" or \"PT30M\", not \"\(text)\"",
                                               at: annotation.location, length: "defaultLength".count + 1))
    }

    private mutating func convert(_ literal: LiteralSyntax, kind: AnnotationArgumentKind, spec: AnnotationSpec) -> Annotation.Argument? {
        switch (kind, literal) {
        case (.string, .string(let text, _)):
            return .string(text)
        case (.name, .name(let name, _)), (.name, .string(let name, _)):
            return .name(name)
        case (.literal, .string(let text, _)): return .string(text)
        case (.literal, .integer(let number, _)): return .integer(number)
        case (.literal, .double(let number, _)): return .double(number)
        case (.literal, .bool(let flag, _)): return .bool(flag)
        case (.literal, .name(let name, _)): return .name(name.hasPrefix(".") ? String(name.dropFirst()) : name)
        default:
            diagnostics.append(.annotationArgument(spec.name, "expects \(kind.rawValue) here, found \(literal.spelling)", at: literal.location, length: literal.length))
            return nil
        }
    }
}
