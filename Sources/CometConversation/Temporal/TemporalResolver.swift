import Foundation
import CometSchema

/// Gives what the grammar read a meaning against a clock and a zone, applying TemporalPolicy
/// where English leaves a choice, and checking what the grammar could not (February 30th,
/// 13 pm, a duration in months).
struct TemporalResolver {
    let zone: TimeZone
    /// Now, in the zone: the value "in two hours" is counted from.
    let now: DateTimeValue
    let today: CalendarDate

    init(now instant: Date, zone: TimeZone) {
        self.zone = zone
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down))
        if zone.identifier == "UTC" || zone.identifier == "GMT" {
            now = DateTimeValue(kind: .utc(epochSeconds: seconds))
        } else {
            now = DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: zone.identifier))
        }
        today = now.wallTime(in: zone).date
    }

    func resolve(_ syntax: TemporalSyntax) throws(TemporalError) -> TemporalResolution {
        switch syntax {
        case .now:
            return .instant(now)
        case .point(let point):
            return try resolve(point)
        case .fromNow(let duration, let sign):
            return .instant(try moved(now, by: durationValue(duration, sign: sign)))
        case .duration(let duration):
            return .duration(try durationValue(duration, sign: 1))
        case .range(let range):
            return try resolve(range)
        case .shift(.by(let duration, let sign)):
            return .shift(.by(try durationValue(duration, sign: sign)))
        case .shift(.contradictory(let column)):
            throw TemporalError(.notUnderstood, TemporalMessages.conflictingDirections, column: column)
        case .shift(.to(let point)):
            switch try resolve(point) {
            case .date(let date): return .shift(.toDate(date))
            case .timeOfDay(let hour, let minute): return .shift(.toTimeOfDay(hour: hour, minute: minute))
            case .instant(let value): return .shift(.toInstant(value))
            default: throw TemporalError(.notUnderstood, TemporalMessages.shiftTarget, column: 1)
            }
        case .recurrence(let rule):
            return .recurrence(try rule.map(recurrenceRule))
        case .recurrenceEnd(let end):
            return .recurrenceEnd(try self.end(end))
        }
    }

    // MARK: Points

    private func resolve(_ point: PointSyntax) throws(TemporalError) -> TemporalResolution {
        switch (point.date, point.time) {
        case (let date?, let time?):
            return .instant(try instant(on: day(date), at: time))
        case (let date?, nil):
            return .date(try day(date))
        case (nil, let time?):
            let (hour, minute) = try clock(time)
            return .timeOfDay(hour: hour, minute: minute)
        case (nil, nil):
            return .instant(now)
        }
    }

    /// The instant of a time on a day: a named day's midnight is the one that ends it, and the
    /// small hours of its night are the next day's.
    private func instant(on day: CalendarDate, at time: TimeSyntax) throws(TemporalError) -> DateTimeValue {
        try local(on: day, at: time).dateTime(in: zone)
    }

    private func local(on day: CalendarDate, at time: TimeSyntax) throws(TemporalError) -> LocalDateTime {
        let (hour, minute) = try clock(time)
        var day = day
        if time.clock == .midnight || (time.period == .night && TemporalPolicy.nightRollsOver(hour: hour)) {
            day = try later(day, by: 1)
        }
        return try wall(day, hour: hour, minute: minute)
    }

    /// The hour and minute a time names.
    func clock(_ time: TimeSyntax) throws(TemporalError) -> (Int, Int) {
        switch time.clock {
        case .noon: return (12, 0)
        case .midnight: return (0, 0)
        case .reading(let hour, let minute, let twentyFourHour):
            guard (0...59).contains(minute) else { throw TemporalError(.invalidTime, TemporalMessages.noSuchMinute(minute), column: time.column) }
            if let meridiem = time.meridiem {
                guard (1...12).contains(hour) else {
                    throw TemporalError(.invalidTime, TemporalMessages.meridiemHour(hour, meridiem.rawValue), column: time.column)
                }
                return (meridiem == .am ? hour % 12 : hour % 12 + 12, minute)
            }
            if let period = time.period {
                guard let resolved = TemporalPolicy.hour(hour, in: period) else {
                    throw TemporalError(.invalidTime, TemporalMessages.periodHour(hour, period == .night ? "at night" : "in the \(period.rawValue)"), column: time.column)
                }
                return (resolved, minute)
            }
            guard (0...23).contains(hour) else { throw TemporalError(.invalidTime, TemporalMessages.noSuchHour(hour), column: time.column) }
            return (twentyFourHour ? hour : TemporalPolicy.hour(bare: hour), minute)
        }
    }

    /// The hour and minute of a bare 12-hour reading ("3", "3:30"), which a range may read
    /// either way; nil for any other time.
    private func bareReading(_ time: TimeSyntax) -> (Int, Int)? {
        guard case .reading(let hour, let minute, false) = time.clock, time.meridiem == nil, time.period == nil,
              (1...12).contains(hour) else { return nil }
        return (hour, minute)
    }

    // MARK: Days

    func day(_ date: DateSyntax, from base: CalendarDate? = nil) throws(TemporalError) -> CalendarDate {
        let today = base ?? self.today
        switch date {
        case .today: return today
        case .tomorrow: return try later(today, by: 1)
        case .yesterday: return try later(today, by: -1)
        case .weekday(let weekday, let choice):
            guard let day = TemporalPolicy.day(weekday, choice, from: today) else { throw outOfRange }
            return day
        case .monthDay(let month, let day, let year, let column):
            guard (1...12).contains(month) else { throw TemporalError(.invalidDate, TemporalMessages.noSuchMonth(month), column: column) }
            guard (1...31).contains(day) else { throw TemporalError(.invalidDate, TemporalMessages.noSuchDayOfMonth(day), column: column) }
            if let year {
                guard (1...9999).contains(year) else { throw TemporalError(.outOfRange, TemporalMessages.wrongYear(year), column: column) }
                guard let date = CalendarDate(year: year, month: month, day: day) else {
                    throw TemporalError(.invalidDate, TemporalMessages.noSuchDay(month: month, day: day, year: year), column: column)
                }
                return date
            }
            guard day <= CalendarDate.daysIn(month: month, year: 2000) else {
                throw TemporalError(.invalidDate, TemporalMessages.noSuchDay(month: month, day: day, year: nil), column: column)
            }
            guard let date = TemporalPolicy.date(month: month, day: day, from: today) else { throw outOfRange }
            return date
        case .dayOfMonth(let day, let column):
            guard (1...31).contains(day) else { throw TemporalError(.invalidDate, TemporalMessages.noSuchDayOfMonth(day), column: column) }
            guard let date = TemporalPolicy.dayOfMonth(day, from: today) else { throw outOfRange }
            return date
        case .weekdayAndDate(let weekday, let date, let column):
            let usual = try self.day(date, from: today)
            var passed: CalendarDate?
            switch date {
            case .monthDay(let month, let dayNumber, nil, _): passed = CalendarDate(year: today.year, month: month, day: dayNumber)
            case .dayOfMonth(let dayNumber, _): passed = CalendarDate(year: today.year, month: today.month, day: dayNumber)
            default: passed = nil
            }
            guard let confirmed = TemporalPolicy.confirmed(weekday, usual: usual, passed: passed.flatMap { $0 < today ? $0 : nil }) else {
                throw TemporalError(.invalidDate, TemporalMessages.weekdayDisagrees(usual, said: weekday), column: column)
            }
            return confirmed
        case .offset(let amount, let unit, let base):
            let start = try self.day(base, from: today)
            switch unit {
            case .day: return try later(start, by: amount)
            case .week:
                let (days, overflow) = amount.multipliedReportingOverflow(by: 7)
                guard !overflow else { throw outOfRange }
                return try later(start, by: days)
            case .month, .year:
                let (months, overflow) = amount.multipliedReportingOverflow(by: unit == .year ? 12 : 1)
                guard !overflow, let date = TemporalPolicy.adding(months: months, to: start) else { throw outOfRange }
                return date
            default:
                throw TemporalError(.notUnderstood, TemporalMessages.fractionOfCalendarUnit(unit.name), column: 1)
            }
        }
    }

    private func later(_ day: CalendarDate, by days: Int) throws(TemporalError) -> CalendarDate {
        guard let date = day.adding(days: days) else { throw outOfRange }
        return date
    }

    private func wall(_ day: CalendarDate, hour: Int, minute: Int) throws(TemporalError) -> LocalDateTime {
        guard let local = LocalDateTime(date: day, hour: hour, minute: minute) else {
            throw TemporalError(.invalidTime, TemporalMessages.noSuchHour(hour), column: 1)
        }
        return local
    }

    private var outOfRange: TemporalError { TemporalError(.outOfRange, TemporalMessages.outOfRange, column: 1) }

    // MARK: Ranges

    private func resolve(_ range: RangeSyntax) throws(TemporalError) -> TemporalResolution {
        switch range {
        case .allDay(let date):
            let day = try date.map { date throws(TemporalError) in try self.day(date) } ?? today
            return try days(day, through: day)
        case .week(let relative):
            guard let monday = TemporalPolicy.weekStart(of: today) else { throw outOfRange }
            let first = try later(monday, by: 7 * relative.offset)
            return try days(first, through: later(first, by: 6))
        case .weekend(let relative):
            guard let monday = TemporalPolicy.weekStart(of: today) else { throw outOfRange }
            let saturday = try later(monday, by: 7 * relative.offset + 5)
            return try days(saturday, through: later(saturday, by: 1))
        case .month(let relative):
            guard let thisMonth = CalendarDate(year: today.year, month: today.month, day: 1),
                  let first = TemporalPolicy.adding(months: relative.offset, to: thisMonth) else { throw outOfRange }
            return try wholeMonth(first)
        case .year(let relative):
            let year = today.year + relative.offset
            guard let first = CalendarDate(year: year, month: 1, day: 1), let last = CalendarDate(year: year, month: 12, day: 31) else { throw outOfRange }
            return try days(first, through: last)
        case .namedMonth(let month, let year):
            let year = year ?? TemporalPolicy.year(ofMonth: month, from: today)
            guard let first = CalendarDate(year: year, month: month, day: 1) else {
                throw TemporalError(.outOfRange, TemporalMessages.wrongYear(year), column: 1)
            }
            return try wholeMonth(first)
        case .daysOfMonth(let start, let endDay, let column):
            let first = try day(start)
            guard let last = CalendarDate(year: first.year, month: first.month, day: endDay) else {
                throw TemporalError(.invalidDate, TemporalMessages.noSuchDay(month: first.month, day: endDay, year: first.year), column: column)
            }
            guard last >= first else { throw TemporalError(.endBeforeStart, TemporalMessages.endBeforeStart, column: column) }
            return try days(first, through: last)
        case .partOfDay(let date, let part):
            let (startHour, endHour) = TemporalPolicy.hours(of: part)
            var day = try date.map { date throws(TemporalError) in try self.day(date) } ?? today
            let endOfToday = try wall(later(today, by: endHour / 24), hour: endHour % 24, minute: 0).dateTime(in: zone)
            // No day named: the next such part that is not over, so "in the morning" said in the evening is tomorrow's.
            if date == nil, endOfToday.sortKey <= now.sortKey { day = try later(today, by: 1) }
            let start = try wall(day, hour: startHour, minute: 0).dateTime(in: zone)
            let end = try wall(later(day, by: endHour / 24), hour: endHour % 24, minute: 0).dateTime(in: zone)
            return .range(start: start, end: end)
        case .restOfDay:
            return try ordered(now, wall(later(today, by: 1), hour: 0, minute: 0).dateTime(in: zone), column: 1)
        case .restOfWeek:
            guard let monday = TemporalPolicy.weekStart(of: today) else { throw outOfRange }
            return try ordered(now, wall(later(monday, by: 7), hour: 0, minute: 0).dateTime(in: zone), column: 1)
        case .restOfMonth:
            guard let thisMonth = CalendarDate(year: today.year, month: today.month, day: 1),
                  let nextMonth = TemporalPolicy.adding(months: 1, to: thisMonth) else { throw outOfRange }
            return try ordered(now, wall(nextMonth, hour: 0, minute: 0).dateTime(in: zone), column: 1)
        case .upcoming:
            return try ordered(now, moved(now, by: DurationValue(days: TemporalPolicy.upcomingDays)), column: 1)
        case .counted(let relative, let count, let unit):
            let sign = relative == .last ? -1 : 1
            switch unit {
            case .minute, .hour, .second:
                let length = DurationValue(totalSeconds: count * unit.seconds)
                return relative == .last ? try ordered(moved(now, by: DurationValue(totalSeconds: -count * unit.seconds)), now, column: 1)
                                         : try ordered(now, moved(now, by: length), column: 1)
            case .day:
                let first = try later(today, by: sign)
                let last = try later(today, by: sign * count)
                return try days(min(first, last), through: max(first, last))
            case .week:
                guard let monday = TemporalPolicy.weekStart(of: today) else { throw outOfRange }
                let first = relative == .last ? try later(monday, by: -7 * count) : try later(monday, by: 7)
                return try days(first, through: later(first, by: 7 * count - 1))
            case .month, .year:
                guard let thisMonth = CalendarDate(year: today.year, month: today.month, day: 1),
                      let first = TemporalPolicy.adding(months: relative == .last ? -count : 1, to: thisMonth),
                      let after = TemporalPolicy.adding(months: count, to: first) else { throw outOfRange }
                return try days(first, through: later(after, by: -1))
            }
        case .lasting(let point, let length):
            let start = try startInstant(point)
            return .range(start: start, end: try moved(start, by: durationValue(length, sign: 1)))
        case .span(let from, let to, let shared):
            return try span(from: from, to: to, shared: shared)
        case .fromNow(let to):
            // A bare time is its next reading after now: "until 5" said at 18:00 is tomorrow's.
            var end = try startInstant(to)
            if to.date == nil, end.sortKey <= now.sortKey { end = end.adding(days: 1) }
            return try ordered(now, end, column: to.time?.column ?? 1)
        }
    }

    /// The instant a point starts: a day's midnight, or a bare time today.
    private func startInstant(_ point: PointSyntax) throws(TemporalError) -> DateTimeValue {
        let day = try point.date.map { date throws(TemporalError) in try self.day(date) } ?? today
        guard let time = point.time else { return try wall(day, hour: 0, minute: 0).dateTime(in: zone) }
        return try instant(on: day, at: time)
    }

    private func days(_ first: CalendarDate, through last: CalendarDate) throws(TemporalError) -> TemporalResolution {
        let start = try wall(first, hour: 0, minute: 0)
        let end = try wall(later(last, by: 1), hour: 0, minute: 0)
        return .range(start: start.dateTime(in: zone), end: end.dateTime(in: zone))
    }

    private func wholeMonth(_ first: CalendarDate) throws(TemporalError) -> TemporalResolution {
        try days(first, through: later(first, by: CalendarDate.daysIn(month: first.month, year: first.year) - 1))
    }

    /// "from A to B". The end is read from the start: "from Friday to Monday" ends on the
    /// Monday after that Friday; a time with no day takes the other end's day, or today's.
    private func span(from: PointSyntax, to: PointSyntax, shared: DateSyntax?) throws(TemporalError) -> TemporalResolution {
        let sharedDay = try shared.map { date throws(TemporalError) in try self.day(date) }
        var startDay: CalendarDate
        if let date = from.date {
            startDay = try day(date)
            // A range under way is the current one: "between June 1st and June 30th" said on
            // June 8th starts this June 1st, not next year's, because June 30th is still ahead.
            if case .monthDay(let month, let dayNumber, nil, _) = date, let end = to.date, startDay.year > today.year,
               case .monthDay(_, _, nil, _) = end, let endDay = try? day(end),
               let current = CalendarDate(year: today.year, month: month, day: dayNumber), current <= endDay, endDay < startDay {
                startDay = current
            }
        } else if let sharedDay {
            startDay = sharedDay
        } else if let date = to.date {
            startDay = try day(date)
        } else {
            startDay = today
        }
        let endDay = try to.date.map { date throws(TemporalError) in
            let (end, countsFromStart) = date.asRangeEnd
            return try self.day(end, from: countsFromStart ? startDay : nil)
        }
        let column = to.time?.column ?? 1

        switch (from.time, to.time) {
        case (nil, nil):
            let last = endDay ?? startDay
            guard last >= startDay else { throw TemporalError(.endBeforeStart, TemporalMessages.endBeforeStart, column: column) }
            return try days(startDay, through: last)
        case (let startTime?, nil):
            // "from tomorrow at 9 to Friday": to the end of Friday.
            let start = try instant(on: startDay, at: startTime)
            let end = try wall(later(endDay ?? startDay, by: 1), hour: 0, minute: 0).dateTime(in: zone)
            return try ordered(start, end, column: column)
        case (nil, let endTime?):
            let start = try wall(startDay, hour: 0, minute: 0).dateTime(in: zone)
            return try ordered(start, instant(on: endDay ?? startDay, at: endTime), column: column)
        case (let startTime?, let endTime?):
            var startMinutes: Int
            var endMinutes: Int
            if let (startHour, startMinute) = bareReading(startTime), bareReading(endTime) == nil, endDay == nil {
                let (hour, minute) = try clock(endTime)
                endMinutes = endTime.clock == .midnight ? 1440 : hour * 60 + minute
                startMinutes = TemporalPolicy.bareStart(hour: startHour, minute: startMinute, before: min(endMinutes, 1439))
            } else {
                let (hour, minute) = try clock(startTime)
                startMinutes = hour * 60 + minute
                if let (endHour, endMinute) = bareReading(endTime), endDay == nil {
                    endMinutes = TemporalPolicy.bareEnd(hour: endHour, minute: endMinute, after: startMinutes)
                } else {
                    let (endHour, endMinute) = try clock(endTime)
                    endMinutes = endHour * 60 + endMinute
                }
            }
            if startTime.clock == .midnight, from.date != nil { startMinutes += 1440 }
            let startLocal = try wall(later(startDay, by: startMinutes / 1440), hour: startMinutes % 1440 / 60, minute: startMinutes % 60)
            let endLocal: LocalDateTime
            if let endDay {
                endLocal = try local(on: endDay, at: endTime)
            } else {
                // An end at or before the start, on no day of its own, is the next day's.
                while endMinutes <= startMinutes { endMinutes += 1440 }
                endLocal = try wall(later(startDay, by: endMinutes / 1440), hour: endMinutes % 1440 / 60, minute: endMinutes % 60)
            }
            return try ordered(startLocal.dateTime(in: zone), endLocal.dateTime(in: zone), column: column)
        }
    }

    private func ordered(_ start: DateTimeValue, _ end: DateTimeValue, column: Int) throws(TemporalError) -> TemporalResolution {
        guard end.sortKey > start.sortKey else { throw TemporalError(.endBeforeStart, TemporalMessages.endBeforeStart, column: column) }
        return .range(start: start, end: end)
    }

    // MARK: Durations

    /// Days and weeks stay nominal (a day across a DST change is 23 or 25 hours); hours,
    /// minutes and seconds are exact and are not folded into days ("twenty four hours" is
    /// PT24H, not P1D).
    func durationValue(_ duration: DurationSyntax, sign: Int) throws(TemporalError) -> DurationValue {
        var weeks = 0
        var days = 0
        var seconds = 0
        for part in duration.parts {
            switch part.unit {
            case .month, .year:
                throw TemporalError(.unsupported, TemporalMessages.monthsHaveNoLength(part.unit.name), column: part.column)
            case .week, .day:
                if part.unit == .week, part.amount.isWhole {
                    weeks += part.amount.whole
                } else {
                    // "1.5 days" is a day and 12 hours: whole days stay nominal.
                    let total = exactSeconds(part.amount, part.unit.seconds)
                    days += total / 86_400
                    seconds += total % 86_400
                }
            default:
                seconds += exactSeconds(part.amount, part.unit.seconds)
            }
            guard Int64(weeks) * 604_800 + Int64(days) * 86_400 + Int64(seconds) <= DurationValue.maximumSeconds else { throw outOfRange }
        }
        if days > 0 || seconds > 0 {
            days += weeks * 7
            weeks = 0
        }
        return DurationValue(isNegative: sign < 0, weeks: weeks, days: days, hours: seconds / 3600,
                             minutes: seconds % 3600 / 60, seconds: seconds % 60)
    }

    /// An amount of a unit in whole seconds, rounded to the nearest.
    private func exactSeconds(_ amount: Amount, _ unitSeconds: Int) -> Int {
        let (product, overflow) = amount.numerator.multipliedReportingOverflow(by: unitSeconds)
        guard !overflow, amount.denominator > 0 else { return Int(DurationValue.maximumSeconds) + 1 }
        return (product + amount.denominator / 2) / amount.denominator
    }

    private func moved(_ value: DateTimeValue, by duration: DurationValue) throws(TemporalError) -> DateTimeValue {
        do {
            return try value.adding(duration)
        } catch {
            throw outOfRange
        }
    }

    // MARK: Recurrence

    private func recurrenceRule(_ syntax: RecurrenceSyntax) throws(TemporalError) -> RecurrenceRule {
        guard syntax.interval >= 1 else { throw TemporalError(.outOfRange, TemporalMessages.zeroInterval, column: syntax.column) }
        for day in syntax.byMonthDay where !(1...31).contains(day) && day != -1 {
            throw TemporalError(.invalidDate, TemporalMessages.noSuchDayOfMonth(day), column: syntax.column)
        }
        if let month = syntax.byMonth.first, let day = syntax.byMonthDay.first, day > CalendarDate.daysIn(month: month, year: 2000) {
            throw TemporalError(.invalidDate, TemporalMessages.noSuchDay(month: month, day: day, year: nil), column: syntax.column)
        }
        let rule = RecurrenceRule(frequency: syntax.frequency, interval: syntax.interval, end: try syntax.end.map(end) ?? .never,
                                  byDay: syntax.byDay, byMonthDay: syntax.byMonthDay, byMonth: syntax.byMonth)
        do {
            try rule.validate()
        } catch {
            throw TemporalError(.outOfRange, error.message, column: syntax.column)
        }
        return rule
    }

    private func end(_ end: EndSyntax) throws(TemporalError) -> RecurrenceRule.End {
        switch end {
        case .never:
            return .never
        case .count(let count):
            guard count >= 1 else { throw TemporalError(.outOfRange, TemporalMessages.zeroCount, column: 1) }
            return .count(count)
        case .throughDate(let date):
            return .untilDate(try day(date))
        case .beforeMonth(let month, let year):
            guard let last = TemporalPolicy.lastDay(beforeMonth: month, year: year, from: today) else { throw outOfRange }
            return .untilDate(last)
        case .throughMonth(let month, let year):
            let year = year ?? TemporalPolicy.year(ofMonth: month, from: today)
            guard let first = CalendarDate(year: year, month: month, day: 1) else { throw outOfRange }
            return .untilDate(try later(first, by: CalendarDate.daysIn(month: month, year: year) - 1))
        }
    }
}

extension RangeSyntax.Relative {
    var offset: Int {
        switch self {
        case .this: return 0
        case .next: return 1
        case .last: return -1
        }
    }
}

extension DateSyntax {
    /// At the end of a range, "the next such day" (a weekday, a day of a month without a
    /// year) counts from the start, and may be the start's own day: "from Friday to Monday" is
    /// the Monday after that Friday, "from Friday at 9 to Friday at 5" one day. Other days
    /// ("tomorrow", "next Friday") stay as they are.
    var asRangeEnd: (DateSyntax, countsFromStart: Bool) {
        switch self {
        case .weekday(let weekday, .bare): return (.weekday(weekday, .this), true)
        case .weekday(_, .this), .dayOfMonth, .monthDay(_, _, nil, _): return (self, true)
        default: return (self, false)
        }
    }
}
