import Foundation
import Testing
@testable import CometSchema

/// An RRULE as written and as CometCal prints it.
struct RuleExample: Sendable, CustomTestStringConvertible {
    let input: String
    let canonical: String
    var testDescription: String { input }
}

private func same(_ text: String) -> RuleExample { RuleExample(input: text, canonical: text) }
private func rule(_ input: String, prints canonical: String) -> RuleExample { RuleExample(input: input, canonical: canonical) }

/// A rule that must fail, and text its error must contain (the offending part).
struct BadRule: Sendable, CustomTestStringConvertible {
    let input: String
    let mentions: [String]
    var testDescription: String { input }
}

private func bad(_ input: String, _ mentions: String...) -> BadRule { BadRule(input: input, mentions: mentions) }

@Suite("RFC 5545 recurrence rules")
struct RecurrenceRuleTests {
    /// The examples of RFC 5545 §3.8.5.3 (and the VTIMEZONE rules of §3.6.5).
    static let rfcExamples: [RuleExample] = [
        same("FREQ=DAILY;COUNT=10"),
        same("FREQ=DAILY;UNTIL=19971224T000000Z"),
        same("FREQ=DAILY;INTERVAL=2"),
        rule("FREQ=DAILY;INTERVAL=10;COUNT=5", prints: "FREQ=DAILY;COUNT=5;INTERVAL=10"),
        rule("FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
             prints: "FREQ=YEARLY;UNTIL=20000131T140000Z;BYDAY=SU,MO,TU,WE,TH,FR,SA;BYMONTH=1"),
        rule("FREQ=YEARLY;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA", prints: "FREQ=YEARLY;BYDAY=SU,MO,TU,WE,TH,FR,SA;BYMONTH=1"),
        same("FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1"),
        same("FREQ=WEEKLY;COUNT=10"),
        same("FREQ=WEEKLY;UNTIL=19971224T000000Z"),
        same("FREQ=WEEKLY;INTERVAL=2;WKST=SU"),
        rule("FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH", prints: "FREQ=WEEKLY;UNTIL=19971007T000000Z;BYDAY=TU,TH;WKST=SU"),
        rule("FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH", prints: "FREQ=WEEKLY;COUNT=10;BYDAY=TU,TH;WKST=SU"),
        rule("FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
             prints: "FREQ=WEEKLY;UNTIL=19971224T000000Z;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU"),
        rule("FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH", prints: "FREQ=WEEKLY;COUNT=8;INTERVAL=2;BYDAY=TU,TH;WKST=SU"),
        same("FREQ=MONTHLY;COUNT=10;BYDAY=1FR"),
        same("FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR"),
        rule("FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU", prints: "FREQ=MONTHLY;COUNT=10;INTERVAL=2;BYDAY=1SU,-1SU"),
        same("FREQ=MONTHLY;COUNT=6;BYDAY=-2MO"),
        same("FREQ=MONTHLY;BYDAY=-1FR"),
        same("FREQ=MONTHLY;BYMONTHDAY=-3"),
        same("FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15"),
        same("FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1"),
        rule("FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15", prints: "FREQ=MONTHLY;COUNT=10;INTERVAL=18;BYMONTHDAY=10,11,12,13,14,15"),
        same("FREQ=MONTHLY;INTERVAL=2;BYDAY=TU"),
        same("FREQ=YEARLY;COUNT=10;BYMONTH=6,7"),
        rule("FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3", prints: "FREQ=YEARLY;COUNT=10;INTERVAL=2;BYMONTH=1,2,3"),
        rule("FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200", prints: "FREQ=YEARLY;COUNT=10;INTERVAL=3;BYYEARDAY=1,100,200"),
        same("FREQ=YEARLY;BYDAY=20MO"),
        rule("FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", prints: "FREQ=YEARLY;BYDAY=MO;BYWEEKNO=20"),
        rule("FREQ=YEARLY;BYMONTH=3;BYDAY=TH", prints: "FREQ=YEARLY;BYDAY=TH;BYMONTH=3"),
        same("FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8"),
        same("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13"),
        same("FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13"),
        rule("FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
             prints: "FREQ=YEARLY;INTERVAL=4;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8;BYMONTH=11"),
        same("FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3"),
        same("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2"),
        same("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"),
        rule("FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z", prints: "FREQ=HOURLY;UNTIL=19970902T170000Z;INTERVAL=3"),
        rule("FREQ=MINUTELY;INTERVAL=15;COUNT=6", prints: "FREQ=MINUTELY;COUNT=6;INTERVAL=15"),
        rule("FREQ=MINUTELY;INTERVAL=90;COUNT=4", prints: "FREQ=MINUTELY;COUNT=4;INTERVAL=90"),
        rule("FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40", prints: "FREQ=DAILY;BYMINUTE=0,20,40;BYHOUR=9,10,11,12,13,14,15,16"),
        same("FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16"),
        rule("FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5", prints: "FREQ=MONTHLY;COUNT=5;BYMONTHDAY=15,30"),
        rule("FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO", prints: "FREQ=WEEKLY;COUNT=4;INTERVAL=2;BYDAY=TU,SU;WKST=MO"),
        rule("FREQ=YEARLY;BYMONTH=4;BYDAY=1SU;UNTIL=19980404T070000Z", prints: "FREQ=YEARLY;UNTIL=19980404T070000Z;BYDAY=1SU;BYMONTH=4"),
        same("FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10"),
    ]

