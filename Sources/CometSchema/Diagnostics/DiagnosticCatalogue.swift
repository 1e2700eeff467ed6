/// Every diagnostic message of the schema compiler, in one place so wording stays consistent.
extension Diagnostic {
    // MARK: Lexical and syntax

    static func unexpectedCharacter(_ text: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.unexpectedCharacter, "unexpected character '\(text)'", at: location)
    }

    static func unterminatedString(at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.unterminatedString, "unterminated string literal; close it with '\"' on the same line", at: location, length: length)
    }

    static func hyphenInName(_ written: String, camelCase: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.unexpectedCharacter, "unexpected character '-' in name '\(written)'; names are written in camelCase", at: location,
                   suggestion: camelCase)
    }

    static func invalidEscape(_ text: String, at location: SourceLocation) -> Diagnostic {
        let advice = text == "\\'" ? "; a ' needs no backslash" : " (use \\\", \\\\, \\n, \\t, \\{ or \\})"
        return Diagnostic(.invalidEscape, "invalid escape sequence '\(text)' in string literal\(advice)", at: location, length: 2)
    }

    static func invalidNumber(_ text: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.invalidNumber, "invalid number literal '\(text)'; write numbers like 42, -7 or 1.5 (text goes in quotes)", at: location, length: length)
    }

    static func expected(_ what: String, found token: Token, context: String) -> Diagnostic {
        Diagnostic(.expectedToken, "expected \(what) \(context), found \(token.spelling)", at: token.location, length: token.length)
    }

    /// The line ended where `what` belongs; `location` is just past the line's last token.
    static func expectedBeforeEndOfLine(_ what: String, context: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.expectedToken, "expected \(what) \(context), found end of line", at: location)
    }

    static func danglingAnnotation(_ name: String, found token: Token, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.expectedToken, "'@\(name)' annotates nothing: it is followed by \(token.spelling); write it right before the declaration, property, parameter or case it is for",
                   at: location, length: name.count + 1)
    }

    static func missingDomain(at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.missingDomain, "a schema file must start with a domain declaration, such as 'domain calendar'", at: location, length: length)
    }

    static func domainNotFirst(at location: SourceLocation) -> Diagnostic {
        Diagnostic(.missingDomain, "the domain declaration must come before every other declaration; move it to the top of the file",
                   at: location, length: 6)
    }

    static func duplicateDomainDeclaration(at location: SourceLocation, first: SourceLocation) -> Diagnostic {
        Diagnostic(.duplicateDomainDeclaration, "a file belongs to one domain; 'domain' is declared again here", at: location, length: 6,
                   notes: [Note(message: "the file's domain is declared here", location: first)])
    }

    static func expectedDeclaration(found token: Token, suggestion: String?) -> Diagnostic {
        Diagnostic(.expectedDeclaration, "expected a declaration ('indexed entity', 'transient entity', 'enum', 'union' or 'intent'), found \(token.spelling)",
                   at: token.location, length: token.length, suggestion: suggestion)
    }

    static func entityKindMissing(at location: SourceLocation) -> Diagnostic {
        Diagnostic(.expectedDeclaration, "say whether the entity is stored on its own ('indexed entity') or only inside another ('transient entity')",
                   at: location, length: 6)
    }

    static func enumCaseWithValue(found token: Token, owner: String) -> Diagnostic {
        Diagnostic(.expectedToken, "enum cases have no type or value in \(owner); map them with '@ical(\"…\")' instead", at: token.location)
    }

    static func unknownActionVerb(_ word: String, suggestion: String?, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.expectedToken, "unknown intent action '\(word)' (creates, updates, deletes, opens, searches)", at: location,
                   length: word.count, suggestion: suggestion)
    }

    static func unclosedBlock(owner: String, found token: Token, openedAt: SourceLocation) -> Diagnostic {
        Diagnostic(.unclosedBlock, "expected '}' to close \(owner), found \(token.spelling)", at: token.location, length: token.length,
                   notes: [Note(message: "\(owner) starts here", location: openedAt)])
    }

    static func nestedArray(at location: SourceLocation) -> Diagnostic {
        Diagnostic(.nestedArray, "arrays of arrays are not supported; declare a transient entity for the inner element", at: location)
    }

    static func optionalArrayElement(at location: SourceLocation) -> Diagnostic {
        Diagnostic(.optionalArrayElement, "array elements cannot be optional; make the array optional instead ('[T]?')", at: location)
    }

    // MARK: Declarations and names

    static func unknownType(_ name: String, at location: SourceLocation, length: Int, suggestion: String?) -> Diagnostic {
        Diagnostic(.unknownType, "unknown type '\(name)'", at: location, length: length, suggestion: suggestion)
    }

    static func unknownDomain(_ name: String, at location: SourceLocation, suggestion: String?, known: [String]) -> Diagnostic {
        let hint = suggestion == nil ? "; no schema file declares 'domain \(name)' (known domains: \(known.joined(separator: ", ")))" : ""
        return Diagnostic(.unknownDomain, "unknown domain '\(name)'\(hint)", at: location, length: name.count, suggestion: suggestion)
    }

    static func duplicateDeclaration(_ name: Identifier, kind: String, existingKind: String, domain: String, first: SourceLocation) -> Diagnostic {
        let message = kind == existingKind
            ? "\(kind) '\(name.name)' is already declared in domain '\(domain)'"
            : "\(kind) '\(name.name)' takes a name already used by \(existingKind) '\(name.name)' in domain '\(domain)'; entities, enums, unions and intents share one namespace"
        return Diagnostic(.duplicateDeclaration, message, at: name.location, length: name.length,
                          notes: [Note(message: "'\(name.name)' is first declared here", location: first)])
    }

    static func shadowsBuiltin(_ name: Identifier) -> Diagnostic {
        Diagnostic(.duplicateDeclaration, "'\(name.name)' is a built-in type and cannot be declared again; choose another name",
                   at: name.location, length: name.length)
    }

    static func duplicateMember(_ id: DiagnosticID, what: String, name: Identifier, owner: String, first: SourceLocation) -> Diagnostic {
        Diagnostic(id, "duplicate \(what) '\(name.name)' in \(owner)", at: name.location, length: name.length,
                   notes: [Note(message: "'\(name.name)' is first declared here", location: first)])
    }

    static func emptyEnum(_ name: Identifier) -> Diagnostic {
        Diagnostic(.emptyEnum, "enum '\(name.name)' has no cases; list at least one, one per line", at: name.location, length: name.length)
    }

    static func emptyUnion(_ name: Identifier) -> Diagnostic {
        Diagnostic(.emptyUnion, "union '\(name.name)' has no cases; list at least one as 'name: Type'", at: name.location, length: name.length)
    }

    // MARK: Annotations

    static func unknownAnnotation(_ name: Identifier, at location: SourceLocation, suggestion: String?) -> Diagnostic {
        Diagnostic(.unknownAnnotation, "unknown annotation '@\(name.name)'", at: location, length: name.length + 1,
                   suggestion: suggestion.map { "@" + $0 })
    }

    static func misplacedAnnotation(_ name: String, on target: AnnotationTarget, allowed: [AnnotationTarget], at location: SourceLocation) -> Diagnostic {
        let places = allowed.map(\.plural).joined(separator: ", ")
        return Diagnostic(.misplacedAnnotation, "'@\(name)' does not apply to \(target.plural); it applies to \(places)", at: location, length: name.count + 1)
    }

    static func annotationOnDomain(_ name: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.misplacedAnnotation, "'@\(name)' does not apply to the domain declaration; annotations go before the declaration they describe",
                   at: location, length: name.count + 1)
    }

    static func annotationArgument(_ name: String, _ problem: String, at location: SourceLocation, length: Int = 1,
                                   suggestion: String? = nil) -> Diagnostic {
        Diagnostic(.annotationArgument, "'@\(name)' \(problem)", at: location, length: length, suggestion: suggestion)
    }

    static func duplicateAnnotation(_ name: String, at location: SourceLocation, first: SourceLocation) -> Diagnostic {
        Diagnostic(.duplicateAnnotation, "'@\(name)' is given more than once here", at: location, length: name.count + 1,
                   notes: [Note(message: "first given here", location: first)])
    }

    static func unknownPropertyInAnnotation(_ annotation: String, property: String, entity: String, at location: SourceLocation, suggestion: String?) -> Diagnostic {
        Diagnostic(.unknownPropertyInAnnotation, "'@\(annotation)' names '\(property)', which is not a property of entity '\(entity)'",
                   at: location, length: property.count, suggestion: suggestion)
    }

    static func invalidPhrase(_ phrase: String, _ problem: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.invalidPhrase, "phrase \"\(phrase)\" \(problem)", at: location, length: length)
    }

    static func unknownPhrasePlaceholder(_ placeholder: String, intent: String, parameters: [String], at location: SourceLocation, length: Int,
                                         suggestion: String?) -> Diagnostic {
        let hint = suggestion != nil ? ""
            : parameters.isEmpty ? "; the intent has no parameters"
            : " (its parameters: \(parameters.joined(separator: ", ")))"
        return Diagnostic(.unknownPhrasePlaceholder, "phrase slot '{\(placeholder)}' is not a parameter of intent '\(intent)'\(hint)",
                          at: location, length: length, suggestion: suggestion)
    }

    // MARK: Types and defaults

    static func invalidDefault(_ literal: LiteralSyntax, type: String, reason: String) -> Diagnostic {
        Diagnostic(.invalidDefault, "default value \(literal.spelling) does not fit type '\(type)': \(reason)", at: literal.location,
                   length: literal.length)
    }

    static func requiredParameterWithDefault(_ name: Identifier, type: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.requiredParameterWithDefault,
                   "required parameter '\(name.name)' has a default value; make it optional ('\(type)?') or remove the default",
                   at: location, length: length)
    }

    static func referenceDefault(_ name: Identifier, entity: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.referenceDefault,
                   "'\(name.name)' refers to entity '\(entity)' and cannot have a default value; remove it (make '\(name.name)' optional if it may be absent)",
                   at: location, length: length)
    }

    static func unionCaseType(_ caseName: Identifier, union: String, problem: String) -> Diagnostic {
        Diagnostic(.unionCaseType, "case '\(caseName.name)' of union '\(union)' \(problem)", at: caseName.location, length: caseName.length)
    }

    static func searchableNotText(_ name: Identifier, type: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.searchableNotText, "'@searchable' needs text to index, but '\(name.name)' is '\(type)' (use String, Person, Place, URL, or an array of them)",
                   at: location, length: 11)
    }

    static func nonBlankNotText(_ name: Identifier, type: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.nonBlankNotText, "'@nonBlank' needs a text property, but '\(name.name)' is '\(type)' (use String or String?)",
                   at: location, length: 9)
    }

    static func defaultLengthMisplaced(_ name: Identifier, entity: String, at location: SourceLocation) -> Diagnostic {
        Diagnostic(.defaultLengthMisplaced,
                   "'@defaultLength' belongs on the end of '\(entity)', but '\(name.name)' is not it (the end is a 'DateTime' mapped with @ical(\"DTEND\") beside one mapped to DTSTART)",
                   at: location, length: 14)
    }

    // MARK: Entities

    static func missingIdentifier(_ entity: Identifier) -> Diagnostic {
        Diagnostic(.missingIdentifier, "indexed entity '\(entity.name)' needs an 'id: UUID' property to be stored and referenced",
                   at: entity.location, length: entity.length)
    }

    static func invalidIdentifier(_ name: Identifier, entity: String, found: String) -> Diagnostic {
        Diagnostic(.invalidIdentifier, "'id' of indexed entity '\(entity)' must be 'UUID', not '\(found)'", at: name.location, length: name.length)
    }

    static func transientMisuse(_ message: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.transientMisuse, message, at: location, length: length)
    }

    static func recursiveTransient(entity: String, property: String, type: String, cycle: [String], at location: SourceLocation) -> Diagnostic {
        Diagnostic(.recursiveTransient,
                   "transient entity '\(entity)' contains itself (\(cycle.joined(separator: " → "))), so a value could never end; make '\(property)' optional ('\(type)?') or an array, or refer to an indexed entity",
                   at: location, length: property.count)
    }

    static func duplicateTitle(_ name: Identifier, entity: String, first: SourceLocation) -> Diagnostic {
        Diagnostic(.duplicateTitle, "entity '\(entity)' has more than one '@title' property", at: name.location, length: name.length,
                   notes: [Note(message: "the first '@title' is here", location: first)])
    }

    static func missingTitle(_ entity: Identifier) -> Diagnostic {
        Diagnostic(.missingTitle, "indexed entity '\(entity.name)' has no '@title' property; lists and dialogs will show its id",
                   at: entity.location, length: entity.length)
    }

    // MARK: Intents

    static func intentActionNotEntity(_ intent: String, verb: String, type: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.intentActionNotIndexedEntity, "intent '\(intent)' \(verb) '\(type)', which is not an entity", at: location, length: length)
    }

    static func missingTarget(_ intent: Identifier, verb: String, entity: String, candidate: (name: String, location: SourceLocation)?) -> Diagnostic {
        var notes: [Note] = []
        if let candidate {
            notes.append(Note(message: "'\(candidate.name)' has type '\(entity)'; mark it '@target' if the intent acts on it", location: candidate.location))
        }
        return Diagnostic(.missingTarget, "intent '\(intent.name)' \(verb) an existing '\(entity)' but has no '@target' parameter of type '\(entity)'",
                          at: intent.location, length: intent.length, notes: notes)
    }

    static func duplicateTarget(_ name: Identifier, first: SourceLocation) -> Diagnostic {
        Diagnostic(.duplicateTarget, "only one parameter can be the '@target'; remove '@target' from '\(name.name)'", at: name.location, length: name.length,
                   notes: [Note(message: "the first '@target' is here", location: first)])
    }

    static func targetType(_ name: Identifier, expected: String, found: String) -> Diagnostic {
        Diagnostic(.targetType, "'@target' parameter '\(name.name)' must be a required '\(expected)', not '\(found)'", at: name.location, length: name.length)
    }

    static func targetOnCreate(_ name: Identifier, verb: String) -> Diagnostic {
        Diagnostic(.targetType, "'@target' marks the existing entity an intent acts on, and an intent that \(verb) has none; remove '@target' from '\(name.name)'",
                   at: name.location, length: name.length)
    }

    static func returnType(_ intent: String, verb: String, entity: String, expected: String, found: String, at location: SourceLocation, length: Int) -> Diagnostic {
        Diagnostic(.returnType,
                   "intent '\(intent)' \(verb) '\(entity)', so it returns '\(expected)', not '\(found)'; write 'returns \(expected)' or leave 'returns' out",
                   at: location, length: length)
    }

    static func parameterPropertyMismatch(_ name: Identifier, intent: String, type: String, entity: String, propertyType: String,
                                          propertyAt: SourceLocation) -> Diagnostic {
        Diagnostic(.parameterPropertyMismatch,
                   "parameter '\(name.name)' of intent '\(intent)' is '\(type)' but property '\(entity).\(name.name)' is '\(propertyType)'; the engine copies one into the other, so their types must match",
                   at: name.location, length: name.length,
                   notes: [Note(message: "property '\(entity).\(name.name)' is declared here", location: propertyAt)])
    }
}
