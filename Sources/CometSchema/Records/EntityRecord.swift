import Foundation

/// One stored entity: its type, its id, and its property values (absent = no value).
/// The unit the store persists, the engine acts on and the iCalendar bridge maps.
public struct EntityRecord: Sendable, Hashable {
    public let entity: QualifiedName
    public let id: UUID
    public var values: [String: Value]

    public init(entity: QualifiedName, id: UUID, values: [String: Value]) {
        self.entity = entity
        self.id = id
        var stored = values
        stored["id"] = nil  // the id lives in `id` only, so the two can never disagree
        self.values = stored
    }

    public subscript(property: String) -> Value? {
        get { property == "id" ? .uuid(id) : values[property] }
        set { if property != "id" { values[property] = newValue } }
    }
}

extension Registry {
    /// The record as JSON: `{"id": …, then every property with a value, in schema order}`.
    public func encode(_ record: EntityRecord) -> JSONObject {
        JSONTreeBuilder.build { write(record, into: &$0) }.objectValue ?? JSONObject()
    }

    /// Writes the record as `encode(_:)` shapes it (an entity the registry does not know is `{}`).
    public func write<Sink: JSONSink>(_ record: EntityRecord, into sink: inout Sink) {
        guard let definition = entity(record.entity) else {
            sink.beginObject()
            sink.endObject()
            return
        }
        sink.writeRecord(record) { sink in writeProperties(record.values, of: definition, id: record.id, into: &sink) }
    }

    /// The text that names a record in lists and dialogs: its `@title` property, else its id.
    public func title(of record: EntityRecord) -> String {
        guard let property = entity(record.entity)?.titleProperty, let value = record[property.name] else {
            return record.id.lowercasedText
        }
        return displayText(value)
    }

    /// A value as people read it in one line.
    public func displayText(_ value: Value) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "yes" : "no"
        case .date(let date): return date.description
        case .dateTime(let dateTime): return dateTime.description
        case .duration(let duration): return duration.description
        case .url(let url): return url.absoluteString
        case .uuid(let uuid), .reference(let uuid): return uuid.lowercasedText
        case .person(let person): return person.displayText
        case .place(let place): return place.displayText
        case .recurrence(let rule): return rule.description
        case .enumCase(let name): return name
        case .union(_, let payload): return displayText(payload)
        case .object(let properties): return properties.keys.sorted().compactMap { properties[$0].map(displayText) }.joined(separator: ", ")
        case .array(let items): return items.map(displayText).joined(separator: ", ")
        }
    }
}
