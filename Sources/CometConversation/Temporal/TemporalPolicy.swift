import CometSchema

/// One rule for each thing English leaves open. Each is stated in docs/conversation.md
/// ("Temporal expressions") and held there by the table test; change them together.
///
/// Rules that are about words rather than the clock live with the grammar: "biweekly" is
/// every two weeks, "every second Tuesday" is the second Tuesday of the month, and a shift
/// with no direction goes later (except after "bring" and "pull").
enum TemporalPolicy {
    /// "a few minutes" is 3: more than a couple (2), and the smallest such number, so "a few
    /// minutes later" never overshoots.
    static let few = 3
    static let couple = 2

    /// Weeks run Monday to Sunday (ISO 8601), so a weekend ends the week it is in and, said on
    /// a Sunday, "next Friday" is five days away, not twelve.
    static func weekStart(of day: CalendarDate) -> CalendarDate? {
        day.adding(days: -((day.weekdayIndex + 6) % 7))
    }

    /// The day a named weekday means, said on `today`:
    /// - "Friday" / "on Friday": the first Friday after today; said on a Friday, a week later
    ///   (on the day itself people say "today").
    /// - "this Friday": the first Friday from today on, so today when said on a Friday.
    /// - "next Friday": the Friday of next week. Said on a Wednesday it is nine days away; the
    ///   coming one is "Friday" or "this Friday". "Next" would add nothing if it meant the same.
    /// - "last Friday": the last Friday before today.
    /// - "Friday this week": the Friday of the current week, even when it has passed.
    /// - "Friday after next": a week after "next Friday".
    static func day(_ weekday: Int, _ choice: WeekdayChoice, from today: CalendarDate) -> CalendarDate? {
        let current = today.weekdayIndex
        let fromMonday = (weekday + 6) % 7
        switch choice {
        case .bare:
            let ahead = (weekday - current + 7) % 7
            return today.adding(days: ahead == 0 ? 7 : ahead)
        case .this:
            return today.adding(days: (weekday - current + 7) % 7)
        case .last:
            let back = (current - weekday + 7) % 7
            return today.adding(days: -(back == 0 ? 7 : back))
        case .thisWeek:
            return weekStart(of: today)?.adding(days: fromMonday)
        case .next:
            return weekStart(of: today)?.adding(days: 7 + fromMonday)
        case .afterNext:
            return weekStart(of: today)?.adding(days: 14 + fromMonday)
        }
    }

    /// A month and day without a year ("June 15th", "6/15") is the next such day from today on:
    /// said on June 16th it is next year's. People schedule ahead; a past day takes a year.
    /// February 29th waits for a leap year.
    static func date(month: Int, day: Int, from today: CalendarDate) -> CalendarDate? {
        for year in today.year...min(today.year + 8, 9999) {
            if let date = CalendarDate(year: year, month: month, day: day), date >= today { return date }
        }
        return nil
    }

    /// "the 9th" is the next 9th from today on; a month without that day is skipped ("the
    /// 31st" said in June is July 31st).
    static func dayOfMonth(_ day: Int, from today: CalendarDate) -> CalendarDate? {
        var year = today.year
        var month = today.month
        for _ in 0..<13 {
            if let date = CalendarDate(year: year, month: month, day: day), date >= today { return date }
            month += 1
            if month > 12 { month = 1; year += 1 }
        }
        return nil
    }

    /// A month named alone ("June", "through July") is this month when we are in it, else the
    /// next one to come.
    static func year(ofMonth month: Int, from today: CalendarDate) -> Int {
        month >= today.month ? today.year : today.year + 1
    }

    /// "until July" ends a series before the next July begins: said in June 2026 its last day
    /// is June 30th, 2026. "Through July" and "until the end of July" include July. "Until
    /// June 30" includes June 30th: RFC 5545 UNTIL is inclusive, and so is the way people say it.
    static func lastDay(beforeMonth month: Int, year: Int?, from today: CalendarDate) -> CalendarDate? {
        let year = year ?? (month > today.month ? today.year : today.year + 1)
        return CalendarDate(year: year, month: month, day: 1)?.adding(days: -1)
    }

    /// An hour with no am or pm and no part of the day ("at 3") is read in the working day,
    /// 7:00 to 18:59: 7–11 are morning, 12 is noon, 1–6 are afternoon. Hours written as a
    /// 24-hour clock (0, 13–23, or with a leading zero as in 09:00) are taken as written.
    static func hour(bare hour: Int) -> Int {
        (1...6).contains(hour) ? hour + 12 : hour
    }

