import Foundation

/// Walks the occurrences one RRULE generates from DTSTART in ascending order, period by period:
/// each period's candidates (see `RecurrencePlan`) are sorted, BYSETPOS picks among them, and
/// those before DTSTART are dropped. COUNT and UNTIL are the caller's business, because DTSTART
/// counts as the first occurrence even when the rule does not generate it.
///
/// Termination guards:
/// - DAILY and coarser stop after `RecurrencePlan.barrenPeriodLimit` consecutive periods without
///   a candidate. That limit is one full 400-year Gregorian cycle, so it is a proof, not a guess:
///   such a rule (BYMONTH=2;BYMONTHDAY=30) can never produce anything again.
/// - HOURLY, MINUTELY and SECONDLY skip whole days, hours, minutes and seconds that a part rules
///   out (so a SECONDLY rule limited to one day a year costs one step per day, not 86,400), and
///   give up after `maximumIdleSteps` consecutive steps without a candidate. This one is a cap on
///   work: a sub-daily rule whose next occurrence lies further away than that is cut off there.
/// - Nothing is generated after 9999-12-31 (the last day `CalendarDate` can hold) or after the
///   horizon the caller passes (THROUGH or UNTIL).
struct RecurrenceCursor {
    static let maximumIdleSteps = 1_000_000

    let plan: RecurrencePlan
    /// No period starting after this floating second is visited.
    let horizon: Int

    private var period: Int
    private var lastProductivePeriod: Int
    private var idleSteps = 0
    private var exhausted = false
    private var buffer: [Int] = []
    private var bufferIndex = 0
    /// The current period's chosen days as floating seconds of their midnight (calendar
    /// frequencies), or the period's start (sub-daily frequencies).
    private var bases: [Int] = []
    private var yearCache: YearFacts?
    private var cachedDay = Int.min
    private var cachedDayMatches = false

    /// - Parameter lower: when given, periods that end before this floating second are skipped
    ///   arithmetically (only valid when the caller does not need to count occurrences).
    init(plan: RecurrencePlan, skippingTo lower: Int? = nil, horizon: Int = Int.max) {
        self.plan = plan
        self.horizon = horizon
        var first = 0
        if let lower, lower > plan.start {
            first = max(0, RecurrenceCursor.period(containing: lower, plan: plan))
        }
        period = first
        lastProductivePeriod = first
    }

    /// The index of the period holding floating second `t` (or the last one starting before it).
    static func period(containing t: Int, plan: RecurrencePlan) -> Int {
        let day = CivilTime.floorDiv(t, CivilTime.secondsPerDay)
        switch plan.frequency {
        case .yearly:
            return CivilTime.floorDiv(CivilTime.civil(day).year - plan.startYear, plan.interval)
        case .monthly:
            let (year, month, _) = CivilTime.civil(day)
            return CivilTime.floorDiv(year * 12 + month - 1 - plan.startMonthIndex, plan.interval)
        case .weekly:
            let weekFirstDay = day - CivilTime.floorMod(CivilTime.weekday(day) - plan.weekStart, 7)
            return CivilTime.floorDiv(weekFirstDay - plan.startWeekFirstDay, 7 * plan.interval)
        case .daily:
            return CivilTime.floorDiv(day - plan.startDay, plan.interval)
        case .hourly, .minutely, .secondly:
            return CivilTime.floorDiv(t - plan.subDailyBase, plan.subDailyStep)
        }
    }

    mutating func next() -> Int? {
        while bufferIndex >= buffer.count {
            if exhausted { return nil }
            buffer.removeAll(keepingCapacity: true)
            bufferIndex = 0
            switch plan.frequency {
            case .hourly, .minutely, .secondly: fillSubDailyPeriod()
            default: fillCalendarPeriod()
            }
        }
        defer { bufferIndex += 1 }
        return buffer[bufferIndex]
    }

    private mutating func facts(_ year: Int) -> YearFacts {
        if let cached = yearCache, cached.year == year { return cached }
        let facts = YearFacts(year: year, weekStart: plan.weekStart, withWeeks: !plan.weekNumbers.isEmpty)
        yearCache = facts
        return facts
    }

    /// Appends the days of one month that pass the day-level parts.
    private mutating func scanMonth(year: Int, month: Int, facts: YearFacts) {
        let first = CivilTime.dayNumber(year, month, 1)
        let length = CivilTime.daysIn(month: month, year: year)
        var weekday = CivilTime.weekday(first)
        for dayOfMonth in 1...length {
            let day = first + dayOfMonth - 1
            if plan.matches(day: day, month: month, dayOfMonth: dayOfMonth, weekday: weekday, daysInMonth: length, year: facts) {
                bases.append(day * CivilTime.secondsPerDay)
            }
            weekday = weekday == 6 ? 0 : weekday + 1
        }
    }

