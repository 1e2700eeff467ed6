/// Dates and times: "tomorrow at 10 in the evening", "June 15th, 8am", "noon on Friday".
extension TemporalGrammar {
    /// A date and/or a time, in either order. A period named with the day ("tomorrow
    /// morning", "tonight") needs a time to apply to.
    mutating func point() -> PointSyntax? {
        // "by Friday", "by 5pm": a deadline is the day or time it is due.
        _ = word("by")
        if let (date, period) = attempt({ $0.dayWithPeriod() }) {
            guard var time = attempt({ $0.time() }) else {
                expect("a time")
                // "tomorrow morning" alone names no time to apply the morning to.
                return period == nil ? PointSyntax(date: date, time: nil) : nil
            }
            if time.period == nil { time.period = period }
            return PointSyntax(date: date, time: time)
        }
        // "in the evening at 8": the part of the day first.
        let periodFirst = attempt { grammar -> TimeSyntax? in
            guard let period = grammar.period(bare: false), var time = grammar.time() else { return nil }
            if time.period == nil, time.meridiem == nil { time.period = period }
            return time
        }
        guard var time = periodFirst ?? attempt({ $0.time() }) else { return nil }
        if let (date, period) = attempt({ $0.dayWithPeriod() }) {
            if let period { time.period = time.period ?? period }
            return PointSyntax(date: date, time: time)
        }
        expect("a date")
        return PointSyntax(date: nil, time: time)
    }

    /// A date, or a word that names a day and a part of it: "tonight", "this evening",
    /// "tomorrow morning".
    mutating func dayWithPeriod() -> (DateSyntax, TimeSyntax.Period?)? {
        if word("tonight") { return (.today, .night) }
        if let period = attempt({ grammar -> TimeSyntax.Period? in
            guard grammar.word("this") else { return nil }
            return grammar.period(bare: true)
        }) {
            return (.today, period)
        }
        guard let date = date() else { return nil }
        return (date, attempt { $0.period(bare: true) })
    }

    /// "morning", "afternoon", "evening", "night" (bare, after a day) or "in the morning",
    /// "at night" (after a time).
    mutating func period(bare: Bool) -> TimeSyntax.Period? {
        if bare, let word = word(in: ["morning", "afternoon", "evening", "night"]) { return TimeSyntax.Period(rawValue: word) }
        if words("in", "the"), let word = word(in: ["morning", "afternoon", "evening"]) { return TimeSyntax.Period(rawValue: word) }
        if words("at", "night") { return .night }
        return nil
    }

    // MARK: Dates

    /// A day: "on" is optional before any of them.
    mutating func date() -> DateSyntax? {
        _ = word("on")
        if let offset = attempt({ $0.offsetDate() }) { return offset }
        if let date = attempt({ $0.simpleDate() }) { return date }
        expect("a date")
        return nil
    }

    /// Days counted from another: "three weeks from tomorrow", "in 2 days", "a week ago",
    /// "two days before Friday".
    mutating func offsetDate() -> DateSyntax? {
        if word("in") {
            guard let (amount, unit) = calendarQuantity() else { return nil }
            var date = DateSyntax.offset(amount: amount, unit: unit, from: .today)
            while let (more, moreUnit) = attempt({ $0.word("and") ? $0.calendarQuantity() : nil }) {
                date = .offset(amount: more, unit: moreUnit, from: date)
            }
            return date
        }
        guard let (amount, unit) = calendarQuantity() else { return nil }
        if word("ago") { return .offset(amount: -amount, unit: unit, from: .today) }
        if words("from", "now") { return .offset(amount: amount, unit: unit, from: .today) }
        if let relation = word(in: ["from", "after", "before"]) {
            guard let base = attempt({ $0.simpleDate() }) else { expect("a date"); return nil }
            return .offset(amount: relation == "before" ? -amount : amount, unit: unit, from: base)
        }
        for word in ["'from'", "'after'", "'before'", "'ago'"] { expect(word) }
        return nil
    }

    /// A whole number of days, weeks, months or years: "three weeks", "a month", "a few days".
    mutating func calendarQuantity() -> (Int, TemporalLexicon.Unit)? {
        guard let amount = attempt({ $0.amount() }), amount.isWhole else { return nil }
        if word(in: ["fortnight", "fortnights"]) != nil { return (amount.whole * 2, .week) }
        let units: Set<String> = ["day", "days", "week", "weeks", "wk", "wks", "month", "months", "year", "years", "yr", "yrs"]
        guard let unit = word(in: units).flatMap({ TemporalLexicon.unitWords[$0] }) else {
            return nil
        }
        return (amount.whole, unit)
    }

