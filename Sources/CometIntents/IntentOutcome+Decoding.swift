import Foundation
import CometSchema
import CometStore

/// The outcome JSON of docs/json.md read back into an `IntentOutcome`, for front ends that get
/// outcomes from the daemon rather than from an engine of their own: the same values, so they
/// print the same.
public struct OutcomeDecodingError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

extension IntentOutcome {
    public static func decode(_ json: JSONValue, registry: Registry) throws(OutcomeDecodingError) -> IntentOutcome {
        guard case .object(let object) = json, case .string(let name)? = object["outcome"] else {
            throw OutcomeDecodingError(description: "not an outcome: \(JSONWriter.compact(json).prefix(200))")
        }
        func string(_ key: String) -> String? { object[key]?.stringValue }
        switch name {
        case "done":
            return .done(try result(object, registry: registry))
        case "needsValue":
            return .needsValue(parameter: string("parameter") ?? "", prompt: string("prompt") ?? "")
        case "needsConfirmation":
            return .needsConfirmation(prompt: string("prompt") ?? "", snippet: snippet(object["snippet"]) ?? Snippet(title: "", subtitle: nil, fields: []))
        case "needsDisambiguation":
            guard case .array(let items)? = object["candidates"] else { throw OutcomeDecodingError(description: "needsDisambiguation without candidates") }
            let candidates = items.compactMap { item -> Candidate? in
                guard let id = item["id"]?.stringValue.flatMap(UUID.init(uuidString:)), let title = item["title"]?.stringValue else { return nil }
                return Candidate(id: id, title: title, subtitle: item["subtitle"]?.stringValue)
            }
            return .needsDisambiguation(parameter: string("parameter") ?? "", prompt: string("prompt") ?? "", candidates: candidates)
        case "cancelled":
            return .cancelled(dialog(object["dialog"]))
        case "failed":
            return .failed(error(object["error"]))
        default:
            throw OutcomeDecodingError(description: "unknown outcome '\(name)'")
        }
    }

    private static func result(_ object: JSONObject, registry: Registry) throws(OutcomeDecodingError) -> IntentResult {
        let intentName = object["intent"]?.stringValue ?? ""
        let intent = registry.allIntents.first { $0.name.name == intentName || $0.name.description == intentName }
        func record(_ json: JSONValue?) throws(OutcomeDecodingError) -> EntityRecord? {
            guard case .object(let fields)? = json, let entity = entityOf(fields, intent: intent, registry: registry),
                  let id = fields["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else { return nil }
            var properties = fields
            properties["id"] = nil
            do {
                return EntityRecord(entity: entity.name, id: id, values: try registry.decodeProperties(properties, of: entity))
            } catch {
                throw OutcomeDecodingError(description: "a record does not fit \(entity.name.name): \(error)")
            }
        }
        var records: [EntityRecord] = []
        if case .array(let items)? = object["entities"] {
            for item in items { if let decoded = try record(item) { records.append(decoded) } }
        }
        var occurrences: [Occurrence] = []
        if case .array(let items)? = object["occurrences"] {
            let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for item in items {
                guard let id = item["id"]?.stringValue.flatMap(UUID.init(uuidString:)), let owner = byID[id],
                      let start = item["start"]?.stringValue.flatMap({ try? DateTimeValue(parsing: $0) }),
                      let end = item["end"]?.stringValue.flatMap({ try? DateTimeValue(parsing: $0) }) else { continue }
                let key = item["recurrenceId"]?.stringValue.flatMap { try? DateTimeValue(parsing: $0) } ?? start
                occurrences.append(Occurrence(record: owner, start: start, end: end, isRecurrenceInstance: item["recurring"] == .bool(true), recurrenceKey: key))
            }
        }
        var page: PageInfo?
        if case .int(let total)? = object["total"] {
            let offset: Int = { if case .int(let value)? = object["offset"] { return value } else { return 0 } }()
            let limit: Int? = { if case .int(let value)? = object["limit"] { return value } else { return nil } }()
            page = PageInfo(total: total, offset: offset, limit: limit, count: occurrences.isEmpty ? records.count : occurrences.count)
        }
        let journal: Int64? = { if case .int(let value)? = object["journal"] { return Int64(value) } else { return nil } }()
        var decoded = IntentResult(intent: intent?.name ?? QualifiedName(domain: "", name: intentName), action: intent?.action, record: try record(object["entity"]),
                                   records: records, occurrences: occurrences, dialog: dialog(object["dialog"]), snippet: snippet(object["snippet"]),
                                   journalSequence: journal)
        decoded.page = page
        if case .array(let items)? = object["warnings"] { decoded.warnings = items.compactMap(\.stringValue) }
        return decoded
    }

    /// A record's entity: the intent's, or the one whose properties it has (an undo's).
    private static func entityOf(_ fields: JSONObject, intent: IntentDefinition?, registry: Registry) -> EntityDefinition? {
        if let name = intent?.entity, let entity = registry.entity(name) { return entity }
        return registry.allEntities.first { entity in entity.kind == .indexed && fields.keys.allSatisfy { $0 == "id" || entity.property($0) != nil } }
    }

    private static func dialog(_ json: JSONValue?) -> Dialog {
        Dialog(full: json?["full"]?.stringValue ?? "", supporting: json?["supporting"]?.stringValue ?? "")
    }

    static func snippet(_ json: JSONValue?) -> Snippet? {
        guard let json, case .string(let title)? = json["title"] else { return nil }
        var fields: [Snippet.Field] = []
        if case .array(let items)? = json["fields"] {
            fields = items.compactMap { item in
                guard let label = item["label"]?.stringValue, let value = item["value"]?.stringValue else { return nil }
                return Snippet.Field(label: label, value: value)
            }
        }
        return Snippet(title: title, subtitle: json["subtitle"]?.stringValue, fields: fields)
    }

    private static func error(_ json: JSONValue?) -> IntentError {
        let code = json?["code"]?.stringValue.flatMap(IntentError.Code.init(rawValue:)) ?? .storage
        return IntentError(code, json?["message"]?.stringValue ?? "the daemon gave no message", parameter: json?["parameter"]?.stringValue,
                           suggestion: json?["suggestion"]?.stringValue)
    }
}

extension Snippet {
    /// A card read back from its JSON (`{title, subtitle, fields: [{label, value}]}`).
    public init?(json: JSONValue?) {
        guard let decoded = IntentOutcome.snippet(json) else { return nil }
        self = decoded
    }
}
