import Testing
@testable import CometConversation

/// Every form `cometcal when` understands, and every policy for ambiguous English, against a
/// fixed clock: Wednesday, June 10th, 2026, 09:00 in Los Angeles (PDT, -07:00), unless a
/// section says otherwise. docs/conversation.md states each policy; this table holds them.
enum TemporalTable {
    static let wednesday = TemporalClock("2026-06-10T09:00:00-07:00", "America/Los_Angeles")

    static let times: [TemporalCase] = [
        .init("noon", "time 12:00"),
        .init("midnight", "time 00:00"),
        .init("midday", "time 12:00"),
        .init("11:30 am", "time 11:30"),
        .init("11:30am", "time 11:30"),
        .init("11:30 a.m.", "time 11:30"),
        .init("11:30 A.M.", "time 11:30"),
        .init("11:30 pm", "time 23:30"),
        .init("10 in the evening", "time 22:00"),
        .init("10 in the morning", "time 10:00"),
        .init("3 in the afternoon", "time 15:00"),
        .init("12 in the afternoon", "time 12:00"),
        .init("7 in the evening", "time 19:00"),
        .init("9 at night", "time 21:00"),
        .init("12 at night", "time 00:00"),
        .init("2 in the morning", "time 02:00"),
        .init("8pm", "time 20:00"),
        .init("8 pm", "time 20:00"),
        .init("8 p.m.", "time 20:00"),
        .init("8PM", "time 20:00"),
        .init("12 am", "time 00:00"),
        .init("12 pm", "time 12:00"),
        .init("12:15 am", "time 00:15"),
        .init("1140 a.m.", "time 11:40"),
        .init("1140am", "time 11:40"),
        .init("at 0930", "time 09:30"),
        .init("at 1500", "time 15:00"),
        .init("at 930", "time 09:30"),
        .init("noonish", "time 12:00"),
        .init("noon-ish", "time 12:00"),
        .init("around noon", "time 12:00"),
        .init("at around 3", "time 15:00"),
        .init("about 5pm", "time 17:00"),
        .init("3ish", "time 15:00"),
        .init("8pmish", "time 20:00"),
        .init("half past 2", "time 14:30"),
        .init("half past noon", "time 12:30"),
        .init("quarter past 9", "time 09:15"),
        .init("quarter to 5", "time 16:45"),
        .init("a quarter to noon", "time 11:45"),
        .init("quarter to 1", "time 12:45"),
        .init("one thirty", "time 13:30"),
        .init("eleven forty five", "time 11:45"),
        .init("three o'clock", "time 15:00"),
        .init("5 o'clock in the afternoon", "time 17:00"),
        .init("11.30", "time 11:30"),
        .init("15:00", "time 15:00"),
        .init("09:30", "time 09:30"),
        .init("0:30", "time 00:30"),
        .init("23:59", "time 23:59"),
        .init("14:30:00", "time 14:30"),
        // Policy: a bare hour is read in the working day, 7:00 to 18:59.
        .init("at 3", "time 15:00"),
        .init("at 1", "time 13:00"),
        .init("at 6", "time 18:00"),
        .init("at 6:59", "time 18:59"),
        .init("at 7", "time 07:00"),
        .init("7:00", "time 07:00"),
        .init("at 11", "time 11:00"),
        .init("at 12", "time 12:00"),
        .init("3:30", "time 15:30"),
        .init("3", "time 15:00"),
        .init("at 07:00", "time 07:00"),
        .init("at 03:00", "time 03:00"),
    ]

