import CometSchema

/// The words the temporal grammar knows, by what they mean. The tokenizer reads numbers with
/// it; the grammar reads names and units; the error messages suggest from it.
enum TemporalLexicon {
    static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                             "August", "September", "October", "November", "December"]
    static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// Month by name or abbreviation: 1 for January.
    static let months: [String: Int] = {
        var table: [String: Int] = [:]
        for (index, name) in monthNames.enumerated() {
            table[name.lowercased()] = index + 1
            table[String(name.lowercased().prefix(3))] = index + 1
        }
        table["sept"] = 9
        return table
    }()

    /// Weekday by name, abbreviation or plural: 0 for Sunday, as `CalendarDate.weekdayIndex`.
    static let weekdays: [String: Int] = {
        var table: [String: Int] = [:]
        for (index, name) in weekdayNames.enumerated() {
            let lower = name.lowercased()
            table[lower] = index
            table[lower + "s"] = index
            table[String(lower.prefix(3))] = index
        }
        for (word, index) in [("tues", 2), ("weds", 3), ("thur", 4), ("thurs", 4)] { table[word] = index }
        return table
    }()

    /// Shorthand people type for a day, read as the word it stands for: "tmrw" is "tomorrow".
    /// "tom" is here too; the extractor does not take it alone, since it is also a name.
    static let shorthand: [String: String] = [
        "tmrw": "tomorrow", "tmr": "tomorrow", "tmw": "tomorrow", "tmrow": "tomorrow", "tom": "tomorrow",
        "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow",
        "tonite": "tonight", "2nite": "tonight", "nite": "night", "tdy": "today", "yday": "yesterday",
        "wknd": "weekend", "eod": "eod", "cob": "eod", "oclock": "o'clock",
    ]

    /// Abbreviations that may be written with a full stop ("wed.", "sept.", "hrs."): the stop
    /// is dropped, not read as the end of a sentence or a decimal point.
    static func takesFullStop(_ word: String) -> Bool {
        if let month = months[word] { return word != monthNames[month - 1].lowercased() }
        if let weekday = weekdays[word] { return word != weekdayNames[weekday].lowercased() && !isPluralWeekday(word) }
        return ["hr", "hrs", "min", "mins", "sec", "secs", "wk", "wks", "yr", "yrs", "approx"].contains(word)
    }

    /// Words that name a day and may take a possessive: "tomorrow's meeting", "next Monday's".
    static func takesPossessive(_ word: String) -> Bool {
        weekdays[word] != nil || ["today", "tomorrow", "tonight", "yesterday", "week", "weekend", "month", "year",
                                   "morning", "afternoon", "evening", "night"].contains(word)
    }

    /// Plural weekday names ("tuesdays") mean every such day.
    static func isPluralWeekday(_ word: String) -> Bool {
        word.count > 6 && word.hasSuffix("s") && weekdays[word] != nil && weekdays[String(word.dropLast())] != nil
    }

    static let rruleWeekdays: [RecurrenceRule.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]

    /// Spelled numbers up to nineteen; "a" and "an" are read as one by the grammar, where a
    /// quantity is expected, not here.
    static let units: [String: Int] = [
        "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
        "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
        "seventeen": 17, "eighteen": 18, "nineteen": 19,
    ]
    static let tens: [String: Int] = ["twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90]

    /// Spelled ordinals up to nineteenth, and the round tens. "second" is left out: it is also a
    /// unit of time, so the grammar decides what it means where it stands.
    static let ordinalUnits: [String: Int] = [
        "first": 1, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
        "tenth": 10, "eleventh": 11, "twelfth": 12, "twelveth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
        "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    ]
    static let ordinalTens: [String: Int] = ["twentieth": 20, "thirtieth": 30]
    /// After "twenty" or "thirty", "second" can only be the ordinal ("twenty second").
    static let ordinalAfterTens: [String: Int] = ordinalUnits.merging(["second": 2]) { first, _ in first }

    enum Unit: Int, Sendable, Hashable, Comparable {
        case second, minute, hour, day, week, month, year

        static func < (lhs: Unit, rhs: Unit) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Exact seconds of the clock units; days and weeks are nominal and counted apart.
        var seconds: Int {
            switch self {
            case .second: return 1
            case .minute: return 60
            case .hour: return 3600
            case .day: return 86_400
            case .week: return 604_800
            case .month, .year: return 0
            }
        }

        var name: String {
            switch self {
            case .second: return "seconds"
            case .minute: return "minutes"
            case .hour: return "hours"
            case .day: return "days"
            case .week: return "weeks"
            case .month: return "months"
            case .year: return "years"
            }
        }

        /// The unit a bare number after this one counts: "1h30" is 1 hour 30 minutes.
        var next: Unit? {
            switch self {
            case .hour: return .minute
            case .minute: return .second
            default: return nil
            }
        }
    }

    static let unitWords: [String: Unit] = [
        "s": .second, "sec": .second, "secs": .second, "second": .second, "seconds": .second,
        "m": .minute, "min": .minute, "mins": .minute, "minute": .minute, "minutes": .minute,
        "h": .hour, "hr": .hour, "hrs": .hour, "hour": .hour, "hours": .hour,
        "d": .day, "day": .day, "days": .day,
        "w": .week, "wk": .week, "wks": .week, "week": .week, "weeks": .week,
        "month": .month, "months": .month,
        "y": .year, "yr": .year, "yrs": .year, "year": .year, "years": .year,
    ]

    /// Words that end in "-ish" only as an approximation ("noonish", "fiveish").
    static func takesIsh(_ stem: String) -> Bool {
        ["noon", "midnight", "midday", "am", "pm"].contains(stem) || units[stem] != nil || tens[stem] != nil
    }

    /// Every word the grammar reads, for "did you mean" (longer than three letters, so a
    /// suggestion is never an abbreviation).
    static let vocabulary: [String] = {
        let grammarWords = [
            "today", "tomorrow", "yesterday", "tonight", "noon", "midnight", "midday", "morning", "afternoon", "evening", "night",
            "next", "this", "last", "coming", "after", "before", "from", "until", "till", "through", "between", "every", "other",
            "weekly", "daily", "monthly", "yearly", "annually", "hourly", "fortnightly", "biweekly", "weekday", "weekdays",
            "weekend", "repeat", "repeating", "later", "earlier", "sooner", "forward", "back", "push", "move", "delay",
            "postpone", "reschedule", "bring", "minutes", "hours", "days", "weeks", "months", "years", "o'clock", "half",
            "quarter", "couple", "few", "around", "about", "times", "never", "month", "week", "year", "hour", "minute",
            "lunchtime", "upcoming", "hundred", "fortnight",
        ]
        let names = (monthNames + weekdayNames).map { $0.lowercased() }
        return names + grammarWords + units.keys.sorted() + tens.keys.sorted() + ordinalUnits.keys.sorted()
    }()
}
