import Foundation
import CometText

/// JSON shapes of values (documented in docs/json.md). Decoding is driven by the type;
/// encoding needs no type because every `Value` case has one shape.
extension Registry {
    // MARK: Decoding

    public func decode(_ json: JSONValue, as type: TypeExpression) throws(ValueError) -> Value {
        if type.isArray {
            guard case .array(let items) = json else { throw found(json, expected: type) }
            var values: [Value] = []
            for (index, item) in items.enumerated() {
                do throws(ValueError) {
                    values.append(try decode(item, as: type.element))
                } catch {
                    throw error.nested(in: "[\(index)]")
                }
            }
            return .array(values)
        }
        let value: Value
        switch type.base {
        case .builtin(let builtin):
            value = try decodeBuiltin(json, builtin, type: type)
        case .enumeration:
            guard case .string(let caseName) = json else { throw found(json, expected: type) }
            value = .enumCase(caseName)
        case .union(let name):
            value = try decodeUnion(json, name, type: type)
        case .entity(let name):
            guard let definition = entity(name) else { throw found(json, expected: type) }
            if definition.kind == .indexed {
                guard case .string(let text) = json else { throw found(json, expected: type) }
                guard let id = UUID(parsing: text) else {
                    throw ValueError(.invalidUUID, "'\(text)' is not a \(name.name) id (a UUID)")
                }
                value = .reference(id)
            } else {
                guard case .object(let object) = json else { throw found(json, expected: type) }
                value = .object(try decodeProperties(object, of: definition))
            }
        }
        try validate(value, as: type.required)
        return value
    }

    /// Decodes the properties of an entity from a JSON object, filling in schema defaults for
    /// absent properties. Used for transient entities and for whole entity records.
    public func decodeProperties(_ object: JSONObject, of entity: EntityDefinition) throws(ValueError) -> [String: Value] {
        var properties: [String: Value] = [:]
        let names = entity.properties.map(\.name)
        for (key, json) in object {
            guard let property = entity.property(key) else {
                throw ValueError(.unknownProperty, "'\(key)' is not a property of \(entity.name.name)",
                                 suggestion: EditDistance.closest(to: key, among: names))
            }
            if case .null = json {
                guard !property.isRequired else {
                    throw ValueError(.missingProperty, "'\(key)' of \(entity.name.name) is required and cannot be null", path: key)
                }
                continue
            }
            do throws(ValueError) {
                properties[key] = try decode(json, as: property.type)
            } catch {
                throw error.nested(in: key)
            }
        }
        for property in entity.properties where properties[property.name] == nil {
            if let defaultValue = property.defaultValue { properties[property.name] = defaultValue }
        }
        try validateObject(properties, of: entity)
        return properties
    }

    /// Decodes an intent's parameters with their value state: an absent key is unset, `null`
    /// is cleared, anything else is set. Unknown names and clearing a required parameter fail.
    public func decodeParameters(_ object: JSONObject, for intent: IntentDefinition) throws(ValueError) -> ParameterBindings {
        var bindings = ParameterBindings()
        let names = intent.parameters.map(\.name)
        for (key, json) in object {
            guard let parameter = intent.parameter(key) else {
                throw ValueError(.unknownParameter, "'\(key)' is not a parameter of intent '\(intent.name.name)' (parameters: \(names.joined(separator: ", ")))",
                                 suggestion: EditDistance.closest(to: key, among: names))
            }
            if case .null = json {
                guard !parameter.isRequired else {
                    throw ValueError(.clearedRequired, "'\(key)' is required by intent '\(intent.name.name)' and cannot be cleared", path: key)
                }
                bindings[key] = .cleared
                continue
            }
            do throws(ValueError) {
                bindings[key] = .set(try decode(json, as: parameter.type))
            } catch {
                throw error.nested(in: key)
            }
        }
        return bindings
    }

