import Testing
@testable import CometConversation

/// What people type rather than say (issue 19): one-letter meridiems, shorthand for days,
/// abbreviations with and without full stops, punctuation, day-first dates with the date_order
/// setting, spelled numbers, parts of a day with no clock time, a weekday that confirms a date.
/// Same clock as TemporalTable: Wednesday, June 10th, 2026, 09:00 in Los Angeles.
enum TypedTable {
    static let times: [TemporalCase] = [
        // A meridiem of one letter, written right after the digits.
        .init("10a", "time 10:00"),
        .init("6p", "time 18:00"),
        .init("9:15a", "time 09:15"),
        .init("9:15p", "time 21:15"),
        .init("12a", "time 00:00"),
        .init("12p", "time 12:00"),
        .init("11:30A", "time 11:30"),
        .init("7P", "time 19:00"),
        .init("10a.m", "time 10:00"),
        .init("3pm.", "time 15:00"),
        .init("3 pm.", "time 15:00"),
        .init("3P.M.", "time 15:00"),
        .init("12 midnight", "time 00:00"),
        .init("twelve midnight", "time 00:00"),
        .init("12 noon", "time 12:00"),
        .init("twelve noon", "time 12:00"),
        // A spelled 24-hour clock.
        .init("nineteen hundred", "time 19:00"),
        .init("nineteen hundred hours", "time 19:00"),
        .init("seven hundred hours", "time 07:00"),
        .init("five thirty pm", "time 17:30"),
        .init("five thirty", "time 17:30"),
        .init("six fifteen am", "time 06:15"),
        .init("ten forty five pm", "time 22:45"),
        .init("at five", "time 17:00"),
        .init("twelve thirty", "time 12:30"),
        // The part of the day may come first.
        .init("in the evening at 8", "time 20:00"),
        .init("in the morning at 7", "time 07:00"),
        .init("in the afternoon at 3", "time 15:00"),
        .init("in the evening at 8:30", "time 20:30"),
        .init("@ 3pm", "time 15:00"),
        .init("@noon", "time 12:00"),
        .init("by 5pm", "time 17:00"),
        .init("by noon", "time 12:00"),
        // Policy: the end of the day is 17:00, the end of the working day.
        .init("end of day", "time 17:00"),
        .init("eod", "time 17:00"),
        .init("EOD", "time 17:00"),
        .init("end of the day", "time 17:00"),
        .init("close of business", "time 17:00"),
        .init("cob", "time 17:00"),
        .init("by end of day", "time 17:00"),
    ]