    mutating func simpleDate() -> DateSyntax? {
        if word("today") { return .today }
        if word("tomorrow") { return .tomorrow }
        if word("yesterday") { return .yesterday }
        if words("the", "day", "after", "tomorrow") || words("day", "after", "tomorrow") {
            return .offset(amount: 1, unit: .day, from: .tomorrow)
        }
        if words("the", "day", "before", "yesterday") || words("day", "before", "yesterday") {
            return .offset(amount: -1, unit: .day, from: .yesterday)
        }
        let weekdayColumn = column
        if let weekday = attempt({ $0.weekdayDate() }) {
            // "wed jun 3", "monday 3/8", "fri the 12th": the weekday confirms the date.
            if case .weekday(let day, .bare) = weekday, let date = attempt({ $0.calendarDate() }) {
                return .weekdayAndDate(day, date, column: weekdayColumn)
            }
            return weekday
        }
        if let date = attempt({ $0.calendarDate() }) { return date }
        return nil
    }

    /// "Friday", "this Friday", "next Friday", "last Friday", "Friday next week", "Friday after next".
    mutating func weekdayDate() -> DateSyntax? {
        var choice = WeekdayChoice.bare
        if words("this", "coming") || word("coming") || word("this") {
            choice = .this
        } else if word("next") {
            choice = .next
        } else if word("last") || word("past") {
            choice = .last
        }
        guard let weekday = weekdayName(plural: false) else {
            expect("a weekday")
            return nil
        }
        if choice == .bare {
            if words("next", "week") { choice = .next }
            else if words("this", "week") { choice = .thisWeek }
            else if words("after", "next") { choice = .afterNext }
        }
        return .weekday(weekday, choice)
    }

    mutating func weekdayName(plural: Bool) -> Int? {
        guard let word = peekWord(), let weekday = TemporalLexicon.weekdays[word],
              plural || !TemporalLexicon.isPluralWeekday(word) else { return nil }
        index += 1
        return weekday
    }

    mutating func monthName() -> Int? {
        guard let word = peekWord(), let month = TemporalLexicon.months[word] else { return nil }
        index += 1
        return month
    }

    /// "June 15th", "June 15, 2027", "15 June", "the 15th of June", "the 9th", "6/15",
    /// "6/15/27", "2026-06-15".
    mutating func calendarDate() -> DateSyntax? {
        if let month = monthName() {
            _ = word("the")
            let dayColumn = column
            guard let day = ordinal()?.value ?? dayNumber() else { expect("a day of the month"); return nil }
            return .monthDay(month: month, day: day, year: year(), column: dayColumn)
        }
        if let iso = attempt({ $0.isoDate() }) { return iso }
        if let numeric = attempt({ $0.slashDate() }) { return numeric }
        let hasArticle = word("the")
        let dayColumn = column
        if let (day, _) = ordinal() {
            // "second" alone is a unit of time; "the second" is a day.
            if tokens[index - 1].word == "second", !hasArticle { return nil }
            if word("of") {
                guard let month = monthName() else { expect("a month"); return nil }
                return .monthDay(month: month, day: day, year: year(), column: dayColumn)
            }
            if let month = monthName() { return .monthDay(month: month, day: day, year: year(), column: dayColumn) }
            return .dayOfMonth(day, column: dayColumn)
        }
        if hasArticle { expect("a day of the month") }
        if !hasArticle, let day = dayNumber(), let month = monthName() {
            return .monthDay(month: month, day: day, year: year(), column: dayColumn)
        }
        return nil
    }

    /// A day of the month written as a number of one or two digits.
    mutating func dayNumber() -> Int? {
        attempt { grammar in
            guard let number = grammar.number(), number.digits <= 2, number.value >= 1 else { return nil }
            return number.value
        }
    }

