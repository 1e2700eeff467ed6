import Foundation
import CometText

/// An RFC 5545 recurrence rule (RRULE), typed. Parsed from RRULE text or from the friendly
/// forms people type (`weekly`, `weekdays`); written back in a canonical part order so two
/// equal rules always print the same. Expansion lives with the store, not here.
public struct RecurrenceRule: Sendable, Hashable, CustomStringConvertible {
    public enum Frequency: String, Sendable, Hashable, CaseIterable {
        case secondly = "SECONDLY", minutely = "MINUTELY", hourly = "HOURLY", daily = "DAILY"
        case weekly = "WEEKLY", monthly = "MONTHLY", yearly = "YEARLY"
    }

    public enum Weekday: String, Sendable, Hashable, CaseIterable {
        case sunday = "SU", monday = "MO", tuesday = "TU", wednesday = "WE", thursday = "TH", friday = "FR", saturday = "SA"
    }

    /// `MO`, `2TU` (the second Tuesday), `-1FR` (the last Friday).
    public struct WeekdayOccurrence: Sendable, Hashable, CustomStringConvertible {
        public let ordinal: Int?
        public let weekday: Weekday

        public init(_ weekday: Weekday, ordinal: Int? = nil) {
            self.weekday = weekday
            self.ordinal = ordinal
        }

        public var description: String { (ordinal.map(String.init) ?? "") + weekday.rawValue }
    }

    /// How a series ends. UNTIL is a DATE for all-day series, else a UTC or floating DATE-TIME.
    public enum End: Sendable, Hashable {
        case never
        case count(Int)
        case untilDate(CalendarDate)
        case untilDateTime(DateTimeValue)
    }

    public var frequency: Frequency
    public var interval: Int
    public var end: End
    public var bySecond: [Int]
    public var byMinute: [Int]
    public var byHour: [Int]
    public var byDay: [WeekdayOccurrence]
    public var byMonthDay: [Int]
    public var byYearDay: [Int]
    public var byWeekNumber: [Int]
    public var byMonth: [Int]
    public var bySetPosition: [Int]
    public var weekStart: Weekday?
    /// RFC 7529's RSCALE, as written, when given: only GREGORIAN, the calendar every rule is
    /// expanded in, is accepted. Kept so that the rule is written back as it came.
    public var calendarScale: String?
    /// RFC 7529's SKIP when given: only OMIT, what RFC 5545 does with an invalid date (February 30).
    public var skip: String?

    public init(
        frequency: Frequency, interval: Int = 1, end: End = .never,
        bySecond: [Int] = [], byMinute: [Int] = [], byHour: [Int] = [],
        byDay: [WeekdayOccurrence] = [], byMonthDay: [Int] = [], byYearDay: [Int] = [],
        byWeekNumber: [Int] = [], byMonth: [Int] = [], bySetPosition: [Int] = [], weekStart: Weekday? = nil
    ) {
        self.frequency = frequency
        self.interval = interval
        self.end = end
        self.bySecond = bySecond
        self.byMinute = byMinute
        self.byHour = byHour
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byYearDay = byYearDay
        self.byWeekNumber = byWeekNumber
        self.byMonth = byMonth
        self.bySetPosition = bySetPosition
        self.weekStart = weekStart
    }

    /// The forms people type. `weekdays` is Monday to Friday.
    public static let friendlyForms: [String: RecurrenceRule] = [
        "daily": RecurrenceRule(frequency: .daily),
        "weekly": RecurrenceRule(frequency: .weekly),
        "weekdays": RecurrenceRule(frequency: .weekly, byDay: [.init(.monday), .init(.tuesday), .init(.wednesday), .init(.thursday), .init(.friday)]),
        "fortnightly": RecurrenceRule(frequency: .weekly, interval: 2),
        "monthly": RecurrenceRule(frequency: .monthly),
        "yearly": RecurrenceRule(frequency: .yearly),
    ]

