import Foundation
import CometSchema
import CometStore

/// The JSON shape of outcomes (docs/json.md), shared by `--json`, the conversation runner and
/// the daemon. It needs the registry only, so a client of the daemon writes the same JSON.
extension Registry {
    public func json(_ outcome: IntentOutcome) -> JSONValue {
        var object = JSONObject()
        object["outcome"] = .string(outcome.name)
        switch outcome {
        case .done(let result):
            object["intent"] = .string(result.intent.name)
            if let record = result.record { object["entity"] = .object(encode(record)) }
            if result.action == .search || !result.records.isEmpty && result.action == nil {
                // Occurrences refer to their records by id: each record is listed once.
                let listed = result.occurrences.isEmpty ? result.records : Self.distinctRecords(result.occurrences)
                object["entities"] = .array(listed.map { .object(encode($0)) })
            }
            if result.action == .search, !result.occurrences.isEmpty || result.records.isEmpty {
                object["occurrences"] = .array(result.occurrences.map(json))
            }
            if let page = result.page { json(page, into: &object) }
            object["dialog"] = json(result.dialog)
            if let snippet = result.snippet { object["snippet"] = json(snippet) }
            if let sequence = result.journalSequence { object["journal"] = .int(Int(sequence)) }
            if !result.warnings.isEmpty { object["warnings"] = .array(result.warnings.map(JSONValue.string)) }
        case .needsValue(let parameter, let prompt):
            object["parameter"] = .string(parameter)
            object["prompt"] = .string(prompt)
        case .needsConfirmation(let prompt, let snippet):
            object["prompt"] = .string(prompt)
            object["snippet"] = json(snippet)
        case .needsDisambiguation(let parameter, let prompt, let candidates):
            object["parameter"] = .string(parameter)
            object["prompt"] = .string(prompt)
            object["total"] = .int(candidates.count)
            object["candidates"] = .array(candidates.map { candidate in
                var item = JSONObject()
                item["id"] = .string(candidate.id.lowercasedText)
                item["title"] = .string(candidate.title)
                item["subtitle"] = candidate.subtitle.map(JSONValue.string)
                return .object(item)
            })
        case .cancelled(let dialog):
            object["dialog"] = json(dialog)
        case .failed(let error):
            object["error"] = json(error)
        }
        return .object(object)
    }

    public func json(_ error: IntentError) -> JSONValue {
        var object = JSONObject()
        object["code"] = .string(error.code.rawValue)
        object["message"] = .string(error.message)
        object["parameter"] = error.parameter.map(JSONValue.string)
        object["suggestion"] = error.suggestion.map(JSONValue.string)
        return .object(object)
    }

    public func json(_ occurrence: Occurrence) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(occurrence.record.id.lowercasedText)
        object["title"] = .string(title(of: occurrence.record))
        object["start"] = .string(occurrence.start.description)
        object["end"] = .string(occurrence.end.description)
        object["recurring"] = .bool(occurrence.isRecurrenceInstance)
        object["recurrenceId"] = .string(occurrence.recurrenceKey.description)
        return .object(object)
    }

    /// `total`, `offset`, `limit` (when asked), `truncated`, and `next` (when truncated): the
    /// request for the following page.
    private func json(_ page: PageInfo, into object: inout JSONObject) {
        object["total"] = .int(page.total)
        object["offset"] = .int(page.offset)
        if let limit = page.limit { object["limit"] = .int(limit) }
        object["truncated"] = .bool(page.isTruncated)
        if let next = page.next {
            var request = JSONObject()
            request["offset"] = .int(next.offset)
            if let limit = next.limit { request["limit"] = .int(limit) }
            object["next"] = .object(request)
        }
    }

    /// The records of some occurrences, each once, in the order they first occur.
    private static func distinctRecords(_ occurrences: [Occurrence]) -> [EntityRecord] {
        var seen = Set<UUID>()
        return occurrences.compactMap { seen.insert($0.record.id).inserted ? $0.record : nil }
    }

    private func json(_ dialog: Dialog) -> JSONValue {
        .object(JSONObject([("full", .string(dialog.full)), ("supporting", .string(dialog.supporting))]))
    }

    public func json(_ snippet: Snippet) -> JSONValue {
        var object = JSONObject()
        object["title"] = .string(snippet.title)
        object["subtitle"] = snippet.subtitle.map(JSONValue.string)
        object["fields"] = .array(snippet.fields.map { .object(JSONObject([("label", .string($0.label)), ("value", .string($0.value))])) })
        return .object(object)
    }
}

extension IntentEngine {
    public func json(_ outcome: IntentOutcome) -> JSONValue { registry.json(outcome) }
    public func json(_ error: IntentError) -> JSONValue { registry.json(error) }
    public func json(_ occurrence: Occurrence) -> JSONValue { registry.json(occurrence) }
    public func json(_ snippet: Snippet) -> JSONValue { registry.json(snippet) }
}
