import Foundation
import Testing
@testable import CometSchema

/// Helpers shared by the recurrence tests.
enum RecurrenceFixtures {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// `19970902T090000` or `19970902` (midnight).
    static func local(_ text: String) -> LocalDateTime {
        if text.count == 8, let date = CalendarDate(parsing: text) {
            return LocalDateTime(date: date, hour: 0, minute: 0)!
        }
        guard let value = LocalDateTime(parsing: text) else { fatalError("bad test time \(text)") }
        return value
    }

    static func rule(_ text: String) -> RecurrenceRule {
        do { return try RecurrenceRule(parsing: text) } catch { fatalError("bad test rule \(text): \(error)") }
    }

    /// `days` of one month at `time`, as RFC 5545 local texts.
    static func on(_ year: Int, _ month: Int, _ days: [Int], at time: String = "090000") -> [String] {
        days.map { String(format: "%04d%02d%02dT", year, month, $0) + time }
    }

    static func on(_ year: Int, _ month: Int, _ days: ClosedRange<Int>, at time: String = "090000") -> [String] {
        on(year, month, Array(days), at: time)
    }

    /// The times of day `from` to `through` (inclusive) every `minutes` on one day.
    static func every(_ minutes: Int, from: Int, through: Int, on day: String) -> [String] {
        stride(from: from, through: through, by: minutes).map { day + String(format: "T%02d%02d00", $0 / 60, $0 % 60) }
    }
}

/// One of the "RRULE examples" of RFC 5545 §3.8.5.3, with the occurrences the RFC lists.
struct RFCExample: Sendable, CustomTestStringConvertible {
    let name: String
    let start: String
    let rule: String
    var exclusions: [String] = []
    /// For unbounded rules: compare up to this wall time, or the first `expected.count`.
    var through: String?
    let expected: [String]

    var testDescription: String { name }