    private func decodeBuiltin(_ json: JSONValue, _ builtin: BuiltinType, type: TypeExpression) throws(ValueError) -> Value {
        switch (builtin, json) {
        case (.string, .string(let text)): return .string(text)
        case (.int, .int(let number)): return .int(number)
        case (.double, .int(let number)): return .double(Double(number))
        case (.double, .double(let number)): return .double(number)
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.date, .string(let text)):
            guard let date = CalendarDate(parsing: text), text.count == 10 else {
                throw ValueError(.invalidDate, "'\(text)' is not a date; write it as YYYY-MM-DD (2026-06-15)")
            }
            return .date(date)
        case (.dateTime, .string(let text)):
            return .dateTime(try DateTimeValue(parsing: text))
        case (.duration, .string(let text)):
            guard let duration = DurationValue(parsing: text) else {
                throw ValueError(.invalidDuration, "'\(text)' is not a duration; write it like PT15M, PT1H30M, P1D or -PT10M")
            }
            return .duration(duration)
        case (.url, .string(let text)):
            guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
                throw ValueError(.invalidURL, "'\(text)' is not an absolute URL (https://…)")
            }
            return .url(url)
        case (.uuid, .string(let text)):
            guard let uuid = UUID(parsing: text) else { throw ValueError(.invalidUUID, "'\(text)' is not a UUID") }
            return .uuid(uuid)
        case (.recurrence, .string(let text)):
            return .recurrence(try RecurrenceRule(parsing: text))
        case (.person, .string(let text)):
            return .person(PersonValue(displayText: text))
        case (.person, .object(let object)):
            let fields = try stringFields(object, allowed: ["name", "email", "phone"], typeName: "Person")
            return .person(PersonValue(name: fields["name"], email: fields["email"], phone: fields["phone"]))
        case (.place, .object(let object)):
            var place = PlaceValue()
            for (key, value) in object {
                switch (key, value) {
                case ("name", .string(let text)): place.name = text
                case ("address", .string(let text)): place.address = text
                case ("latitude", .int(let number)): place.latitude = Double(number)
                case ("latitude", .double(let number)): place.latitude = number
                case ("longitude", .int(let number)): place.longitude = Double(number)
                case ("longitude", .double(let number)): place.longitude = number
                case (_, .null): continue
                case ("name", _), ("address", _), ("latitude", _), ("longitude", _):
                    throw ValueError(.invalidPlace, "expected \(key == "latitude" || key == "longitude" ? "a number" : "a string"), found \(value.kindName)", path: key)
                default:
                    throw ValueError(.unknownProperty, "'\(key)' is not a field of Place (name, address, latitude, longitude)",
                                     suggestion: EditDistance.closest(to: key, among: ["name", "address", "latitude", "longitude"]))
                }
            }
            return .place(place)
        default:
            throw found(json, expected: type)
        }
    }

    private func stringFields(_ object: JSONObject, allowed: [String], typeName: String) throws(ValueError) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in object {
            guard allowed.contains(key) else {
                throw ValueError(.unknownProperty, "'\(key)' is not a field of \(typeName) (\(allowed.joined(separator: ", ")))",
                                 suggestion: EditDistance.closest(to: key, among: allowed))
            }
            switch value {
            case .string(let text): fields[key] = text
            case .null: continue
            default: throw ValueError(.typeMismatch, "expected a string, found \(value.kindName)", path: key)
            }
        }
        return fields
    }

    /// `{"caseName": payload}`, or a bare payload that exactly one case accepts
    /// (`"Lab 3"` is a location's `text`; `"-PT15M"` is an alarm's `relative`).
    private func decodeUnion(_ json: JSONValue, _ name: QualifiedName, type: TypeExpression) throws(ValueError) -> Value {
        guard let definition = union(name) else { throw found(json, expected: type) }
        if case .object(let object) = json, object.count == 1, let key = object.keys.first, let unionCase = definition.unionCase(key),
           let payload = object[key] {
            do throws(ValueError) {
                return .union(key, try decode(payload, as: unionCase.type))
            } catch {
                throw error.nested(in: key)
            }
        }
        var matches: [(String, Value)] = []
        var firstError: ValueError?
        for unionCase in definition.cases {
            do throws(ValueError) {
                matches.append((unionCase.name, try decode(json, as: unionCase.type)))
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if matches.count == 1 { return .union(matches[0].0, matches[0].1) }
        let cases = definition.cases.map(\.name)
        if matches.count > 1 {
            throw ValueError(.ambiguousUnion, "this value fits several cases of \(name.name) (\(matches.map(\.0).joined(separator: ", "))); name one: {\"\(matches[0].0)\": …}")
        }
        if case .object(let object) = json, object.count == 1, let key = object.keys.first {
            throw ValueError(.unknownUnionCase, "'\(key)' is not a case of union '\(name.name)' (cases: \(cases.joined(separator: ", ")))",
                             suggestion: EditDistance.closest(to: key, among: cases))
        }
        throw ValueError(.typeMismatch, "expected \(describe(type)), found \(json.kindName)" + (firstError.map { " (\($0.message))" } ?? ""))
    }

    private func found(_ json: JSONValue, expected type: TypeExpression) -> ValueError {
        ValueError(.typeMismatch, "expected \(describe(type)), found \(json.kindName)")
    }

    // MARK: Encoding

    // Each shape is written once, into a `JSONSink`: the daemon writes text straight from the
    // values, and the tree functions below build a `JSONValue` from the same calls.

    /// The JSON shape of a value. Optional absence is the caller's business (omit the key).
    public func encode(_ value: Value) -> JSONValue {
        JSONTreeBuilder.build { write(value, into: &$0) }
    }

    /// Properties of an entity in schema order (id first where declared first).
    public func encodeProperties(_ properties: [String: Value], of entity: EntityDefinition) -> JSONObject {
        JSONTreeBuilder.build { writeProperties(properties, of: entity, into: &$0) }.objectValue ?? JSONObject()
    }

    /// Bindings as JSON: unset parameters are absent, cleared ones `null`.
    public func encodeParameters(_ bindings: ParameterBindings, for intent: IntentDefinition) -> JSONObject {
        JSONTreeBuilder.build { sink in
            sink.beginObject()
            for parameter in intent.parameters {
                switch bindings[parameter.name] {
                case .unset: continue
                case .cleared:
                    sink.key(parameter.name)
                    sink.writeNull()
                case .set(let value):
                    sink.key(parameter.name)
                    writeTyped(value, as: parameter.type, into: &sink)
                }
            }
            sink.endObject()
        }.objectValue ?? JSONObject()
    }

    /// Writes the JSON shape of a value: every `Value` case has one, whatever its type.
    public func write<Sink: JSONSink>(_ value: Value, into sink: inout Sink) {
        switch value {
        case .string(let text): sink.write(text)
        case .int(let number): sink.write(number)
        case .double(let number): sink.write(number)
        case .bool(let flag): sink.write(flag)
        case .date(let date): sink.write(date.description)
        case .dateTime(let dateTime): sink.write(dateTime)
        case .duration(let duration): sink.write(duration.description)
        case .url(let url): sink.write(url.absoluteString)
        case .uuid(let uuid), .reference(let uuid): sink.write(uuid)
        case .recurrence(let rule): sink.write(rule.description)
        case .enumCase(let name): sink.write(name)
        case .person(let person):
            sink.beginObject()
            sink.member("name", person.name)
            sink.member("email", person.email)
            sink.member("phone", person.phone)
            sink.endObject()
        case .place(let place):
            sink.beginObject()
            sink.member("name", place.name)
            sink.member("address", place.address)
            if let latitude = place.latitude {
                sink.key("latitude")
                sink.write(latitude)
            }
            if let longitude = place.longitude {
                sink.key("longitude")
                sink.write(longitude)
            }
            sink.endObject()
        case .union(let caseName, let payload):
            sink.beginObject()
            sink.key(caseName)
            write(payload, into: &sink)
            sink.endObject()
        case .object(let properties):
            // Without a type to say the order, keys are sorted (typed objects use schema order).
            sink.beginObject()
            for name in properties.keys.sorted() {
                guard let property = properties[name] else { continue }
                sink.key(name)
                write(property, into: &sink)
            }
            sink.endObject()
        case .array(let items):
            sink.beginArray()
            for item in items { write(item, into: &sink) }
            sink.endArray()
        }
    }

    /// Writes properties of an entity as an object, in schema order; `id` is written from
    /// `id` when given (a record keeps its id apart from its values).
    func writeProperties<Sink: JSONSink>(_ properties: [String: Value], of entity: EntityDefinition, id: UUID? = nil, into sink: inout Sink) {
        sink.beginObject()
        for property in entity.properties {
            if let id, property.name == "id" {
                sink.key("id")
                sink.write(id)
            } else if let value = properties[property.name] {
                sink.key(property.name)
                writeTyped(value, as: property.type, into: &sink)
            }
        }
        sink.endObject()
    }

    /// Writes transient objects in their entity's property order rather than alphabetically.
    private func writeTyped<Sink: JSONSink>(_ value: Value, as type: TypeExpression, into sink: inout Sink) {
        if type.isArray, case .array(let items) = value {
            sink.beginArray()
            for item in items { writeTyped(item, as: type.element, into: &sink) }
            sink.endArray()
            return
        }
        if case .entity(let name) = type.base, case .object(let properties) = value, let definition = entity(name) {
            writeProperties(properties, of: definition, into: &sink)
            return
        }
        write(value, into: &sink)
    }
}

extension PersonValue {
    /// Reads "Ada Lovelace <ada@example.org>", "ada@example.org", "+44 20 …" or a bare name.
    public init(displayText text: String) {
        let trimmed = text.trimmingSpaces()
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let name = trimmed[..<open].trimmingSpaces()
            let contact = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            self.init(name: name.isEmpty ? nil : name, email: contact.contains("@") ? contact : nil, phone: contact.contains("@") ? nil : contact)
        } else if trimmed.contains("@") {
            self.init(email: trimmed.hasPrefix("mailto:") ? String(trimmed.dropFirst(7)) : trimmed)
        } else if trimmed.first == "+" || (trimmed.first?.isASCIIDigit ?? false) {
            self.init(phone: trimmed)
        } else {
            self.init(name: trimmed)
        }
    }
}
