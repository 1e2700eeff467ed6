/// Lengths and movements: durations, times from now, ranges and shifts of an event.
extension TemporalGrammar {
    // MARK: Amounts and durations

    /// How many: "3", "twenty four", "1.5", "a", "an", "a few", "a couple of", "half a",
    /// "2 and a half".
    mutating func amount() -> Amount? {
        if words("a", "few") || word("few") { return Amount(TemporalPolicy.few) }
        if words("a", "couple", "of") || words("a", "couple") || words("couple", "of") { return Amount(TemporalPolicy.couple) }
        if words("half", "an") || words("half", "a") || words("a", "half") { return Amount(1, over: 2) }
        if words("a", "quarter", "of", "an") || words("a", "quarter", "of", "a") || words("quarter", "of", "an") || words("a", "quarter") {
            return Amount(1, over: 4)
        }
        if word(in: ["a", "an"]) != nil { return Amount(1) }
        guard let whole = number() else { return nil }
        // "1.5": up to three decimals, so the fraction stays exact and small.
        if let fraction = attempt({ grammar -> Amount? in
            guard grammar.symbol("."), let decimals = grammar.number(), (1...3).contains(decimals.digits) else { return nil }
            var scale = 1
            for _ in 0..<decimals.digits { scale *= 10 }
            return Amount(decimals.value, over: scale)
        }) {
            return Amount(whole.value) + fraction
        }
        if words("and", "a", "half") { return Amount(whole.value * 2 + 1, over: 2) }
        return Amount(whole.value)
    }

    /// "for 45 minutes", "1h30", "an hour and a half", "twenty four hours", "2 days 3 hours".
    mutating func duration(allowFor: Bool) -> DurationSyntax? {
        if allowFor { _ = word(in: ["for", "lasting"]) }
        var parts: [DurationSyntax.Part] = []
        while let part = attempt({ $0.durationPart(after: parts.last?.unit) }) {
            parts.append(part)
            _ = attempt { grammar -> Bool? in
                // "and" joins parts; it is put back when no part follows.
                guard grammar.word("and") else { return nil }
                return grammar.peekDurationStart ? true : nil
            }
        }
        guard !parts.isEmpty else {
            expect("a duration")
            return nil
        }
        return DurationSyntax(parts: parts)
    }

    private var peekDurationStart: Bool {
        guard let current else { return false }
        switch current.kind {
        case .number: return true
        case .word(let word): return ["a", "an", "half", "few"].contains(word)
        default: return false
        }
    }

    /// One amount and its unit; "1h30" reads the bare 30 as minutes, "an hour and a half" adds
    /// the half to the hour.
    private mutating func durationPart(after previous: TemporalLexicon.Unit?) -> DurationSyntax.Part? {
        let start = column
        if let previous, let next = previous.next, let bare = attempt({ grammar -> Int? in
            guard let number = grammar.number(), number.digits > 0 else { return nil }
            // A bare number counts the next unit only when nothing else follows it as a unit.
            if let word = grammar.peekWord(), TemporalLexicon.unitWords[word] != nil { return nil }
            return number.value
        }) {
            return DurationSyntax.Part(amount: Amount(bare), unit: next, column: start)
        }
        guard let amount = amount() else { return nil }
        if word(in: ["fortnight", "fortnights"]) != nil {
            return DurationSyntax.Part(amount: Amount(amount.numerator * 2, over: amount.denominator), unit: .week, column: start)
        }
        guard let unitWord = peekWord(), let unit = TemporalLexicon.unitWords[unitWord] else {
            expect("a unit (minutes, hours, days)")
            return nil
        }
        index += 1
        var total = amount
        if words("and", "a", "half") { total = total + Amount(1, over: 2) }
        return DurationSyntax.Part(amount: total, unit: unit, column: start)
    }

    // MARK: From now

    /// "now", "in two hours", "2 hours from now", "an hour ago". Only with a clock unit: "in
    /// two days" names a day, and is a date.
    mutating func fromNow() -> TemporalSyntax? {
        if words("right", "now") || word("now") { return .now }
        if word("in") {
            guard let duration = duration(allowFor: false), duration.hasClockUnit else { return nil }
            return .fromNow(duration, sign: 1)
        }
        guard let duration = duration(allowFor: false), duration.hasClockUnit else { return nil }
        if words("from", "now") { return .fromNow(duration, sign: 1) }
        if word("ago") { return .fromNow(duration, sign: -1) }
        expect("'from now'")
        expect("'ago'")
        return nil
    }

    // MARK: Ranges

    /// "all day", "all day tomorrow", "tomorrow all day", "all week", "all weekend".
    mutating func allDayRange() -> RangeSyntax? {
        if words("all", "day") || words("the", "whole", "day") || words("the", "entire", "day") {
            return .allDay(attempt { $0.date() })
        }
        if words("all", "week") { return .week(.this) }
        if words("all", "weekend") { return .weekend(.this) }
        guard let date = date(), words("all", "day") else { return nil }
        return .allDay(date)
    }

