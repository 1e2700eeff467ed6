import CometSchema

/// Repeat rules: "every weekday", "weekly", "every other Tuesday", "monthly on the 15th",
/// "every day until June 30", "do not repeat".
extension TemporalGrammar {
    /// Nil when the text is not about repeating; `.some(nil)` for "do not repeat".
    mutating func recurrence() -> RecurrenceSyntax?? {
        if attempt({ $0.noRepeat() }) != nil { return .some(nil) }
        if word(in: ["repeat", "repeats", "repeating", "repeated", "recur", "recurs", "recurring"]) != nil { _ = eventReference() }
        guard var rule = attempt({ $0.frequency() }) else {
            expect("how often (as in 'weekly', 'every Tuesday')")
            return nil
        }
        rule.end = attempt { $0.seriesEnd() }
        return .some(rule)
    }

    /// "do not repeat", "don't repeat this event", "no longer repeat", "stop repeating",
    /// "never", "just once".
    private mutating func noRepeat() -> Bool? {
        let verbs: Set<String> = ["repeat", "repeats", "repeating", "recur", "recurs", "recurring"]
        if words("do", "not") || words("does", "not") || words("no", "longer") || word(in: ["don't", "dont", "doesn't", "doesnt", "stop", "not"]) != nil {
            guard word(in: verbs) != nil else { return nil }
            _ = eventReference()
            _ = word("anymore") || words("any", "more")
            return true
        }
        if word("no"), word(in: ["repeat", "repeats", "recurrence", "repetition"]) != nil { return true }
        if word("never") { _ = word(in: verbs); return true }
        if words("just", "once") || words("only", "once") || words("one", "time") || word("once") { return true }
        return nil
    }

    /// How often, with the days it falls on.
    private mutating func frequency() -> RecurrenceSyntax? {
        let start = column
        if word("daily") { return RecurrenceSyntax(frequency: .daily, column: start) }
        if word("hourly") { return RecurrenceSyntax(frequency: .hourly, column: start) }
        if word("weekly") { return onDays(RecurrenceSyntax(frequency: .weekly, column: start)) }
        // "Biweekly" is read as every two weeks, as US calendars use it (never twice a week).
        if word(in: ["fortnightly", "biweekly"]) != nil { return onDays(RecurrenceSyntax(frequency: .weekly, interval: 2, column: start)) }
        if word("monthly") { return onDays(RecurrenceSyntax(frequency: .monthly, column: start)) }
        if word(in: ["yearly", "annually"]) != nil { return onDays(RecurrenceSyntax(frequency: .yearly, column: start)) }
        if word(in: ["every", "each"]) != nil { return every(start: start) }
        // "on Tuesdays", "weekdays", "on weekends"
        _ = word("on")
        if word("weekdays") { return RecurrenceSyntax(frequency: .weekly, byDay: TemporalGrammar.workWeek, column: start) }
        if word("weekends") { return RecurrenceSyntax(frequency: .weekly, byDay: TemporalGrammar.weekend, column: start) }
        if let days = weekdayList(pluralOnly: true) { return RecurrenceSyntax(frequency: .weekly, byDay: days, column: start) }
        // "the first Monday of every month", "the 15th of each month"
        if let monthly = attempt({ $0.dayOfEveryMonth(start: start) }) { return monthly }
        return nil
    }

    static let workWeek: [RecurrenceRule.WeekdayOccurrence] = [.monday, .tuesday, .wednesday, .thursday, .friday].map { .init($0) }
    static let weekend: [RecurrenceRule.WeekdayOccurrence] = [.init(.saturday), .init(.sunday)]

