import Foundation
import CometSchema
import CometStore

/// The JSON shape of outcomes (docs/json.md), shared by `--json`, the conversation runner and
/// the daemon. It needs the registry only, so a client of the daemon writes the same JSON.
/// Each shape is written once, into a `JSONSink`: as text (the daemon's answers) or as a tree.
extension Registry {
    public func json(_ outcome: IntentOutcome) -> JSONValue {
        JSONTreeBuilder.build { write(outcome, into: &$0) }
    }

    /// The outcome as compact JSON text, written without a tree.
    public func jsonText(_ outcome: IntentOutcome) -> JSONText {
        JSONText.write { write(outcome, into: &$0) }
    }

    public func write<Sink: JSONSink>(_ outcome: IntentOutcome, into sink: inout Sink) {
        sink.beginObject()
        sink.key("outcome")
        sink.write(outcome.name)
        switch outcome {
        case .done(let result):
            sink.key("intent")
            sink.write(result.intent.name)
            if let record = result.record {
                sink.key("entity")
                write(record, into: &sink)
            }
            if result.action == .search || !result.records.isEmpty && result.action == nil {
                // Occurrences refer to their records by id: each record is listed once.
                let listed = result.occurrences.isEmpty ? result.records : Self.distinctRecords(result.occurrences)
                sink.key("entities")
                sink.beginArray()
                for record in listed { write(record, into: &sink) }
                sink.endArray()
            }
            if result.action == .search, !result.occurrences.isEmpty || result.records.isEmpty {
                sink.key("occurrences")
                sink.beginArray()
                for occurrence in result.occurrences { write(occurrence, into: &sink) }
                sink.endArray()
            }
            if let page = result.page { write(page, into: &sink) }
            sink.key("dialog")
            write(result.dialog, into: &sink)
            if let snippet = result.snippet {
                sink.key("snippet")
                write(snippet, into: &sink)
            }
            if let sequence = result.journalSequence {
                sink.key("journal")
                sink.write(Int(sequence))
            }
            if !result.warnings.isEmpty {
                sink.key("warnings")
                sink.beginArray()
                for warning in result.warnings { sink.write(warning) }
                sink.endArray()
            }
        case .needsValue(let parameter, let prompt):
            sink.member("parameter", parameter)
            sink.member("prompt", prompt)
        case .needsConfirmation(let prompt, let snippet):
            sink.member("prompt", prompt)
            sink.key("snippet")
            write(snippet, into: &sink)
        case .needsDisambiguation(let parameter, let prompt, let candidates):
            sink.member("parameter", parameter)
            sink.member("prompt", prompt)
            sink.key("total")
            sink.write(candidates.count)
            sink.key("candidates")
            sink.beginArray()
            for candidate in candidates {
                sink.beginObject()
                sink.key("id")
                sink.write(candidate.id)
                sink.member("title", candidate.title)
                sink.member("subtitle", candidate.subtitle)
                sink.endObject()
            }
            sink.endArray()
        case .cancelled(let dialog):
            sink.key("dialog")
            write(dialog, into: &sink)
        case .failed(let error):
            sink.key("error")
            write(error, into: &sink)
        }
        sink.endObject()
    }

    public func json(_ error: IntentError) -> JSONValue {
        JSONTreeBuilder.build { write(error, into: &$0) }
    }

    private func write<Sink: JSONSink>(_ error: IntentError, into sink: inout Sink) {
        sink.beginObject()
        sink.member("code", error.code.rawValue)
        sink.member("message", error.message)
        sink.member("parameter", error.parameter)
        sink.member("suggestion", error.suggestion)
        sink.endObject()
    }

    public func json(_ occurrence: Occurrence) -> JSONValue {
        JSONTreeBuilder.build { write(occurrence, into: &$0) }
    }

    private func write<Sink: JSONSink>(_ occurrence: Occurrence, into sink: inout Sink) {
        sink.beginObject()
        sink.key("id")
        sink.write(occurrence.record.id)
        sink.member("title", title(of: occurrence.record))
        sink.key("start")
        sink.write(occurrence.start)
        sink.key("end")
        sink.write(occurrence.end)
        sink.key("recurring")
        sink.write(occurrence.isRecurrenceInstance)
        sink.key("recurrenceId")
        sink.write(occurrence.recurrenceKey)
        sink.endObject()
    }

    /// `total`, `offset`, `limit` (when asked), `truncated`, and `next` (when truncated): the
    /// request for the following page.
    private func write<Sink: JSONSink>(_ page: PageInfo, into sink: inout Sink) {
        sink.key("total")
        sink.write(page.total)
        sink.key("offset")
        sink.write(page.offset)
        if let limit = page.limit {
            sink.key("limit")
            sink.write(limit)
        }
        sink.key("truncated")
        sink.write(page.isTruncated)
        if let next = page.next {
            sink.key("next")
            sink.beginObject()
            sink.key("offset")
            sink.write(next.offset)
            if let limit = next.limit {
                sink.key("limit")
                sink.write(limit)
            }
            sink.endObject()
        }
    }

    /// The records of some occurrences, each once, in the order they first occur.
    private static func distinctRecords(_ occurrences: [Occurrence]) -> [EntityRecord] {
        var seen = Set<UUID>()
        return occurrences.compactMap { seen.insert($0.record.id).inserted ? $0.record : nil }
    }

    private func write<Sink: JSONSink>(_ dialog: Dialog, into sink: inout Sink) {
        sink.beginObject()
        sink.member("full", dialog.full)
        sink.member("supporting", dialog.supporting)
        sink.endObject()
    }

    public func json(_ snippet: Snippet) -> JSONValue {
        JSONTreeBuilder.build { write(snippet, into: &$0) }
    }

    private func write<Sink: JSONSink>(_ snippet: Snippet, into sink: inout Sink) {
        sink.beginObject()
        sink.member("title", snippet.title)
        sink.member("subtitle", snippet.subtitle)
        sink.key("fields")
        sink.beginArray()
        for field in snippet.fields {
            sink.beginObject()
            sink.member("label", field.label)
            sink.member("value", field.value)
            sink.endObject()
        }
        sink.endArray()
        sink.endObject()
    }
}

extension IntentEngine {
    public func json(_ outcome: IntentOutcome) -> JSONValue { registry.json(outcome) }
    public func json(_ error: IntentError) -> JSONValue { registry.json(error) }
    public func json(_ occurrence: Occurrence) -> JSONValue { registry.json(occurrence) }
    public func json(_ snippet: Snippet) -> JSONValue { registry.json(snippet) }
}
