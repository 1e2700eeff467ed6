import Foundation
import CometText

extension Checker {
    mutating func buildIntent(_ syntax: IntentSyntax, domain: String, registry: Registry?) -> IntentDefinition {
        let intentName = syntax.name.name
        var action: IntentAction?
        var entityName: QualifiedName?
        var entityKind: EntityKind?

        if let actionSyntax = syntax.action, let verb = IntentAction(verb: actionSyntax.verb.name),
           let type = resolve(actionSyntax.entity, in: domain) {
            action = verb
            if case .entity(let name) = type.base, !type.isArray, !type.isOptional, case .entity(let entitySyntax)? = table[name] {
                entityName = name
                entityKind = entitySyntax.kind == .indexed ? .indexed : .transient
                if entitySyntax.kind == .transient {
                    diagnostics.append(.transientMisuse(
                        "intent '\(intentName)' \(actionSyntax.verb.name) transient entity '\(name.name)'; only indexed entities are stored on their own, so act on the entity that holds it",
                        at: actionSyntax.entity.location, length: actionSyntax.entity.length))
                }
            } else {
                diagnostics.append(.intentActionNotEntity(intentName, verb: actionSyntax.verb.name, type: type.description,
                                                          at: actionSyntax.entity.location, length: actionSyntax.entity.length))
            }
        }

        let returns = checkReturnType(syntax, domain: domain, action: action, entity: entityName)
        let parameters = buildParameters(syntax, domain: domain, registry: registry)
        checkTarget(syntax, parameters: parameters, action: action, entity: entityName, entityKind: entityKind)
        if let action, let entityName, action == .create || action == .update {
            checkParameterProperties(syntax, parameters: parameters, entity: entityName)
        }

        let annotations = checkAnnotations(syntax.annotations, on: .intent)
        var confirmation = ConfirmationPolicy.never
        if let confirm = annotations.first(named: "confirm") {
            confirmation = .always
            if case .name(let property)? = confirm.labelled["when"] {
                confirmation = .whenTargetHas(property: property)
                checkConfirmProperty(property, syntax: syntax, entity: entityName)
            }
        }
        let phrases = annotations.filter { $0.name == "phrase" }.compactMap { annotation -> Phrase? in
            guard let text = annotation.firstString else { return nil }
            // Point into the string itself, not at the '@'.
            let written = syntax.annotations.first { $0.location == annotation.location }?.arguments.first?.value
            guard let phrase = checkPhrase(text, literal: written?.span ?? LiteralSpan(location: annotation.location, length: 1),
                                           intent: syntax) else { return nil }
            return checkPhraseConstants(phrase, annotation: annotation, parameters: parameters, intent: syntax)
        }
        checkRoles(parameters, syntax: syntax)
        checkReminders(parameters, annotations: annotations)
        return IntentDefinition(
            name: QualifiedName(domain: domain, name: intentName), doc: syntax.doc, annotations: annotations,
            action: action, entity: entityName, returns: returns, parameters: parameters,
            confirmation: confirmation, isUndoable: annotations.contains(named: "undoable"), phrases: phrases,
            location: syntax.name.location
        )
    }

    /// create/update/open return the entity, search an array of it, delete nothing; an omitted
    /// `returns` takes that default so the registry always says what comes back.
    private mutating func checkReturnType(_ syntax: IntentSyntax, domain: String, action: IntentAction?, entity: QualifiedName?) -> TypeExpression? {
        let expected: TypeExpression? = entity.flatMap { name in
            switch action {
            case .create?, .update?, .open?: return TypeExpression(.entity(name))
            case .search?: return TypeExpression(.entity(name), isArray: true)
            case .delete?, nil: return nil
            }
        }
        guard let returnsSyntax = syntax.returns else { return expected }
        guard let returns = resolve(returnsSyntax, in: domain) else { return expected }
        if let action, let entity, action != .delete, returns != expected, let expected {
            diagnostics.append(.returnType(syntax.name.name, verb: action.verb, entity: entity.name, expected: expected.description,
                                           found: returns.description, at: returnsSyntax.location, length: returnsSyntax.length))
        }
        return returns
    }

