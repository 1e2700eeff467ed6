/// The whole registry as JSON (`cometcal schema dump --json`): a stable shape for tools,
/// documented in docs/json.md. `formatVersion` changes only on incompatible changes.
extension Registry {
    public static let dumpFormatVersion = 1

    public func dump() -> JSONValue {
        .object(JSONObject([
            ("formatVersion", .int(Registry.dumpFormatVersion)),
            ("builtinTypes", .array(BuiltinType.allCases.map { .string($0.rawValue) })),
            ("domains", .array(domains.map(dump))),
        ]))
    }

    /// One declaration in the shape it has inside `dump()`, with its domain and kind added.
    public func dump(_ declaration: Declaration) -> JSONValue {
        var object: JSONObject
        switch declaration {
        case .entity(let definition): object = dump(definition).objectValue ?? JSONObject()
        case .enumeration(let definition): object = dump(definition).objectValue ?? JSONObject()
        case .union(let definition): object = dump(definition).objectValue ?? JSONObject()
        case .intent(let definition): object = dump(definition).objectValue ?? JSONObject()
        }
        var result = JSONObject([("domain", .string(declaration.name.domain)), ("declaration", .string(declaration.kindName))])
        for (key, value) in object { result[key] = value }
        return .object(result)
    }

    private func dump(_ domain: DomainDefinition) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(domain.name)
        object["doc"] = domain.doc.map(JSONValue.string)
        object["entities"] = .array(domain.entities.map(dump))
        object["enums"] = .array(domain.enums.map(dump))
        object["unions"] = .array(domain.unions.map(dump))
        object["intents"] = .array(domain.intents.map(dump))
        return .object(object)
    }

    private func dump(_ entity: EntityDefinition) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(entity.name.name)
        object["kind"] = .string(entity.kind.rawValue)
        object["doc"] = entity.doc.map(JSONValue.string)
        object["titleProperty"] = entity.titleProperty.map { .string($0.name) }
        object["subtitleProperty"] = entity.subtitleProperty.map { .string($0.name) }
        object["searchable"] = .array(entity.searchableProperties.map { .string($0.name) })
        object["annotations"] = dump(entity.annotations)
        object["properties"] = .array(entity.properties.map { property in
            var member = JSONObject()
            member["name"] = .string(property.name)
            member["type"] = dump(property.type)
            member["required"] = .bool(property.isRequired)
            member["default"] = property.defaultValue.map(encode)
            member["doc"] = property.doc.map(JSONValue.string)
            member["annotations"] = dump(property.annotations)
            return .object(member)
        })
        return .object(object)
    }

    private func dump(_ definition: EnumDefinition) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(definition.name.name)
        object["doc"] = definition.doc.map(JSONValue.string)
        object["cases"] = .array(definition.cases.map { enumCase in
            var member = JSONObject()
            member["name"] = .string(enumCase.name)
            member["doc"] = enumCase.doc.map(JSONValue.string)
            member["annotations"] = dump(enumCase.annotations)
            return .object(member)
        })
        return .object(object)
    }

    private func dump(_ definition: UnionDefinition) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(definition.name.name)
        object["doc"] = definition.doc.map(JSONValue.string)
        object["cases"] = .array(definition.cases.map { unionCase in
            var member = JSONObject()
            member["name"] = .string(unionCase.name)
            member["type"] = dump(unionCase.type)
            member["doc"] = unionCase.doc.map(JSONValue.string)
            member["annotations"] = dump(unionCase.annotations)
            return .object(member)
        })
        return .object(object)
    }

    private func dump(_ intent: IntentDefinition) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(intent.name.name)
        object["doc"] = intent.doc.map(JSONValue.string)
        object["action"] = intent.action.map { .string($0.rawValue) }
        object["entity"] = intent.entity.map { .string($0.name) }
        object["returns"] = intent.returns.map(dump)
        object["target"] = intent.targetParameter.map { .string($0.name) }
        switch intent.confirmation {
        case .never: object["confirmation"] = .object(JSONObject([("when", "never")]))
        case .always: object["confirmation"] = .object(JSONObject([("when", "always")]))
        case .whenTargetHas(let property):
            object["confirmation"] = .object(JSONObject([("when", "targetHas"), ("property", .string(property))]))
        }
        object["undoable"] = .bool(intent.isUndoable)
        object["phrases"] = .array(intent.phrases.map { .string($0.description) })
        object["parameters"] = .array(intent.parameters.map { parameter in
            var member = JSONObject()
            member["name"] = .string(parameter.name)
            member["type"] = dump(parameter.type)
            member["required"] = .bool(parameter.isRequired)
            member["default"] = parameter.defaultValue.map(encode)
            member["doc"] = parameter.doc.map(JSONValue.string)
            member["annotations"] = dump(parameter.annotations)
            return .object(member)
        })
        return .object(object)
    }

    /// `{"name": "Attendee", "kind": "entity", "domain": "calendar", "array": true, "optional": false, "spelling": "[Attendee]"}`
    private func dump(_ type: TypeExpression) -> JSONValue {
        var object = JSONObject()
        object["spelling"] = .string(type.description)
        object["name"] = .string(type.base.name)
        object["kind"] = .string(type.base.kindName)
        switch type.base {
        case .entity(let name), .enumeration(let name), .union(let name): object["domain"] = .string(name.domain)
        case .builtin: break
        }
        object["array"] = .bool(type.isArray)
        object["optional"] = .bool(type.isOptional)
        return .object(object)
    }

    private func dump(_ annotations: [Annotation]) -> JSONValue {
        .array(annotations.map { annotation in
            var object = JSONObject()
            object["name"] = .string(annotation.name)
            if !annotation.positional.isEmpty { object["arguments"] = .array(annotation.positional.map(dump)) }
            if !annotation.labelled.isEmpty {
                object["labelled"] = .object(JSONObject(annotation.labelled.keys.sorted().map { ($0, dump(annotation.labelled[$0] ?? .bool(false))) }))
            }
            return .object(object)
        })
    }

    private func dump(_ argument: Annotation.Argument) -> JSONValue {
        switch argument {
        case .string(let text), .name(let text): return .string(text)
        case .integer(let number): return .int(number)
        case .double(let number): return .double(number)
        case .bool(let flag): return .bool(flag)
        case .array(let items): return .array(items.map(dump))
        }
    }
}