    /// "this week", "next weekend", "the weekend", "last month", "the current month", "June",
    /// "in June 2027", "the next five days", "over the past two weeks".
    mutating func namedRange() -> RangeSyntax? {
        let within = word("within")
        _ = within || word("over") || word("during")
        // "within the hour", "the next hour": the next sixty minutes.
        if within, words("the", "hour") { return .counted(.next, 1, .hour) }
        if let relative = attempt({ grammar -> RangeSyntax.Relative? in
            _ = grammar.word("the")
            let relative: RangeSyntax.Relative? = grammar.word("next") ? .next : (grammar.word("past") || grammar.word("last")) ? .last : nil
            return grammar.word("hour") ? relative : nil
        }) {
            return .counted(relative, 1, .hour)
        }
        var relative: RangeSyntax.Relative?
        let article = word("the")
        if word("next") { relative = .next }
        else if word("last") || word("past") { relative = .last }
        else if words("this", "coming") || word("this") || word("current") || article { relative = .this }
        if let relative {
            if relative != .this, let counted = attempt({ $0.countedUnits() }) { return .counted(relative, counted.count, counted.unit) }
            if word("week") { return .week(relative) }
            if word("weekend") { return .weekend(relative) }
            if word("month") { return .month(relative) }
            if word("year") { return .year(relative) }
            for unit in ["'week'", "'weekend'", "'month'", "'year'"] { expect(unit) }
            return nil
        }
        _ = word("in")
        guard let month = monthName() else { return nil }
        return .namedMonth(month, year: attempt { grammar -> Int? in
            guard let number = grammar.number(), number.digits == 4 else { return nil }
            return number.value
        })
    }

    /// "five days", "2 weeks", "three hours" after "the next" or "the past": a whole number of
    /// a unit of the calendar or the clock (not seconds: no range is said in them).
    private mutating func countedUnits() -> (count: Int, unit: TemporalLexicon.Unit)? {
        guard let count = number(), count.value >= 1, count.digits <= 3,
              let name = peekWord(), let unit = TemporalLexicon.unitWords[name], unit != .second, unit != .year, name.count > 1 else { return nil }
        index += 1
        return (count.value, unit)
    }

    /// "June 15 to 18", "June 15-18": the end is a day of the same month.
    mutating func daysOfMonthRange() -> RangeSyntax? {
        _ = word(in: ["from", "between"])
        guard let start = date(), case .monthDay = start, separator(afterBetween: true) else { return nil }
        let endColumn = column
        guard let end = ordinal()?.value ?? dayNumber() else { return nil }
        // "June 15 to 18 July", "June 15 to 3pm" and "June 15 to 3:30" are other readings.
        if let next = peekWord(), TemporalLexicon.months[next] != nil || next == "am" || next == "pm" { return nil }
        if current?.kind == .symbol(":") { return nil }
        return .daysOfMonth(start: start, endDay: end, column: endColumn)
    }

    /// "from 2 to 3:30pm", "tomorrow from 9 to 5", "between 2 and 4", "Monday to Wednesday",
    /// "from tomorrow at 9 until Friday at 5".
    mutating func spanRange() -> RangeSyntax? {
        // "tomorrow from 9 to 5", "tonight from 7 to 9"
        let shared = attempt { grammar -> (DateSyntax, TimeSyntax.Period?)? in
            guard let day = grammar.dayWithPeriod(), grammar.peekWord() == "from" || grammar.peekWord() == "between" else { return nil }
            return day
        }
        let between = peekWord() == "between"
        let from = word(in: ["from", "between"]) != nil
        if from, words("now") {
            guard separator(afterBetween: between), let end = point() else { expect("'to'"); return nil }
            return .fromNow(to: end)
        }
        readsMinutesTo = !from
        let start = point()
        readsMinutesTo = true
        guard var start, separator(afterBetween: between) else {
            expect("'to'")
            return nil
        }
        guard var end = point() else { return nil }
        // "friday to 10" is not Friday from midnight to 10:00: a day alone runs to a time only
        // when "from" or "between" says it is a range ("move the standup on friday to 10").
        if !from, shared == nil, start.time == nil, end.date == nil { return nil }
        if let period = shared?.1 {
            if start.time?.meridiem == nil, start.time?.period == nil { start.time?.period = period }
            if end.time?.meridiem == nil, end.time?.period == nil { end.time?.period = period }
        }
        return .span(from: start, to: end, on: shared?.0)
    }

    /// A part of a day with no clock time, or what is left of a day or week: "tonight", "this
    /// evening", "tomorrow morning", "friday night", "in the afternoon", "at lunchtime",
    /// "later today", "the rest of the week", "upcoming".
    mutating func partOfDayRange() -> RangeSyntax? {
        if words("later", "today") || words("later", "on", "today") { return .restOfDay }
        if words("later", "this", "week") { return .restOfWeek }
        if let rest = attempt({ $0.restOf() }) { return rest }
        if word("upcoming") || words("coming", "up") || words("up", "coming") { return .upcoming }
        if word("tonight") { return .partOfDay(.today, .night) }
        if let part = attempt({ $0.word("this") ? $0.dayPart(bare: true) : nil }) { return .partOfDay(.today, part) }
        // "in the morning", "at lunchtime", "in the afternoon on friday"
        if let part = dayPart(bare: true) ?? dayPart(bare: false) {
            return .partOfDay(attempt { $0.date() }, part)
        }
        guard let date = date(), let part = dayPart(bare: true) ?? dayPart(bare: false) else { return nil }
        return .partOfDay(date, part)
    }

