import Foundation

/// An RRULE prepared for expansion from one DTSTART: the BYxxx parts turned into bit masks,
/// with the values RFC 5545 takes from DTSTART filled in where the rule leaves them out.
///
/// Expansion follows the RFC 5545 §3.3.10 table in one uniform way: each period of the
/// frequency (a year, month, week, day, hour, minute or second, every INTERVAL-th one counted
/// from DTSTART's period) contributes the days *inside the period* that pass every day-level
/// part (BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY, BYDAY), times the times of day the
/// time-level parts allow. A part that "expands" for a frequency is then exactly a part that
/// selects among several days or times of the period, and a part that "limits" is one that can
/// only keep or drop the period's single day or time: both are the same filter.
struct RecurrencePlan: Sendable {
    enum OrdinalScope: Sendable { case month, year }

    let frequency: RecurrenceRule.Frequency
    /// INTERVAL, clamped to a value past which only the first period can fall in years 1–9999.
    let interval: Int
    /// DTSTART in floating seconds.
    let start: Int
    let startDay: Int
    /// WKST, Monday = 0.
    let weekStart: Int
    /// DTSTART's year, its month counted from year 0 (`year * 12 + month - 1`), and the first
    /// day of its week (which starts on WKST): the first YEARLY, MONTHLY and WEEKLY periods.
    let startYear: Int
    let startMonthIndex: Int
    let startWeekFirstDay: Int

    // Day-level parts.
    /// Bit m set: month m allowed. Zero: no BYMONTH.
    let monthMask: UInt16
    let hasMonthDay: Bool
    /// Bit n: the n-th day of the month; bit n of the negative mask: the n-th day from its end.
    let monthDayPositive: UInt64
    let monthDayNegative: UInt64
    let hasYearDay: Bool
    let yearDayPositive: [Bool]
    let yearDayNegative: [Bool]
    let hasWeekday: Bool
    /// Bit w: weekday w (Monday = 0) on any date.
    let plainWeekdays: UInt8
    /// Per weekday, bit n: its n-th (or n-th last) instance in the month or year.
    let ordinalPositive: [UInt64]
    let ordinalNegative: [UInt64]
    let ordinalScope: OrdinalScope
    let weekNumbers: [Int]

    // Time-level parts.
    /// Bit h: hour h allowed (only for HOURLY and finer, where BYHOUR limits). Zero: no limit.
    let hourMask: UInt32
    let minuteMask: UInt64
    let secondMask: UInt64
    let limitHours: [Int]
    let limitMinutes: [Int]
    let limitSeconds: [Int]
    /// DAILY and coarser: the seconds of the day of each occurrence on a chosen day.
    /// HOURLY: offsets within the hour; MINUTELY: offsets within the minute; SECONDLY: `[0]`.
    let timeOffsets: [Int]
    let setPositions: [Int]

    /// For SECONDLY/MINUTELY/HOURLY: the first period (DTSTART truncated to the unit) and its
    /// length in seconds times INTERVAL.
    let subDailyBase: Int
    let subDailyStep: Int

