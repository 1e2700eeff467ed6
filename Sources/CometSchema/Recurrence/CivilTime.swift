import Foundation

/// Exact proleptic-Gregorian arithmetic on plain integers, for the recurrence engine.
///
/// The engine works on *floating seconds*: a wall-clock reading counted as if it were UTC
/// (`day * 86_400 + secondOfDay`, day 0 = 1970-01-01). That keeps every step of an expansion
/// in integer arithmetic, with no `Calendar` and no time zone until the caller converts the
/// resulting wall times to instants.
enum CivilTime {
    static let secondsPerDay = 86_400
    /// 0001-01-01 and 9999-12-31: the range `CalendarDate` can hold.
    static let firstDay = dayNumber(1, 1, 1)
    static let lastDay = dayNumber(9999, 12, 31)
    static let lastSecond = lastDay * secondsPerDay + secondsPerDay - 1

    @inline(__always)
    static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    @inline(__always)
    static func floorMod(_ a: Int, _ b: Int) -> Int {
        let remainder = a % b
        return remainder < 0 ? remainder + b : remainder
    }

    @inline(__always)
    static func ceilDiv(_ a: Int, _ b: Int) -> Int {
        -floorDiv(-a, b)
    }

    /// Days since 1970-01-01.
    @inline(__always)
    static func dayNumber(_ year: Int, _ month: Int, _ day: Int) -> Int {
        Int(TimeZones.daysFromCivil(year, month, day))
    }

    /// The civil date of a day number (Howard Hinnant's algorithm, the inverse of `dayNumber`).
    static func civil(_ dayNumber: Int) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Monday = 0 … Sunday = 6 (1970-01-01 was a Thursday).
    @inline(__always)
    static func weekday(_ dayNumber: Int) -> Int {
        floorMod(dayNumber + 3, 7)
    }

    @inline(__always)
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inline(__always)
    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func seconds(of local: LocalDateTime) -> Int {
        dayNumber(local.date.year, local.date.month, local.date.day) * secondsPerDay
            + local.hour * 3600 + local.minute * 60 + local.second
    }

    static func seconds(of date: CalendarDate) -> Int {
        dayNumber(date.year, date.month, date.day) * secondsPerDay
    }

    static func local(_ seconds: Int) -> LocalDateTime {
        TimeZones.localFromEpoch(Int64(seconds))
    }

    /// The first day of week 1 of `year` when weeks start on `weekStart` (Monday = 0): week 1 is
    /// the first week with at least four days in the year, so it is the week holding January 4th.
    static func weekOneStart(_ year: Int, weekStart: Int) -> Int {
        let january4 = dayNumber(year, 1, 4)
        return january4 - floorMod(weekday(january4) - weekStart, 7)
    }
}

extension RecurrenceRule.Weekday {
    /// Monday = 0 … Sunday = 6, the numbering of `CivilTime.weekday`.
    var mondayBasedIndex: Int {
        switch self {
        case .monday: return 0
        case .tuesday: return 1
        case .wednesday: return 2
        case .thursday: return 3
        case .friday: return 4
        case .saturday: return 5
        case .sunday: return 6
        }
    }
}
