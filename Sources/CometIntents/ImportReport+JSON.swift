import Foundation
import CometSchema
import CometStore

extension ImportReport {
    /// The report as `import --json` and the daemon's `ical.import` give it (docs/json.md).
    public var json: JSONValue {
        let report = self
        return .object(JSONObject([
            // null: the database went away during the commit, and the import may or may not be kept.
            ("written", report.outcomeUnknown ? .null : .bool(report.written)),
            // The import's journal entry (what `undo` takes back), when it changed something.
            ("journal", report.journalSequence.map { .int(Int($0)) } ?? .null),
            ("added", .int(report.added)), ("updated", .int(report.updated)), ("unchanged", .int(report.unchanged)),
            ("skipped", .int(report.olderVersions)),
            ("invalid", .int(report.written ? report.problems.count : 0)),
            ("skippedMessages", .int(report.skippedMessages)),
            // What --skip-invalid left out, by component: its UID and the lines of its problems.
            ("leftOut", .array(report.written ? ImportReport.leftOut(report) : [])),
            ("ignoredComponents", .object(JSONObject(report.ignoredComponents.keys.sorted().map { ($0, JSONValue.int(report.ignoredComponents[$0] ?? 0)) }))),
            ("calendars", .array(report.calendars.map(JSONValue.string))),
            ("warnings", .array(report.warnings.map { warning in
                .object(JSONObject([("file", .string(warning.source)), ("line", .int(warning.line)),
                                    ("uid", warning.uid.map(JSONValue.string) ?? .null), ("message", .string(warning.message))]))
            })),
            ("problems", .array(report.problems.map { problem in
                .object(JSONObject([("file", .string(problem.source)), ("line", .int(problem.line)),
                                    ("uid", problem.uid.map(JSONValue.string) ?? .null), ("message", .string(problem.message))]))
            })),
        ]))
    }

    /// What --skip-invalid left out, by component: its UID and the lines of its problems.
    public static func leftOut(_ report: ImportReport) -> [JSONValue] {
        var order: [String] = []
        var byKey: [String: [ImportReport.Problem]] = [:]
        for problem in report.problems {
            let key = problem.source + "|" + (problem.uid ?? "line \(problem.line)")
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(problem)
        }
        return order.compactMap { key in
            guard let problems = byKey[key], let first = problems.first else { return nil }
            return .object(JSONObject([("file", .string(first.source)), ("uid", first.uid.map(JSONValue.string) ?? .null),
                                       ("line", .int(first.line)), ("reasons", .array(problems.map { .string("line \($0.line): \($0.message)") }))]))
        }
    }

}

extension ImportReport {
    /// The report read back from its JSON (a client of the daemon prints the same summary).
    public init(json: JSONValue) {
        self.init()
        func int(_ key: String) -> Int { if case .int(let value)? = json[key] { return value } else { return 0 } }
        written = json["written"] == .bool(true)
        outcomeUnknown = json["written"] == .null
        if case .int(let sequence)? = json["journal"] { journalSequence = Int64(sequence) }
        added = int("added")
        updated = int("updated")
        unchanged = int("unchanged")
        olderVersions = int("skipped")
        skippedMessages = int("skippedMessages")
        if case .object(let ignored)? = json["ignoredComponents"] {
            for (name, count) in ignored { if case .int(let value) = count { ignoredComponents[name] = value } }
        }
        if case .array(let names)? = json["calendars"] { calendars = names.compactMap(\.stringValue) }
        func problems(_ key: String) -> [Problem] {
            guard case .array(let items)? = json[key] else { return [] }
            return items.map { item in
                Problem(source: item["file"]?.stringValue ?? "", line: { if case .int(let value)? = item["line"] { return value } else { return 0 } }(),
                        uid: item["uid"]?.stringValue, message: item["message"]?.stringValue ?? "")
            }
        }
        warnings = problems("warnings")
        self.problems = problems("problems")
    }
}

extension JournalEntry {
    /// An entry as `history --json` and the daemon's `history` list it.
    public var listing: JSONValue {
        .object(JSONObject([
            ("sequence", .int(Int(sequence ?? 0))), ("intent", .string(intent)), ("summary", .string(summary)),
            ("created", .string(ISO8601DateFormatter().string(from: created))), ("undone", .bool(isUndone)), ("changes", .int(changeCount)),
        ]))
    }
}
