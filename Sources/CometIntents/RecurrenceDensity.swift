import Foundation
import CometSchema
import CometText

/// Repeats that crowd a day: a rule every second or minute is accepted (RFC 5545 allows it),
/// but it is seldom meant, and it fills every agenda, so it is said when it is saved.
enum RecurrenceDensity {
    /// More occurrences than this on one day earns a warning: every hour (24 a day) is a plausible
    /// calendar entry; every 30 minutes or more often is not.
    static let dailyLimit = 24

    /// The days looked at from the series' start: a week and a day, enough for a rule that
    /// only fills some weekdays (BYDAY) to show its busiest one.
    private static let daysLooked = 8
    /// Occurrences counted at most: past this the rule is well over the limit every day.
    private static let counted = 10_000

    /// A warning when the record's repeat makes more than `dailyLimit` occurrences on one day.
    static func warning(for record: EntityRecord, temporal: TemporalFields, registry: Registry) -> String? {
        guard let property = temporal.recurrence, case .recurrence(let rule)? = record[property],
              case .dateTime(let start)? = record[temporal.start] else { return nil }
        let wall = start.expansionWallTime
        let series = RecurrenceSet(start: wall, timeZone: start.expansionZone, rule: rule)
        let last = LocalDateTime(wallSeconds: wall.wallSeconds + Int64(daysLooked * 86_400))
        let starts = series.occurrences(from: wall, through: last, limit: counted)
        var perDay: [CalendarDate: Int] = [:]
        for occurrence in starts { perDay[occurrence.date, default: 0] += 1 }
        guard let (day, count) = perDay.max(by: { $0.value < $1.value || $0.value == $1.value && $0.key > $1.key }), count > dailyLimit else { return nil }
        // Counting stopped inside the last day counted: that day has more than were seen.
        let cut = starts.count == counted && starts.last?.date == day
        let many = (cut ? "at least " : "") + NumberText.grouped(count)
        return "“\(registry.title(of: record))” repeats \(many) times on \(day) (\(rule)); more than \(dailyLimit) a day is seldom meant, and each one is listed in the agenda."
    }
}