    static let dates: [TemporalCase] = [
        .init("tmrw", "date 2026-06-11"),
        .init("tmr", "date 2026-06-11"),
        .init("tmw", "date 2026-06-11"),
        .init("tom", "date 2026-06-11"),
        .init("2moro", "date 2026-06-11"),
        .init("2morrow", "date 2026-06-11"),
        .init("Tmrw", "date 2026-06-11"),
        .init("tmrw.", "date 2026-06-11"),
        .init("tdy", "date 2026-06-10"),
        .init("yday", "date 2026-06-09"),
        .init("the day after tmrw", "date 2026-06-12"),
        .init("day after tmr", "date 2026-06-12"),
        .init("two weeks from tmrw", "date 2026-06-25"),
        .init("3 days from tmrw", "date 2026-06-14"),
        .init("a week from tmrw", "date 2026-06-18"),
        .init("mon", "date 2026-06-15"),
        .init("tue", "date 2026-06-16"),
        .init("wed", "date 2026-06-17"),
        .init("weds", "date 2026-06-17"),
        .init("thu", "date 2026-06-11"),
        .init("thur", "date 2026-06-11"),
        .init("sat", "date 2026-06-13"),
        .init("sun", "date 2026-06-14"),
        .init("Mon.", "date 2026-06-15"),
        .init("wed.", "date 2026-06-17"),
        .init("tues.", "date 2026-06-16"),
        .init("next mon", "date 2026-06-15"),
        .init("this tues", "date 2026-06-16"),
        .init("next thurs", "date 2026-06-18"),
        .init("last fri", "date 2026-06-05"),
        .init("this wed", "date 2026-06-10"),
        .init("jan 5", "date 2027-01-05"),
        .init("feb 14", "date 2027-02-14"),
        .init("mar 3", "date 2027-03-03"),
        .init("apr 1", "date 2027-04-01"),
        .init("may 20", "date 2027-05-20"),
        .init("jun 20", "date 2026-06-20"),
        .init("jul 4", "date 2026-07-04"),
        .init("aug 9", "date 2026-08-09"),
        .init("sep 1", "date 2026-09-01"),
        .init("sept 1", "date 2026-09-01"),
        .init("sept. 1", "date 2026-09-01"),
        .init("oct 31", "date 2026-10-31"),
        .init("nov 3", "date 2026-11-03"),
        .init("dec 24", "date 2026-12-24"),
        .init("Dec. 24", "date 2026-12-24"),
        .init("jun 3rd", "date 2027-06-03"),
        .init("3rd jun", "date 2027-06-03"),
        // Policy: a weekday said with a date confirms it and picks the year.
        .init("wed jun 3", "date 2026-06-03"),
        .init("wed. jun. 3", "date 2026-06-03"),
        .init("thu jun 3", "date 2027-06-03"),
        .init("wed, jun 17", "date 2026-06-17"),
        .init("fri, jun 5", "date 2026-06-05"),
        .init("fri jun 12", "date 2026-06-12"),
        .init("monday 3/8", "date 2027-03-08"),
        .init("thu 6/11", "date 2026-06-11"),
        .init("friday the 12th", "date 2026-06-12"),
        .init("fri the 19th", "date 2026-06-19"),
        .init("tue the 9th", "date 2026-06-09"),
        .init("saturday june 13th", "date 2026-06-13"),
        .init("sun 14 june", "date 2026-06-14"),
        .init("6/12,", "date 2026-06-12"),
        .init("6/12.", "date 2026-06-12"),
        .init("june 15th.", "date 2026-06-15"),
        // Policy: a number over 12 cannot be the month, so it is the day, whatever the order.
        .init("23/05", "date 2027-05-23"),
        .init("13/5", "date 2027-05-13"),
        .init("31/12", "date 2026-12-31"),
        .init("23/05/2027", "date 2027-05-23"),
        .init("03/05", "date 2027-03-05"),
        .init("3/5", "date 2027-03-05"),
        .init("the twenty first", "date 2026-06-21"),
        .init("june twenty third", "date 2026-06-23"),
        .init("the fourteenth", "date 2026-06-14"),
        .init("on the tenth", "date 2026-06-10"),
        .init("the 14th", "date 2026-06-14"),
        .init("on the fourteenth", "date 2026-06-14"),
        .init("july first", "date 2026-07-01"),
        .init("the thirtieth", "date 2026-06-30"),
        .init("the thirty first", "date 2026-07-31"),
        .init("fourteenth of july", "date 2026-07-14"),
        .init("june the twentieth", "date 2026-06-20"),
        .init("in 2 wks", "date 2026-06-24"),
        .init("in 1 wk", "date 2026-06-17"),
        .init("in a fortnight", "date 2026-06-24"),
        .init("in 2 yrs", "date 2028-06-10"),
        .init("2 wks from today", "date 2026-06-24"),
        .init("3 wks from tmrw", "date 2026-07-02"),
        .init("tomorrow's", "date 2026-06-11"),
        .init("next monday's", "date 2026-06-15"),
        .init("friday's", "date 2026-06-12"),
        .init("by friday", "date 2026-06-12"),
        .init("by tmrw", "date 2026-06-11"),
    ]

