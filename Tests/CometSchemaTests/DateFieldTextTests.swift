import Foundation
import Testing
@testable import CometSchema

/// The date and time texts are written field by field into one buffer; these pin every field
/// against a second, plain way of writing them, at both ends of the years and of each field.
@Suite("Date and time texts")
struct DateFieldTextTests {
    private static func padded(_ n: Int, _ width: Int) -> String {
        let digits = String(n.magnitude)
        return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static let days: [(Int, Int, Int)] = [(1, 1, 1), (9, 9, 9), (99, 10, 10), (999, 12, 31), (1000, 2, 28),
                                                  (2024, 2, 29), (2026, 6, 15), (9999, 12, 31)]
    private static let times: [(Int, Int, Int)] = [(0, 0, 0), (9, 5, 7), (10, 10, 10), (23, 59, 59)]

    @Test("A calendar date is written as 2026-06-15 and 20260615, the year in four digits")
    func calendarDates() throws {
        for (year, month, day) in DateFieldTextTests.days {
            let date = try #require(CalendarDate(year: year, month: month, day: day))
            let (y, m, d) = (DateFieldTextTests.padded(year, 4), DateFieldTextTests.padded(month, 2), DateFieldTextTests.padded(day, 2))
            #expect(date.description == "\(y)-\(m)-\(d)")
            #expect(date.icalText == "\(y)\(m)\(d)")
        }
    }

    @Test("A wall time is written as 2026-06-15T08:00:00 and 20260615T080000")
    func wallTimes() throws {
        for (year, month, day) in DateFieldTextTests.days {
            for (hour, minute, second) in DateFieldTextTests.times {
                let date = try #require(CalendarDate(year: year, month: month, day: day))
                let local = try #require(LocalDateTime(date: date, hour: hour, minute: minute, second: second))
                let (h, mi, s) = (DateFieldTextTests.padded(hour, 2), DateFieldTextTests.padded(minute, 2), DateFieldTextTests.padded(second, 2))
                #expect(local.description == date.description + "T\(h):\(mi):\(s)")
                #expect(local.icalText == date.icalText + "T\(h)\(mi)\(s)")
                #expect(DateTimeValue.floating(local).description == local.description)
            }
        }
    }

    @Test("A UTC date-time ends in Z, a zoned one in its offset and zone, a skipped one in its zone alone")
    func dateTimes() throws {
        #expect(try DateTimeValue(parsing: "0001-01-01T00:00:00Z").description == "0001-01-01T00:00:00Z")
        #expect(try DateTimeValue(parsing: "9999-12-31T23:59:59Z").description == "9999-12-31T23:59:59Z")
        #expect(try DateTimeValue(parsing: "2026-01-15T08:05:09-05:00[America/New_York]").description == "2026-01-15T08:05:09-05:00[America/New_York]")
        #expect(try DateTimeValue(parsing: "2026-06-15T17:30:00+05:30[Asia/Kolkata]").description == "2026-06-15T17:30:00+05:30[Asia/Kolkata]")
        #expect(try DateTimeValue(parsing: "2026-06-15T09:00:00-09:30[Pacific/Marquesas]").description == "2026-06-15T09:00:00-09:30[Pacific/Marquesas]")
        // 02:30 does not exist in Berlin on 2026-03-29: it is kept as written, with no offset.
        #expect(try DateTimeValue(parsing: "2026-03-29T02:30:00[Europe/Berlin]").description == "2026-03-29T02:30:00[Europe/Berlin]")
    }

    @Test("An offset is written with its sign, hours and minutes, also past 99 hours")
    func offsets() {
        #expect(TimeZones.offsetText(0) == "+00:00")
        #expect(TimeZones.offsetText(19_800) == "+05:30")
        #expect(TimeZones.offsetText(-34_200) == "-09:30")
        #expect(TimeZones.offsetText(-(14 * 3600)) == "-14:00")
        #expect(TimeZones.offsetText(100 * 3600 + 60) == "+100:01")
    }
}
