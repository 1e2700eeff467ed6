import Foundation
import CometSchema
import CometStore

/// A series cut in two at one occurrence: the old series ends just before it (UNTIL), the new
/// one starts at it with a new UID, RELATED-TO the old, carrying the rest of the rule (a COUNT
/// is shared out), the RDATEs and EXDATEs from then on.
struct SeriesSplit {
    let oldSeries: EntityRecord
    let newSeries: EntityRecord

    init(master: EntityRecord, at cut: DateTimeValue, rules: TemporalRules, entity: EntityDefinition) throws {
        let fields = rules.fields
        guard let start = rules.start(master) else { throw IntentError(.notRecurring, "the event has no start") }
        let zone = start.expansionZone
        let cutWall = cut.recurrenceWallTime(in: zone)
        var old = master
        var new = EntityRecord(entity: entity.name, id: UUID(), values: master.values)

        if let property = fields.recurrence, case .recurrence(let rule)? = master[property] {
            var oldRule = rule
            var newRule = rule
            if case .count(let total) = rule.end {
                let ruleOnly = RecurrenceSet(start: start.expansionWallTime, timeZone: zone, rule: rule, additions: [], exclusions: [], isAllDay: rules.isAllDay(master))
                let before = ruleOnly.occurrences(through: LocalDateTime(wallSeconds: cutWall.wallSeconds - 1), limit: total).count
                newRule.end = .count(max(1, total - before))
            }
            if rules.isAllDay(master) {
                oldRule.end = .untilDate(LocalDateTime(wallSeconds: cutWall.wallSeconds - 86_400).date)
            } else if start.isFloating {
                oldRule.end = .untilDateTime(.floating(LocalDateTime(wallSeconds: cutWall.wallSeconds - 1)))
            } else {
                oldRule.end = .untilDateTime(DateTimeValue(kind: .utc(epochSeconds: cut.sortKey - 1)))
            }
            old[property] = .recurrence(oldRule)
            new[property] = .recurrence(newRule)
            // Further RRULEs that reach the cut end where the first rule now ends, so the old
            // series stops before the cut whatever rule made an occurrence; the new series
            // carries them on from its own start.
            // (EXRULEs need no end: the old series has nothing after the cut to remove.)
            if let moreProperty = fields.moreRules, case .array(let items)? = master[moreProperty], !items.isEmpty {
                old[moreProperty] = .array(items.map { item in
                    guard case .recurrence(var extra) = item else { return item }
                    let alone = RecurrenceSet(start: start.expansionWallTime, timeZone: zone, rule: extra, isAllDay: rules.isAllDay(master))
                    if alone.lastOccurrence().map({ $0.wallSeconds >= cutWall.wallSeconds }) ?? true { extra.end = oldRule.end }
                    return .recurrence(extra)
                })
            }
        }
        for property in [fields.exclusions, fields.additions].compactMap({ $0 }) {
            guard case .array(let items)? = master[property] else { continue }
            let key = { (item: Value) -> Int64 in if case .dateTime(let value) = item { return value.sortKey } else { return 0 } }
            old[property] = .array(items.filter { key($0) < cut.sortKey })
            new[property] = .array(items.filter { key($0) >= cut.sortKey })
        }
        let duration = rules.end(master).map { $0.sortKey - start.sortKey }
        let newStart = cut.wallTime(in: zone).dateTime(in: zone)
        new[fields.start] = .dateTime(newStart)
        if let end = fields.end, let duration { new[end] = .dateTime(newStart.adding(seconds: duration)) }
        if let uid = fields.uid {
            new[uid] = .string(new.id.lowercasedText)
            if let related = entity.properties.first(where: { $0.icalName == "RELATED-TO" && $0.type.base == .builtin(.string) }) {
                new[related.name] = rules.uid(master).map(Value.string)
            }
        }
        if let sequence = entity.properties.first(where: { $0.icalName == "SEQUENCE" }) {
            new[sequence.name] = .int(0)
            if case .int(let number)? = old[sequence.name] { old[sequence.name] = .int(number + 1) }
        }
        oldSeries = old
        newSeries = new
    }

    /// The recurrence set of a series record, for checking which occurrences exist: the store's
    /// own reading of the record (`SeriesShape`).
    static func recurrenceSet(_ record: EntityRecord, rules: TemporalRules) -> RecurrenceSet? {
        SeriesShape(record: record, temporal: rules.fields)?.recurrenceSet
    }
}