    static let dates: [TemporalCase] = [
        .init("today", "date 2026-06-10"),
        .init("tomorrow", "date 2026-06-11"),
        .init("Tomorrow", "date 2026-06-11"),
        .init("yesterday", "date 2026-06-09"),
        .init("the day after tomorrow", "date 2026-06-12"),
        .init("day after tomorrow", "date 2026-06-12"),
        .init("the day before yesterday", "date 2026-06-08"),
        // Policy: a bare weekday is the first one after today; today is never meant.
        .init("monday", "date 2026-06-15"),
        .init("tuesday", "date 2026-06-16"),
        .init("wednesday", "date 2026-06-17"),
        .init("thursday", "date 2026-06-11"),
        .init("friday", "date 2026-06-12"),
        .init("Friday", "date 2026-06-12"),
        .init("saturday", "date 2026-06-13"),
        .init("sunday", "date 2026-06-14"),
        .init("on friday", "date 2026-06-12"),
        .init("fri", "date 2026-06-12"),
        .init("Thurs", "date 2026-06-11"),
        .init("tues", "date 2026-06-16"),
        // Policy: "this Friday" is the first Friday from today on, today included.
        .init("this friday", "date 2026-06-12"),
        .init("this wednesday", "date 2026-06-10"),
        .init("this monday", "date 2026-06-15"),
        .init("this coming friday", "date 2026-06-12"),
        .init("coming friday", "date 2026-06-12"),
        // Policy: "next Friday" is the Friday of next week (weeks start on Monday).
        .init("next friday", "date 2026-06-19"),
        .init("next Friday", "date 2026-06-19"),
        .init("next thursday", "date 2026-06-18"),
        .init("next wednesday", "date 2026-06-17"),
        .init("next monday", "date 2026-06-15"),
        .init("next saturday", "date 2026-06-20"),
        .init("next sunday", "date 2026-06-21"),
        .init("friday next week", "date 2026-06-19"),
        .init("friday this week", "date 2026-06-12"),
        .init("monday this week", "date 2026-06-08"),
        .init("friday after next", "date 2026-06-26"),
        .init("last friday", "date 2026-06-05"),
        .init("last wednesday", "date 2026-06-03"),
        .init("last monday", "date 2026-06-08"),
        // Policy: a month and day is the next such day from today on; a past one is next year's.
        .init("June 15th", "date 2026-06-15"),
        .init("june 15", "date 2026-06-15"),
        .init("Jun 15", "date 2026-06-15"),
        .init("June the 15th", "date 2026-06-15"),
        .init("15 June", "date 2026-06-15"),
        .init("15th June", "date 2026-06-15"),
        .init("the 15th of June", "date 2026-06-15"),
        .init("15th of June", "date 2026-06-15"),
        .init("June 15, 2027", "date 2027-06-15"),
        .init("June 15 2027", "date 2027-06-15"),
        .init("June 10", "date 2026-06-10"),
        .init("June 9th", "date 2027-06-09"),
        .init("June 5", "date 2027-06-05"),
        .init("July 4th", "date 2026-07-04"),
        .init("Jan 1", "date 2027-01-01"),
        .init("December 25", "date 2026-12-25"),
        .init("Sept 3", "date 2026-09-03"),
        .init("February 29", "date 2028-02-29"),
        .init("feb 29 2028", "date 2028-02-29"),
        .init("on June 15th", "date 2026-06-15"),
        // Policy: "the 9th" is the next 9th from today on; months without the day are skipped.
        .init("the 9th", "date 2026-07-09"),
        .init("the 10th", "date 2026-06-10"),
        .init("the 15th", "date 2026-06-15"),
        .init("the 30th", "date 2026-06-30"),
        .init("the 31st", "date 2026-07-31"),
        .init("the first", "date 2026-07-01"),
        .init("the second", "date 2026-07-02"),
        .init("the third", "date 2026-07-03"),
        .init("the twenty-first", "date 2026-06-21"),
        .init("the twenty second", "date 2026-06-22"),
        .init("9th", "date 2026-07-09"),
        .init("on the 12th", "date 2026-06-12"),
        // Policy: numeric dates are month/day, as in US English.
        .init("6/15", "date 2026-06-15"),
        .init("6/7", "date 2027-06-07"),
        .init("6/10", "date 2026-06-10"),
        .init("12/25", "date 2026-12-25"),
        .init("1/2", "date 2027-01-02"),
        .init("6/15/2027", "date 2027-06-15"),
        .init("6/15/27", "date 2027-06-15"),
        .init("2026-06-15", "date 2026-06-15"),
        .init("2027-01-31", "date 2027-01-31"),
        .init("three weeks from tomorrow", "date 2026-07-02"),
        .init("in 2 days", "date 2026-06-12"),
        .init("in two days", "date 2026-06-12"),
        .init("in a week", "date 2026-06-17"),
        .init("in two weeks", "date 2026-06-24"),
        .init("in a month", "date 2026-07-10"),
        .init("in 3 months", "date 2026-09-10"),
        .init("in a year", "date 2027-06-10"),
        .init("in a few days", "date 2026-06-13"),
        .init("in a week and 2 days", "date 2026-06-19"),
        .init("a week from friday", "date 2026-06-19"),
        .init("2 weeks from today", "date 2026-06-24"),
        .init("a week from now", "date 2026-06-17"),
        .init("3 days ago", "date 2026-06-07"),
        .init("a week ago", "date 2026-06-03"),
        .init("two days before friday", "date 2026-06-10"),
        .init("2 days after tomorrow", "date 2026-06-13"),
        // Policy: a month later than a day the month lacks is its last day.
        .init("a month from january 31", "date 2027-02-28"),
        .init("a month after the 31st", "date 2026-08-31"),
    ]