    /// Parses `FREQ=WEEKLY;BYDAY=MO,WE` (an optional `RRULE:` prefix is allowed) or a friendly form.
    /// Errors name the offending part.
    public init(parsing text: String) throws(ValueError) {
        let trimmed = text.trimmingSpaces()
        if let friendly = RecurrenceRule.friendlyForms[trimmed.lowercased()] {
            self = friendly
            return
        }
        var body = Substring(trimmed)
        if body.uppercased().hasPrefix("RRULE:") { body = body.dropFirst(6) }
        guard !body.isEmpty else {
            throw ValueError(.invalidRecurrence, "empty recurrence rule; write an RRULE such as FREQ=WEEKLY;BYDAY=MO or one of: \(RecurrenceRule.friendlyForms.keys.sorted().joined(separator: ", "))")
        }
        var parser = RecurrenceRuleParser(text: trimmed)
        self = try parser.parse(String(body))
    }

    /// Checks a rule built in code against the RFC 5545 rules the parser applies (value ranges,
    /// parts allowed with the frequency, COUNT/INTERVAL at least 1). The error names the part.
    public func validate() throws(ValueError) {
        // The canonical text carries every part, so reading it back runs exactly the parser's checks.
        _ = try RecurrenceRule(parsing: description)
    }

    /// Canonical RRULE text (without the `RRULE:` prefix).
    public var description: String {
        var parts = ["FREQ=\(frequency.rawValue)"]
        switch end {
        case .never: break
        case .count(let count): parts.append("COUNT=\(count)")
        case .untilDate(let date): parts.append("UNTIL=\(date.icalText)")
        case .untilDateTime(let value):
            // RFC 5545: a DATE-TIME UNTIL is floating or in UTC; a zoned instant is written in UTC.
            switch value.kind {
            case .floating(let local): parts.append("UNTIL=\(local.icalText)")
            case .utc(let seconds), .zoned(let seconds, _):
                parts.append("UNTIL=\(TimeZones.localFromEpoch(seconds).icalText)Z")
            }
        }
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        func list(_ name: String, _ values: [Int]) {
            if !values.isEmpty { parts.append("\(name)=" + values.map(String.init).joined(separator: ",")) }
        }
        list("BYSECOND", bySecond)
        list("BYMINUTE", byMinute)
        list("BYHOUR", byHour)
        if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(\.description).joined(separator: ",")) }
        list("BYMONTHDAY", byMonthDay)
        list("BYYEARDAY", byYearDay)
        list("BYWEEKNO", byWeekNumber)
        list("BYMONTH", byMonth)
        list("BYSETPOS", bySetPosition)
        if let weekStart { parts.append("WKST=\(weekStart.rawValue)") }
        if let calendarScale { parts.append("RSCALE=\(calendarScale)") }
        if let skip { parts.append("SKIP=\(skip)") }
        return parts.joined(separator: ";")
    }
}

/// The RRULE grammar of RFC 5545 §3.3.10 with its MUST/MUST NOT rules.
private struct RecurrenceRuleParser {
    let text: String

    static let partNames = ["FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY",
                            "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST", "RSCALE", "SKIP"]

    /// The suggestion goes in the error's own field, so `description` prints it once.
    func fail(_ part: String, _ message: String, suggestion: String? = nil) -> ValueError {
        ValueError(.invalidRecurrence, "invalid RRULE part '\(part)': \(message)", suggestion: suggestion)
    }