    private mutating func buildParameters(_ syntax: IntentSyntax, domain: String, registry: Registry?) -> [ParameterDefinition] {
        var parameters: [ParameterDefinition] = []
        var seen: [String: SourceLocation] = [:]
        for member in syntax.parameters {
            if let first = seen[member.name.name] {
                diagnostics.append(.duplicateMember(.duplicateParameter, what: "parameter", name: member.name, owner: "intent '\(syntax.name.name)'", first: first))
                continue
            }
            seen[member.name.name] = member.name.location
            let annotations = checkAnnotations(member.annotations, on: .parameter)
            guard let type = resolve(member.type, in: domain) else { continue }
            var defaultValue: Value?
            if let literal = member.defaultValue {
                if type.isOptional {
                    defaultValue = checkDefault(literal, for: member.name, type: type, registry: registry)
                } else {
                    diagnostics.append(.requiredParameterWithDefault(member.name, type: type.description, at: literal.location, length: literal.length))
                }
            }
            parameters.append(ParameterDefinition(
                name: member.name.name, type: type, defaultValue: defaultValue, doc: member.doc,
                annotations: annotations, location: member.name.location
            ))
        }
        return parameters
    }

    private mutating func checkTarget(_ syntax: IntentSyntax, parameters: [ParameterDefinition], action: IntentAction?, entity: QualifiedName?, entityKind: EntityKind?) {
        let targets = parameters.filter(\.isTarget)
        let nameOf = { (parameter: ParameterDefinition) -> Identifier in
            syntax.parameters.first { $0.name.name == parameter.name }?.name ?? syntax.name
        }
        if targets.count > 1 {
            for extra in targets.dropFirst() {
                diagnostics.append(.duplicateTarget(nameOf(extra), first: targets[0].location))
            }
        }
        // A '@target' whose type did not resolve was reported already; say nothing more about it.
        let unresolvedTarget = syntax.parameters.contains { member in
            member.annotations.contains { $0.name.name == "target" } && !parameters.contains { $0.name == member.name.name }
        }
        if targets.isEmpty, unresolvedTarget || syntax.bodyMissing { return }
        guard let action else {
            return
        }
        switch action {
        case .create, .search:
            if let target = targets.first { diagnostics.append(.targetOnCreate(nameOf(target), verb: action.verb)) }
        case .update, .delete, .open:
            guard let entity, entityKind == .indexed else { return }
            guard let target = targets.first else {
                // A parameter of the entity's type is most likely the one meant.
                let candidate = parameters.first { $0.type.required == TypeExpression(.entity(entity)) }
                diagnostics.append(.missingTarget(syntax.name, verb: action.verb, entity: entity.name,
                                                  candidate: candidate.map { ($0.name, $0.location) }))
                return
            }
            if target.type != TypeExpression(.entity(entity)) {
                if case .entity(let other) = target.type.base, registry(kindOf: other) == .transient {
                    diagnostics.append(.transientMisuse("'@target' parameter '\(target.name)' is transient entity '\(other.name)', which cannot be looked up on its own; target '\(entity.name)'",
                                                       at: target.location, length: target.name.count))
                } else {
                    diagnostics.append(.targetType(nameOf(target), expected: entity.name, found: target.type.description))
                }
            }
        }
    }

    private func registry(kindOf name: QualifiedName) -> EntityKind? {
        guard case .entity(let syntax)? = table[name] else { return nil }
        return syntax.kind == .indexed ? .indexed : .transient
    }

    /// A create/update parameter named like a property is copied into it, so the types must agree.
    private mutating func checkParameterProperties(_ syntax: IntentSyntax, parameters: [ParameterDefinition], entity: QualifiedName) {
        guard case .entity(let entitySyntax)? = table[entity] else { return }
        for parameter in parameters where !parameter.isTarget {
            guard let property = entitySyntax.properties.first(where: { $0.name.name == parameter.name }),
                  let propertyType = resolveQuietly(property.type, in: entity.domain) else { continue }
            if propertyType.base != parameter.type.base || propertyType.isArray != parameter.type.isArray {
                let name = syntax.parameters.first { $0.name.name == parameter.name }?.name ?? syntax.name
                diagnostics.append(.parameterPropertyMismatch(name, intent: syntax.name.name, type: parameter.type.description,
                                                              entity: entity.name, propertyType: propertyType.description,
                                                              propertyAt: property.name.location))
            }
        }
    }

    /// Resolution without diagnostics (the declaration site already reported any problem).
    private func resolveQuietly(_ syntax: TypeSyntax, in domain: String) -> TypeExpression? {
        var copy = self
        return copy.resolve(syntax, in: domain)
    }

    private mutating func checkConfirmProperty(_ property: String, syntax: IntentSyntax, entity: QualifiedName?) {
        guard let entity, case .entity(let entitySyntax)? = table[entity], !entitySyntax.bodyMissing else { return }
        let names = entitySyntax.properties.map(\.name.name)
        guard !names.contains(property) else { return }
        let location = syntax.annotations.first { $0.name.name == "confirm" }?.arguments.first?.value.location ?? syntax.name.location
        diagnostics.append(.unknownPropertyInAnnotation("confirm", property: property, entity: entity.name, at: location,
                                                        suggestion: EditDistance.closest(to: property, among: names)))
    }