    static let instants: [TemporalCase] = [
        .init("next friday at noon", "instant 2026-06-19T12:00:00-07:00"),
        .init("June 15th, 8am", "instant 2026-06-15T08:00:00-07:00"),
        .init("June 15th at 8am", "instant 2026-06-15T08:00:00-07:00"),
        .init("tomorrow at 10 in the evening", "instant 2026-06-11T22:00:00-07:00"),
        .init("tomorrow at noon", "instant 2026-06-11T12:00:00-07:00"),
        .init("noon tomorrow", "instant 2026-06-11T12:00:00-07:00"),
        .init("8pm tomorrow", "instant 2026-06-11T20:00:00-07:00"),
        .init("tomorrow 9am", "instant 2026-06-11T09:00:00-07:00"),
        .init("tomorrow 10:00", "instant 2026-06-11T10:00:00-07:00"),
        .init("friday at 3", "instant 2026-06-12T15:00:00-07:00"),
        .init("friday 9am", "instant 2026-06-12T09:00:00-07:00"),
        .init("monday 9:30", "instant 2026-06-15T09:30:00-07:00"),
        .init("next monday noon", "instant 2026-06-15T12:00:00-07:00"),
        .init("next friday 14:30", "instant 2026-06-19T14:30:00-07:00"),
        .init("next friday at 7:30pm", "instant 2026-06-19T19:30:00-07:00"),
        .init("today at 5pm", "instant 2026-06-10T17:00:00-07:00"),
        .init("at noon on friday", "instant 2026-06-12T12:00:00-07:00"),
        .init("noon on friday", "instant 2026-06-12T12:00:00-07:00"),
        .init("on June 15th at 3:30 pm", "instant 2026-06-15T15:30:00-07:00"),
        .init("June 15 at 1140 a.m.", "instant 2026-06-15T11:40:00-07:00"),
        .init("June 15 2027 at 9", "instant 2027-06-15T09:00:00-07:00"),
        .init("the 15th at 9", "instant 2026-06-15T09:00:00-07:00"),
        .init("6/15 at 2pm", "instant 2026-06-15T14:00:00-07:00"),
        .init("2026-06-15 at 3pm", "instant 2026-06-15T15:00:00-07:00"),
        .init("2026-06-15 08:00", "instant 2026-06-15T08:00:00-07:00"),
        .init("2026-06-15T08:00", "instant 2026-06-15T08:00:00-07:00"),
        .init("2026-06-15T08:00:00+02:00", "instant 2026-06-15T06:00:00Z"),
        .init("a week from friday at noon", "instant 2026-06-19T12:00:00-07:00"),
        .init("in 2 days at 3pm", "instant 2026-06-12T15:00:00-07:00"),
        .init("tomorrow at 2 in the afternoon", "instant 2026-06-11T14:00:00-07:00"),
        .init("tomorrow morning at 9", "instant 2026-06-11T09:00:00-07:00"),
        .init("tomorrow evening at 7", "instant 2026-06-11T19:00:00-07:00"),
        .init("9 tomorrow morning", "instant 2026-06-11T09:00:00-07:00"),
        .init("this evening at 6", "instant 2026-06-10T18:00:00-07:00"),
        .init("this morning at 8", "instant 2026-06-10T08:00:00-07:00"),
        .init("tonight at 8", "instant 2026-06-10T20:00:00-07:00"),
        .init("8 tonight", "instant 2026-06-10T20:00:00-07:00"),
        .init("tonight at 11:30", "instant 2026-06-10T23:30:00-07:00"),
        .init("friday night at 9", "instant 2026-06-12T21:00:00-07:00"),
        // Policy: the small hours of a night are the next day's.
        .init("tonight at 1", "instant 2026-06-11T01:00:00-07:00"),
        .init("friday night at 2", "instant 2026-06-13T02:00:00-07:00"),
        // Policy: a named day's midnight is the one that ends it.
        .init("tomorrow at midnight", "instant 2026-06-12T00:00:00-07:00"),
        .init("friday at midnight", "instant 2026-06-13T00:00:00-07:00"),
        .init("tonight at midnight", "instant 2026-06-11T00:00:00-07:00"),
        .init("midnight tonight", "instant 2026-06-11T00:00:00-07:00"),
        .init("tonight at 12", "instant 2026-06-11T00:00:00-07:00"),
        .init("now", "instant 2026-06-10T09:00:00-07:00"),
        .init("right now", "instant 2026-06-10T09:00:00-07:00"),
        .init("in two hours", "instant 2026-06-10T11:00:00-07:00"),
        .init("in 5 minutes", "instant 2026-06-10T09:05:00-07:00"),
        .init("in an hour", "instant 2026-06-10T10:00:00-07:00"),
        .init("in half an hour", "instant 2026-06-10T09:30:00-07:00"),
        .init("in 90 minutes", "instant 2026-06-10T10:30:00-07:00"),
        .init("in an hour and a half", "instant 2026-06-10T10:30:00-07:00"),
        .init("in a few minutes", "instant 2026-06-10T09:03:00-07:00"),
        .init("in 1h30", "instant 2026-06-10T10:30:00-07:00"),
        .init("in twenty minutes", "instant 2026-06-10T09:20:00-07:00"),
        .init("in 15 min", "instant 2026-06-10T09:15:00-07:00"),
        .init("in 30 seconds", "instant 2026-06-10T09:00:30-07:00"),
        .init("in 24 hours", "instant 2026-06-11T09:00:00-07:00"),
        .init("in 1 day and 2 hours", "instant 2026-06-11T11:00:00-07:00"),
        .init("2 hours from now", "instant 2026-06-10T11:00:00-07:00"),
        .init("an hour ago", "instant 2026-06-10T08:00:00-07:00"),
    ]

    static let durations: [TemporalCase] = [
        .init("for 45 minutes", "duration PT45M"),
        .init("45 minutes", "duration PT45M"),
        .init("45 min", "duration PT45M"),
        .init("45m", "duration PT45M"),
        .init("1h30", "duration PT1H30M"),
        .init("1h30m", "duration PT1H30M"),
        .init("1 h 30", "duration PT1H30M"),
        .init("1 hour 30 minutes", "duration PT1H30M"),
        .init("1 hour and 15 minutes", "duration PT1H15M"),
        .init("an hour and a half", "duration PT1H30M"),
        .init("1.5 hours", "duration PT1H30M"),
        .init("90 minutes", "duration PT1H30M"),
        .init("half an hour", "duration PT30M"),
        .init("a half hour", "duration PT30M"),
        .init("a quarter of an hour", "duration PT15M"),
        // Policy: "a few" is 3, "a couple" is 2.
        .init("a few minutes", "duration PT3M"),
        .init("a few hours", "duration PT3H"),
        .init("a couple of hours", "duration PT2H"),
        .init("a couple hours", "duration PT2H"),
        .init("twenty four hours", "duration PT24H"),
        .init("twenty-four hours", "duration PT24H"),
        .init("24 hours", "duration PT24H"),
        .init("a day", "duration P1D"),
        .init("for 2 days", "duration P2D"),
        .init("a week", "duration P1W"),
        .init("for two weeks", "duration P2W"),
        .init("1 week and 2 days", "duration P9D"),
        .init("a day and a half", "duration P1DT12H"),
        .init("1.5 days", "duration P1DT12H"),
        .init("2 and a half hours", "duration PT2H30M"),
        .init("for 3 hours", "duration PT3H"),
        .init("10 seconds", "duration PT10S"),
        .init("thirty minutes", "duration PT30M"),
        .init("for fifty-five minutes", "duration PT55M"),
        .init("for an hour", "duration PT1H"),
        .init("an hour", "duration PT1H"),
        .init("2h", "duration PT2H"),
        .init("2 hrs", "duration PT2H"),
        .init("lasting 20 minutes", "duration PT20M"),
        .init("PT45M", "duration PT45M"),
        .init("P1DT2H", "duration P1DT2H"),
    ]