    mutating func parse(_ body: String) throws(ValueError) -> RecurrenceRule {
        var values: [String: (raw: String, value: String)] = [:]
        for raw in body.split(separator: ";", omittingEmptySubsequences: true).map(String.init) {
            let pieces = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pieces.count == 2, !pieces[1].isEmpty else {
                throw fail(raw, "expected NAME=VALUE")
            }
            let name = pieces[0].uppercased().trimmingSpaces()
            guard RecurrenceRuleParser.partNames.contains(name) else {
                throw ValueError(.invalidRecurrence, "unknown RRULE part '\(pieces[0])'",
                                 suggestion: EditDistance.closest(to: name, among: RecurrenceRuleParser.partNames))
            }
            guard values[name] == nil else { throw fail(raw, "\(name) is given twice") }
            values[name] = (raw, String(pieces[1]).trimmingSpaces())
        }
        guard let freqPart = values["FREQ"] else {
            throw ValueError(.invalidRecurrence, "RRULE needs a FREQ part (DAILY, WEEKLY, MONTHLY, YEARLY, …)")
        }
        guard let frequency = RecurrenceRule.Frequency(rawValue: freqPart.value.uppercased()) else {
            let names = RecurrenceRule.Frequency.allCases.map(\.rawValue)
            throw fail(freqPart.raw, "'\(freqPart.value)' is not a frequency (\(names.joined(separator: ", ")))",
                       suggestion: EditDistance.closest(to: freqPart.value.uppercased(), among: names))
        }
        var rule = RecurrenceRule(frequency: frequency)

        if let part = values["INTERVAL"] {
            guard let interval = Int(part.value), interval >= 1 else { throw fail(part.raw, "INTERVAL must be a whole number of at least 1") }
            rule.interval = interval
        }
        if values["COUNT"] != nil, values["UNTIL"] != nil {
            throw ValueError(.invalidRecurrence, "invalid RRULE: COUNT and UNTIL must not both be given (RFC 5545 §3.3.10); keep one")
        }
        if let part = values["COUNT"] {
            guard let count = Int(part.value), count >= 1 else { throw fail(part.raw, "COUNT must be a whole number of at least 1") }
            rule.end = .count(count)
        }
        if let part = values["UNTIL"] {
            if let date = CalendarDate(parsing: part.value), part.value.count == 8 {
                rule.end = .untilDate(date)
            } else if part.value.uppercased().hasSuffix("Z"), let local = LocalDateTime(parsing: String(part.value.dropLast())) {
                rule.end = .untilDateTime(DateTimeValue(kind: .utc(epochSeconds: TimeZones.epochSeconds(of: local, offset: 0))))
            } else if let local = LocalDateTime(parsing: part.value), part.value.count == 15 {
                rule.end = .untilDateTime(.floating(local))
            } else {
                throw fail(part.raw, "UNTIL must be a DATE (20261231) or a UTC DATE-TIME (20261231T235959Z)")
            }
        }
        rule.bySecond = try numbers("BYSECOND", values, range: 0...60)
        rule.byMinute = try numbers("BYMINUTE", values, range: 0...59)
        rule.byHour = try numbers("BYHOUR", values, range: 0...23)
        rule.byMonthDay = try numbers("BYMONTHDAY", values, range: -31...31, signed: true)
        rule.byYearDay = try numbers("BYYEARDAY", values, range: -366...366, signed: true)
        rule.byWeekNumber = try numbers("BYWEEKNO", values, range: -53...53, signed: true)
        rule.byMonth = try numbers("BYMONTH", values, range: 1...12)
        rule.bySetPosition = try numbers("BYSETPOS", values, range: -366...366, signed: true)
        if let part = values["BYDAY"] {
            rule.byDay = try part.value.split(separator: ",", omittingEmptySubsequences: false).map { item throws(ValueError) in
                try weekdayOccurrence(String(item), part: part.raw)
            }
        }
        if let part = values["WKST"] {
            guard let weekday = RecurrenceRule.Weekday(rawValue: part.value.uppercased()) else {
                throw fail(part.raw, "'\(part.value)' is not a weekday (SU, MO, TU, WE, TH, FR, SA)")
            }
            rule.weekStart = weekday
        }
        // RFC 7529: another calendar scale (HEBREW, CHINESE, …) would put the occurrences on
        // other days than the Gregorian expansion does.
        if let part = values["RSCALE"] {
            guard part.value.uppercased() == "GREGORIAN" else {
                throw fail(part.raw, "RSCALE=\(part.value) (RFC 7529) is a calendar CometCal does not expand rules in; only RSCALE=GREGORIAN is read")
            }
            rule.calendarScale = part.value.uppercased()
        }
        if let part = values["SKIP"] {
            guard part.value.uppercased() == "OMIT" else {
                throw fail(part.raw, "SKIP=\(part.value) (RFC 7529) moves dates a month lacks (February 30); CometCal skips them, as SKIP=OMIT and RFC 5545 do")
            }
            rule.skip = part.value.uppercased()
        }
        try checkCombinations(rule, values)
        return rule
    }