    /// YEARLY, MONTHLY, WEEKLY, DAILY: fills `buffer` with the next non-empty period, or sets `exhausted`.
    private mutating func fillCalendarPeriod() {
        let secondsPerDay = CivilTime.secondsPerDay
        while buffer.isEmpty {
            if period - lastProductivePeriod > plan.barrenPeriodLimit { exhausted = true; return }
            bases.removeAll(keepingCapacity: true)
            let current = period
            switch plan.frequency {
            case .yearly:
                let year = plan.startYear + period * plan.interval
                guard year <= 9999 else { exhausted = true; return }
                let facts = facts(year)
                guard facts.firstDay * secondsPerDay <= horizon else { exhausted = true; return }
                for month in 1...12 where plan.monthMask == 0 || plan.monthMask & (1 << UInt16(month)) != 0 {
                    scanMonth(year: year, month: month, facts: facts)
                }
                period += 1
            case .monthly:
                let index = plan.startMonthIndex + period * plan.interval
                let year = index / 12, month = index % 12 + 1
                guard year <= 9999 else { exhausted = true; return }
                guard CivilTime.dayNumber(year, month, 1) * secondsPerDay <= horizon else { exhausted = true; return }
                if plan.monthMask == 0 || plan.monthMask & (1 << UInt16(month)) != 0 {
                    scanMonth(year: year, month: month, facts: facts(year))
                }
                period += 1
            case .weekly:
                let firstDay = plan.startWeekFirstDay + period * 7 * plan.interval
                guard firstDay <= CivilTime.lastDay, firstDay * secondsPerDay <= horizon else { exhausted = true; return }
                for day in firstDay..<min(firstDay + 7, CivilTime.lastDay + 1) {
                    let (year, month, dayOfMonth) = CivilTime.civil(day)
                    if plan.matches(day: day, month: month, dayOfMonth: dayOfMonth, weekday: CivilTime.weekday(day),
                                    daysInMonth: CivilTime.daysIn(month: month, year: year), year: facts(year)) {
                        bases.append(day * secondsPerDay)
                    }
                }
                period += 1
            default: // .daily
                let day = plan.startDay + period * plan.interval
                guard day <= CivilTime.lastDay, day * secondsPerDay <= horizon else { exhausted = true; return }
                let (year, month, dayOfMonth) = CivilTime.civil(day)
                if plan.monthMask != 0, plan.monthMask & (1 << UInt16(month)) == 0 {
                    // A month BYMONTH rules out: jump to the first period in the next month.
                    let nextMonth = month == 12 ? CivilTime.dayNumber(year + 1, 1, 1) : CivilTime.dayNumber(year, month + 1, 1)
                    period = max(period + 1, CivilTime.ceilDiv(nextMonth - plan.startDay, plan.interval))
                    continue
                }
                if plan.matches(day: day, month: month, dayOfMonth: dayOfMonth, weekday: CivilTime.weekday(day),
                                daysInMonth: CivilTime.daysIn(month: month, year: year), year: facts(year)) {
                    bases.append(day * secondsPerDay)
                }
                period += 1
            }
            collect(period: current)
        }
    }

    /// HOURLY, MINUTELY, SECONDLY: fills `buffer` with the next non-empty period, or sets `exhausted`.
    private mutating func fillSubDailyPeriod() {
        let secondsPerDay = CivilTime.secondsPerDay
        while buffer.isEmpty {
            if idleSteps > RecurrenceCursor.maximumIdleSteps { exhausted = true; return }
            idleSteps += 1
            let t = plan.subDailyBase + period * plan.subDailyStep
            guard t <= horizon, t <= CivilTime.lastSecond else { exhausted = true; return }
            let day = CivilTime.floorDiv(t, secondsPerDay)
            let midnight = day * secondsPerDay
            let secondOfDay = t - midnight
            if day != cachedDay {
                cachedDay = day
                cachedDayMatches = plan.matches(day: day, year: facts(CivilTime.civil(day).year))
            }
            if !cachedDayMatches {
                jump(to: midnight + secondsPerDay)
                continue
            }
            let hour = secondOfDay / 3600
            if plan.hourMask != 0, plan.hourMask & (1 << UInt32(hour)) == 0 {
                let nextHour = plan.limitHours.first { $0 > hour }
                jump(to: nextHour.map { midnight + $0 * 3600 } ?? midnight + secondsPerDay)
                continue
            }
            let hourStart = midnight + hour * 3600
            let minute = (secondOfDay / 60) % 60
            if plan.minuteMask != 0, plan.minuteMask & (1 << UInt64(minute)) == 0 {
                let nextMinute = plan.limitMinutes.first { $0 > minute }
                jump(to: nextMinute.map { hourStart + $0 * 60 } ?? hourStart + 3600)
                continue
            }
            let minuteStart = hourStart + minute * 60
            let second = secondOfDay % 60
            if plan.secondMask != 0, plan.secondMask & (1 << UInt64(second)) == 0 {
                let nextSecond = plan.limitSeconds.first { $0 > second }
                jump(to: nextSecond.map { minuteStart + $0 } ?? minuteStart + 60)
                continue
            }
            bases.removeAll(keepingCapacity: true)
            bases.append(t)
            let current = period
            period += 1
            collect(period: current)
        }
    }

    /// Moves to the first sub-daily period at or after floating second `target`.
    private mutating func jump(to target: Int) {
        period = max(period + 1, CivilTime.ceilDiv(target - plan.subDailyBase, plan.subDailyStep))
    }

    /// Combines the period's `bases` with the time offsets, applies BYSETPOS and keeps what is
    /// not before DTSTART, in ascending order.
    private mutating func collect(period current: Int) {
        let offsets = plan.timeOffsets
        let total = bases.count * offsets.count
        guard total > 0 else { return }
        lastProductivePeriod = current
        idleSteps = 0
        if plan.setPositions.isEmpty {
            for base in bases {
                for offset in offsets where base + offset >= plan.start {
                    buffer.append(base + offset)
                }
            }
            return
        }
        for position in plan.setPositions {
            let index = position > 0 ? position - 1 : total + position
            guard index >= 0, index < total else { continue }
            let value = bases[index / offsets.count] + offsets[index % offsets.count]
            if value >= plan.start { buffer.append(value) }
        }
        buffer.sort()
        var write = 0
        for read in buffer.indices where write == 0 || buffer[read] != buffer[write - 1] {
            buffer[write] = buffer[read]
            write += 1
        }
        buffer.removeLast(buffer.count - write)
    }
}
