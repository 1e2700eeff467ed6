import Foundation
import Testing
import CometSchema
@testable import CometConversation

/// What the table cannot show: the messages, the nominal time of a DST gap, the JSON shape,
/// and that case and spacing never change a reading.
@Suite("Temporal expressions: errors, DST and JSON")
struct TemporalParserTests {
    let clock = TemporalTable.wednesday

    func error(_ text: String) -> TemporalError? {
        do {
            _ = try clock.parser.parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("an unknown word is named, with its column, what was expected and a suggestion")
    func unknownWord() throws {
        let blursday = try #require(error("next blursday"))
        #expect(blursday.code == .notUnderstood)
        #expect(blursday.column == 6)
        #expect(blursday.message.contains("'blursday'"))
        #expect(blursday.message.contains("a weekday"))
        #expect(blursday.suggestion == "thursday")
        #expect(blursday.description == "column 6: 'blursday' is not understood here; expected a weekday, 'week', 'weekend', 'month' or 'year'; did you mean 'thursday'?")
        let tomorow = try #require(error("tomorow at noon"))
        #expect(tomorow.column == 1)
        #expect(tomorow.suggestion == "tomorrow")
        #expect(tomorow.message.contains("say a time ('noon', '8pm')"), "the first word gets the examples, not a list of every grammar rule")
    }

    @Test("a day or time that does not exist is named as such")
    func impossibleValues() throws {
        #expect(error("February 30th")?.message == "February has no day 30")
        #expect(error("2026-02-29")?.message == "February 2026 has no day 29")
        #expect(error("13pm")?.message == "13 pm is not a time: with am or pm the hour is 1 to 12")
        #expect(error("at 25")?.message == "25 is not an hour of the day (0 to 23, or 1 to 12 with am or pm)")
        #expect(error("15/16")?.message == "15 is not a month (1 to 12; dates are month/day, as in 6/15, or day/month with date_order dmy)")
        #expect(error("for 2 months")?.message == "a duration in months has no fixed length; say it in weeks or days")
        #expect(error("push it back an hour earlier")?.message == "the shift says both earlier and later")
    }

    @Test("text that stops early points one past its end")
    func incomplete() throws {
        let next = try #require(error("next"))
        #expect(next.code == .incomplete)
        #expect(next.column == 5)
        #expect(error("tomorrow at")?.message.contains("a time") == true)
        #expect(error("")?.code == .empty)
    }

    @Test("a wall time skipped by the spring DST change keeps the time it was said at as nominal")
    func springGap() throws {
        let berlin = OtherClocks.berlinSpring
        guard case .instant(let value) = try berlin.parser.parse("today at 02:30") else {
            Issue.record("not an instant")
            return
        }
        #expect(value.nominal == LocalDateTime(parsing: "2026-03-29T02:30:00"))
        #expect(value.timeZoneIdentifier == "Europe/Berlin")
        #expect(value.rfc3339Text == "2026-03-29T03:30:00+02:00")
    }

    @Test("the day clocks go forward is 23 hours long, and 'in 24 hours' counts exact hours")
    func springDay() throws {
        let berlin = OtherClocks.berlinSpring
        guard case .range(let start, let end) = try berlin.parser.parse("all day") else {
            Issue.record("not a range")
            return
        }
        #expect(start.rfc3339Text == "2026-03-29T00:00:00+01:00")
        #expect(end.rfc3339Text == "2026-03-30T00:00:00+02:00")
        #expect(end.sortKey - start.sortKey == 23 * 3600)
    }

    @Test("from now keeps the seconds of now, as +5m does")
    func seconds() {
        let clock = TemporalClock("2026-06-10T09:00:20-07:00", "America/Los_Angeles")
        #expect(clock.reading("in 5 minutes") == "instant 2026-06-10T09:05:20-07:00")
        #expect(clock.reading("tomorrow at 9") == "instant 2026-06-11T09:00:00-07:00")
    }

    @Test("instants keep the zone they were read in")
    func zoneKept() throws {
        guard case .instant(let value) = try clock.parser.parse("next friday at noon") else {
            Issue.record("not an instant")
            return
        }
        #expect(value.timeZoneIdentifier == "America/Los_Angeles")
        #expect(value.nominal == nil)
    }

    @Test("a timed range has no whole days; a day range names its first and last day")
    func wholeDays() throws {
        let timed = try clock.parser.parse("from 2 to 3:30pm")
        #expect(timed.wholeDays == nil)
        let weekend = try #require(try clock.parser.parse("this weekend").wholeDays)
        #expect(weekend.first == CalendarDate(year: 2026, month: 6, day: 13))
        #expect(weekend.last == CalendarDate(year: 2026, month: 6, day: 14))
    }

    @Test("JSON: one stable shape per kind, ISO 8601 values")
    func json() throws {
        func json(_ text: String) throws -> String { JSONWriter.compact(try clock.parser.parse(text).json) }
        #expect(try json("June 15th, 8am") == #"{"kind":"instant","value":"2026-06-15T08:00:00-07:00","timeZone":"America/Los_Angeles"}"#)
        #expect(try json("June 15th") == #"{"kind":"date","value":"2026-06-15"}"#)
        #expect(try json("noon") == #"{"kind":"timeOfDay","value":"12:00:00","hour":12,"minute":0}"#)
        #expect(try json("for 45 minutes") == #"{"kind":"duration","value":"PT45M"}"#)
        #expect(try json("30 minutes earlier") == #"{"kind":"shift","by":"-PT30M"}"#)
        #expect(try json("move it to Thursday") == #"{"kind":"shift","toDate":"2026-06-11"}"#)
        #expect(try json("make it noon") == #"{"kind":"shift","toTimeOfDay":"12:00:00"}"#)
        #expect(try json("every other Tuesday") == #"{"kind":"recurrence","rrule":"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU"}"#)
        #expect(try json("do not repeat") == #"{"kind":"recurrence","rrule":null}"#)
        #expect(try json("until July") == #"{"kind":"recurrenceEnd","until":"2026-06-30"}"#)
        #expect(try json("10 times") == #"{"kind":"recurrenceEnd","count":10}"#)
        #expect(try json("this weekend") == #"{"kind":"range","start":"2026-06-13T00:00:00-07:00","end":"2026-06-15T00:00:00-07:00","timeZone":"America/Los_Angeles","wholeDays":true,"firstDay":"2026-06-13","lastDay":"2026-06-14"}"#)
        #expect(try json("from 2 to 3:30pm") == #"{"kind":"range","start":"2026-06-10T14:00:00-07:00","end":"2026-06-10T15:30:00-07:00","timeZone":"America/Los_Angeles","wholeDays":false}"#)
    }

    @Test("case never changes a reading, nor do extra spaces between words")
    func caseAndSpacing() {
        for row in TemporalTableTests.all {
            #expect(clock.reading(row.text.uppercased()) == row.expected, "\(row.text.uppercased())")
            guard !row.expected.hasPrefix("error") else { continue }
            let spaced = "  " + row.text.split(separator: " ").joined(separator: "   ") + " "
            #expect(clock.reading(spaced) == row.expected, "'\(spaced)'")
        }
    }

    @Test("a sentence may end with a full stop or a question mark")
    func punctuation() {
        #expect(clock.reading("next friday at noon.") == "instant 2026-06-19T12:00:00-07:00")
        #expect(clock.reading("every weekday?") == "rrule FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR")
    }
}

/// Word salad from the grammar's own vocabulary: every text is read or refused with a column
/// inside it, and none crashes.
@Suite("Temporal expressions: robustness")
struct TemporalRobustnessTests {
    /// SplitMix64, so a failure can be replayed from its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    }

    static let pieces = TemporalLexicon.vocabulary + [
        "at", "on", "in", "to", "by", "for", "the", "a", "an", "and", "of", "it", "this", "am", "pm", "a.m.", "ish",
        "3", "12", "0", "31", "1140", "2026", "15th", "1st", ":", "/", "-", ".", ",", "30", "00", "9", "6/7", "1h30",
        "o'clock", "don't", "every", "other", "until", "from", "ago", "later", "earlier", "times", "'", "’", "é", "?",
    ]

    @Test("4,000 random phrases: a reading or an error inside the text, never a crash")
    func wordSalad() {
        var generator = Generator(state: 20260610)
        let parser = TemporalTable.wednesday.parser
        for _ in 0..<4_000 {
            let count = Int(generator.next() % 6) + 1
            let text = (0..<count).map { _ in generator.pick(TemporalRobustnessTests.pieces) }
                .joined(separator: generator.next() % 4 == 0 ? "" : " ")
            do {
                _ = try parser.parse(text)
            } catch {
                #expect((1...(text.count + 1)).contains(error.column), "\(text) → column \(error.column)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("a range under way is the current one; a range whose days have both passed is next year's")
    func rangeUnderWay() throws {
        let current = try TemporalTable.wednesday.parser.parse("between June 1st and June 30th")
        #expect(current.wholeDays.map { "\($0.first) \($0.last)" } == "2026-06-01 2026-06-30")
        let passed = try TemporalTable.wednesday.parser.parse("from June 1st to June 9th")
        #expect(passed.wholeDays.map { "\($0.first) \($0.last)" } == "2027-06-01 2027-06-09")
    }
}