    /// Splits a phrase into text and `{parameter}` slots, checking every slot names a parameter.
    /// `literal` is where the phrase string is written, so problems point at the slot itself.
    private mutating func checkPhrase(_ text: String, literal: LiteralSpan, intent: IntentSyntax) -> Phrase? {
        var parts: [Phrase.Part] = []
        var pending = ""
        var slot: String?
        var valid = true
        var iterator = Array(text).makeIterator()
        while let char = iterator.next() {
            if char == "\\" {
                if let escaped = iterator.next() { (slot == nil ? { pending.append(escaped) } : { slot?.append(escaped) })() }
                continue
            }
            if char == "{" {
                guard slot == nil else {
                    diagnostics.append(.invalidPhrase(text, "opens a slot inside another slot", at: literal.location, length: literal.length))
                    return nil
                }
                if !pending.isEmpty { parts.append(.text(pending)) }
                pending = ""
                slot = ""
            } else if char == "}" {
                guard let name = slot else {
                    diagnostics.append(.invalidPhrase(text, "has '}' without '{' (write \\} for a literal brace)", at: literal.location, length: literal.length))
                    return nil
                }
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty {
                    let (location, length) = slotPosition("{" + name + "}", in: literal)
                    diagnostics.append(.invalidPhrase(text, "has an empty slot '{}'; name a parameter inside the braces", at: location, length: length))
                    valid = false
                } else if !intent.bodyMissing, !intent.parameters.contains(where: { $0.name.name == trimmed }) {
                    // Declared parameters count even when their type is wrong (that is reported on its own).
                    let names = intent.parameters.map(\.name.name)
                    let (location, length) = slotPosition("{" + name + "}", in: literal)
                    diagnostics.append(.unknownPhrasePlaceholder(trimmed, intent: intent.name.name, parameters: names, at: location, length: length,
                                                                 suggestion: EditDistance.closest(to: trimmed, among: names)))
                    valid = false
                }
                parts.append(.parameter(trimmed))
                slot = nil
            } else if slot != nil {
                slot?.append(char)
            } else {
                pending.append(char)
            }
        }
        if slot != nil {
            diagnostics.append(.invalidPhrase(text, "has a slot that is never closed with '}'", at: literal.location, length: literal.length))
            return nil
        }
        if !pending.isEmpty { parts.append(.text(pending)) }
        return valid ? Phrase(parts: parts) : nil
    }

    /// Where `{slot}` is written inside the phrase string, found in the source line; the whole
    /// string when the slot cannot be found there (a string continued with escapes, say).
    private func slotPosition(_ slot: String, in literal: LiteralSpan) -> (SourceLocation, Int) {
        let location = literal.location
        guard let file = files.first(where: { $0.source.path == location.path }) else { return (location, literal.length) }
        let line = Array(file.source.lineText(location.line).unicodeScalars)
        let needle = Array(slot.unicodeScalars)
        let start = location.column - 1
        let end = min(line.count, start + literal.length)
        guard needle.count <= end - start else { return (location, literal.length) }
        for column in start...(end - needle.count) where Array(line[column..<column + needle.count]) == needle {
            return (SourceLocation(path: location.path, line: location.line, column: column + 1, offset: location.offset + column - start),
                    needle.count)
        }
        return (location, literal.length)
    }

    /// A phrase's labelled arguments: `done: true` binds a constant to a parameter of a simple
    /// type (Bool, Int, String, an enum case); `clear: recurrence` clears an optional one.
    private mutating func checkPhraseConstants(_ phrase: Phrase, annotation: Annotation, parameters: [ParameterDefinition],
                                               intent: IntentSyntax) -> Phrase? {
        var constants: [String: Value] = [:]
        var clears: [String] = []
        var valid = true
        let names = parameters.map(\.name)
        for (label, argument) in annotation.labelled.sorted(by: { $0.key < $1.key }) {
            let parameterName: String
            if label == "clear", case .name(let named) = argument { parameterName = named } else { parameterName = label }
            guard let parameter = parameters.first(where: { $0.name == parameterName }) else {
                diagnostics.append(.annotationArgument("phrase", "names '\(parameterName)', which is not a parameter of intent '\(intent.name.name)'",
                                                       at: annotation.location, length: 7, suggestion: EditDistance.closest(to: parameterName, among: names)))
                valid = false
                continue
            }
            if phrase.parameterNames.contains(parameterName) {
                diagnostics.append(.annotationArgument("phrase", "both has a slot for '\(parameterName)' and \(label == "clear" ? "clears it" : "gives it a constant"); do one",
                                                       at: annotation.location, length: 7))
                valid = false
                continue
            }
            if label == "clear" {
                if parameter.isRequired {
                    diagnostics.append(.annotationArgument("phrase", "clears '\(parameterName)', which is required; only an optional parameter can be cleared",
                                                           at: annotation.location, length: 7))
                    valid = false
                }
                clears.append(parameterName)
                continue
            }
            if let value = constant(argument, for: parameter) {
                constants[parameterName] = value
            } else {
                diagnostics.append(.annotationArgument("phrase", "gives '\(parameterName)' a constant that does not fit its type '\(parameter.type)'; a phrase binds true/false, numbers, text and enum cases",
                                                       at: annotation.location, length: 7))
                valid = false
            }
        }
        return valid ? Phrase(parts: phrase.parts, constants: constants, clears: clears) : nil
    }

