import CometSchema

/// What the grammar read, before the clock gives it a meaning. Columns are kept where the
/// resolver can still find the words wrong (a day the month does not have).
indirect enum TemporalSyntax: Sendable, Hashable {
    case now
    /// A date, a time, or both.
    case point(PointSyntax)
    /// "in two hours", "2 hours ago": from now, by a duration with a clock unit in it.
    case fromNow(DurationSyntax, sign: Int)
    case duration(DurationSyntax)
    case range(RangeSyntax)
    case shift(ShiftSyntax)
    case recurrence(RecurrenceSyntax?)
    case recurrenceEnd(EndSyntax)
}

struct PointSyntax: Sendable, Hashable {
    var date: DateSyntax?
    var time: TimeSyntax?
}

/// A day, named in any of the ways people name one.
indirect enum DateSyntax: Sendable, Hashable {
    case today
    case tomorrow
    case yesterday
    /// 0 for Sunday.
    case weekday(Int, WeekdayChoice)
    /// "June 15th", "15 June 2027", "6/15", "2026-06-15".
    case monthDay(month: Int, day: Int, year: Int?, column: Int)
    /// "the 9th": a day of whichever month comes next.
    case dayOfMonth(Int, column: Int)
    /// "three weeks from tomorrow", "in 2 days", "a week before Friday".
    case offset(amount: Int, unit: TemporalLexicon.Unit, from: DateSyntax)
    /// "wed jun 3", "monday 3/8", "fri the 12th": a weekday that confirms a date (and picks its
    /// year; see TemporalPolicy.confirmed). `column` is the weekday's.
    case weekdayAndDate(Int, DateSyntax, column: Int)
}

/// A part of a day said without a clock time: "this evening", "tomorrow morning", "tonight",
/// "at lunchtime". Its hours are in TemporalPolicy.hours(of:).
enum DayPart: String, Sendable, Hashable {
    case morning, afternoon, evening, night, lunchtime
}

/// Which of the weekdays with a name a qualifier picks; the policy for each is in TemporalPolicy.
enum WeekdayChoice: Sendable, Hashable {
    /// "Friday", "on Friday".
    case bare
    /// "this Friday", "this coming Friday".
    case this
    /// "next Friday", "Friday next week".
    case next
    /// "last Friday".
    case last
    /// "Friday this week": the one in the current week, even if it has passed.
    case thisWeek
    /// "Friday after next".
    case afterNext
}

struct TimeSyntax: Sendable, Hashable {
    enum Clock: Sendable, Hashable {
        case noon
        case midnight
        /// `twentyFourHour` when written with a leading zero or an hour over 12 ("09:30", "15:00").
        case reading(hour: Int, minute: Int, twentyFourHour: Bool)
    }

    enum Meridiem: String, Sendable, Hashable { case am, pm }
    enum Period: String, Sendable, Hashable { case morning, afternoon, evening, night }

    var clock: Clock
    var meridiem: Meridiem?
    var period: Period?
    var column: Int
}

/// Parts of a duration as said: "an hour and a half" is one part of 3/2 hours.
struct DurationSyntax: Sendable, Hashable {
    struct Part: Sendable, Hashable {
        var amount: Amount
        var unit: TemporalLexicon.Unit
        var column: Int
    }

    var parts: [Part]

    var hasClockUnit: Bool { parts.contains { $0.unit < .day } }
}

/// An exact fraction, so "1.5 hours" and "an hour and a half" are exactly 90 minutes.
struct Amount: Sendable, Hashable {
    var numerator: Int
    var denominator: Int

    init(_ numerator: Int, over denominator: Int = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    static func + (lhs: Amount, rhs: Amount) -> Amount {
        Amount(lhs.numerator * rhs.denominator + rhs.numerator * lhs.denominator, over: lhs.denominator * rhs.denominator)
    }

    var isWhole: Bool { numerator % denominator == 0 }
    var whole: Int { numerator / denominator }
}

enum RangeSyntax: Sendable, Hashable {
    enum Relative: Sendable, Hashable { case this, next, last }

    /// "from 2 to 3:30pm", "from Monday to Wednesday", "tomorrow from 9 to 5".
    case span(from: PointSyntax, to: PointSyntax, on: DateSyntax?)
    /// "June 15 to 18": the end is a day of the start's month.
    case daysOfMonth(start: DateSyntax, endDay: Int, column: Int)
    /// "at 3 for an hour".
    case lasting(PointSyntax, DurationSyntax)
    /// "from now until 5pm", "until 5pm".
    case fromNow(to: PointSyntax)
    /// "all day", "all day tomorrow".
    case allDay(DateSyntax?)
    case week(Relative)
    case weekend(Relative)
    case month(Relative)
    /// "this year", "last year": January 1st to December 31st.
    case year(Relative)
    /// "June", "June 2027".
    case namedMonth(Int, year: Int?)
    /// "tomorrow morning", "tonight", "in the afternoon" (no day: the next one not over yet).
    case partOfDay(DateSyntax?, DayPart)
    /// "later today", "the rest of the day": from now to midnight.
    case restOfDay
    /// "the rest of the week", "later this week": from now to the end of Sunday.
    case restOfWeek
    /// "the rest of the month": from now to the end of its last day.
    case restOfMonth
    /// "upcoming", "coming up": from now, for TemporalPolicy.upcomingDays days.
    case upcoming
    /// "the next five days", "the past two weeks", "the next 2 hours": see
    /// TemporalPolicy.countedRange.
    case counted(Relative, Int, TemporalLexicon.Unit)
}

enum ShiftSyntax: Sendable, Hashable {
    /// Later when `sign` is 1, earlier when -1.
    case by(DurationSyntax, sign: Int)
    case to(PointSyntax)
    /// "push it back an hour earlier": both directions, the second at `column`.
    case contradictory(column: Int)
}

struct RecurrenceSyntax: Sendable, Hashable {
    var frequency: RecurrenceRule.Frequency
    var interval: Int = 1
    var byDay: [RecurrenceRule.WeekdayOccurrence] = []
    var byMonthDay: [Int] = []
    var byMonth: [Int] = []
    var end: EndSyntax?
    /// Where a check after parsing (a day over 31 for the month) points.
    var column: Int
}

enum EndSyntax: Sendable, Hashable {
    /// "until June 30", "through Friday": that day is the last.
    case throughDate(DateSyntax)
    /// "until July": the day before July starts.
    case beforeMonth(Int, year: Int?)
    /// "through July", "until the end of July": the last day of July.
    case throughMonth(Int, year: Int?)
    case count(Int)
    /// "forever", "until further notice".
    case never
}