    /// After "every": "day", "other week", "3 days", "weekday", "Tuesday and Thursday",
    /// "other Tuesday", "first Monday", "15th", "June 15th", "month on the 15th".
    private mutating func every(start: Int) -> RecurrenceSyntax? {
        if word("weekday") || word("weekdays") { return RecurrenceSyntax(frequency: .weekly, byDay: TemporalGrammar.workWeek, column: start) }
        if word("weekend") || word("weekends") { return RecurrenceSyntax(frequency: .weekly, byDay: TemporalGrammar.weekend, column: start) }
        // "every first Monday", "every last Friday": that weekday of every month (US usage,
        // so "every second Tuesday" is the second Tuesday of the month; "every other" is fortnightly).
        if let nth = attempt({ $0.nthWeekday() }) {
            _ = words("of", "the", "month") || words("of", "every", "month") || words("of", "each", "month")
            return RecurrenceSyntax(frequency: .monthly, byDay: [nth], column: start)
        }
        if let (month, day, dayColumn) = attempt({ $0.monthAndDay() }) {
            return RecurrenceSyntax(frequency: .yearly, byMonthDay: [day], byMonth: [month], column: dayColumn)
        }
        // "every 15th" is a day of the month; "every 3rd day" counts days.
        if let (day, dayColumn) = attempt({ grammar -> (Int, Int)? in
            _ = grammar.word("the")
            guard let found = grammar.ordinal() else { return nil }
            if let next = grammar.peekWord(), TemporalLexicon.unitWords[next] != nil || TemporalLexicon.weekdays[next] != nil { return nil }
            return found
        }) {
            _ = words("of", "the", "month") || words("of", "every", "month") || words("of", "each", "month")
            return RecurrenceSyntax(frequency: .monthly, byMonthDay: [day], column: dayColumn)
        }
        var interval = 1
        let intervalColumn = column
        if word("other") {
            interval = 2
        } else if let count = number()?.value ?? ordinal()?.value {
            interval = count
        }
        if let unitWord = peekWord(), let unit = TemporalLexicon.unitWords[unitWord], unitWord.count > 1 {
            index += 1
            let frequency: RecurrenceRule.Frequency
            switch unit {
            case .second: frequency = .secondly
            case .minute: frequency = .minutely
            case .hour: frequency = .hourly
            case .day: frequency = .daily
            case .week: frequency = .weekly
            case .month: frequency = .monthly
            case .year: frequency = .yearly
            }
            return onDays(RecurrenceSyntax(frequency: frequency, interval: interval, column: intervalColumn))
        }
        if word("weekday") || word("weekdays") {
            return RecurrenceSyntax(frequency: .weekly, interval: interval, byDay: TemporalGrammar.workWeek, column: intervalColumn)
        }
        if let days = weekdayList(pluralOnly: false) {
            return RecurrenceSyntax(frequency: .weekly, interval: interval, byDay: days, column: intervalColumn)
        }
        for unit in ["'day'", "'week'", "'month'", "'year'", "a weekday"] { expect(unit) }
        return nil
    }

    /// "on Monday and Wednesday" after weekly, "on the 15th" or "on the first Monday" after
    /// monthly, "on June 15th" after yearly.
    private mutating func onDays(_ rule: RecurrenceSyntax) -> RecurrenceSyntax {
        var rule = rule
        guard attempt({ $0.word("on") ? true : nil }) != nil else { return rule }
        switch rule.frequency {
        case .weekly:
            if let days = weekdayList(pluralOnly: false) { rule.byDay = days; return rule }
            if word("weekdays") { rule.byDay = TemporalGrammar.workWeek; return rule }
        case .monthly:
            if let nth = attempt({ $0.nthWeekday() }) { rule.byDay = [nth]; return rule }
            if let (day, column) = attempt({ $0.ordinalDay() }) { rule.byMonthDay = [day]; rule.column = column; return rule }
        case .yearly:
            if let (month, day, column) = attempt({ $0.monthAndDay() }) {
                rule.byMonth = [month]
                rule.byMonthDay = [day]
                rule.column = column
                return rule
            }
        default:
            break
        }
        // "on" belongs to something else ("weekly on ..." that is not a day): put it back.
        expect("the days it repeats on")
        index -= 1
        return rule
    }

