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
        self.init(bytes: Array(text.utf8)[...])
    }

    /// The same, on UTF-8 bytes.
    init?(bytes: ArraySlice<UInt8>) {
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for offset in range {
                let byte = bytes[bytes.startIndex + offset]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        let y: Int?, m: Int?, d: Int?
        if bytes.count == 10 {
            guard bytes[bytes.startIndex + 4] == 0x2D, bytes[bytes.startIndex + 7] == 0x2D else { return nil }
            (y, m, d) = (digits(0..<4), digits(5..<7), digits(8..<10))
        } else if bytes.count == 8 {
            (y, m, d) = (digits(0..<4), digits(4..<6), digits(6..<8))
        } else {
            return nil
        }
        guard let y, let m, let d else { return nil }
        self.init(year: y, month: m, day: d)
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 5545 DATE: `20260615`.
    public var icalText: String {
        Digits.text(capacity: 8) { write(ical: &$0) }
    }

    func write(ical writer: inout Digits.Writer) {
        writer.digits(year, 4)
        writer.digits(month, 2)
        writer.digits(day, 2)
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
    /// Read on the UTF-8 bytes: an import parses every time it meets (4% of it, on Characters).
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard let separator = bytes.firstIndex(where: { $0 == 0x54 || $0 == 0x20 }) else { return nil }
        guard let date = CalendarDate(bytes: bytes[..<separator]) else { return nil }
        let time = bytes[(separator + 1)...]
        func number(_ slice: ArraySlice<UInt8>) -> Int? {
            guard slice.count == 2, slice.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(slice[slice.startIndex] - 0x30) * 10 + Int(slice[slice.startIndex + 1] - 0x30)
        }
        var parts: [Int] = []
        if time.contains(0x3A) {
            let pieces = time.split(separator: 0x3A, omittingEmptySubsequences: false)
            guard (2...3).contains(pieces.count) else { return nil }
            for piece in pieces {
                guard let value = number(piece) else { return nil }
                parts.append(value)
            }
        } else {
            guard time.count == 6 || time.count == 4 else { return nil }
            var index = time.startIndex
            while index < time.endIndex {
                guard let value = number(time[index..<(index + 2)]) else { return nil }
                parts.append(value)
                index += 2
            }
        }
        self.init(date: date, hour: parts[0], minute: parts[1], second: parts.count > 2 ? parts[2] : 0)
    }

    /// ISO 8601 without zone: `2026-06-15T08:00:00`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(19)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 5545 local form: `20260615T080000`.
    public var icalText: String {
        Digits.text(capacity: 15) { writer in
            date.write(ical: &writer)
            writer.byte(0x54)
            writer.digits(hour, 2)
            writer.digits(minute, 2)
            writer.digits(second, 2)
        }
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
