import Foundation

/// A day in the proleptic Gregorian calendar, with no time and no zone: all-day events.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Nil when the day does not exist (February 30th, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= CalendarDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `2026-06-15` (ISO 8601) or `20260615` (RFC 5545 DATE).
    public init?(parsing text: String) {
        let digits: [Int]
        if text.count == 10 {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            guard let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
            digits = [y, m, d]
        } else if text.count == 8, text.allSatisfy(\.isASCIIDigit) {
            let chars = Array(text)
            guard let y = Int(String(chars[0..<4])), let m = Int(String(chars[4..<6])), let d = Int(String(chars[6..<8])) else { return nil }
            digits = [y, m, d]
        } else {
            return nil
        }
        self.init(year: digits[0], month: digits[1], day: digits[2])
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// ISO 8601: `2026-06-15`.
    public var description: String {
        Digits.padded(year, 4) + "-" + Digits.padded(month, 2) + "-" + Digits.padded(day, 2)
    }

    /// RFC 5545 DATE: `20260615`.
    public var icalText: String {
        Digits.padded(year, 4) + Digits.padded(month, 2) + Digits.padded(day, 2)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// A wall-clock time with no zone attached: the local reading of a DateTime.
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let date: CalendarDate
    public let hour: Int
    public let minute: Int
    public let second: Int

    public init?(date: CalendarDate, hour: Int, minute: Int, second: Int = 0) {
        // Second 60 is a leap second: RFC 5545 allows it; it is read as :59.
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = min(second, 59)
    }

    /// Parses `2026-06-15T08:00`, `2026-06-15T08:00:00` (also with a space) or `20260615T080000`.
    public init?(parsing text: String) {
        let separatorIndex = text.firstIndex { $0 == "T" || $0 == " " }
        guard let separatorIndex else { return nil }
        guard let date = CalendarDate(parsing: String(text[..<separatorIndex])) else { return nil }
        let time = String(text[text.index(after: separatorIndex)...])
        var parts: [Int] = []
        if time.contains(":") {
            let pieces = time.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(pieces.count), pieces.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            parts = pieces.compactMap { Int($0) }
        } else {
            guard time.count == 6 || time.count == 4, time.allSatisfy(\.isASCIIDigit) else { return nil }
            let chars = Array(time)
            parts = stride(from: 0, to: chars.count, by: 2).compactMap { Int(String(chars[$0..<$0 + 2])) }
        }
        self.init(date: date, hour: parts[0], minute: parts[1], second: parts.count > 2 ? parts[2] : 0)
    }

    /// ISO 8601 without zone: `2026-06-15T08:00:00`.
    public var description: String {
        date.description + "T" + Digits.padded(hour, 2) + ":" + Digits.padded(minute, 2) + ":" + Digits.padded(second, 2)
    }

    /// RFC 5545 local form: `20260615T080000`.
    public var icalText: String {
        date.icalText + "T" + Digits.padded(hour, 2) + Digits.padded(minute, 2) + Digits.padded(second, 2)
    }

    var dateComponents: DateComponents {
        DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute, second: second)
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool {
        (lhs.date, lhs.hour, lhs.minute, lhs.second) < (rhs.date, rhs.hour, rhs.minute, rhs.second)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
