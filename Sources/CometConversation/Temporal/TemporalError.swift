import CometSchema

/// Why a temporal expression was not understood, and where: `column` is the 1-based character
/// column of the first word that could not be read (one past the end when words are missing).
public struct TemporalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes for scripts and JSON-RPC clients.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Nothing to read.
        case empty
        /// A word that fits nowhere in the grammar.
        case notUnderstood = "not_understood"
        /// The text stops where more was needed ("next").
        case incomplete
        /// A day that does not exist ("February 30th") or a month number over 12.
        case invalidDate = "invalid_date"
        /// A clock reading that does not exist ("25:00", "13pm").
        case invalidTime = "invalid_time"
        /// Something that has no fixed length, such as a duration in months.
        case unsupported
        /// A range whose end is not after its start.
        case endBeforeStart = "end_before_start"
        /// A date outside years 1–9999, or a number too large to mean anything.
        case outOfRange = "out_of_range"
    }

    public let code: Code
    public let message: String
    public let column: Int
    /// A word the person probably meant, for "did you mean".
    public let suggestion: String?

    init(_ code: Code, _ message: String, column: Int, suggestion: String? = nil) {
        self.code = code
        self.message = message
        self.column = column
        self.suggestion = suggestion
    }

    public var description: String {
        "column \(column): \(message)" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }
}

/// Every message in one place, so their wording stays consistent.
enum TemporalMessages {
    static let examples = "a time ('noon', '8pm'), a date ('June 15th', 'next Friday'), both ('tomorrow at 10'), a duration ('for 45 minutes'), a shift ('an hour later') or a repeat ('every weekday')"

    static var empty: String { "nothing to read; say \(examples)" }

    /// `after`: the words before, when they already read as a whole expression.
    static func notUnderstood(_ word: String, expected: [String], after: String?) -> String {
        if let after { return "'\(word)' is not understood after '\(after)'" }
        return "'\(word)' is not understood here" + expectation(expected)
    }

    static func incomplete(expected: [String]) -> String {
        "the text stops too early" + expectation(expected)
    }

    private static func expectation(_ expected: [String]) -> String {
        let shown = Array(expected.prefix(5))
        guard let last = shown.last else { return "; say \(examples)" }
        let list = shown.count == 1 ? last : shown.dropLast().joined(separator: ", ") + " or " + last
        return "; expected \(list)"
    }

    static func noSuchDay(month: Int, day: Int, year: Int?) -> String {
        let name = TemporalLexicon.monthNames[month - 1]
        if let year { return "\(name) \(year) has no day \(day)" }
        return "\(name) has no day \(day)"
    }

    static func noSuchMonth(_ month: Int) -> String { "\(month) is not a month (1 to 12; dates are month/day, as in 6/15, or day/month with date_order dmy)" }
    static func monthAndDay(month: Int, day: Int) -> String { "\(TemporalLexicon.monthNames[month - 1]) \(day)" }
    static func dependsOnDateOrder(_ written: String, reading: String, order: TemporalDateOrder, otherReading: String) -> String {
        "'\(written)' is read as \(reading), \(order == .mdy ? "month first" : "day first") by the date_order setting (\(order.rawValue)); with \(order == .mdy ? "dmy" : "mdy") it would be \(otherReading)"
    }
    static func againstDateOrder(_ written: String, reading: String, notMonth: Int, order: TemporalDateOrder) -> String {
        "'\(written)' is read as \(reading), \(order == .mdy ? "day first" : "month first") against the date_order setting (\(order.rawValue)): \(notMonth) cannot be a month"
    }
    static func weekdayDisagrees(_ date: CalendarDate, said weekday: Int) -> String {
        let names = TemporalLexicon.weekdayNames
        return "\(TemporalLexicon.monthNames[date.month - 1]) \(date.day), \(date.year) is a \(names[date.weekdayIndex]), not a \(names[weekday])"
    }
    static func noSuchDayOfMonth(_ day: Int) -> String { "no month has a day \(day)" }
    static func noSuchHour(_ hour: Int) -> String { "\(hour) is not an hour of the day (0 to 23, or 1 to 12 with am or pm)" }
    static func noSuchMinute(_ minute: Int) -> String { "\(minute) is not a minute (0 to 59)" }
    static func meridiemHour(_ hour: Int, _ meridiem: String) -> String { "\(hour) \(meridiem) is not a time: with am or pm the hour is 1 to 12" }
    static func periodHour(_ hour: Int, _ period: String) -> String { "\(hour) is not an hour \(period)" }
    static func monthsHaveNoLength(_ unit: String) -> String { "a duration in \(unit) has no fixed length; say it in weeks or days" }
    static func fractionOfCalendarUnit(_ unit: String) -> String { "part of a \(unit) is not a date; say it in days" }
    static let outOfRange = "that is outside the years 1 to 9999 CometCal can hold"
    static let tooLarge = "that number is too large to be a time or a date"
    static let shiftTarget = "an event moves to a date, a time, or both"
    static let conflictingDirections = "the shift says both earlier and later"
    static let zeroInterval = "a repeat interval must be at least 1"
    static let zeroCount = "a series needs at least 1 occurrence"
    static let endBeforeStart = "the range ends before it starts"
    static func wrongYear(_ year: Int) -> String { "\(year) is not a year CometCal can hold (1 to 9999)" }
}