    private func constant(_ argument: Annotation.Argument, for parameter: ParameterDefinition) -> Value? {
        switch (parameter.type.base, argument) {
        case (.builtin(.bool), .bool(let flag)): return .bool(flag)
        case (.builtin(.int), .integer(let number)): return .int(number)
        case (.builtin(.string), .string(let text)): return .string(text)
        case (.enumeration(let name), .name(let caseName)):
            guard case .enumeration(let syntax)? = table[name], syntax.cases.contains(where: { $0.name.name == caseName }) else { return nil }
            return .enumCase(caseName)
        default: return nil
        }
    }

    /// `@reminder("PT0S")` gives a duration, on a parameter of a union with a duration case
    /// (or an array of one); `@verbs(reminder:)` is true or false.
    private mutating func checkReminders(_ parameters: [ParameterDefinition], annotations: [Annotation]) {
        for annotation in annotations where annotation.name == "verbs" {
            for label in ["reminder", "free"] {
                guard let flag = annotation.labelled[label] else { continue }
                if case .bool = flag { continue }
                diagnostics.append(.annotationArgument("verbs", "takes \(label): true or false", at: annotation.location, length: 6))
            }
        }
        for parameter in parameters {
            guard let annotation = parameter.annotations.first(named: "reminder") else { continue }
            if DurationValue(parsing: annotation.firstString ?? "") == nil {
                diagnostics.append(.annotationArgument("reminder", "needs an ISO 8601 duration such as \"PT0S\" or \"-PT15M\", not '\(annotation.firstString ?? "")'",
                                                       at: annotation.location, length: 9))
            }
            var hasDuration = false
            if case .union(let name) = parameter.type.base, case .union(let union)? = table[name] {
                hasDuration = union.cases.contains { $0.type.domain == nil && $0.type.name.name == "Duration" }
            }
            if !hasDuration {
                diagnostics.append(.annotationArgument("reminder", "needs a parameter of a union with a Duration case (an alarm); '\(parameter.name)' is '\(parameter.type)'",
                                                       at: annotation.location, length: 9))
            }
        }
    }

    /// `@role` names a role the layers know, on a parameter of the type the role needs, once
    /// per intent.
    private mutating func checkRoles(_ parameters: [ParameterDefinition], syntax: IntentSyntax) {
        var seen: [ParameterRole: String] = [:]
        for parameter in parameters {
            guard let annotation = parameter.annotations.first(named: "role"), case .name(let name)? = annotation.positional.first else { continue }
            guard let role = ParameterRole(rawValue: name) else {
                let roles = ParameterRole.allCases.map(\.rawValue)
                diagnostics.append(.annotationArgument("role", "names no role the engine knows: '\(name)' (roles: \(roles.joined(separator: ", ")))",
                                                       at: annotation.location, length: 5, suggestion: EditDistance.closest(to: name, among: roles)))
                continue
            }
            if let other = seen[role] {
                diagnostics.append(.annotationArgument("role", "'\(name)' is already the role of '\(other)' in intent '\(syntax.name.name)'",
                                                       at: annotation.location, length: 5))
            }
            seen[role] = parameter.name
            let fits: Bool
            switch role {
            case .occurrence, .from, .to: fits = parameter.type.base == .builtin(.dateTime) && !parameter.type.isArray
            case .text: fits = parameter.type.base == .builtin(.string) && !parameter.type.isArray
            case .span:
                if case .enumeration(let enumName) = parameter.type.base, case .enumeration(let enumSyntax)? = table[enumName] {
                    fits = Set(["this", "future", "all"]).isSubset(of: Set(enumSyntax.cases.map(\.name.name)))
                } else {
                    fits = false
                }
            }
            if !fits {
                diagnostics.append(.annotationArgument("role", "of '\(name)' needs a parameter that is \(role.expectedType); '\(parameter.name)' is '\(parameter.type)'",
                                                       at: annotation.location, length: 5))
            }
        }
    }
}