    @Test("RFC 5545 example rules parse and print in canonical part order", arguments: rfcExamples)
    func rfcExample(_ example: RuleExample) throws {
        let parsed = try RecurrenceRule(parsing: example.input)
        #expect(parsed.description == example.canonical)
        // Printing is idempotent: the canonical text reads back as the same rule.
        #expect(try RecurrenceRule(parsing: example.canonical) == parsed)
        #expect(try RecurrenceRule(parsing: "RRULE:" + example.input) == parsed)
    }

    @Test("Parsed rules expose typed parts")
    func typedParts() throws {
        let lastFriday = try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=-1FR")
        #expect(lastFriday.frequency == .monthly)
        #expect(lastFriday.interval == 1)
        #expect(lastFriday.end == .never)
        #expect(lastFriday.byDay == [RecurrenceRule.WeekdayOccurrence(.friday, ordinal: -1)])

        let tuesdays = try RecurrenceRule(parsing: "FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH")
        #expect(tuesdays.weekStart == .sunday)
        #expect(tuesdays.byDay.map(\.weekday) == [.tuesday, .thursday])
        #expect(tuesdays.end == .untilDateTime(DateTimeValue(kind: .utc(epochSeconds: 876_182_400))))

        let weekNumber = try RecurrenceRule(parsing: "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO")
        #expect(weekNumber.byWeekNumber == [20])
        #expect(try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=10").end == .count(10))
        #expect(try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=+2TU").description == "FREQ=MONTHLY;BYDAY=2TU")
        #expect(try RecurrenceRule(parsing: "FREQ=MONTHLY;BYMONTHDAY=+5").byMonthDay == [5])
    }

    @Test("UNTIL may be a DATE, a UTC DATE-TIME or a floating DATE-TIME")
    func untilForms() throws {
        let date = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261231")
        #expect(date.end == .untilDate(CalendarDate(year: 2026, month: 12, day: 31)!))
        #expect(date.description == "FREQ=DAILY;UNTIL=20261231")
        let utc = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261231T235959Z")
        #expect(utc.description == "FREQ=DAILY;UNTIL=20261231T235959Z")
        let floating = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20261231T235959")
        #expect(floating.end == .untilDateTime(.floating(LocalDateTime(date: CalendarDate(year: 2026, month: 12, day: 31)!, hour: 23, minute: 59, second: 59)!)))
        #expect(floating.description == "FREQ=DAILY;UNTIL=20261231T235959")
    }

    @Test("A zoned UNTIL built in code is printed as the UTC instant")
    func zonedUntil() throws {
        let end = try DateTimeValue(parsing: "2026-06-15T08:00:00+02:00[Europe/Berlin]")
        let rule = RecurrenceRule(frequency: .daily, end: .untilDateTime(end))
        #expect(rule.description == "FREQ=DAILY;UNTIL=20260615T060000Z")
        #expect(try RecurrenceRule(parsing: rule.description).end == .untilDateTime(DateTimeValue(kind: .utc(epochSeconds: 1_781_503_200))))
    }