    static let instants: [TemporalCase] = [
        .init("tmrw at 3pm", "instant 2026-06-11T15:00:00-07:00"),
        .init("tmrw @ 3pm", "instant 2026-06-11T15:00:00-07:00"),
        .init("tmr 10a", "instant 2026-06-11T10:00:00-07:00"),
        .init("fri 6p", "instant 2026-06-12T18:00:00-07:00"),
        .init("wed jun 17 at 9:15a", "instant 2026-06-17T09:15:00-07:00"),
        // March 8th, 2027 is before the DST change: Pacific Standard Time.
        .init("monday 3/8 at 10a", "instant 2027-03-08T10:00:00-08:00"),
        .init("jun 15 @ 2p", "instant 2026-06-15T14:00:00-07:00"),
        .init("tonite at 8", "instant 2026-06-10T20:00:00-07:00"),
        .init("2nite @ 9", "instant 2026-06-10T21:00:00-07:00"),
        .init("tomorrow in the evening at 8", "instant 2026-06-11T20:00:00-07:00"),
        .init("in the evening at 8 tomorrow", "instant 2026-06-11T20:00:00-07:00"),
        .init("friday eod", "instant 2026-06-12T17:00:00-07:00"),
        .init("by eod friday", "instant 2026-06-12T17:00:00-07:00"),
        .init("end of day tomorrow", "instant 2026-06-11T17:00:00-07:00"),
        .init("tmrw 12 noon", "instant 2026-06-11T12:00:00-07:00"),
        .init("fri 12 midnight", "instant 2026-06-13T00:00:00-07:00"),
        .init("thurs 5:30p", "instant 2026-06-11T17:30:00-07:00"),
        .init("mon 9a", "instant 2026-06-15T09:00:00-07:00"),
        .init("next tues 11a", "instant 2026-06-16T11:00:00-07:00"),
        .init("sat 2pm.", "instant 2026-06-13T14:00:00-07:00"),
        .init("june twenty third at five thirty pm", "instant 2026-06-23T17:30:00-07:00"),
        .init("the fourteenth at noon", "instant 2026-06-14T12:00:00-07:00"),
        .init("tomorrow at nineteen hundred", "instant 2026-06-11T19:00:00-07:00"),
        .init("23/05 at 10a", "instant 2027-05-23T10:00:00-07:00"),
        .init("in 2 hrs", "instant 2026-06-10T11:00:00-07:00"),
        .init("in 30 mins", "instant 2026-06-10T09:30:00-07:00"),
        .init("in 1hr", "instant 2026-06-10T10:00:00-07:00"),
    ]