    /// The hour a part of the day gives a 12-hour reading, or nil when it cannot hold it.
    /// "Night" runs from 6 pm into the small hours: "9 at night" is 21:00, "2 at night" 02:00
    /// (of the next day when a day is named: see `nightRollsOver`), "12 at night" midnight.
    static func hour(_ hour: Int, in period: TimeSyntax.Period) -> Int? {
        switch period {
        case .morning:
            if (1...11).contains(hour) { return hour }
            return hour == 12 ? 0 : nil
        case .afternoon:
            if hour == 12 { return 12 }
            if (1...11).contains(hour) { return hour + 12 }
            return (13...23).contains(hour) ? hour : nil
        case .evening:
            if (1...11).contains(hour) { return hour + 12 }
            return (13...23).contains(hour) ? hour : nil
        case .night:
            if (6...11).contains(hour) { return hour + 12 }
            if hour == 12 { return 0 }
            if (1...5).contains(hour) { return hour }
            return (18...23).contains(hour) ? hour : nil
        }
    }

    /// The hours a part of the day said without a clock time covers, as [start, end) in hours
    /// after its midnight: morning 06–12, afternoon 12–17, evening 17–22, night ("tonight")
    /// 18–24, lunchtime 12–14. The night stops at midnight: a time in the small hours is said
    /// with one ("tonight at 1").
    static func hours(of part: DayPart) -> (start: Int, end: Int) {
        switch part {
        case .morning: return (6, 12)
        case .afternoon: return (12, 17)
        case .evening: return (17, 22)
        case .night: return (18, 24)
        case .lunchtime: return (12, 14)
        }
    }

    /// "End of day", "eod" and "close of business" are 17:00, the end of the working day.
    static let endOfDayHour = 17

    /// "Upcoming" and "coming up" run from now for a week, as the agenda does by default.
    static let upcomingDays = 7

    /// A weekday said with a date ("wed jun 3") confirms it and picks the year: the date the
    /// usual rule gives when the weekday agrees, else the same date this year (or this month,
    /// for "fri the 5th") when it has passed and the weekday agrees with that; otherwise the
    /// text is an error that names the date's weekday, never a guess.
    static func confirmed(_ weekday: Int, usual: CalendarDate, passed: CalendarDate?) -> CalendarDate? {
        if usual.weekdayIndex == weekday { return usual }
        if let passed, passed.weekdayIndex == weekday { return passed }
        return nil
    }

    /// The small hours of a night belong to the next calendar day: "tonight at 1" is 01:00
    /// tomorrow, and "Friday night at 12" the midnight that ends Friday.
    static func nightRollsOver(hour: Int) -> Bool { hour < 6 }

    /// "in 2 days", "a week from Friday": whole days, weeks, months or years name a day. A
    /// month later than a day the next month lacks is its last day ("a month from January 31st"
    /// is February 28th).
    static func adding(months: Int, to date: CalendarDate) -> CalendarDate? {
        let (total, overflow) = (date.year * 12 + date.month - 1).addingReportingOverflow(months)
        guard !overflow else { return nil }
        let year = total >= 0 ? total / 12 : -1
        let month = total >= 0 ? total % 12 + 1 : 1
        guard (1...9999).contains(year) else { return nil }
        return CalendarDate(year: year, month: month, day: min(date.day, CalendarDate.daysIn(month: month, year: year)))
    }

    /// The end of a range of bare times, in minutes after the start day's midnight, when the
    /// start is `start` minutes: the first reading of the 12-hour clock after the start
    /// ("from 9 to 5" ends at 17:00; "from 11 pm to 1" at 01:00 the next day).
    static func bareEnd(hour: Int, minute: Int, after start: Int) -> Int {
        let readings = [(hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute]
        return readings.first { $0 > start } ?? (readings[0] + 1440)
    }

    /// The start of a range when only its end says am or pm: the same half of the day when that
    /// keeps the start first ("from 2 to 3:30pm" starts at 14:00), else the other ("from 11 to
    /// 1pm" starts at 11:00).
    static func bareStart(hour: Int, minute: Int, before end: Int) -> Int {
        let morning = (hour % 12) * 60 + minute
        let afternoon = morning + 720
        let endOfDay = end % 1440
        let sameHalf = endOfDay >= 720 ? afternoon : morning
        let otherHalf = endOfDay >= 720 ? morning : afternoon
        if sameHalf < endOfDay { return sameHalf }
        if otherHalf < endOfDay { return otherHalf }
        return TemporalPolicy.hour(bare: hour) * 60 + minute
    }
}

extension CalendarDate {
    /// The day `days` later (earlier when negative), or nil outside years 1–9999.
    func adding(days: Int) -> CalendarDate? {
        // Day numbers of 0001-01-01 and 9999-12-31 (days since 1970-01-01).
        let (number, overflow) = dayNumber.addingReportingOverflow(Int64(days))
        guard !overflow, (-719_162)...2_932_896 ~= number else { return nil }
        return LocalDateTime(wallSeconds: number * 86_400).date
    }
}