    init(rule: RecurrenceRule, start local: LocalDateTime) {
        frequency = rule.frequency
        start = CivilTime.seconds(of: local)
        startDay = CivilTime.floorDiv(start, CivilTime.secondsPerDay)
        weekStart = (rule.weekStart ?? .monday).mondayBasedIndex
        let startWeekday = CivilTime.weekday(startDay)
        startYear = local.date.year
        startMonthIndex = local.date.year * 12 + local.date.month - 1
        startWeekFirstDay = startDay - CivilTime.floorMod(startWeekday - weekStart, 7)

        // INTERVAL: at least 1; anything larger than the span of years 1–9999 in the unit of
        // the frequency behaves like that span (only the first period is in range), and the
        // clamp keeps every multiplication below far from overflow.
        let span: Int
        switch rule.frequency {
        case .yearly: span = 10_000
        case .monthly: span = 120_000
        case .weekly: span = 530_000
        case .daily: span = 3_660_000
        case .hourly: span = 88_000_000
        case .minutely: span = 5_300_000_000
        case .secondly: span = 320_000_000_000
        }
        interval = min(max(rule.interval, 1), span)

        // Values the rule leaves out come from DTSTART (RFC 5545 §3.3.10: "information, not
        // contained in the rule, necessary to determine the various recurrence instance start
        // time and dates are derived from the Start Time").
        var byMonth = rule.byMonth
        var byMonthDay = rule.byMonthDay
        var byDay = rule.byDay
        let dayPartsAbsent = rule.byWeekNumber.isEmpty && rule.byYearDay.isEmpty && byMonthDay.isEmpty && byDay.isEmpty
        let startWeekdayValue = RecurrenceRule.Weekday.allCases.first { $0.mondayBasedIndex == startWeekday } ?? .monday
        switch rule.frequency {
        case .yearly where dayPartsAbsent:
            if byMonth.isEmpty { byMonth = [local.date.month] }
            byMonthDay = [local.date.day]
        case .yearly where !rule.byWeekNumber.isEmpty && rule.byYearDay.isEmpty && byMonthDay.isEmpty && byDay.isEmpty:
            // BYWEEKNO names weeks, not days: like BYMONTH names months and takes the day of
            // the month from DTSTART, the day of the week comes from DTSTART.
            byDay = [.init(startWeekdayValue)]
        case .monthly where dayPartsAbsent:
            byMonthDay = [local.date.day]
        case .weekly where dayPartsAbsent:
            byDay = [.init(startWeekdayValue)]
        default:
            break
        }

        var months: UInt16 = 0
        for month in byMonth where (1...12).contains(month) { months |= 1 << UInt16(month) }
        monthMask = byMonth.isEmpty ? 0 : (months == 0 ? 1 : months) // bit 0 alone: nothing matches

        hasMonthDay = !byMonthDay.isEmpty
        var positive: UInt64 = 0, negative: UInt64 = 0
        for value in byMonthDay {
            if (1...31).contains(value) { positive |= 1 << UInt64(value) }
            if (-31 ... -1).contains(value) { negative |= 1 << UInt64(-value) }
        }
        monthDayPositive = positive
        monthDayNegative = negative

        hasYearDay = !rule.byYearDay.isEmpty
        var yearPositive = [Bool](repeating: false, count: hasYearDay ? 367 : 0)
        var yearNegative = yearPositive
        for value in rule.byYearDay {
            if (1...366).contains(value) { yearPositive[value] = true }
            if (-366 ... -1).contains(value) { yearNegative[-value] = true }
        }
        yearDayPositive = yearPositive
        yearDayNegative = yearNegative

        hasWeekday = !byDay.isEmpty
        var plain: UInt8 = 0
        var ordinalPlus = [UInt64](repeating: 0, count: 7)
        var ordinalMinus = [UInt64](repeating: 0, count: 7)
        let ordinalsAllowed = rule.frequency == .monthly || rule.frequency == .yearly
        for occurrence in byDay {
            let weekday = occurrence.weekday.mondayBasedIndex
            switch occurrence.ordinal {
            case .some(let n) where ordinalsAllowed && (1...53).contains(n):
                ordinalPlus[weekday] |= 1 << UInt64(n)
            case .some(let n) where ordinalsAllowed && (-53 ... -1).contains(n):
                ordinalMinus[weekday] |= 1 << UInt64(-n)
            case .some where ordinalsAllowed:
                break
            default:
                // No ordinal, or an ordinal where RFC 5545 allows none: the plain weekday.
                plain |= 1 << UInt8(weekday)
            }
        }
        plainWeekdays = plain
        ordinalPositive = ordinalPlus
        ordinalNegative = ordinalMinus
        ordinalScope = rule.frequency == .monthly || !byMonth.isEmpty ? .month : .year
        weekNumbers = rule.frequency == .yearly ? rule.byWeekNumber.filter { $0 != 0 && (-53...53).contains($0) } : []

        // Time-level parts: expanded lists for the units coarser than the frequency (DTSTART's
        // value when absent), limit masks for the frequency's own unit and finer ones.
        // Second 60 (a leap second) cannot be represented and is skipped like February 30th.
        let hours = Array(Set(rule.byHour.filter { (0...23).contains($0) })).sorted()
        let minutes = Array(Set(rule.byMinute.filter { (0...59).contains($0) })).sorted()
        let seconds = Array(Set(rule.bySecond.filter { (0...59).contains($0) })).sorted()
        let hoursOrStart = rule.byHour.isEmpty ? [local.hour] : hours
        let minutesOrStart = rule.byMinute.isEmpty ? [local.minute] : minutes
        let secondsOrStart = rule.bySecond.isEmpty ? [local.second] : seconds
        func mask32(_ values: [Int], given: Bool) -> UInt32 {
            guard given else { return 0 }
            return values.reduce(UInt32(0)) { $0 | 1 << UInt32($1) } | (values.isEmpty ? 1 << 31 : 0)
        }
        func mask64(_ values: [Int], given: Bool) -> UInt64 {
            guard given else { return 0 }
            return values.reduce(UInt64(0)) { $0 | 1 << UInt64($1) } | (values.isEmpty ? 1 << 63 : 0)
        }
        let limitsHour = rule.frequency == .hourly || rule.frequency == .minutely || rule.frequency == .secondly
        let limitsMinute = rule.frequency == .minutely || rule.frequency == .secondly
        let limitsSecond = rule.frequency == .secondly
        hourMask = limitsHour ? mask32(hours, given: !rule.byHour.isEmpty) : 0
        minuteMask = limitsMinute ? mask64(minutes, given: !rule.byMinute.isEmpty) : 0
        secondMask = limitsSecond ? mask64(seconds, given: !rule.bySecond.isEmpty) : 0
        limitHours = hours
        limitMinutes = minutes
        limitSeconds = seconds

        var offsets: [Int] = []
        switch rule.frequency {
        case .yearly, .monthly, .weekly, .daily:
            for hour in hoursOrStart { for minute in minutesOrStart { for second in secondsOrStart {
                offsets.append(hour * 3600 + minute * 60 + second)
            } } }
        case .hourly:
            for minute in minutesOrStart { for second in secondsOrStart { offsets.append(minute * 60 + second) } }
        case .minutely:
            offsets = secondsOrStart
        case .secondly:
            offsets = [0]
        }
        timeOffsets = offsets.sorted()
        setPositions = rule.bySetPosition.filter { $0 != 0 }

        switch rule.frequency {
        case .hourly:
            subDailyBase = startDay * CivilTime.secondsPerDay + local.hour * 3600
            subDailyStep = interval * 3600
        case .minutely:
            subDailyBase = startDay * CivilTime.secondsPerDay + local.hour * 3600 + local.minute * 60
            subDailyStep = interval * 60
        default:
            subDailyBase = start
            subDailyStep = interval
        }
    }

