import Foundation
import CometSchema

/// The fixed clock of a run and the span the data covers: about three years centred on "now",
/// so some months lie before the store's materialization window (a year back) and exercise
/// on-the-fly series expansion, as a real calendar with history does.
struct TimeFrame {
    /// 2026-06-10T10:00:00Z: passed to the store (its window) and to the engine (its clock).
    let now: Date
    /// The person's zone: agenda months are calendar months in it.
    let zone: TimeZone
    let zoneName: String
    /// Day numbers (days since 1970-01-01) of the first and last day events may start on.
    let firstDay: Int64
    let lastDay: Int64
    /// Every calendar month lying wholly inside [firstDay, lastDay], as (year, month).
    let months: [(year: Int, month: Int)]
    /// The store's materialization window (SQLiteStore: a year before now to two years after).
    let windowStart: Int64
    let windowEnd: Int64

    static let nowText = "2026-06-10T10:00:00Z"

    init(zoneName: String = "Europe/Berlin") throws {
        guard let now = try DateTimeValue(parsing: TimeFrame.nowText).instant else {
            throw BenchError("cannot read the fixed clock \(TimeFrame.nowText)")
        }
        self.now = now
        self.zoneName = zoneName
        zone = try TimeZones.zone(zoneName)
        let nowSeconds = Int64(now.timeIntervalSince1970)
        let today = nowSeconds / 86_400
        firstDay = today - 548
        lastDay = today + 547
        windowStart = nowSeconds - 366 * 86_400
        windowEnd = nowSeconds + 2 * 366 * 86_400
        var months: [(Int, Int)] = []
        let first = TimeFrame.date(day: firstDay)
        var year = first.year
        var month = first.month
        while true {
            // The month after the first day's month is the first one wholly inside.
            month += 1
            if month > 12 { month = 1; year += 1 }
            guard let end = CalendarDate(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1),
                  end.dayNumber - 1 <= lastDay else { break }
            months.append((year, month))
        }
        self.months = months
    }

    static func date(day: Int64) -> CalendarDate {
        LocalDateTime(wallSeconds: day * 86_400).date
    }

    /// [first instant of the month, first instant of the next month) in the person's zone.
    func monthBounds(_ month: (year: Int, month: Int)) throws -> (from: DateTimeValue, to: DateTimeValue) {
        let next = month.month == 12 ? (month.year + 1, 1) : (month.year, month.month + 1)
        guard let firstDate = CalendarDate(year: month.year, month: month.month, day: 1),
              let nextDate = CalendarDate(year: next.0, month: next.1, day: 1),
              let first = LocalDateTime(date: firstDate, hour: 0, minute: 0),
              let last = LocalDateTime(date: nextDate, hour: 0, minute: 0) else {
            throw BenchError("invalid month \(month.year)-\(month.month)")
        }
        return (try DateTimeValue.zoned(first, timeZone: zoneName), try DateTimeValue.zoned(last, timeZone: zoneName))
    }

    /// [the first instant of `date`, the first instant of the next day) in the person's zone.
    func dayBounds(_ date: CalendarDate) throws -> (from: DateTimeValue, to: DateTimeValue) {
        let next = TimeFrame.date(day: date.dayNumber + 1)
        guard let first = LocalDateTime(date: date, hour: 0, minute: 0), let last = LocalDateTime(date: next, hour: 0, minute: 0) else {
            throw BenchError("invalid day \(date)")
        }
        return (try DateTimeValue.zoned(first, timeZone: zoneName), try DateTimeValue.zoned(last, timeZone: zoneName))
    }

    /// The calendar month `monthsFromNow` months from now's month (negative: back), which lies
    /// wholly outside the window for -13 and 25 (the window reaches a year back, two years ahead).
    func monthOutsideWindow(monthsFromNow: Int) -> (year: Int, month: Int) {
        let today = TimeFrame.date(day: Int64(now.timeIntervalSince1970) / 86_400)
        let index = today.year * 12 + (today.month - 1) + monthsFromNow
        return (index / 12, index % 12 + 1)
    }

    /// Whether the whole month lies inside the materialized window (else series are expanded
    /// on the fly for it).
    func isInsideWindow(_ bounds: (from: DateTimeValue, to: DateTimeValue)) -> Bool {
        bounds.from.sortKey >= windowStart && bounds.to.sortKey <= windowEnd
    }
}

/// A failure of the benchmark itself (setup, an intent that did not succeed).
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