    /// A year after a day: four digits, not a clock reading ("June 15 1140 am" is 11:40), or
    /// spelled as people say one: "two thousand and seventeen", "twenty seventeen", "nineteen
    /// ninety nine". Right after a date and with no "at", a spelled pair is a year, not a clock
    /// ("June 15 twenty thirty" is 2030; "June 15 at twenty thirty" is 20:30).
    mutating func year() -> Int? {
        attempt { grammar in
            guard let number = grammar.number() else { return nil }
            let year: Int
            if number.digits == 4 {
                year = number.value
            } else if number.digits == 0, (1...9).contains(number.value), grammar.word("thousand") {
                _ = grammar.word("and")
                let rest = grammar.attempt { grammar -> Int? in
                    guard let rest = grammar.number(), rest.digits == 0, (1...99).contains(rest.value) else { return nil }
                    return rest.value
                }
                year = number.value * 1000 + (rest ?? 0)
            } else if number.digits == 0, (10...20).contains(number.value), let rest = grammar.number(), rest.digits == 0, (10...99).contains(rest.value) {
                year = number.value * 100 + rest.value
            } else {
                return nil
            }
            if grammar.peekWord() == "am" || grammar.peekWord() == "pm" || grammar.peekWord() == "o'clock" || grammar.current?.kind == .symbol(":") { return nil }
            return year
        }
    }

    mutating func isoDate() -> DateSyntax? {
        guard let year = number(), year.digits == 4, symbol("-"), let month = number(), month.digits <= 2,
              symbol("-"), let day = number(), day.digits <= 2 else { return nil }
        // An ISO time may follow: "2026-06-15T08:00".
        _ = word("t")
        // The column points at what is wrong: the month when it is over 12, else the day.
        let column = month.value > 12 ? month.token.column : day.token.column
        return .monthDay(month: month.value, day: day.value, year: year.value, column: column)
    }

    /// Month first by default, as in US English: "6/7" is June 7th; day first with the
    /// `dmy` date order. A first number that cannot be a month is a day ("23/05"), and said so
    /// (TemporalDateOrder.notes).
    mutating func slashDate() -> DateSyntax? {
        guard let first = number(), first.digits <= 2, first.digits > 0, symbol("/"),
              let second = number(), second.digits <= 2, second.digits > 0 else { return nil }
        let monthFirst = dateOrder.readsMonthFirst(first.value, second.value)
        let (month, day) = monthFirst ? (first, second) : (second, first)
        var year: Int?
        if symbol("/") {
            guard let written = number(), written.digits == 2 || written.digits == 4 else { expect("a year"); return nil }
            year = written.digits == 2 ? 2000 + written.value : written.value
        }
        let column = month.value > 12 ? month.token.column : day.token.column
        return .monthDay(month: month.value, day: day.value, year: year, column: column)
    }

    // MARK: Times

    /// A time of day: "noon", "11:30 am", "10 in the evening", "at 3", "1140 a.m.", "noonish",
    /// "around 3", "half past 2", "quarter to 5", "one thirty". Words of approximation
    /// ("around", "-ish") are read and dropped: a calendar entry has one time.
    mutating func time() -> TimeSyntax? {
        let afterAt = word("at")
        if word(in: ["around", "about", "approximately", "roughly"]) != nil, !afterAt { _ = word("at") }
        guard var time = attempt({ $0.clock(afterAt: afterAt) }) else {
            expect("a time")
            return nil
        }
        if let meridiem = word(in: ["am", "pm"]) { time.meridiem = TimeSyntax.Meridiem(rawValue: meridiem) }
        if let period = attempt({ $0.period(bare: false) }) { time.period = period }
        _ = word("ish") || attempt({ $0.symbol("-") && $0.word("ish") ? true : nil }) != nil
        return time
    }

