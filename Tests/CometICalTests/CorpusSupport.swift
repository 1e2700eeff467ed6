import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// The fixture corpus (Tests/Fixtures/ical) and a fresh engine per use.
enum Corpus {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Tests/Fixtures/ical")
    static let registry: Registry = {
        do { return try Registry.load(paths: [root.appendingPathComponent("Schemas").path]) } catch { fatalError("the shipped schemas must load: \(error)") }
    }()
    static let now = Date(timeIntervalSince1970: 1_781_085_600)  // 2026-06-10T10:00:00Z

    struct Entry: Decodable {
        struct Refusal: Decodable {
            let line: Int
            let uid: String?
            let contains: String?
        }

        let file: String
        let family: String
        let producer: String
        let decision: String
        let events: Int
        let refusals: [Refusal]
        let notes: String
    }

    static let manifest: [Entry] = {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("MANIFEST.json")),
              let entries = try? JSONDecoder().decode([Entry].self, from: data) else { return [] }
        return entries
    }()

    /// Properties the fixtures use that RFC 5545 says to keep and libical 3.0.16 cannot read:
    /// CometCal writes them back as they came, and libical flags them in the export.
    static let beyondLibical = ["LINK", "REFID", "CONCEPT"]
    /// Value types later RFCs allow that libical 3.0 reports on export (RFC 9253 VALUE=URI).
    static let valueTypesBeyondLibical = ["Invalid VALUE type for property LOCATION: VALUE=URI", "Invalid VALUE type for property RELATED-TO: VALUE=URI"]

    /// Files the independent oracle cannot read as RFC 5545 and its extensions mean them.
    static let beyondOracle: Set<String> = [
        "rrule-exrule.ics",            // recurring_ical_events 3.8 ignores EXRULE (RecurrenceSetDifferentialTests uses dateutil's)
        "rrule-rscale-gregorian.ics",  // python-dateutil does not know RFC 7529's RSCALE and SKIP
    ]

    /// Where CometCal and recurring_ical_events read an ambiguous file differently, on purpose.
    static let oracleInterpretations: Set<String> = [
        "rrule-dtstart-not-in-rule.ics",      // RFC 5545: DTSTART counts toward COUNT; the oracle adds it on top
        "rrule-until-floating-on-zoned.ics",  // a floating UNTIL on a zoned series is read in the event's zone
        "rrule-until-type-mismatch.ics",      // a DATE UNTIL on a DATE-TIME series includes that whole day
    ]

    /// A temporary store with an engine on it; removed by `close()`.
    final class Session {
        let directory: URL
        let store: SQLiteStore
        let engine: IntentEngine

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-corpus-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SQLiteStore(path: directory.appendingPathComponent("store.sqlite").path, registry: Corpus.registry, now: Corpus.now)
            engine = IntentEngine(store: store, timeZone: TimeZone(identifier: "UTC")!, clock: { Corpus.now })
        }

        func importFile(_ name: String, skipInvalid: Bool = false) throws -> ImportReport {
            let handle = try FileHandle(forReadingFrom: Corpus.fixtures.appendingPathComponent(name))
            defer { try? handle.close() }
            return engine.importCalendars([ImportSource(name: name, handle: handle, registry: Corpus.registry)], options: ImportOptions(skipInvalid: skipInvalid))
        }

        func importText(_ text: String, name: String) -> ImportReport {
            engine.importCalendars([ImportSource(name: name, text: text, registry: Corpus.registry)])
        }

        /// Every stored event, keyed by UID and RECURRENCE-ID, without ids that differ between stores.
        func events() throws -> [String: [String: Value]] {
            let entity = QualifiedName(domain: "calendar", name: "Event")
            let records = try store.transaction { try $0.fetchAll(entity, matching: [], limit: nil) }
            var result: [String: [String: Value]] = [:]
            for record in records {
                var values = record.values
                values["calendar"] = nil
                let uid = values["uid"].map { Corpus.registry.displayText($0) } ?? "-"
                let recurrence = values["recurrenceId"].map { Corpus.registry.displayText($0) } ?? "-"
                result["\(uid)|\(recurrence)"] = values
            }
            return result
        }

        func close() {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}