    static let all: [RFCExample] = {
        typealias F = RecurrenceFixtures
        return [
            RFCExample(name: "Daily for 10 occurrences", start: "19970902T090000", rule: "FREQ=DAILY;COUNT=10",
                       expected: F.on(1997, 9, 2...11)),
            RFCExample(name: "Daily until December 24, 1997", start: "19970902T090000", rule: "FREQ=DAILY;UNTIL=19971224T000000Z",
                       expected: F.on(1997, 9, 2...30) + F.on(1997, 10, 1...31) + F.on(1997, 11, 1...30) + F.on(1997, 12, 1...23)),
            RFCExample(name: "Every other day, forever", start: "19970902T090000", rule: "FREQ=DAILY;INTERVAL=2",
                       through: "19971231T235959",
                       expected: F.on(1997, 9, Array(stride(from: 2, through: 30, by: 2))) + F.on(1997, 10, Array(stride(from: 2, through: 30, by: 2)))
                           + F.on(1997, 11, Array(stride(from: 1, through: 29, by: 2))) + F.on(1997, 12, Array(stride(from: 1, through: 31, by: 2)))),
            RFCExample(name: "Every 10 days, 5 occurrences", start: "19970902T090000", rule: "FREQ=DAILY;INTERVAL=10;COUNT=5",
                       expected: F.on(1997, 9, [2, 12, 22]) + F.on(1997, 10, [2, 12])),
            RFCExample(name: "Every day in January, for 3 years (YEARLY with BYDAY)", start: "19980101T090000",
                       rule: "FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
                       expected: F.on(1998, 1, 1...31) + F.on(1999, 1, 1...31) + F.on(2000, 1, 1...31)),
            RFCExample(name: "Every day in January, for 3 years (DAILY with BYMONTH)", start: "19980101T090000",
                       rule: "FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1",
                       expected: F.on(1998, 1, 1...31) + F.on(1999, 1, 1...31) + F.on(2000, 1, 1...31)),
            RFCExample(name: "Weekly for 10 occurrences", start: "19970902T090000", rule: "FREQ=WEEKLY;COUNT=10",
                       expected: F.on(1997, 9, [2, 9, 16, 23, 30]) + F.on(1997, 10, [7, 14, 21, 28]) + F.on(1997, 11, [4])),
            RFCExample(name: "Weekly until December 24, 1997", start: "19970902T090000", rule: "FREQ=WEEKLY;UNTIL=19971224T000000Z",
                       expected: F.on(1997, 9, [2, 9, 16, 23, 30]) + F.on(1997, 10, [7, 14, 21, 28]) + F.on(1997, 11, [4, 11, 18, 25])
                           + F.on(1997, 12, [2, 9, 16, 23])),
            RFCExample(name: "Every other week, forever", start: "19970902T090000", rule: "FREQ=WEEKLY;INTERVAL=2;WKST=SU",
                       through: "19980228T235959",
                       expected: F.on(1997, 9, [2, 16, 30]) + F.on(1997, 10, [14, 28]) + F.on(1997, 11, [11, 25]) + F.on(1997, 12, [9, 23])
                           + F.on(1998, 1, [6, 20]) + F.on(1998, 2, [3, 17])),
            RFCExample(name: "Weekly on Tuesday and Thursday for five weeks (UNTIL)", start: "19970902T090000",
                       rule: "FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH",
                       expected: F.on(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + F.on(1997, 10, [2])),
            RFCExample(name: "Weekly on Tuesday and Thursday for five weeks (COUNT)", start: "19970902T090000",
                       rule: "FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH",
                       expected: F.on(1997, 9, [2, 4, 9, 11, 16, 18, 23, 25, 30]) + F.on(1997, 10, [2])),
            RFCExample(name: "Every other week on Monday, Wednesday and Friday until December 24, 1997", start: "19970901T090000",
                       rule: "FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
                       expected: F.on(1997, 9, [1, 3, 5, 15, 17, 19, 29]) + F.on(1997, 10, [1, 3, 13, 15, 17, 27, 29, 31])
                           + F.on(1997, 11, [10, 12, 14, 24, 26, 28]) + F.on(1997, 12, [8, 10, 12, 22])),
            RFCExample(name: "Every other week on Tuesday and Thursday, for 8 occurrences", start: "19970902T090000",
                       rule: "FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH",
                       expected: F.on(1997, 9, [2, 4, 16, 18, 30]) + F.on(1997, 10, [2, 14, 16])),
            RFCExample(name: "Monthly on the first Friday for 10 occurrences", start: "19970905T090000", rule: "FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
                       expected: F.on(1997, 9, [5]) + F.on(1997, 10, [3]) + F.on(1997, 11, [7]) + F.on(1997, 12, [5]) + F.on(1998, 1, [2])
                           + F.on(1998, 2, [6]) + F.on(1998, 3, [6]) + F.on(1998, 4, [3]) + F.on(1998, 5, [1]) + F.on(1998, 6, [5])),
            RFCExample(name: "Monthly on the first Friday until December 24, 1997", start: "19970905T090000",
                       rule: "FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR",
                       expected: F.on(1997, 9, [5]) + F.on(1997, 10, [3]) + F.on(1997, 11, [7]) + F.on(1997, 12, [5])),
            RFCExample(name: "Every other month on the first and last Sunday of the month for 10 occurrences", start: "19970907T090000",
                       rule: "FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU",
                       expected: F.on(1997, 9, [7, 28]) + F.on(1997, 11, [2, 30]) + F.on(1998, 1, [4, 25]) + F.on(1998, 3, [1, 29])
                           + F.on(1998, 5, [3, 31])),
            RFCExample(name: "Monthly on the second-to-last Monday of the month for 6 months", start: "19970922T090000",
                       rule: "FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
                       expected: F.on(1997, 9, [22]) + F.on(1997, 10, [20]) + F.on(1997, 11, [17]) + F.on(1997, 12, [22])
                           + F.on(1998, 1, [19]) + F.on(1998, 2, [16])),
            RFCExample(name: "Monthly on the third-to-the-last day of the month, forever", start: "19970928T090000",
                       rule: "FREQ=MONTHLY;BYMONTHDAY=-3",
                       expected: F.on(1997, 9, [28]) + F.on(1997, 10, [29]) + F.on(1997, 11, [28]) + F.on(1997, 12, [29])
                           + F.on(1998, 1, [29]) + F.on(1998, 2, [26])),
            RFCExample(name: "Monthly on the 2nd and 15th of the month for 10 occurrences", start: "19970902T090000",
                       rule: "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15",
                       expected: F.on(1997, 9, [2, 15]) + F.on(1997, 10, [2, 15]) + F.on(1997, 11, [2, 15]) + F.on(1997, 12, [2, 15])
                           + F.on(1998, 1, [2, 15])),
            RFCExample(name: "Monthly on the first and last day of the month for 10 occurrences", start: "19970930T090000",
                       rule: "FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1",
                       expected: F.on(1997, 9, [30]) + F.on(1997, 10, [1, 31]) + F.on(1997, 11, [1, 30]) + F.on(1997, 12, [1, 31])
                           + F.on(1998, 1, [1, 31]) + F.on(1998, 2, [1])),
            RFCExample(name: "Every 18 months on the 10th thru 15th of the month for 10 occurrences", start: "19970910T090000",
                       rule: "FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
                       expected: F.on(1997, 9, 10...15) + F.on(1999, 3, 10...13)),
            RFCExample(name: "Every Tuesday, every other month", start: "19970902T090000", rule: "FREQ=MONTHLY;INTERVAL=2;BYDAY=TU",
                       through: "19980331T235959",
                       expected: F.on(1997, 9, [2, 9, 16, 23, 30]) + F.on(1997, 11, [4, 11, 18, 25]) + F.on(1998, 1, [6, 13, 20, 27])
                           + F.on(1998, 3, [3, 10, 17, 24, 31])),
            RFCExample(name: "Yearly in June and July for 10 occurrences", start: "19970610T090000", rule: "FREQ=YEARLY;COUNT=10;BYMONTH=6,7",
                       expected: (1997...2001).flatMap { F.on($0, 6, [10]) + F.on($0, 7, [10]) }),
            RFCExample(name: "Every other year on January, February, and March for 10 occurrences", start: "19970310T090000",
                       rule: "FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3",
                       expected: F.on(1997, 3, [10]) + [1999, 2001, 2003].flatMap { F.on($0, 1, [10]) + F.on($0, 2, [10]) + F.on($0, 3, [10]) }),
            RFCExample(name: "Every third year on the 1st, 100th, and 200th day for 10 occurrences", start: "19970101T090000",
                       rule: "FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200",
                       expected: F.on(1997, 1, [1]) + F.on(1997, 4, [10]) + F.on(1997, 7, [19]) + F.on(2000, 1, [1]) + F.on(2000, 4, [9])
                           + F.on(2000, 7, [18]) + F.on(2003, 1, [1]) + F.on(2003, 4, [10]) + F.on(2003, 7, [19]) + F.on(2006, 1, [1])),
            RFCExample(name: "Every 20th Monday of the year, forever", start: "19970519T090000", rule: "FREQ=YEARLY;BYDAY=20MO",
                       expected: F.on(1997, 5, [19]) + F.on(1998, 5, [18]) + F.on(1999, 5, [17])),
            RFCExample(name: "Monday of week number 20, forever", start: "19970512T090000", rule: "FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO",
                       expected: F.on(1997, 5, [12]) + F.on(1998, 5, [11]) + F.on(1999, 5, [17])),
            RFCExample(name: "Every Thursday in March, forever", start: "19970313T090000", rule: "FREQ=YEARLY;BYMONTH=3;BYDAY=TH",
                       through: "19991231T235959",
                       expected: F.on(1997, 3, [13, 20, 27]) + F.on(1998, 3, [5, 12, 19, 26]) + F.on(1999, 3, [4, 11, 18, 25])),
            RFCExample(name: "Every Thursday, but only during June, July, and August, forever", start: "19970605T090000",
                       rule: "FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8", through: "19991231T235959",
                       expected: F.on(1997, 6, [5, 12, 19, 26]) + F.on(1997, 7, [3, 10, 17, 24, 31]) + F.on(1997, 8, [7, 14, 21, 28])
                           + F.on(1998, 6, [4, 11, 18, 25]) + F.on(1998, 7, [2, 9, 16, 23, 30]) + F.on(1998, 8, [6, 13, 20, 27])
                           + F.on(1999, 6, [3, 10, 17, 24]) + F.on(1999, 7, [1, 8, 15, 22, 29]) + F.on(1999, 8, [5, 12, 19, 26])),
            RFCExample(name: "Every Friday the 13th, forever (DTSTART excluded by EXDATE)", start: "19970902T090000",
                       rule: "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", exclusions: ["19970902T090000"],
                       expected: F.on(1998, 2, [13]) + F.on(1998, 3, [13]) + F.on(1998, 11, [13]) + F.on(1999, 8, [13]) + F.on(2000, 10, [13])),
            RFCExample(name: "The first Saturday that follows the first Sunday of the month, forever", start: "19970913T090000",
                       rule: "FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
                       expected: F.on(1997, 9, [13]) + F.on(1997, 10, [11]) + F.on(1997, 11, [8]) + F.on(1997, 12, [13]) + F.on(1998, 1, [10])
                           + F.on(1998, 2, [7]) + F.on(1998, 3, [7]) + F.on(1998, 4, [11]) + F.on(1998, 5, [9]) + F.on(1998, 6, [13])),
            RFCExample(name: "Every 4 years, the first Tuesday after a Monday in November (U.S. Presidential Election day)",
                       start: "19961105T090000", rule: "FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
                       expected: F.on(1996, 11, [5]) + F.on(2000, 11, [7]) + F.on(2004, 11, [2])),
            RFCExample(name: "The third instance into the month of one of Tuesday, Wednesday, or Thursday, for the next 3 months",
                       start: "19970904T090000", rule: "FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
                       expected: F.on(1997, 9, [4]) + F.on(1997, 10, [7]) + F.on(1997, 11, [6])),
            RFCExample(name: "The second-to-last weekday of the month", start: "19970929T090000",
                       rule: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
                       expected: F.on(1997, 9, [29]) + F.on(1997, 10, [30]) + F.on(1997, 11, [27]) + F.on(1997, 12, [30])
                           + F.on(1998, 1, [29]) + F.on(1998, 2, [26]) + F.on(1998, 3, [30])),
            // The RFC lists 09:00, 12:00 and 15:00 EDT, but its UNTIL (17:00 UTC) is 13:00 EDT, so by
            // the RFC's own rule (UNTIL is inclusive, compared as an instant) 15:00 EDT is past it.
            RFCExample(name: "Every 3 hours from 9:00 AM on a specific day, UNTIL as printed (13:00 EDT)", start: "19970902T090000",
                       rule: "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z",
                       expected: ["19970902T090000", "19970902T120000"]),
            RFCExample(name: "Every 3 hours from 9:00 AM to 5:00 PM EDT on a specific day", start: "19970902T090000",
                       rule: "FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T210000Z",
                       expected: ["19970902T090000", "19970902T120000", "19970902T150000"]),
            RFCExample(name: "Every 15 minutes for 6 occurrences", start: "19970902T090000", rule: "FREQ=MINUTELY;INTERVAL=15;COUNT=6",
                       expected: RecurrenceFixtures.every(15, from: 9 * 60, through: 10 * 60 + 15, on: "19970902")),
            RFCExample(name: "Every hour and a half for 4 occurrences", start: "19970902T090000", rule: "FREQ=MINUTELY;INTERVAL=90;COUNT=4",
                       expected: ["19970902T090000", "19970902T103000", "19970902T120000", "19970902T133000"]),
            RFCExample(name: "Every 20 minutes from 9:00 AM to 4:40 PM every day (DAILY)", start: "19970902T090000",
                       rule: "FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40",
                       expected: RecurrenceFixtures.every(20, from: 9 * 60, through: 16 * 60 + 40, on: "19970902")
                           + RecurrenceFixtures.every(20, from: 9 * 60, through: 16 * 60 + 40, on: "19970903")),
            RFCExample(name: "Every 20 minutes from 9:00 AM to 4:40 PM every day (MINUTELY)", start: "19970902T090000",
                       rule: "FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
                       expected: RecurrenceFixtures.every(20, from: 9 * 60, through: 16 * 60 + 40, on: "19970902")
                           + RecurrenceFixtures.every(20, from: 9 * 60, through: 16 * 60 + 40, on: "19970903")),
            RFCExample(name: "WKST makes a difference: WKST=MO", start: "19970805T090000",
                       rule: "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
                       expected: F.on(1997, 8, [5, 10, 19, 24])),
            RFCExample(name: "WKST makes a difference: WKST=SU", start: "19970805T090000",
                       rule: "FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU",
                       expected: F.on(1997, 8, [5, 17, 19, 31])),
            RFCExample(name: "An invalid date (February 30) is ignored", start: "20070115T090000",
                       rule: "FREQ=MONTHLY;BYMONTHDAY=15,30;COUNT=5",
                       expected: F.on(2007, 1, [15, 30]) + F.on(2007, 2, [15]) + F.on(2007, 3, [15, 30])),
        ]
    }()
}

@Suite("RFC 5545 §3.8.5.3 recurrence examples")
struct RecurrenceRFCExampleTests {
    @Test("Each RRULE example of RFC 5545 expands to the dates the RFC lists", arguments: RFCExample.all)
    func example(_ example: RFCExample) {
        let set = RecurrenceSet(
            start: RecurrenceFixtures.local(example.start),
            timeZone: RecurrenceFixtures.newYork,
            rule: RecurrenceFixtures.rule(example.rule),
            exclusions: example.exclusions.map(RecurrenceFixtures.local)
        )
        let actual: [String]
        if let through = example.through {
            actual = set.occurrences(through: RecurrenceFixtures.local(through)).map(\.icalText)
        } else if set.isUnbounded {
            actual = set.occurrences(limit: example.expected.count).map(\.icalText)
        } else {
            actual = set.occurrences().map(\.icalText)
        }
        #expect(actual == example.expected, "\(example.rule) from \(example.start)")
    }

    @Test("There are at least 40 RFC examples, covering every frequency")
    func coverage() {
        #expect(RFCExample.all.count >= 40)
        let frequencies = Set(RFCExample.all.map { RecurrenceFixtures.rule($0.rule).frequency })
        #expect(frequencies == [.yearly, .monthly, .weekly, .daily, .hourly, .minutely])
    }

    @Test("Bounded RFC examples report their last occurrence for indexing")
    func lastOccurrences() {
        for example in RFCExample.all where example.through == nil {
            let set = RecurrenceSet(start: RecurrenceFixtures.local(example.start), timeZone: RecurrenceFixtures.newYork,
                                    rule: RecurrenceFixtures.rule(example.rule),
                                    exclusions: example.exclusions.map(RecurrenceFixtures.local))
            if set.isUnbounded {
                #expect(set.lastOccurrence() == nil, "\(example.name)")
            } else {
                #expect(set.lastOccurrence()?.icalText == example.expected.last, "\(example.name)")
            }
        }
    }
}