    func numbers(_ name: String, _ values: [String: (raw: String, value: String)], range: ClosedRange<Int>, signed: Bool = false) throws(ValueError) -> [Int] {
        guard let part = values[name] else { return [] }
        var result: [Int] = []
        for item in part.value.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = signed ? "\(range.lowerBound) to -1 or 1 to \(range.upperBound)" : "\(range.lowerBound) to \(range.upperBound)"
            guard !item.isEmpty else { throw fail(part.raw, "an empty item in the list; write numbers from \(bounds), separated by commas") }
            // Int accepts one sign, "+5" or "-5", and nothing else ("+-5", " 5").
            guard let number = Int(item), range.contains(number), !(signed && number == 0) else {
                throw fail(part.raw, "'\(item)' is out of range (\(bounds))")
            }
            result.append(number)
        }
        return result
    }

    func weekdayOccurrence(_ item: String, part: String) throws(ValueError) -> RecurrenceRule.WeekdayOccurrence {
        let upper = item.uppercased().trimmingSpaces()
        guard upper.count >= 2, let weekday = RecurrenceRule.Weekday(rawValue: String(upper.suffix(2))) else {
            throw fail(part, "'\(item)' is not a weekday (SU, MO, TU, WE, TH, FR, SA, optionally with an ordinal such as 2TU or -1FR)")
        }
        let prefix = upper.dropLast(2)
        if prefix.isEmpty { return .init(weekday) }
        guard let ordinal = Int(prefix), ordinal != 0, (-53...53).contains(ordinal) else {
            throw fail(part, "'\(item)': the ordinal must be 1 to 53 or -53 to -1")
        }
        return .init(weekday, ordinal: ordinal)
    }

    func checkCombinations(_ rule: RecurrenceRule, _ values: [String: (raw: String, value: String)]) throws(ValueError) {
        let raw = { (name: String) in values[name]?.raw ?? name }
        if rule.byDay.contains(where: { $0.ordinal != nil }) {
            if rule.frequency != .monthly && rule.frequency != .yearly {
                throw fail(raw("BYDAY"), "ordinals such as 2TU are only allowed with FREQ=MONTHLY or FREQ=YEARLY")
            }
            if rule.frequency == .yearly, !rule.byWeekNumber.isEmpty {
                throw fail(raw("BYDAY"), "ordinals are not allowed together with BYWEEKNO")
            }
        }
        if !rule.byMonthDay.isEmpty, rule.frequency == .weekly {
            throw fail(raw("BYMONTHDAY"), "BYMONTHDAY is not allowed with FREQ=WEEKLY")
        }
        if !rule.byYearDay.isEmpty, [.daily, .weekly, .monthly].contains(rule.frequency) {
            throw fail(raw("BYYEARDAY"), "BYYEARDAY is not allowed with FREQ=\(rule.frequency.rawValue)")
        }
        if !rule.byWeekNumber.isEmpty, rule.frequency != .yearly {
            throw fail(raw("BYWEEKNO"), "BYWEEKNO is only allowed with FREQ=YEARLY")
        }
        if !rule.bySetPosition.isEmpty {
            let others = [rule.bySecond, rule.byMinute, rule.byHour, rule.byMonthDay, rule.byYearDay, rule.byWeekNumber, rule.byMonth]
            if others.allSatisfy(\.isEmpty), rule.byDay.isEmpty {
                throw fail(raw("BYSETPOS"), "BYSETPOS needs another BYxxx part to select from")
            }
        }
    }
}