    static let ranges: [TemporalCase] = [
        // Policy: parts of a day said without a time are ranges: morning 06–12, afternoon
        // 12–17, evening 17–22, night 18–24, lunchtime 12–14.
        .init("this evening", "range 2026-06-10T17:00:00-07:00 2026-06-10T22:00:00-07:00"),
        .init("tonight", "range 2026-06-10T18:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("tonite", "range 2026-06-10T18:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("this morning", "range 2026-06-10T06:00:00-07:00 2026-06-10T12:00:00-07:00"),
        .init("this afternoon", "range 2026-06-10T12:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("tomorrow morning", "range 2026-06-11T06:00:00-07:00 2026-06-11T12:00:00-07:00"),
        .init("tomorrow afternoon", "range 2026-06-11T12:00:00-07:00 2026-06-11T17:00:00-07:00"),
        .init("tmrw evening", "range 2026-06-11T17:00:00-07:00 2026-06-11T22:00:00-07:00"),
        .init("friday night", "range 2026-06-12T18:00:00-07:00 2026-06-13T00:00:00-07:00"),
        .init("monday morning", "range 2026-06-15T06:00:00-07:00 2026-06-15T12:00:00-07:00"),
        .init("in the afternoon", "range 2026-06-10T12:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("in the evening", "range 2026-06-10T17:00:00-07:00 2026-06-10T22:00:00-07:00"),
        .init("at night", "range 2026-06-10T18:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("in the morning", "range 2026-06-10T06:00:00-07:00 2026-06-10T12:00:00-07:00"),
        .init("lunchtime", "range 2026-06-10T12:00:00-07:00 2026-06-10T14:00:00-07:00"),
        .init("at lunch", "range 2026-06-10T12:00:00-07:00 2026-06-10T14:00:00-07:00"),
        .init("tomorrow at lunchtime", "range 2026-06-11T12:00:00-07:00 2026-06-11T14:00:00-07:00"),
        .init("lunchtime tomorrow", "range 2026-06-11T12:00:00-07:00 2026-06-11T14:00:00-07:00"),
        .init("on friday at lunch", "range 2026-06-12T12:00:00-07:00 2026-06-12T14:00:00-07:00"),
        .init("this wknd", "days 2026-06-13 2026-06-14"),
        .init("morning", "range 2026-06-10T06:00:00-07:00 2026-06-10T12:00:00-07:00"),
        .init("in the morning tomorrow", "range 2026-06-11T06:00:00-07:00 2026-06-11T12:00:00-07:00"),
        // Policy: "after work" is not read: when work ends differs from person to person.
        .init("after work", "error 1 not_understood"),
        // Policy: what is left of a day or a week runs from now.
        .init("later today", "range 2026-06-10T09:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("the rest of the day", "range 2026-06-10T09:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("rest of the week", "range 2026-06-10T09:00:00-07:00 2026-06-15T00:00:00-07:00"),
        .init("later this week", "range 2026-06-10T09:00:00-07:00 2026-06-15T00:00:00-07:00"),
        // Policy: "upcoming" is the next seven days from now, as the agenda shows by default.
        .init("upcoming", "range 2026-06-10T09:00:00-07:00 2026-06-17T09:00:00-07:00"),
        .init("coming up", "range 2026-06-10T09:00:00-07:00 2026-06-17T09:00:00-07:00"),
        .init("10a-11a", "range 2026-06-10T10:00:00-07:00 2026-06-10T11:00:00-07:00"),
        .init("9a to 5p", "range 2026-06-10T09:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("from 2p to 4p", "range 2026-06-10T14:00:00-07:00 2026-06-10T16:00:00-07:00"),
        .init("6/12 - 6/14", "days 2026-06-12 2026-06-14"),
        .init("fri 10a-noon", "range 2026-06-12T10:00:00-07:00 2026-06-12T12:00:00-07:00"),
    ]

    static let others: [TemporalCase] = [
        .init("90 mins", "duration PT1H30M"),
        .init("1hr", "duration PT1H"),
        .init("for 1 hr", "duration PT1H"),
        .init("30 secs", "duration PT30S"),
        .init("2 wks", "duration P2W"),
        .init("for 3 wks", "duration P3W"),
        .init("1 hr 15 mins", "duration PT1H15M"),
        .init("an hr", "duration PT1H"),
        .init("half an hr", "duration PT30M"),
        .init("45 mins.", "duration PT45M"),
        .init("every mon", "rrule FREQ=WEEKLY;BYDAY=MO"),
        .init("every tues and thurs", "rrule FREQ=WEEKLY;BYDAY=TU,TH"),
        .init("every sat", "rrule FREQ=WEEKLY;BYDAY=SA"),
        .init("every other fri", "rrule FREQ=WEEKLY;INTERVAL=2;BYDAY=FR"),
        .init("weekly on weds", "rrule FREQ=WEEKLY;BYDAY=WE"),
        .init("every 2 wks", "rrule FREQ=WEEKLY;INTERVAL=2"),
        .init("push it to tmrw", "shift to 2026-06-11"),
        .init("move it to fri @ 3", "shift to 2026-06-12T15:00:00-07:00"),
        .init("make it 10a", "shift to 10:00"),
        .init("30 mins later", "shift PT30M"),
        .init("an hr earlier", "shift -PT1H"),
        // Unknown words are never absorbed; a weekday that disagrees with its date is an error.
        .init("monday blah", "error 8 not_understood"),
        .init("tmrw blah", "error 6 not_understood"),
        .init("fri jun 3", "error 1 invalid_date"),
        .init("mon 6/11", "error 1 invalid_date"),
        // Policy: a day alone runs to a time only after "from" or "between".
        .init("friday to 10", "error 13 incomplete"),
        .init("from today to 5pm", "range 2026-06-10T00:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("5/23", "date 2027-05-23"),
        .init("2 hrs.", "duration PT2H"),
        .init("fri; 3pm", "instant 2026-06-12T15:00:00-07:00"),
        .init("friday nite", "range 2026-06-12T18:00:00-07:00 2026-06-13T00:00:00-07:00"),
        .init("13/13", "error 1 invalid_date"),
    ]

    /// The same clock with `date_order = dmy`.
    static let dayFirst = TemporalClock("2026-06-10T09:00:00-07:00", "America/Los_Angeles", dateOrder: .dmy)
    static let dayFirstCases: [TemporalCase] = [
        .init("03/05", "date 2027-05-03"),
        .init("3/5", "date 2027-05-03"),
        .init("23/05", "date 2027-05-23"),
        .init("5/23", "date 2027-05-23"),
        .init("10/6", "date 2026-06-10"),
        .init("12/6", "date 2026-06-12"),
        .init("1/7/2027", "date 2027-07-01"),
        .init("15/6", "date 2026-06-15"),
        .init("25/12", "date 2026-12-25"),
        .init("25/12/26", "date 2026-12-25"),
        .init("friday 12/6", "date 2026-06-12"),
        .init("12/6 at 3pm", "instant 2026-06-12T15:00:00-07:00"),
        .init("6/6", "date 2027-06-06"),
        .init("every day until 30/6", "rrule FREQ=DAILY;UNTIL=20260630"),
        .init("from 12/6 to 14/6", "days 2026-06-12 2026-06-14"),
        // Day first, the month is the second number: the error points at it.
        .init("13/13", "error 4 invalid_date"),
        .init("31/6", "error 1 invalid_date"),
    ]

    /// In the evening, a part of the day with no day named is the next one not over yet.
    static let evening = TemporalClock("2026-06-10T21:00:00-07:00", "America/Los_Angeles")
    static let eveningCases: [TemporalCase] = [
        .init("in the morning", "range 2026-06-11T06:00:00-07:00 2026-06-11T12:00:00-07:00"),
        .init("in the afternoon", "range 2026-06-11T12:00:00-07:00 2026-06-11T17:00:00-07:00"),
        .init("in the evening", "range 2026-06-10T17:00:00-07:00 2026-06-10T22:00:00-07:00"),
        .init("this morning", "range 2026-06-10T06:00:00-07:00 2026-06-10T12:00:00-07:00"),
        .init("later today", "range 2026-06-10T21:00:00-07:00 2026-06-11T00:00:00-07:00"),
    ]
}

/// What speech gives once transcribed (SLURP-like, our own sentences): spelled years after a
/// date, "o clock" in two words, possessive parts of a day, "the next N days" (Duckling's rule:
/// from the start of the next unit), "the remainder of", "current". Same clock as TypedTable.
enum SpokenTable {
    static let rows: [TemporalCase] = [
        .init("june fourteenth two thousand and seventeen", "date 2017-06-14"),
        .init("april one two thousand seventeen", "date 2017-04-01"),
        .init("the twenty first of march two thousand and seventeen", "date 2017-03-21"),
        .init("twenty second of march twenty seventeen", "date 2017-03-22"),
        .init("march 3 nineteen ninety nine", "date 1999-03-03"),
        .init("march third twenty twenty seven", "date 2027-03-03"),
        .init("july 4th two thousand", "date 2000-07-04"),
        .init("june 15 twenty thirty", "date 2030-06-15"),
        .init("june 15 at twenty thirty", "instant 2026-06-15T20:30:00-07:00"),
        .init("march 3 at twenty thirty", "instant 2027-03-03T20:30:00-08:00"),
        .init("twelve o clock", "time 12:00"),
        .init("at ten o clock", "time 10:00"),
        .init("five oclock", "time 17:00"),
        .init("this evening's", "range 2026-06-10T17:00:00-07:00 2026-06-10T22:00:00-07:00"),
        .init("tomorrow morning's", "range 2026-06-11T06:00:00-07:00 2026-06-11T12:00:00-07:00"),
        .init("the next five days", "days 2026-06-11 2026-06-15"),
        .init("next 3 days", "days 2026-06-11 2026-06-13"),
        .init("the past two days", "days 2026-06-08 2026-06-09"),
        .init("the last 3 days", "days 2026-06-07 2026-06-09"),
        .init("the next two weeks", "days 2026-06-15 2026-06-28"),
        .init("the next 2 months", "days 2026-07-01 2026-08-31"),
        .init("within the hour", "range 2026-06-10T09:00:00-07:00 2026-06-10T10:00:00-07:00"),
        .init("the next hour", "range 2026-06-10T09:00:00-07:00 2026-06-10T10:00:00-07:00"),
        .init("the past hour", "range 2026-06-10T08:00:00-07:00 2026-06-10T09:00:00-07:00"),
        .init("the next two hours", "range 2026-06-10T09:00:00-07:00 2026-06-10T11:00:00-07:00"),
        .init("remainder of the week", "range 2026-06-10T09:00:00-07:00 2026-06-15T00:00:00-07:00"),
        .init("the remainder of the day", "range 2026-06-10T09:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("the rest of the month", "range 2026-06-10T09:00:00-07:00 2026-07-01T00:00:00-07:00"),
        .init("rest of this month", "range 2026-06-10T09:00:00-07:00 2026-07-01T00:00:00-07:00"),
        .init("current month", "days 2026-06-01 2026-06-30"),
        .init("last year", "days 2025-01-01 2025-12-31"),
        .init("this year", "days 2026-01-01 2026-12-31"),
        .init("next year", "days 2027-01-01 2027-12-31"),
        .init("up coming", "range 2026-06-10T09:00:00-07:00 2026-06-17T09:00:00-07:00"),
        .init("twelveth july", "date 2026-07-12"),
        .init("the current week", "days 2026-06-08 2026-06-14"),
    ]
}

@Suite("Temporal expressions people say, transcribed")
struct TemporalSpokenTableTests {
    @Test("said on Wednesday, June 10th, 2026, 09:00 in Los Angeles", arguments: SpokenTable.rows)
    func wednesday(_ row: TemporalCase) {
        #expect(TemporalTable.wednesday.reading(row.text) == row.expected)
    }
}

@Suite("Temporal expressions people type")
struct TemporalTypedTableTests {
    static let all = TypedTable.times + TypedTable.dates + TypedTable.instants + TypedTable.ranges + TypedTable.others

    @Test("said on Wednesday, June 10th, 2026, 09:00 in Los Angeles", arguments: all)
    func wednesday(_ row: TemporalCase) {
        #expect(TemporalTable.wednesday.reading(row.text) == row.expected)
    }

    @Test("with date_order dmy", arguments: TypedTable.dayFirstCases)
    func dayFirst(_ row: TemporalCase) {
        #expect(TypedTable.dayFirst.reading(row.text) == row.expected)
    }

    @Test("said at 21:00", arguments: TypedTable.eveningCases)
    func evening(_ row: TemporalCase) {
        #expect(TypedTable.evening.reading(row.text) == row.expected)
    }

    @Test("the table holds at least 150 rows that were not read before issue 19")
    func rowCount() {
        #expect(Self.all.count + TypedTable.dayFirstCases.count + TypedTable.eveningCases.count >= 150)
    }
}