    @Test("Friendly forms are the rules people mean")
    func friendlyForms() throws {
        let cases: [(String, String)] = [
            ("daily", "FREQ=DAILY"),
            ("weekly", "FREQ=WEEKLY"),
            ("weekdays", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
            ("fortnightly", "FREQ=WEEKLY;INTERVAL=2"),
            ("monthly", "FREQ=MONTHLY"),
            ("yearly", "FREQ=YEARLY"),
            ("Weekly", "FREQ=WEEKLY"),
            ("  DAILY ", "FREQ=DAILY"),
        ]
        for (input, canonical) in cases {
            #expect(try RecurrenceRule(parsing: input).description == canonical, "\(input)")
        }
        #expect(try RecurrenceRule(parsing: "weekdays").byDay.map(\.weekday) == [.monday, .tuesday, .wednesday, .thursday, .friday])
        #expect(try RecurrenceRule(parsing: "rrule:freq=weekly;byday=mo;count=3").description == "FREQ=WEEKLY;COUNT=3;BYDAY=MO")
    }

    static let badRules: [BadRule] = [
        bad("FREQQ=DAILY", "FREQQ", "FREQ"),
        bad("FREQ=WEEKLY;BYDAY=MO,XX", "BYDAY=MO,XX", "'XX'"),
        bad("FREQ=DAILY;COUNT=5;UNTIL=20261231T000000Z", "COUNT", "UNTIL"),
        bad("FREQ=WEEKLY;BYDAY=2TU", "BYDAY=2TU", "MONTHLY"),
        bad("FREQ=MONTHLY;BYWEEKNO=20", "BYWEEKNO=20", "YEARLY"),
        bad("FREQ=MONTHLY;BYSETPOS=-1", "BYSETPOS=-1"),
        bad("FREQ=DAILY;INTERVAL=0", "INTERVAL=0"),
        bad("FREQ=DAILY;INTERVAL=two", "INTERVAL=two"),
        bad("FREQ=YEARLY;BYMONTH=13", "BYMONTH=13", "'13'", "1 to 12"),
        bad("FREQ=MONTHLY;BYMONTHDAY=0", "BYMONTHDAY=0", "-31 to -1 or 1 to 31"),
        bad("FREQ=MONTHLY;BYMONTHDAY=32", "BYMONTHDAY=32"),
        bad("FREQ=YEARLY;BYYEARDAY=367", "BYYEARDAY=367", "-366 to -1 or 1 to 366"),
        bad("FREQ=DAILY;BYHOUR=24", "BYHOUR=24", "0 to 23"),
        bad("FREQ=DAILY;BYMINUTE=-1", "BYMINUTE=-1"),
        bad("FREQ=DAILY;BYSECOND=61", "BYSECOND=61"),
        bad("FREQ=YEARLY;BYMONTH=1,", "BYMONTH=1,"),
        bad("COUNT=3", "FREQ"),
        bad("FREQ=FORTNIGHTLY", "FREQ=FORTNIGHTLY", "not a frequency"),
        bad("FREQ=DAILY;FREQ=WEEKLY", "FREQ=WEEKLY", "twice"),
        bad("FREQ=DAILY;COUNT", "COUNT", "NAME=VALUE"),
        bad("FREQ=DAILY;COUNT=", "COUNT="),
        bad("FREQ=DAILY;COUNT=0", "COUNT=0"),
        bad("FREQ=DAILY;UNTIL=2026-12-31", "UNTIL=2026-12-31"),
        bad("FREQ=DAILY;UNTIL=20261331", "UNTIL=20261331"),
        bad("FREQ=WEEKLY;BYMONTHDAY=1", "BYMONTHDAY=1", "WEEKLY"),
        bad("FREQ=MONTHLY;BYYEARDAY=1", "BYYEARDAY=1", "MONTHLY"),
        bad("FREQ=YEARLY;BYWEEKNO=20;BYDAY=1MO", "BYDAY=1MO", "BYWEEKNO"),
        bad("FREQ=MONTHLY;BYDAY=0MO", "BYDAY=0MO", "'0MO'"),
        bad("FREQ=MONTHLY;BYDAY=54MO", "BYDAY=54MO"),
        bad("FREQ=MONTHLY;BYDAY=M", "BYDAY=M"),
        bad("FREQ=MONTHLY;BYDAY=+-1FR", "BYDAY=+-1FR"),
        bad("FREQ=MONTHLY;BYMONTHDAY=+-5", "BYMONTHDAY=+-5"),
        bad("FREQ=WEEKLY;WKST=XX", "WKST=XX"),
        bad("", "empty"),
        bad("RRULE:", "empty"),
        bad("every other day", "every other day"),
    ]

    @Test("Invalid rules fail with invalid_recurrence and name the offending part", arguments: badRules)
    func invalidRule(_ example: BadRule) throws {
        let error = try #require(valueError { () throws(ValueError) in try RecurrenceRule(parsing: example.input) })
        #expect(error.code == .invalidRecurrence)
        for text in example.mentions {
            #expect(error.description.contains(text), "\(error.description)")
        }
    }

    @Test("An unknown part or frequency comes with a did-you-mean suggestion")
    func suggestions() throws {
        let part = try #require(valueError { () throws(ValueError) in try RecurrenceRule(parsing: "FREQQ=DAILY") })
        #expect(part.suggestion == "FREQ")
        #expect(part.description == "unknown RRULE part 'FREQQ'; did you mean 'FREQ'?")

        let byday = try #require(valueError { () throws(ValueError) in try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDY=MO") })
        #expect(byday.suggestion == "BYDAY")

        let frequency = try #require(valueError { () throws(ValueError) in try RecurrenceRule(parsing: "FREQ=WEEKLYY") })
        #expect(frequency.suggestion == "WEEKLY")
        #expect(frequency.description.hasSuffix("; did you mean 'WEEKLY'?"))

        let noHint = try #require(valueError { () throws(ValueError) in try RecurrenceRule(parsing: "FREQ=DAILY;XYZZY=1") })
        #expect(noHint.suggestion == nil)
        #expect(noHint.message.contains("'XYZZY'"))
    }

    @Test("Equal rules print the same whatever the order they were written in")
    func canonicalEquality() throws {
        let a = try RecurrenceRule(parsing: "FREQ=WEEKLY;WKST=SU;BYDAY=TU,TH;INTERVAL=2;COUNT=8")
        let b = try RecurrenceRule(parsing: "COUNT=8;INTERVAL=2;BYDAY=TU,TH;FREQ=WEEKLY;WKST=SU")
        #expect(a == b)
        #expect(a.description == b.description)
        let built = RecurrenceRule(frequency: .weekly, interval: 2, end: .count(8), byDay: [.init(.tuesday), .init(.thursday)], weekStart: .sunday)
        #expect(built == a)
    }
}