    static let shifts: [TemporalCase] = [
        .init("push it out by an hour", "shift PT1H"),
        .init("30 minutes earlier", "shift -PT30M"),
        // Policy: "later" and "earlier" shift the event talked about; from now is "in an hour".
        .init("an hour later", "shift PT1H"),
        .init("two hours later", "shift PT2H"),
        .init("a day later", "shift P1D"),
        .init("15 minutes sooner", "shift -PT15M"),
        .init("move it to Thursday", "shift to 2026-06-11"),
        .init("move it to next friday", "shift to 2026-06-19"),
        .init("move it to June 15th", "shift to 2026-06-15"),
        .init("reschedule to monday", "shift to 2026-06-15"),
        .init("move it to noon", "shift to 12:00"),
        .init("move this to 10 in the evening", "shift to 22:00"),
        .init("make it 11:30 am", "shift to 11:30"),
        .init("make it noon", "shift to 12:00"),
        .init("move it to tomorrow at 10", "shift to 2026-06-11T10:00:00-07:00"),
        .init("push it to friday at 3", "shift to 2026-06-12T15:00:00-07:00"),
        .init("move the meeting to friday", "shift to 2026-06-12"),
        // Policy: "back" and "out" are later; "forward", "up", "in" are earlier.
        .init("push it back 15 minutes", "shift PT15M"),
        .init("push the meeting back a week", "shift P1W"),
        .init("bring it forward by 10 minutes", "shift -PT10M"),
        .init("move it up an hour", "shift -PT1H"),
        .init("pull it in by 5 minutes", "shift -PT5M"),
        .init("move it forward 30 minutes", "shift -PT30M"),
        // Policy: with no direction a shift goes later, except after "bring" and "pull".
        .init("move it by an hour", "shift PT1H"),
        .init("delay it by 20 minutes", "shift PT20M"),
        .init("postpone it a day", "shift P1D"),
        .init("shift it by 2 days", "shift P2D"),
        .init("bring it 10 minutes", "shift -PT10M"),
        .init("move it an hour earlier", "shift -PT1H"),
        .init("make it 30 minutes later", "shift PT30M"),
        .init("push it out a few minutes", "shift PT3M"),
        .init("delay by half an hour", "shift PT30M"),
        .init("push it back an hour earlier", "error 22 not_understood"),
    ]

