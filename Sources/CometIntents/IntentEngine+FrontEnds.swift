import Foundation
import CometSchema
import CometText
import CometStore

/// What front ends ask the engine besides intents: how to name records and kinds of records.
extension IntentEngine {
    /// How a record is named in lists: its title and what tells it apart (an event's time).
    public func describe(_ record: EntityRecord) -> Candidate {
        (try? store.readTransaction { Presenter(registry: registry, transaction: $0, timeZone: timeZone, timeFormat: timeFormat, now: clock()).candidate(record) })
            ?? Candidate(id: record.id, title: registry.title(of: record), subtitle: nil)
    }

    /// How a record is named in lists, without a store at hand (a client of the daemon): its
    /// title and its time, references shown by id.
    public static func describe(_ record: EntityRecord, registry: Registry, timeZone: TimeZone, timeFormat: TimeFormat = .twentyFourHour,
                                now: Date) -> Candidate {
        Presenter(registry: registry, transaction: nil, timeZone: timeZone, timeFormat: timeFormat, now: now).candidate(record)
    }

    /// "startDate" → "start date": an identifier in the words dialogs use.
    public static func words(_ identifier: String) -> String { Presenter.words(identifier) }

    /// "event" or "events": what an entity is called (its `@display` name), for a count.
    public func noun(_ entity: QualifiedName, count: Int) -> String { IntentEngine.noun(entity, count: count, in: registry) }

    public static func noun(_ entity: QualifiedName, count: Int, in registry: Registry) -> String {
        let noun = Presenter.noun(entity, in: registry)
        return count == 1 ? noun : noun + "s"
    }

    /// Reads one record (for front ends that show what a reference points at).
    public func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        try store.readTransaction { try $0.fetch(entity, id: id) }
    }
}

/// What a text names among the records of an entity, by the one rule of `EntityResolver`.
public enum EntityLookup: Sendable {
    case found(EntityRecord)
    /// Several match: the question to ask and every candidate.
    case ambiguous(prompt: String, candidates: [Candidate])
    case notFound(IntentError)
}

extension IntentEngine {
    /// Finds the record a person names ("the picnic", an id), as intents resolve their entity
    /// parameters: front ends that need the record before they build a request (a conversation
    /// moving "it" to noon needs its day) use this, never a rule of their own.
    public func lookup(_ entity: QualifiedName, text: String, parameter: String? = nil) -> EntityLookup {
        do {
            return try store.readTransaction { transaction in
                let presenter = Presenter(registry: registry, transaction: transaction, timeZone: timeZone, timeFormat: timeFormat, now: clock())
                switch try EntityResolver(registry: registry, transaction: transaction, presenter: presenter).resolve(text, as: entity, parameter: parameter) {
                case .found(let record): return .found(record)
                case .ambiguous(let prompt, let candidates): return .ambiguous(prompt: prompt, candidates: candidates)
                }
            }
        } catch let error as IntentError {
            return .notFound(error)
        } catch {
            return .notFound(IntentError(.storage, "\(error)"))
        }
    }

    /// The first occurrence of a record (a series with its overrides) starting at or after
    /// `date`, within `days`; nil when it has none there or has no start time.
    public func nextOccurrence(of record: EntityRecord, after date: Date, within days: Int = 800) throws -> Occurrence? {
        guard let definition = registry.entity(record.entity), let rules = TemporalRules(entity: definition) else { return nil }
        let filters: [RecordFilter] = rules.fields.uid.flatMap { property in record[property].map { [.equals(property, $0)] } } ?? []
        return try store.readTransaction { transaction in
            try transaction.occurrences(record.entity, from: date, to: date.addingTimeInterval(Double(days) * 86_400), zone: timeZone, matching: filters)
                .first { !filters.isEmpty || $0.record.id == record.id }
        }
    }

    /// A value as a card shows it: references by their title, times as the agenda writes them.
    public func display(_ value: Value, type: TypeExpression) -> String {
        (try? store.readTransaction { Presenter(registry: registry, transaction: $0, timeZone: timeZone, timeFormat: timeFormat, now: clock()).display(value, type: type) })
            ?? registry.displayText(value)
    }

    /// A value as a card shows it, without a store at hand (references show as ids).
    public static func display(_ value: Value, type: TypeExpression, registry: Registry, timeZone: TimeZone, timeFormat: TimeFormat = .twentyFourHour,
                               now: Date) -> String {
        Presenter(registry: registry, transaction: nil, timeZone: timeZone, timeFormat: timeFormat, now: now).display(value, type: type)
    }

    /// "Sat Jun 13 11:30–13:30": when an occurrence happens, as lists and cards say it.
    public func when(_ start: DateTimeValue, end: DateTimeValue?, allDay: Bool = false) -> String {
        // Times need no store: no transaction for each line of a list.
        Presenter(registry: registry, transaction: nil, timeZone: timeZone, timeFormat: timeFormat, now: clock()).when(start, end: end, allDay: allDay)
    }

    /// The card of a record, as intents return it.
    public func snippet(of record: EntityRecord) -> Snippet? {
        try? store.readTransaction { Presenter(registry: registry, transaction: $0, timeZone: timeZone, timeFormat: timeFormat, now: clock()).snippet(record) }
    }

    /// Whether the record is all-day, by its entity's temporal fields.
    public func isAllDay(_ record: EntityRecord) -> Bool {
        guard let definition = registry.entity(record.entity), let rules = TemporalRules(entity: definition) else { return false }
        return rules.isAllDay(record)
    }

    /// Whether a record takes up its time (free/busy): timed and not marked transparent. The
    /// one rule of the conversation's "am I free", `cometcal free` and the overlap sentence.
    public func blocksTime(_ record: EntityRecord) -> Bool { IntentEngine.freeReason(record, registry: registry) == nil }

    /// Why a record leaves its time free by that rule ("all day", "marked free"), without a
    /// store at hand (a client of the daemon); nil when it is busy. A record with no time of its
    /// own is not busy: "no time".
    public static func freeReason(_ record: EntityRecord, registry: Registry) -> String? {
        guard let definition = registry.entity(record.entity), let rules = TemporalRules(entity: definition) else { return "no time" }
        return rules.freeReason(record)
    }

    /// "Sat Jun 13 11:30–13:30", as `when` says it, without a store at hand.
    public static func when(_ start: DateTimeValue, end: DateTimeValue?, allDay: Bool = false, registry: Registry, timeZone: TimeZone,
                            timeFormat: TimeFormat, now: Date) -> String {
        Presenter(registry: registry, transaction: nil, timeZone: timeZone, timeFormat: timeFormat, now: now).when(start, end: end, allDay: allDay)
    }

    /// Whether the record is all-day, by its entity's temporal fields, without a store at hand.
    public static func isAllDay(_ record: EntityRecord, registry: Registry) -> Bool {
        guard let definition = registry.entity(record.entity), let rules = TemporalRules(entity: definition) else { return false }
        return rules.isAllDay(record)
    }

    /// The clock the engine reads "now" from.
    public var now: Date { clock() }
}

extension IntentEngine {
    /// Every record of an entity, by title (for checks and listings, not for search).
    public func records(_ entity: QualifiedName) throws -> [EntityRecord] {
        try store.readTransaction { try $0.fetchAll(entity, matching: [], limit: nil) }
    }
}

extension IntentEngine {
    /// Runs `body` with a time limit on the store's work: what runs past it is stopped and
    /// rolled back, and fails as `storage` ("it took longer than its time limit").
    public func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        try store.withTimeLimit(seconds: seconds, body)
    }
}