    /// "Monday", "Tuesday and Thursday", "Mon Wed Fri"; with `pluralOnly`, "Tuesdays and Thursdays".
    private mutating func weekdayList(pluralOnly: Bool) -> [RecurrenceRule.WeekdayOccurrence]? {
        var days: [RecurrenceRule.WeekdayOccurrence] = []
        while let weekday = attempt({ grammar -> Int? in
            if !days.isEmpty { _ = grammar.word("and") }
            guard let word = grammar.peekWord(), !pluralOnly || TemporalLexicon.isPluralWeekday(word) else { return nil }
            return grammar.weekdayName(plural: true)
        }) {
            let occurrence = RecurrenceRule.WeekdayOccurrence(TemporalLexicon.rruleWeekdays[weekday])
            if !days.contains(occurrence) { days.append(occurrence) }
        }
        return days.isEmpty ? nil : days
    }

    /// "the first Monday", "last Friday", "the 2nd Tuesday" (ordinals 1 to 5, or last).
    private mutating func nthWeekday() -> RecurrenceRule.WeekdayOccurrence? {
        _ = word("the")
        let position: Int
        if word("last") {
            position = -1
        } else if let (value, _) = ordinal(), (1...5).contains(value) {
            position = value
        } else {
            return nil
        }
        guard let weekday = weekdayName(plural: false) else { return nil }
        return RecurrenceRule.WeekdayOccurrence(TemporalLexicon.rruleWeekdays[weekday], ordinal: position)
    }

    /// "the 15th", "15th", "the 15th day", "the last day" (-1).
    private mutating func ordinalDay() -> (Int, Int)? {
        _ = word("the")
        let start = column
        if words("last", "day") { return (-1, start) }
        guard let (day, _) = ordinal() else { return nil }
        _ = word("day")
        return (day, start)
    }

    /// "June 15th", "the 15th of June", "15 June".
    private mutating func monthAndDay() -> (Int, Int, Int)? {
        guard let date = calendarDate(), case .monthDay(let month, let day, nil, let column) = date else { return nil }
        return (month, day, column)
    }

    /// "the first Monday of every month", "on the 15th of each month", "the last day of the month".
    private mutating func dayOfEveryMonth(start: Int) -> RecurrenceSyntax? {
        let nth = attempt { $0.nthWeekday() }
        let day = nth == nil ? attempt({ $0.ordinalDay() }) : nil
        guard nth != nil || day != nil, word("of"), word(in: ["every", "each", "the"]) != nil, word("month") else { return nil }
        if let nth { return RecurrenceSyntax(frequency: .monthly, byDay: [nth], column: start) }
        guard let (value, column) = day else { return nil }
        return RecurrenceSyntax(frequency: .monthly, byMonthDay: [value], column: column)
    }

    // MARK: Ends

    /// "until June 30", "until July" (the day before July 1st), "through July", "until the end
    /// of July", "10 times".
    mutating func seriesEnd() -> EndSyntax? {
        if let count = attempt({ grammar -> Int? in
            _ = grammar.word("for")
            guard let number = grammar.number(), grammar.word(in: ["times", "occurrences", "time"]) != nil else { return nil }
            return number.value
        }) {
            return .count(count)
        }
        if word(in: ["forever", "indefinitely"]) != nil || words("until", "further", "notice") || words("with", "no", "end") { return .never }
        let through: Bool
        if word(in: ["until", "till", "til"]) != nil || words("up", "to") {
            through = false
        } else if word(in: ["through", "thru"]) != nil {
            through = true
        } else if word(in: ["ending", "ends", "end"]) != nil {
            _ = word("on")
            through = true
        } else {
            return nil
        }
        if words("the", "end", "of") || words("end", "of") {
            guard let month = monthName() else { expect("a month"); return nil }
            return .throughMonth(month, year: fourDigitYear())
        }
        if let date = attempt({ $0.date() }) { return .throughDate(date) }
        guard let month = monthName() else {
            expect("a month")
            return nil
        }
        let year = fourDigitYear()
        return through ? .throughMonth(month, year: year) : .beforeMonth(month, year: year)
    }

    private mutating func fourDigitYear() -> Int? {
        attempt { grammar in
            guard let number = grammar.number(), number.digits == 4 else { return nil }
            return number.value
        }
    }
}
