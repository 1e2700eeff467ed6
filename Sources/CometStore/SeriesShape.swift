import Foundation
import CometSchema

/// The time shape of one record: where it starts, how long it lasts, and its series if any. The
/// store expands series with it, and the engine checks which occurrences a series has with it
/// (`recurrenceSet`), so the two never read a record's rule, dates and exclusions differently.
public struct SeriesShape {
    public let start: DateTimeValue
    public let startKey: Int64
    public let durationSeconds: Int64
    public let isFloating: Bool
    public let isAllDay: Bool
    public let uid: String?
    /// The key of the occurrence an override replaces.
    public let recurrenceID: Int64?
    /// The recurrence set when the record is a series (a rule, added dates or more rules, and
    /// not an override); nil for a single event or an override.
    public private(set) var series: RecurrenceSet?
    public let zone: TimeZone?
    private let rule: RecurrenceRule?
    private let additions: [DateTimeValue]
    private let exclusions: [DateTimeValue]
    private let extraRules: (more: [RecurrenceRule], exclusions: [RecurrenceRule])

    public init?(record: EntityRecord, temporal: TemporalFields) {
        guard case .dateTime(let start)? = record[temporal.start] else { return nil }
        self.start = start
        self.startKey = start.sortKey
        self.isFloating = start.isFloating
        self.zone = start.expansionZone
        if let allDay = temporal.isAllDay, case .bool(true)? = record[allDay] { isAllDay = true } else { isAllDay = false }
        if let end = temporal.end, case .dateTime(let endValue)? = record[end] {
            durationSeconds = max(0, endValue.sortKey - start.sortKey)
        } else {
            durationSeconds = isAllDay ? 86_400 : 0
        }
        if let uidProperty = temporal.uid, case .string(let text)? = record[uidProperty] { uid = text } else { uid = nil }
        if let property = temporal.recurrenceID, case .dateTime(let original)? = record[property] {
            recurrenceID = original.sortKey
        } else {
            recurrenceID = nil
        }
        if let property = temporal.recurrence, case .recurrence(let value)? = record[property] { rule = value } else { rule = nil }
        additions = SeriesShape.dateTimes(record, temporal.additions)
        exclusions = SeriesShape.dateTimes(record, temporal.exclusions)
        extraRules = temporal.extraRules(of: record.values)
        series = nil
        if recurrenceID == nil, rule != nil || !additions.isEmpty || !extraRules.more.isEmpty {
            series = recurrenceSet
        }
    }

    /// The record's recurrence set, whatever the record is: its start with its rule, added
    /// dates, exclusions and more rules (a single event's has its start alone).
    public var recurrenceSet: RecurrenceSet {
        RecurrenceSet(
            start: start.expansionWallTime, timeZone: zone, rule: rule,
            additions: additions.map { SeriesShape.wall($0, in: zone) },
            exclusions: exclusions.map { SeriesShape.wall($0, in: zone) },
            isAllDay: isAllDay, moreRules: extraRules.more, exclusionRules: extraRules.exclusions
        )
    }

    private static func dateTimes(_ record: EntityRecord, _ property: String?) -> [DateTimeValue] {
        guard let property, case .array(let items)? = record[property] else { return [] }
        return items.compactMap { if case .dateTime(let value) = $0 { return value } else { return nil } }
    }

    /// A date-time as a wall reading in the series' zone (EXDATEs may be given in UTC).
    public static func wall(_ value: DateTimeValue, in zone: TimeZone?) -> LocalDateTime {
        value.recurrenceWallTime(in: zone)
    }

    /// The key of a wall-clock instance in the series' zone.
    public func key(of local: LocalDateTime) -> Int64 {
        local.dateTime(in: zone).sortKey
    }

    /// Keys of the instances that overlap [from, through] (start at most `through`, end at least
    /// `from`), and whether the rule was read to the end of the range: false when `reading`
    /// instances (counted before the exact filter) were not enough.
    public func instanceKeys(_ series: RecurrenceSet, from: Int64, through: Int64, reading limit: Int) -> (keys: [Int64], complete: Bool) {
        let walls = wallRange(series, from: from - durationSeconds, through: through)
        let read = series.occurrences(from: LocalDateTime(wallSeconds: walls.from), through: LocalDateTime(wallSeconds: walls.through), limit: limit)
        let keys = read.map { key(of: $0) }.filter { $0 + durationSeconds >= from && $0 <= through }
        return (keys, read.count < limit)
    }

    /// The wall times (as seconds) whose instants can fall in [from, through], widened then
    /// filtered exactly by the caller. Wall times differ from instants by the zone's offset: a
    /// day either way covers every offset, and costs a few instances of a daily or slower rule.
    /// A rule repeating within the day would read a day's worth more (86,400 for a secondly
    /// one, for an hour asked), so its range is widened by the offsets the zone has there,
    /// plus an hour for a wall time in a spring-forward gap.
    private func wallRange(_ series: RecurrenceSet, from: Int64, through: Int64) -> (from: Int64, through: Int64) {
        let day: Int64 = 86_400
        let rules = [series.rule].compactMap { $0 } + series.moreRules
        guard let zone, !rules.isEmpty, rules.allSatisfy({ [.secondly, .minutely, .hourly].contains($0.frequency) }),
              let offsets = SeriesShape.offsets(of: zone, from: from - day, through: through + day) else {
            return (from - day, through + day)
        }
        return (from + offsets.lowest - 3_600, through + offsets.highest + 3_600)
    }

    /// The lowest and highest offsets `zone` has over [from, through]; nil past 64 transitions.
    private static func offsets(of zone: TimeZone, from: Int64, through: Int64) -> (lowest: Int64, highest: Int64)? {
        var moment = Date(timeIntervalSince1970: TimeInterval(from))
        let end = Date(timeIntervalSince1970: TimeInterval(through))
        var lowest = Int64(zone.secondsFromGMT(for: moment)), highest = lowest
        var transitions = 0
        while let next = zone.nextDaylightSavingTimeTransition(after: moment), next <= end {
            transitions += 1
            guard transitions <= 64 else { return nil }
            let offset = Int64(zone.secondsFromGMT(for: next))
            lowest = min(lowest, offset)
            highest = max(highest, offset)
            moment = next
        }
        let last = Int64(zone.secondsFromGMT(for: end))
        return (min(lowest, last), max(highest, last))
    }
}
