import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// Shared fixtures: the calendar schema, a fixed clock and a fixed zone.
enum Fixture {
    /// The repository root: three levels up from this file (`Tests/CometIntentsTests/…`).
    static let repoRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .path

    static let schemaDirectory = repoRoot + "/Schemas"

    private static let loaded: Result<Registry, any Error> = Result {
        try Registry.load(paths: [schemaDirectory])
    }

    /// The calendar registry, loaded once.
    static func registry() throws -> Registry { try loaded.get() }

    /// 2026-06-10T10:00:00Z, a Wednesday.
    static let now = Date(timeIntervalSince1970: 1_781_085_600)
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? TimeZone(secondsFromGMT: 3600)!

    static let event = QualifiedName(domain: "calendar", name: "Event")
    static let calendar = QualifiedName(domain: "calendar", name: "Calendar")

    /// A fresh scratch directory; the caller removes it.
    static func scratchDirectory(_ label: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cometintents-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Schema files written by a test (relative path → text) in a scratch directory.
    static func writeSchema(_ files: [String: String], in directory: URL) throws {
        for (name, text) in files {
            let url = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// The calendar schema files (file name → text), to copy and modify.
    static func calendarSchemaFiles() throws -> [String: String] {
        let directory = schemaDirectory + "/calendar"
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".cal") {
            files["calendar/" + name] = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
        }
        return files
    }
}

/// A fresh store in its own temporary directory and an engine on it, removed when released.
final class TestStore {
    let directory: URL
    let path: String
    private(set) var registry: Registry
    private(set) var store: SQLiteStore
    private(set) var engine: IntentEngine

    init(registry: Registry? = nil, label: String = "store") throws {
        directory = try Fixture.scratchDirectory(label)
        path = directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
        let chosen = try registry ?? Fixture.registry()
        self.registry = chosen
        store = try SQLiteStore(path: path, registry: chosen, now: Fixture.now)
        engine = IntentEngine(store: store, timeZone: Fixture.berlin, clock: { Fixture.now })
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Opens the same file again (optionally with another registry), replacing store and engine.
    func reopen(with registry: Registry? = nil) throws {
        let chosen = registry ?? self.registry
        let reopened = try SQLiteStore(path: path, registry: chosen, now: Fixture.now)
        self.registry = chosen
        store = reopened
        engine = IntentEngine(store: reopened, timeZone: Fixture.berlin, clock: { Fixture.now })
    }

    // MARK: Running intents

    /// Runs one intent. Parameters are given with their value state.
    @discardableResult
    func run(_ intent: String, _ parameters: [String: ParameterValue] = [:], references: [String: String] = [:],
             confirmation: IntentRequest.Confirmation = .pending) -> IntentOutcome {
        engine.perform(IntentRequest(intent: intent, parameters: ParameterBindings(parameters), references: references, confirmation: confirmation))
    }

    /// Runs an intent that must end `done`, returning its result.
    @discardableResult
    func done(_ intent: String, _ parameters: [String: ParameterValue] = [:], references: [String: String] = [:],
              confirmation: IntentRequest.Confirmation = .confirmed,
              sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> IntentResult {
        try requireDone(run(intent, parameters, references: references, confirmation: confirmation), sourceLocation: sourceLocation)
    }

    /// Creates a calendar and returns it.
    @discardableResult
    func makeCalendar(_ title: String = "Work", sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EntityRecord {
        let result = try done("createCalendar", ["title": .set(.string(title))], sourceLocation: sourceLocation)
        return try #require(result.record, sourceLocation: sourceLocation)
    }

    /// Creates an event (a calendar must exist) and returns the stored record.
    @discardableResult
    func makeEvent(_ title: String, start: String, end: String? = nil, _ extra: [String: ParameterValue] = [:],
                   sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EntityRecord {
        var parameters = extra
        parameters["title"] = .set(.string(title))
        parameters["startDate"] = .set(.dateTime(try dateTime(start)))
        if let end { parameters["endDate"] = .set(.dateTime(try dateTime(end))) }
        let result = try done("createEvent", parameters, sourceLocation: sourceLocation)
        let record = try #require(result.record, sourceLocation: sourceLocation)
        return try #require(try fetch(record.id), "the created event is not in the store", sourceLocation: sourceLocation)
    }

    /// The weekly Monday 09:00–10:00 Europe/Berlin series starting 2026-06-01 used by span tests.
    @discardableResult
    func makeWeeklyStandup(_ extra: [String: ParameterValue] = [:], title: String = "Standup",
                           sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EntityRecord {
        var parameters = extra
        if parameters["recurrence"] == nil {
            parameters["recurrence"] = .set(.recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO")))
        }
        return try makeEvent(title, start: "2026-06-01T09:00:00+02:00[Europe/Berlin]", end: "2026-06-01T10:00:00+02:00[Europe/Berlin]",
                             parameters, sourceLocation: sourceLocation)
    }

    // MARK: Reading the store directly

    func fetch(_ id: UUID, _ entity: QualifiedName = Fixture.event) throws -> EntityRecord? {
        try store.transaction { try $0.fetch(entity, id: id) }
    }

    func all(_ entity: QualifiedName = Fixture.event, matching filters: [RecordFilter] = []) throws -> [EntityRecord] {
        try store.transaction { try $0.fetchAll(entity, matching: filters, limit: nil) }
    }

    /// Occurrences in [from, to) (RFC 9557 text), read in Europe/Berlin.
    func occurrences(from: String, to: String, _ entity: QualifiedName = Fixture.event) throws -> [Occurrence] {
        let lower = try #require(try dateTime(from).instant)
        let upper = try #require(try dateTime(to).instant)
        return try store.transaction { try $0.occurrences(entity, from: lower, to: upper, zone: Fixture.berlin, matching: []) }
    }

    func search(_ text: String, _ entity: QualifiedName = Fixture.event) throws -> [EntityRecord] {
        try store.transaction { try $0.search(entity, text: text, limit: 50) }
    }

    func journal() throws -> [JournalEntry] {
        try store.transaction { try $0.journal(limit: 10_000) }
    }

    /// Everything the store holds for the calendar domain (records by id, and the journal), to
    /// check that a failed intent wrote nothing.
    func contents() throws -> StoreContents {
        StoreContents(
            calendars: try all(Fixture.calendar).sorted { $0.id.uuidString < $1.id.uuidString },
            events: try all(Fixture.event).sorted { $0.id.uuidString < $1.id.uuidString },
            journal: try journal())
    }
}

struct StoreContents: Equatable {
    let calendars: [EntityRecord]
    let events: [EntityRecord]
    let journal: [JournalEntry]
}

// MARK: Values

func dateTime(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> DateTimeValue {
    do {
        return try DateTimeValue(parsing: text)
    } catch {
        Issue.record("'\(text)' does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// A DateTime parameter value.
func at(_ text: String) throws -> ParameterValue { .set(.dateTime(try DateTimeValue(parsing: text))) }

/// A String parameter value.
func text(_ value: String) -> ParameterValue { .set(.string(value)) }

/// A Recurrence parameter value.
func rule(_ text: String) throws -> ParameterValue { .set(.recurrence(try RecurrenceRule(parsing: text))) }

func span(_ name: String) -> ParameterValue { .set(.enumCase(name)) }

func reference(_ record: EntityRecord) -> ParameterValue { .set(.reference(record.id)) }

func relativeAlarm(_ text: String) -> Value {
    .union("relative", .duration(DurationValue(parsing: text) ?? DurationValue()))
}

func textLocation(_ text: String) -> Value { .union("text", .string(text)) }

func attendee(_ name: String, _ email: String) -> Value {
    .object(["person": .person(PersonValue(name: name, email: email))])
}

// MARK: Outcomes

extension IntentOutcome {
    var result: IntentResult? { if case .done(let result) = self { return result } else { return nil } }
    var error: IntentError? { if case .failed(let error) = self { return error } else { return nil } }
}

func requireDone(_ outcome: IntentOutcome, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> IntentResult {
    guard case .done(let result) = outcome else {
        Issue.record("expected done, got \(describe(outcome))", sourceLocation: sourceLocation)
        throw OutcomeMismatch()
    }
    return result
}

func requireFailure(_ outcome: IntentOutcome, _ code: IntentError.Code, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> IntentError {
    guard case .failed(let error) = outcome else {
        Issue.record("expected failed(\(code.rawValue)), got \(describe(outcome))", sourceLocation: sourceLocation)
        throw OutcomeMismatch()
    }
    #expect(error.code == code, "expected \(code.rawValue), got \(error.code.rawValue): \(error.message)", sourceLocation: sourceLocation)
    return error
}

struct OutcomeMismatch: Error {}

func describe(_ outcome: IntentOutcome) -> String {
    switch outcome {
    case .done(let result): return "done(\(result.dialog.full))"
    case .needsValue(let parameter, let prompt): return "needsValue(\(parameter): \(prompt))"
    case .needsConfirmation(let prompt, _): return "needsConfirmation(\(prompt))"
    case .needsDisambiguation(let parameter, _, let candidates): return "needsDisambiguation(\(parameter): \(candidates.map(\.title)))"
    case .cancelled(let dialog): return "cancelled(\(dialog.full))"
    case .failed(let error): return "failed(\(error.code.rawValue): \(error.message))"
    }
}

// MARK: Time checks

extension DateTimeValue {
    /// The wall-clock reading in Europe/Berlin, as "2026-06-15 09:00".
    var berlinWallText: String {
        let local = wallTime(in: Fixture.berlin)
        return String(format: "%04d-%02d-%02d %02d:%02d", local.date.year, local.date.month, local.date.day, local.hour, local.minute)
    }

    /// The UTC hour of the instant (for DST checks).
    var utcHour: Int? {
        guard let instant else { return nil }
        return Int((Int64(instant.timeIntervalSince1970) % 86_400 + 86_400) % 86_400 / 3600)
    }
}

extension Occurrence {
    var berlinStart: String { start.berlinWallText }
}

extension EntityRecord {
    var title: String? { if case .string(let text)? = self["title"] { return text } else { return nil } }
    var start: DateTimeValue? { if case .dateTime(let value)? = self["startDate"] { return value } else { return nil } }
    var end: DateTimeValue? { if case .dateTime(let value)? = self["endDate"] { return value } else { return nil } }
    var uid: String? { if case .string(let text)? = self["uid"] { return text } else { return nil } }
    var recurrence: RecurrenceRule? { if case .recurrence(let value)? = self["recurrence"] { return value } else { return nil } }
    var recurrenceId: DateTimeValue? { if case .dateTime(let value)? = self["recurrenceId"] { return value } else { return nil } }
    var excludedDates: [DateTimeValue] {
        guard case .array(let items)? = self["excludedDates"] else { return [] }
        return items.compactMap { if case .dateTime(let value) = $0 { return value } else { return nil } }
    }
}