    /// "the rest of the day", "rest of today", "the remainder of this week", "the rest of the month".
    private mutating func restOf() -> RangeSyntax? {
        _ = word("the")
        guard word(in: ["rest", "remainder"]) != nil, word("of") else { return nil }
        if word("today") { return .restOfDay }
        _ = word("the") || word("this")
        if word("day") { return .restOfDay }
        if word("week") { return .restOfWeek }
        if word("month") { return .restOfMonth }
        expect("'day'")
        expect("'week'")
        expect("'month'")
        return nil
    }

    /// "morning", "afternoon", "evening", "night", "lunchtime" (bare); "in the morning", "at
    /// night", "at lunch", "at lunchtime" (not bare).
    private mutating func dayPart(bare: Bool) -> DayPart? {
        if bare {
            if let word = word(in: ["morning", "afternoon", "evening", "night", "lunchtime"]) { return DayPart(rawValue: word) }
            if words("lunch", "time") { return .lunchtime }
            return nil
        }
        if words("at", "lunchtime") || words("at", "lunch", "time") || words("at", "lunch") { return .lunchtime }
        return attempt { $0.period(bare: false) }.flatMap { DayPart(rawValue: $0.rawValue) }
    }

    /// "until 5pm", "until tomorrow at noon": from now to a time. ("Until Friday" ends a series.)
    mutating func untilRange() -> RangeSyntax? {
        guard word(in: ["until", "till", "til"]) != nil, let end = point(), end.time != nil else { return nil }
        return .fromNow(to: end)
    }

    private mutating func separator(afterBetween: Bool) -> Bool {
        if word(in: ["to", "until", "till", "til", "through", "thru"]) != nil { return true }
        if symbol("-") { return true }
        if afterBetween, word("and") { return true }
        return false
    }

    /// "at 3 for an hour", "tomorrow at 9 for 45 minutes".
    mutating func lastingRange() -> RangeSyntax? {
        _ = word("from")
        guard let start = point(), word("for"), let length = duration(allowFor: false) else { return nil }
        return .lasting(start, length)
    }

    // MARK: Shifts

    private static let verbs: Set<String> = ["push", "move", "shift", "bump", "delay", "postpone", "put", "reschedule",
                                             "change", "make", "set", "slide", "bring", "pull"]
    /// Verbs that move an event earlier when no direction is said; every other verb moves it later.
    private static let earlierVerbs: Set<String> = ["bring", "pull"]
    /// Particles right after the verb: "push it out", "bring it forward", "pull it in".
    private static let particles: [String: Int] = ["out": 1, "back": 1, "later": 1, "forward": -1, "up": -1, "ahead": -1, "in": -1, "earlier": -1]
    /// Words after the length: "an hour later", "15 minutes sooner"; with a verb also "back".
    private static let trailing: [String: Int] = ["later": 1, "earlier": -1, "sooner": -1]

    /// "push it out by an hour", "30 minutes earlier", "an hour later", "move it to Thursday",
    /// "bring it forward 15 minutes", "make it noon".
    mutating func shift() -> ShiftSyntax? {
        let verb = word(in: TemporalGrammar.verbs)
        if verb != nil { _ = eventReference() }
        if let moved = attempt({ $0.shiftBy(verb: verb) }) { return moved }
        guard let verb else { return nil }
        // "make it noon" needs no "to"; every other verb does.
        guard word(in: ["to", "until", "till", "for"]) != nil || verb == "make" else {
            expect("'to'")
            return nil
        }
        return point().map(ShiftSyntax.to)
    }

    private mutating func shiftBy(verb: String?) -> ShiftSyntax? {
        var directions: [Int] = []
        if verb != nil, let word = word(in: Set(TemporalGrammar.particles.keys)), let sign = TemporalGrammar.particles[word] {
            directions.append(sign)
        }
        _ = word("by")
        guard let length = duration(allowFor: false) else { return nil }
        var trailing = TemporalGrammar.trailing
        if verb != nil { trailing["back"] = 1; trailing["forward"] = -1 }
        let trailingColumn = column
        if let word = word(in: Set(trailing.keys)), let sign = trailing[word] {
            directions.append(sign)
        } else if verb == nil {
            expect("'earlier'")
            expect("'later'")
        }
        guard verb != nil || !directions.isEmpty else { return nil }
        // "push it back an hour earlier" says both: an error rather than a guess.
        guard Set(directions).count <= 1 else { return .contradictory(column: trailingColumn) }
        let sign = directions.first ?? (verb.map(TemporalGrammar.earlierVerbs.contains) == true ? -1 : 1)
        return .by(length, sign: sign)
    }
}