    static let ranges: [TemporalCase] = [
        // Policy: a range of bare times is today's; the end's am/pm carries to the start.
        .init("from 2 to 3:30pm", "range 2026-06-10T14:00:00-07:00 2026-06-10T15:30:00-07:00"),
        .init("from 9 to 5", "range 2026-06-10T09:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("from 11 to 1pm", "range 2026-06-10T11:00:00-07:00 2026-06-10T13:00:00-07:00"),
        .init("from 8 to 10pm", "range 2026-06-10T20:00:00-07:00 2026-06-10T22:00:00-07:00"),
        .init("from 10am to 2", "range 2026-06-10T10:00:00-07:00 2026-06-10T14:00:00-07:00"),
        .init("between 2 and 4", "range 2026-06-10T14:00:00-07:00 2026-06-10T16:00:00-07:00"),
        .init("2-3pm", "range 2026-06-10T14:00:00-07:00 2026-06-10T15:00:00-07:00"),
        .init("9-5", "range 2026-06-10T09:00:00-07:00 2026-06-10T17:00:00-07:00"),
        .init("from 14:00 to 15:30", "range 2026-06-10T14:00:00-07:00 2026-06-10T15:30:00-07:00"),
        .init("from 10pm to midnight", "range 2026-06-10T22:00:00-07:00 2026-06-11T00:00:00-07:00"),
        .init("from 11pm to 1am", "range 2026-06-10T23:00:00-07:00 2026-06-11T01:00:00-07:00"),
        .init("from 11pm to 1", "range 2026-06-10T23:00:00-07:00 2026-06-11T01:00:00-07:00"),
        .init("from 10 until noon", "range 2026-06-10T10:00:00-07:00 2026-06-10T12:00:00-07:00"),
        .init("tomorrow from 9 to 5", "range 2026-06-11T09:00:00-07:00 2026-06-11T17:00:00-07:00"),
        .init("from 2 to 3:30pm tomorrow", "range 2026-06-11T14:00:00-07:00 2026-06-11T15:30:00-07:00"),
        .init("friday from 1 to 2pm", "range 2026-06-12T13:00:00-07:00 2026-06-12T14:00:00-07:00"),
        .init("from 9am tomorrow to 5pm friday", "range 2026-06-11T09:00:00-07:00 2026-06-12T17:00:00-07:00"),
        .init("from tomorrow at 9 to friday at 5", "range 2026-06-11T09:00:00-07:00 2026-06-12T17:00:00-07:00"),
        .init("from tomorrow at 9 to 5", "range 2026-06-11T09:00:00-07:00 2026-06-11T17:00:00-07:00"),
        .init("at 3 for an hour", "range 2026-06-10T15:00:00-07:00 2026-06-10T16:00:00-07:00"),
        .init("tomorrow at 9 for 45 minutes", "range 2026-06-11T09:00:00-07:00 2026-06-11T09:45:00-07:00"),
        .init("from 2 for 90 minutes", "range 2026-06-10T14:00:00-07:00 2026-06-10T15:30:00-07:00"),
        .init("all day", "days 2026-06-10 2026-06-10"),
        .init("all day tomorrow", "days 2026-06-11 2026-06-11"),
        .init("tomorrow all day", "days 2026-06-11 2026-06-11"),
        .init("all day on friday", "days 2026-06-12 2026-06-12"),
        .init("all day June 15th", "days 2026-06-15 2026-06-15"),
        .init("the whole day", "days 2026-06-10 2026-06-10"),
        // Policy: weeks run Monday to Sunday; the weekend is the one of the current week.
        .init("this week", "days 2026-06-08 2026-06-14"),
        .init("all week", "days 2026-06-08 2026-06-14"),
        .init("next week", "days 2026-06-15 2026-06-21"),
        .init("last week", "days 2026-06-01 2026-06-07"),
        .init("this weekend", "days 2026-06-13 2026-06-14"),
        .init("the weekend", "days 2026-06-13 2026-06-14"),
        .init("over the weekend", "days 2026-06-13 2026-06-14"),
        .init("next weekend", "days 2026-06-20 2026-06-21"),
        .init("this month", "days 2026-06-01 2026-06-30"),
        .init("next month", "days 2026-07-01 2026-07-31"),
        .init("last month", "days 2026-05-01 2026-05-31"),
        // Policy: a month named alone is this month when we are in it, else the next to come.
        .init("June", "days 2026-06-01 2026-06-30"),
        .init("July", "days 2026-07-01 2026-07-31"),
        .init("in July", "days 2026-07-01 2026-07-31"),
        .init("May", "days 2027-05-01 2027-05-31"),
        .init("June 2027", "days 2027-06-01 2027-06-30"),
        .init("from monday to wednesday", "days 2026-06-15 2026-06-17"),
        .init("monday to friday", "days 2026-06-15 2026-06-19"),
        .init("from friday to monday", "days 2026-06-12 2026-06-15"),
        .init("from today to friday", "days 2026-06-10 2026-06-12"),
        .init("June 15 to 18", "days 2026-06-15 2026-06-18"),
        .init("June 15-18", "days 2026-06-15 2026-06-18"),
        .init("from June 15 to June 18", "days 2026-06-15 2026-06-18"),
        .init("from June 28 to July 2", "days 2026-06-28 2026-07-02"),
        .init("between June 15th and the 18th", "days 2026-06-15 2026-06-18"),
        .init("from tomorrow to friday", "days 2026-06-11 2026-06-12"),
        // At the end of a range a weekday counts from the start, and may be the start's day.
        .init("from friday at 9 to friday at 5", "range 2026-06-12T09:00:00-07:00 2026-06-12T17:00:00-07:00"),
    ]

    static let recurrences: [TemporalCase] = [
        .init("every weekday", "rrule FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        .init("weekdays", "rrule FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        .init("on weekdays", "rrule FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        .init("weekly", "rrule FREQ=WEEKLY"),
        .init("every week", "rrule FREQ=WEEKLY"),
        .init("daily", "rrule FREQ=DAILY"),
        .init("every day", "rrule FREQ=DAILY"),
        .init("each day", "rrule FREQ=DAILY"),
        .init("monthly", "rrule FREQ=MONTHLY"),
        .init("every month", "rrule FREQ=MONTHLY"),
        .init("yearly", "rrule FREQ=YEARLY"),
        .init("annually", "rrule FREQ=YEARLY"),
        .init("every year", "rrule FREQ=YEARLY"),
        .init("hourly", "rrule FREQ=HOURLY"),
        .init("every hour", "rrule FREQ=HOURLY"),
        .init("every 30 minutes", "rrule FREQ=MINUTELY;INTERVAL=30"),
        .init("every other Tuesday", "rrule FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"),
        .init("every other week", "rrule FREQ=WEEKLY;INTERVAL=2"),
        .init("every 2 weeks", "rrule FREQ=WEEKLY;INTERVAL=2"),
        .init("every second week", "rrule FREQ=WEEKLY;INTERVAL=2"),
        .init("every three days", "rrule FREQ=DAILY;INTERVAL=3"),
        .init("every 3rd day", "rrule FREQ=DAILY;INTERVAL=3"),
        .init("every other month", "rrule FREQ=MONTHLY;INTERVAL=2"),
        .init("fortnightly", "rrule FREQ=WEEKLY;INTERVAL=2"),
        // Policy: "biweekly" is every two weeks, never twice a week.
        .init("biweekly", "rrule FREQ=WEEKLY;INTERVAL=2"),
        .init("every tuesday", "rrule FREQ=WEEKLY;BYDAY=TU"),
        .init("every tuesday and thursday", "rrule FREQ=WEEKLY;BYDAY=TU,TH"),
        .init("every mon wed fri", "rrule FREQ=WEEKLY;BYDAY=MO,WE,FR"),
        .init("every monday, wednesday and friday", "rrule FREQ=WEEKLY;BYDAY=MO,WE,FR"),
        .init("on tuesdays", "rrule FREQ=WEEKLY;BYDAY=TU"),
        .init("tuesdays and thursdays", "rrule FREQ=WEEKLY;BYDAY=TU,TH"),
        .init("weekly on monday", "rrule FREQ=WEEKLY;BYDAY=MO"),
        .init("weekly on mondays and wednesdays", "rrule FREQ=WEEKLY;BYDAY=MO,WE"),
        .init("every week on friday", "rrule FREQ=WEEKLY;BYDAY=FR"),
        .init("every 2 weeks on monday", "rrule FREQ=WEEKLY;INTERVAL=2;BYDAY=MO"),
        .init("every weekend", "rrule FREQ=WEEKLY;BYDAY=SA,SU"),
        .init("on weekends", "rrule FREQ=WEEKLY;BYDAY=SA,SU"),
        .init("monthly on the 15th", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("every month on the 15th", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("every 15th", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("every 15th of the month", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("on the 15th of every month", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("the 15th of each month", "rrule FREQ=MONTHLY;BYMONTHDAY=15"),
        .init("monthly on the last day", "rrule FREQ=MONTHLY;BYMONTHDAY=-1"),
        .init("monthly on the first monday", "rrule FREQ=MONTHLY;BYDAY=1MO"),
        .init("every first monday", "rrule FREQ=MONTHLY;BYDAY=1MO"),
        .init("every last friday", "rrule FREQ=MONTHLY;BYDAY=-1FR"),
        .init("the last friday of every month", "rrule FREQ=MONTHLY;BYDAY=-1FR"),
        .init("the first monday of the month", "rrule FREQ=MONTHLY;BYDAY=1MO"),
        // Policy: "every second Tuesday" is the second Tuesday of the month (US); "every other" is fortnightly.
        .init("every second tuesday", "rrule FREQ=MONTHLY;BYDAY=2TU"),
        .init("yearly on June 15", "rrule FREQ=YEARLY;BYMONTHDAY=15;BYMONTH=6"),
        .init("every June 15th", "rrule FREQ=YEARLY;BYMONTHDAY=15;BYMONTH=6"),
        .init("every year on the 15th of June", "rrule FREQ=YEARLY;BYMONTHDAY=15;BYMONTH=6"),
        .init("repeat weekly", "rrule FREQ=WEEKLY"),
        .init("repeats every day", "rrule FREQ=DAILY"),
        .init("repeat it monthly", "rrule FREQ=MONTHLY"),
        .init("repeating every other week", "rrule FREQ=WEEKLY;INTERVAL=2"),
        // Policy: "until July" ends before July; "until June 30" includes June 30th.
        .init("weekly until July", "rrule FREQ=WEEKLY;UNTIL=20260630"),
        .init("every day until June 30", "rrule FREQ=DAILY;UNTIL=20260630"),
        .init("every weekday until july", "rrule FREQ=WEEKLY;UNTIL=20260630;BYDAY=MO,TU,WE,TH,FR"),
        .init("every other tuesday until july", "rrule FREQ=WEEKLY;UNTIL=20260630;INTERVAL=2;BYDAY=TU"),
        .init("daily until friday", "rrule FREQ=DAILY;UNTIL=20260612"),
        .init("weekly through July", "rrule FREQ=WEEKLY;UNTIL=20260731"),
        .init("weekly until the end of July", "rrule FREQ=WEEKLY;UNTIL=20260731"),
        .init("monthly until December", "rrule FREQ=MONTHLY;UNTIL=20261130"),
        .init("weekly until 6/30", "rrule FREQ=WEEKLY;UNTIL=20260630"),
        .init("daily 10 times", "rrule FREQ=DAILY;COUNT=10"),
        .init("weekly for 6 times", "rrule FREQ=WEEKLY;COUNT=6"),
        .init("FREQ=WEEKLY;BYDAY=MO", "rrule FREQ=WEEKLY;BYDAY=MO"),
        // Cleared, not unset: "do not repeat" removes the rule.
        .init("do not repeat", "rrule none"),
        .init("don't repeat", "rrule none"),
        .init("don’t repeat", "rrule none"),
        .init("dont repeat", "rrule none"),
        .init("no longer repeat", "rrule none"),
        .init("do not repeat this event", "rrule none"),
        .init("don't repeat it anymore", "rrule none"),
        .init("stop repeating", "rrule none"),
        .init("does not repeat", "rrule none"),
        .init("never", "rrule none"),
        .init("no repeat", "rrule none"),
        .init("just once", "rrule none"),
        .init("once", "rrule none"),
    ]

    static let seriesEnds: [TemporalCase] = [
        .init("until July", "until 2026-06-30"),
        .init("until June 30", "until 2026-06-30"),
        .init("until friday", "until 2026-06-12"),
        .init("until next friday", "until 2026-06-19"),
        .init("through July", "until 2026-07-31"),
        .init("until the end of July", "until 2026-07-31"),
        .init("till august", "until 2026-07-31"),
        .init("until January", "until 2026-12-31"),
        .init("until July 2027", "until 2027-06-30"),
        // Said in June, "until June" means the next June to come.
        .init("until June", "until 2027-05-31"),
        .init("until 2026-12-31", "until 2026-12-31"),
        .init("ending on June 30", "until 2026-06-30"),
        .init("10 times", "count 10"),
        .init("for 5 times", "count 5"),
    ]

    static let errors: [TemporalCase] = [
        .init("", "error 1 empty"),
        .init("   ", "error 1 empty"),
        .init("next blursday", "error 6 not_understood"),
        .init("tomorow at noon", "error 1 not_understood"),
        .init("banana", "error 1 not_understood"),
        .init("within the hour", "error 1 not_understood"),
        .init("tomorrow at noon blah", "error 18 not_understood"),
        .init("next friday at noon please", "error 21 not_understood"),
        .init("February 30th", "error 10 invalid_date"),
        .init("June 31", "error 6 invalid_date"),
        .init("the 32nd", "error 5 invalid_date"),
        .init("6/32", "error 3 invalid_date"),
        .init("13/5", "error 1 invalid_date"),
        .init("2026-02-30", "error 9 invalid_date"),
        .init("at 25", "error 4 invalid_time"),
        .init("25:00", "error 1 invalid_time"),
        .init("11:75", "error 1 invalid_time"),
        .init("13pm", "error 1 invalid_time"),
        .init("0am", "error 1 invalid_time"),
        .init("10 in the morning pm", "error 19 not_understood"),
        .init("next", "error 5 incomplete"),
        .init("every", "error 6 incomplete"),
        .init("from 2", "error 7 incomplete"),
        .init("tomorrow morning", "error 17 incomplete"),
        .init("for 2 months", "error 5 unsupported"),
        .init("in 99999999 years", "error 1 out_of_range"),
        .init("1234567890 minutes", "error 1 out_of_range"),
        .init("every 0 days", "error 7 out_of_range"),
        .init("0 times", "error 1 out_of_range"),
        .init("from friday at 5 to friday at 3", "error 31 end_before_start"),
        .init("June 18 to 15", "error 12 end_before_start"),
    ]
}

/// The same rules on other days and in other zones.
enum OtherClocks {
    static let friday = TemporalClock("2026-06-12T09:00:00-07:00", "America/Los_Angeles")
    static let fridayCases: [TemporalCase] = [
        // Policy: said on a Friday, "Friday" is a week later, "this Friday" is today.
        .init("friday", "date 2026-06-19"),
        .init("this friday", "date 2026-06-12"),
        .init("next friday", "date 2026-06-19"),
        .init("last friday", "date 2026-06-05"),
        .init("friday this week", "date 2026-06-12"),
        .init("friday after next", "date 2026-06-26"),
        .init("saturday", "date 2026-06-13"),
        .init("next saturday", "date 2026-06-20"),
        .init("monday", "date 2026-06-15"),
        .init("next monday", "date 2026-06-15"),
        .init("tomorrow", "date 2026-06-13"),
        .init("the 12th", "date 2026-06-12"),
        .init("the 11th", "date 2026-07-11"),
        .init("friday at noon", "instant 2026-06-19T12:00:00-07:00"),
        .init("this friday at 5pm", "instant 2026-06-12T17:00:00-07:00"),
        .init("tonight at 9", "instant 2026-06-12T21:00:00-07:00"),
        .init("this weekend", "days 2026-06-13 2026-06-14"),
        .init("next weekend", "days 2026-06-20 2026-06-21"),
        .init("this week", "days 2026-06-08 2026-06-14"),
        .init("move it to friday", "shift to 2026-06-19"),
    ]

    static let sunday = TemporalClock("2026-06-14T09:00:00-07:00", "America/Los_Angeles")
    static let sundayCases: [TemporalCase] = [
        // Policy: weeks start on Monday, so on a Sunday "next Friday" is five days away.
        .init("next friday", "date 2026-06-19"),
        .init("friday", "date 2026-06-19"),
        .init("this friday", "date 2026-06-19"),
        .init("sunday", "date 2026-06-21"),
        .init("this sunday", "date 2026-06-14"),
        .init("next sunday", "date 2026-06-21"),
        .init("last sunday", "date 2026-06-07"),
        .init("last saturday", "date 2026-06-13"),
        .init("saturday", "date 2026-06-20"),
        .init("monday", "date 2026-06-15"),
        .init("next monday", "date 2026-06-15"),
        .init("this weekend", "days 2026-06-13 2026-06-14"),
        .init("next weekend", "days 2026-06-20 2026-06-21"),
        .init("this week", "days 2026-06-08 2026-06-14"),
        .init("next week", "days 2026-06-15 2026-06-21"),
        .init("every other sunday", "rrule FREQ=WEEKLY;INTERVAL=2;BYDAY=SU"),
    ]

    static let newYearsEve = TemporalClock("2026-12-31T09:00:00-08:00", "America/Los_Angeles")
    static let newYearsEveCases: [TemporalCase] = [
        .init("tomorrow", "date 2027-01-01"),
        .init("January 5th", "date 2027-01-05"),
        .init("December 25", "date 2027-12-25"),
        .init("December 31", "date 2026-12-31"),
        .init("12/31", "date 2026-12-31"),
        .init("1/1", "date 2027-01-01"),
        .init("the 1st", "date 2027-01-01"),
        .init("the 31st", "date 2026-12-31"),
        .init("friday", "date 2027-01-01"),
        .init("next friday", "date 2027-01-08"),
        .init("in a month", "date 2027-01-31"),
        .init("in 2 months", "date 2027-02-28"),
        .init("in a year", "date 2027-12-31"),
        .init("this week", "days 2026-12-28 2027-01-03"),
        .init("next week", "days 2027-01-04 2027-01-10"),
        .init("this weekend", "days 2027-01-02 2027-01-03"),
        .init("this month", "days 2026-12-01 2026-12-31"),
        .init("next month", "days 2027-01-01 2027-01-31"),
        .init("January", "days 2027-01-01 2027-01-31"),
        .init("in 3 hours", "instant 2026-12-31T12:00:00-08:00"),
        .init("tonight at midnight", "instant 2027-01-01T00:00:00-08:00"),
        .init("tomorrow at midnight", "instant 2027-01-02T00:00:00-08:00"),
        .init("from December 31 to January 2", "days 2026-12-31 2027-01-02"),
        .init("until January", "until 2026-12-31"),
        .init("until March", "until 2027-02-28"),
        .init("weekly until March", "rrule FREQ=WEEKLY;UNTIL=20270228"),
        .init("June 15th", "date 2027-06-15"),
    ]

    /// Clocks go from 02:00 to 03:00 in Berlin on Sunday, March 29th, 2026.
    static let berlinSpring = TemporalClock("2026-03-29T01:30:00+01:00", "Europe/Berlin")
    static let berlinSpringCases: [TemporalCase] = [
        .init("in two hours", "instant 2026-03-29T04:30:00+02:00"),
        .init("in an hour", "instant 2026-03-29T03:30:00+02:00"),
        .init("in 30 minutes", "instant 2026-03-29T03:00:00+02:00"),
        .init("now", "instant 2026-03-29T01:30:00+01:00"),
        // A wall time the change skips is placed after the gap (RFC 5545).
        .init("today at 02:30", "instant 2026-03-29T03:30:00+02:00"),
        .init("today at 3:30 am", "instant 2026-03-29T03:30:00+02:00"),
        .init("today at 1:30 am", "instant 2026-03-29T01:30:00+01:00"),
        .init("today at noon", "instant 2026-03-29T12:00:00+02:00"),
        .init("tomorrow at 9", "instant 2026-03-30T09:00:00+02:00"),
        .init("yesterday at 9", "instant 2026-03-28T09:00:00+01:00"),
        // The day is 23 hours long; a day is nominal, hours are exact.
        .init("all day", "days 2026-03-29 2026-03-29"),
        .init("in 24 hours", "instant 2026-03-30T02:30:00+02:00"),
        .init("in a day", "date 2026-03-30"),
        .init("in 1 day and 1 hour", "instant 2026-03-30T02:30:00+02:00"),
        .init("from 1 to 4am", "range 2026-03-29T01:00:00+01:00 2026-03-29T04:00:00+02:00"),
        .init("this week", "days 2026-03-23 2026-03-29"),
        .init("next friday at noon", "instant 2026-04-03T12:00:00+02:00"),
        .init("at 2:30", "time 14:30"),
    ]

    /// Clocks go back from 03:00 to 02:00 in Berlin on Sunday, October 25th, 2026.
    static let berlinAutumn = TemporalClock("2026-10-25T01:30:00+02:00", "Europe/Berlin")
    static let berlinAutumnCases: [TemporalCase] = [
        .init("in an hour", "instant 2026-10-25T02:30:00+02:00"),
        .init("in two hours", "instant 2026-10-25T02:30:00+01:00"),
        .init("in three hours", "instant 2026-10-25T03:30:00+01:00"),
        // A wall time that happens twice is the first of the two.
        .init("today at 02:30", "instant 2026-10-25T02:30:00+02:00"),
        .init("today at 4am", "instant 2026-10-25T04:00:00+01:00"),
        .init("tomorrow at 9", "instant 2026-10-26T09:00:00+01:00"),
        .init("all day", "days 2026-10-25 2026-10-25"),
        .init("in 24 hours", "instant 2026-10-26T00:30:00+01:00"),
        .init("from 1 to 4am", "range 2026-10-25T01:00:00+02:00 2026-10-25T04:00:00+01:00"),
    ]

    static let utc = TemporalClock("2026-06-10T09:00:00Z", "UTC")
    static let utcCases: [TemporalCase] = [
        .init("tomorrow at noon", "instant 2026-06-11T12:00:00Z"),
        .init("in two hours", "instant 2026-06-10T11:00:00Z"),
        .init("now", "instant 2026-06-10T09:00:00Z"),
        .init("this weekend", "days 2026-06-13 2026-06-14"),
    ]

    /// 09:00 in Tokyo is still Tuesday in Los Angeles: "today" is the zone's day.
    static let tokyo = TemporalClock("2026-06-10T09:00:00+09:00", "Asia/Tokyo")
    static let tokyoCases: [TemporalCase] = [
        .init("today", "date 2026-06-10"),
        .init("tomorrow at 9am", "instant 2026-06-11T09:00:00+09:00"),
        .init("friday", "date 2026-06-12"),
        .init("in 5 minutes", "instant 2026-06-10T09:05:00+09:00"),
    ]
}

@Suite("Temporal expressions: the table")
struct TemporalTableTests {
    static let all = TemporalTable.times + TemporalTable.dates + TemporalTable.instants + TemporalTable.durations
        + TemporalTable.shifts + TemporalTable.ranges + TemporalTable.recurrences + TemporalTable.seriesEnds + TemporalTable.errors

    @Test("said on Wednesday, June 10th, 2026, 09:00 in Los Angeles", arguments: all)
    func wednesday(_ row: TemporalCase) {
        #expect(TemporalTable.wednesday.reading(row.text) == row.expected)
    }

    @Test("said on Friday, June 12th, 2026, in Los Angeles", arguments: OtherClocks.fridayCases)
    func friday(_ row: TemporalCase) {
        #expect(OtherClocks.friday.reading(row.text) == row.expected)
    }

    @Test("said on Sunday, June 14th, 2026, in Los Angeles", arguments: OtherClocks.sundayCases)
    func sunday(_ row: TemporalCase) {
        #expect(OtherClocks.sunday.reading(row.text) == row.expected)
    }

    @Test("said on December 31st, 2026, in Los Angeles", arguments: OtherClocks.newYearsEveCases)
    func newYearsEve(_ row: TemporalCase) {
        #expect(OtherClocks.newYearsEve.reading(row.text) == row.expected)
    }

    @Test("said in Berlin at 01:30 on the day clocks go forward", arguments: OtherClocks.berlinSpringCases)
    func berlinSpring(_ row: TemporalCase) {
        #expect(OtherClocks.berlinSpring.reading(row.text) == row.expected)
    }

    @Test("said in Berlin at 01:30 on the day clocks go back", arguments: OtherClocks.berlinAutumnCases)
    func berlinAutumn(_ row: TemporalCase) {
        #expect(OtherClocks.berlinAutumn.reading(row.text) == row.expected)
    }

    @Test("said in UTC", arguments: OtherClocks.utcCases)
    func utc(_ row: TemporalCase) {
        #expect(OtherClocks.utc.reading(row.text) == row.expected)
    }

    @Test("said in Tokyo", arguments: OtherClocks.tokyoCases)
    func tokyo(_ row: TemporalCase) {
        #expect(OtherClocks.tokyo.reading(row.text) == row.expected)
    }
}
