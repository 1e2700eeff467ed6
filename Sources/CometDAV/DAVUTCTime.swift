/// A UTC date-time as CalDAV writes it in time-range, expand and friends: `YYYYMMDDTHHMMSSZ`.
public struct DAVUTCTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    /// Parses `YYYYMMDDTHHMMSSZ`; anything else (a local time without Z, a date only, a 30th of
    /// February, second 60) is nil.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64 {
        // Days from the civil date (the proleptic Gregorian calendar), March-based years.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))\(pad(month, 2))\(pad(day, 2))T\(pad(hour, 2))\(pad(minute, 2))\(pad(second, 2))Z"
    }

    public static func < (lhs: DAVUTCTime, rhs: DAVUTCTime) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// A time range (RFC 4791 §9.9): a start, an end, or both; a missing side is open.
public struct DAVTimeRange: Hashable, Sendable {
    public let start: DAVUTCTime?
    public let end: DAVUTCTime?

    public init(start: DAVUTCTime?, end: DAVUTCTime?) {
        self.start = start
        self.end = end
    }

    /// Reads the start and end attributes of a time-range, expand, limit-recurrence-set or
    /// limit-freebusy-set element. `bothRequired` for those that need both (§9.6.5–9.6.7).
    static func decode(_ element: DAVXMLElement, bothRequired: Bool) throws(DAVRequestError) -> DAVTimeRange {
        func time(_ attribute: String) throws(DAVRequestError) -> DAVUTCTime? {
            guard let text = element.attribute(attribute) else { return nil }
            guard let time = DAVUTCTime(text) else {
                throw DAVRequestError("\(element.name.local) has \(attribute)=\"\(text)\", which is not a UTC date-time YYYYMMDDTHHMMSSZ", at: element, precondition: element.name == .caldav("time-range") ? .validFilter : nil)
            }
            return time
        }
        let start = try time("start")
        let end = try time("end")
        if bothRequired, start == nil || end == nil {
            throw DAVRequestError("\(element.name.local) needs both a start and an end attribute", at: element)
        }
        if start == nil, end == nil {
            throw DAVRequestError("\(element.name.local) has neither a start nor an end attribute; one at least is required", at: element, precondition: element.name == .caldav("time-range") ? .validFilter : nil)
        }
        return DAVTimeRange(start: start, end: end)
    }
}