    /// The clock reading itself, before am/pm and the part of the day.
    private mutating func clock(afterAt: Bool) -> TimeSyntax? {
        let start = column
        if word(in: ["noon", "midday"]) != nil { return TimeSyntax(clock: .noon, column: start) }
        if word("midnight") { return TimeSyntax(clock: .midnight, column: start) }
        // "end of day", "eod", "close of business": the end of the working day.
        if word("eod") || words("end", "of", "day") || words("end", "of", "the", "day") || words("close", "of", "business")
            || words("end", "of", "business") {
            return TimeSyntax(clock: .reading(hour: TemporalPolicy.endOfDayHour, minute: 0, twentyFourHour: true), column: start)
        }
        if words("half", "past") || words("half", "after") {
            guard let hour = hourNumber() else { return nil }
            return TimeSyntax(clock: .reading(hour: hour, minute: 30, twentyFourHour: hour > 12), column: start)
        }
        if words("quarter", "past") || words("quarter", "after") || words("a", "quarter", "past") {
            guard let hour = hourNumber() else { return nil }
            return TimeSyntax(clock: .reading(hour: hour, minute: 15, twentyFourHour: hour > 12), column: start)
        }
        if words("quarter", "to") || words("quarter", "of") || words("a", "quarter", "to") {
            guard let hour = hourNumber(), hour >= 1 else { return nil }
            return TimeSyntax(clock: .reading(hour: hour == 1 ? 12 : hour - 1, minute: 45, twentyFourHour: hour > 13), column: start)
        }
        if let reading = attempt({ $0.minutesPastOrTo(afterAt: afterAt, start: start) }) { return reading }
        guard let hour = number() else { return nil }
        // "12 midnight", "twelve noon".
        if hour.value == 12, hour.digits <= 2 {
            if word("midnight") { return TimeSyntax(clock: .midnight, column: start) }
            if word("noon") { return TimeSyntax(clock: .noon, column: start) }
        }
        // "nineteen hundred (hours)": a spelled 24-hour clock.
        if hour.digits == 0, word("hundred") {
            _ = word(in: ["hours", "hrs"])
            return TimeSyntax(clock: .reading(hour: hour.value, minute: 0, twentyFourHour: true), column: start)
        }
        // "11:30", "11.30", "11:30:00" (seconds are not kept: events start on a minute).
        if let minute = attempt({ grammar -> Int? in
            guard grammar.symbol(":") || grammar.symbol(".") else { return nil }
            guard let minute = grammar.twoDigitMinute() else { grammar.expect("minutes"); return nil }
            return minute
        }) {
            _ = attempt { $0.symbol(":") ? $0.twoDigitMinute() : nil }
            return reading(hour, minute: minute, start: start)
        }
        // "1140 a.m.", "at 0930": without "at" or am/pm four digits are a year, not a time.
        if hour.digits == 3 || hour.digits == 4 {
            guard afterAt || peekWord() == "am" || peekWord() == "pm" else { return nil }
            return reading((hour.value / 100, hour.digits, hour.token), minute: hour.value % 100, start: start)
        }
        // "one thirty", "eleven forty five": a spelled hour and spelled minutes.
        if hour.digits == 0, let minute = attempt({ grammar -> Int? in
            guard let minute = grammar.number(), minute.digits == 0, (10...59).contains(minute.value) else { return nil }
            return minute.value
        }) {
            return reading(hour, minute: minute, start: start)
        }
        _ = word("o'clock")
        return reading(hour, minute: 0, start: start)
    }

    /// "twenty past three", "5 past 9", "ten to five", "10 minutes to 5", "at 10 to 5". "N to H"
    /// is a time only when N is spelled, said with "minutes", or after "at"; "10 to 5" in
    /// digits is a range (10:00 to 17:00), as on a timetable.
    private mutating func minutesPastOrTo(afterAt: Bool, start: Int) -> TimeSyntax? {
        guard let minutes = number(), (1...59).contains(minutes.value), minutes.digits <= 2 else { return nil }
        let saidMinutes = word(in: ["minutes", "minute", "min", "mins"]) != nil
        guard let relation = word(in: ["past", "after", "to", "of", "till", "before"]) else { return nil }
        let before = ["to", "of", "till", "before"].contains(relation)
        if before, !(readsMinutesTo && (minutes.digits == 0 || saidMinutes || afterAt)) { return nil }
        guard let hour = hourNumber(), (0...24).contains(hour) else { return nil }
        if before {
            let total = ((hour == 0 ? 24 : hour) * 60 - minutes.value)
            let twentyFour = hour > 12 || hour == 0
            let hourBefore = total / 60 == 0 && !twentyFour ? 12 : total / 60
            return TimeSyntax(clock: .reading(hour: hourBefore, minute: total % 60, twentyFourHour: twentyFour), column: start)
        }
        return TimeSyntax(clock: .reading(hour: hour, minute: minutes.value, twentyFourHour: hour > 12 || hour == 0), column: start)
    }

    private mutating func twoDigitMinute() -> Int? {
        attempt { grammar in
            guard let minute = grammar.number(), minute.digits == 2 else { return nil }
            return minute.value
        }
    }

    private mutating func hourNumber() -> Int? {
        if word(in: ["noon", "midday"]) != nil { return 12 }
        guard let hour = number(), hour.digits <= 2 else { return nil }
        return hour.value
    }

    private func reading(_ hour: (value: Int, digits: Int, token: TemporalToken), minute: Int, start: Int) -> TimeSyntax {
        // A leading zero or an hour past 12 is a 24-hour clock: nobody writes 09:00 for 9 pm.
        let leadingZero = hour.digits >= 2 && hour.token.text.hasPrefix("0")
        let twentyFour = leadingZero || hour.value > 12 || hour.value == 0
        return TimeSyntax(clock: .reading(hour: hour.value, minute: minute, twentyFourHour: twentyFour), column: start)
    }
}