    /// How many consecutive periods without any candidate prove that no later period has one.
    /// The Gregorian calendar repeats exactly every 400 years (146,097 days, 4,800 months,
    /// 20,871 weeks), and every day-level part depends only on the position in that cycle, so
    /// the sequence of periods visited with any INTERVAL repeats within this many steps.
    /// For the sub-daily frequencies see `RecurrenceCursor.maximumIdleSteps`.
    var barrenPeriodLimit: Int {
        switch frequency {
        case .yearly: return 400
        case .monthly: return 4_800
        case .weekly: return 20_871
        default: return 146_097
        }
    }
}

/// What the day-level filter needs to know about a calendar year.
struct YearFacts {
    let year: Int
    let firstDay: Int
    let length: Int
    /// Starts of week 1 of the previous, this, the next and the following year (only when BYWEEKNO is used).
    let weekOneStarts: (Int, Int, Int, Int)

    init(year: Int, weekStart: Int, withWeeks: Bool) {
        self.year = year
        firstDay = CivilTime.dayNumber(year, 1, 1)
        length = CivilTime.isLeap(year) ? 366 : 365
        if withWeeks {
            weekOneStarts = (CivilTime.weekOneStart(year - 1, weekStart: weekStart),
                             CivilTime.weekOneStart(year, weekStart: weekStart),
                             CivilTime.weekOneStart(year + 1, weekStart: weekStart),
                             CivilTime.weekOneStart(year + 2, weekStart: weekStart))
        } else {
            weekOneStarts = (0, 0, 0, 0)
        }
    }
}

extension RecurrencePlan {
    /// Whether a day passes every day-level part.
    @inline(__always)
    func matches(day: Int, month: Int, dayOfMonth: Int, weekday: Int, daysInMonth: Int, year: YearFacts) -> Bool {
        if monthMask != 0, monthMask & (1 << UInt16(month)) == 0 { return false }
        if hasMonthDay,
           (monthDayPositive >> UInt64(dayOfMonth)) & 1 == 0,
           (monthDayNegative >> UInt64(daysInMonth - dayOfMonth + 1)) & 1 == 0 {
            return false
        }
        if hasWeekday, (plainWeekdays >> UInt8(weekday)) & 1 == 0 {
            let index: Int, fromEnd: Int
            switch ordinalScope {
            case .month:
                index = (dayOfMonth - 1) / 7 + 1
                fromEnd = (daysInMonth - dayOfMonth) / 7 + 1
            case .year:
                let dayOfYear = day - year.firstDay + 1
                index = (dayOfYear - 1) / 7 + 1
                fromEnd = (year.length - dayOfYear) / 7 + 1
            }
            if (ordinalPositive[weekday] >> UInt64(index)) & 1 == 0,
               (ordinalNegative[weekday] >> UInt64(fromEnd)) & 1 == 0 {
                return false
            }
        }
        if hasYearDay {
            let dayOfYear = day - year.firstDay + 1
            if !yearDayPositive[dayOfYear], !yearDayNegative[year.length - dayOfYear + 1] { return false }
        }
        if !weekNumbers.isEmpty, !matchesWeekNumber(day: day, year: year) { return false }
        return true
    }

    /// BYWEEKNO: the day's week (weeks start on WKST; week 1 is the first with at least four
    /// days in its year) is one of the listed ones, negative numbers counting from the last
    /// week of the week's own year. Days at the turn of the year can belong to week 1 of the
    /// next year or the last week of the previous one, and then match those numbers.
    func matchesWeekNumber(day: Int, year: YearFacts) -> Bool {
        let (previous, this, next, following) = year.weekOneStarts
        let week: Int, weeks: Int
        if day >= next {
            week = (day - next) / 7 + 1
            weeks = (following - next) / 7
        } else if day >= this {
            week = (day - this) / 7 + 1
            weeks = (next - this) / 7
        } else {
            week = (day - previous) / 7 + 1
            weeks = (this - previous) / 7
        }
        for number in weekNumbers where number > 0 ? number == week : weeks + 1 + number == week {
            return true
        }
        return false
    }

    /// Whether a day passes every day-level part, from its day number alone.
    func matches(day: Int, year: YearFacts) -> Bool {
        let (y, month, dayOfMonth) = CivilTime.civil(day)
        return matches(day: day, month: month, dayOfMonth: dayOfMonth, weekday: CivilTime.weekday(day),
                       daysInMonth: CivilTime.daysIn(month: month, year: y), year: year)
    }
}
