import Foundation
import Testing
@testable import CometSchema

private func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) throws -> LocalDateTime {
    let date = try #require(CalendarDate(year: year, month: month, day: day))
    return try #require(LocalDateTime(date: date, hour: hour, minute: minute, second: second))
}

private func epoch(_ value: DateTimeValue) -> Int64? {
    value.instant.map { Int64($0.timeIntervalSince1970) }
}

@Suite("DateTime, Date and time zones")
struct DateTimeTests {
    // MARK: Round trips

    @Test("Zoned, UTC and floating date-times print as they were written", arguments: [
        "2026-06-15T08:00:00+02:00[Europe/Berlin]",
        "2026-01-15T08:00:00+01:00[Europe/Berlin]",
        "2026-06-15T08:00:00-04:00[America/New_York]",
        "2026-06-15T17:30:00+05:30[Asia/Kolkata]",
        "2026-06-15T08:00:00+00:00[UTC]",
        "2026-06-15T06:00:00Z",
        "1969-07-20T20:17:40Z",
        "2026-06-15T08:00:00",
        "0001-01-01T00:00:00",
    ])
    func roundTrip(_ text: String) throws {
        let value = try dateTime(text)
        #expect(value.description == text)
        #expect(try DateTimeValue(parsing: value.description) == value)
    }

    @Test("A zoned date-time keeps its instant and its zone")
    func zonedParts() throws {
        let value = try dateTime("2026-06-15T08:00:00+02:00[Europe/Berlin]")
        #expect(value.kind == .zoned(epochSeconds: 1_781_503_200, timeZone: "Europe/Berlin"))
        #expect(value.timeZoneIdentifier == "Europe/Berlin")
        #expect(!value.isFloating)
        #expect(epoch(value) == 1_781_503_200)
        #expect(value.localTime == (try local(2026, 6, 15, 8, 0)))
    }

    @Test("UTC and floating date-times have the expected parts")
    func utcAndFloatingParts() throws {
        let utc = try dateTime("2026-06-15T12:00:00Z")
        #expect(utc.kind == .utc(epochSeconds: 1_781_524_800))
        #expect(utc.timeZoneIdentifier == nil)
        #expect(utc.localTime == (try local(2026, 6, 15, 12, 0)))

        let moon = try dateTime("1969-07-20T20:17:40Z")
        #expect(epoch(moon) == -14_182_940)

        let floating = try dateTime("2026-06-15T08:00:00")
        #expect(floating.isFloating)
        #expect(floating.instant == nil)
        #expect(floating.timeZoneIdentifier == nil)
        #expect(floating == .floating(try local(2026, 6, 15, 8, 0)))
        #expect(DateTimeValue.utc(Date(timeIntervalSince1970: 1_781_524_800.9)) == utc)
    }

    @Test("Other spellings are read and printed in the canonical form")
    func otherSpellings() throws {
        let cases: [(String, String)] = [
            ("2026-06-15T08:00", "2026-06-15T08:00:00"),
            ("2026-06-15 08:00:00", "2026-06-15T08:00:00"),
            ("20260615T080000", "2026-06-15T08:00:00"),
            ("20260615T080000Z", "2026-06-15T08:00:00Z"),
            ("2026-06-15T08:00:00z", "2026-06-15T08:00:00Z"),
            ("2026-06-15T08:00:00+02:00", "2026-06-15T06:00:00Z"),
            ("2026-06-15T01:00:00-05:30", "2026-06-15T06:30:00Z"),
            ("2026-06-15T06:00:00Z[Europe/Berlin]", "2026-06-15T08:00:00+02:00[Europe/Berlin]"),
            ("2026-06-15T06:00:00z[Europe/Berlin]", "2026-06-15T08:00:00+02:00[Europe/Berlin]"),
            ("2026-06-15T08:00:00[Europe/Berlin]", "2026-06-15T08:00:00+02:00[Europe/Berlin]"),
            ("2026-01-15T08:00:00[Europe/Berlin]", "2026-01-15T08:00:00+01:00[Europe/Berlin]"),
            ("2026-06-30T23:59:60Z", "2026-06-30T23:59:59Z"),
        ]
        for (input, output) in cases {
            let value = try dateTime(input)
            #expect(value.description == output, "\(input)")
        }
    }

    @Test("Text that is not a date-time fails with invalid_date_time", arguments: [
        "", "tomorrow", "2026-06-15", "2026-06-15T", "2026-13-01T08:00:00", "2026-02-30T08:00:00", "2026-06-15T24:00:00",
        "2026-06-15T08:60:00", "2026-06-15T8:00:00", "2026-06-15T08:00:00+2:00", "2026-06-15T08:00:00+02:75",
        "2026-06-15T08:00:00+24:00", "2026-06-15T08:00:00[Europe/Berlin", "2026-06-15T08:00:00 Europe/Berlin",
    ])
    func invalidText(_ text: String) throws {
        let error = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: text) })
        #expect(error.code == .invalidDateTime)
        #expect(error.message.contains("'\(text)'"))
    }

    // MARK: Daylight saving time

    @Test("A wall time skipped by the spring-forward gap moves forward by the gap (RFC 5545)")
    func springForwardGap() throws {
        // Europe/Berlin, 2026-03-29: clocks jump from 02:00 +01:00 to 03:00 +02:00.
        let value = try dateTime("2026-03-29T02:30:00[Europe/Berlin]")
        #expect(value.localTime.description == "2026-03-29T03:30:00")
        #expect(epoch(value) == 1_774_747_800)
        // The time as written is kept for series (§3.3.10) and written back, without an offset.
        #expect(value.nominal?.description == "2026-03-29T02:30:00")
        #expect(value.description == "2026-03-29T02:30:00[Europe/Berlin]")
        #expect(try dateTime(value.description) == value)
        let built = try DateTimeValue.zoned(try local(2026, 3, 29, 2, 30), timeZone: "Europe/Berlin")
        #expect(built == value)
        // Just before and after the gap are untouched.
        #expect(try dateTime("2026-03-29T01:59:59[Europe/Berlin]").description == "2026-03-29T01:59:59+01:00[Europe/Berlin]")
        #expect(try dateTime("2026-03-29T03:00:00[Europe/Berlin]").description == "2026-03-29T03:00:00+02:00[Europe/Berlin]")
        // New York skips 02:00-03:00 on 2026-03-08.
        let newYork = try dateTime("2026-03-08T02:30:00[America/New_York]")
        #expect(newYork.localTime.description == "2026-03-08T03:30:00")
        #expect(newYork.description == "2026-03-08T02:30:00[America/New_York]")
        #expect(epoch(newYork) == 1_772_955_000)
    }

    @Test("A skipped wall time with an explicit offset does not exist and is refused", arguments: ["+01:00", "+02:00"])
    func skippedWithOffset(_ offset: String) throws {
        let error = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: "2026-03-29T02:30:00\(offset)[Europe/Berlin]") })
        #expect(error.code == .invalidDateTime)
    }

    @Test("A repeated wall time takes its first occurrence; an explicit offset selects the second")
    func fallBackAmbiguity() throws {
        // Europe/Berlin, 2026-10-25: 02:00-03:00 happens twice, first at +02:00, then at +01:00.
        let first = try dateTime("2026-10-25T02:30:00[Europe/Berlin]")
        #expect(first.description == "2026-10-25T02:30:00+02:00[Europe/Berlin]")
        #expect(epoch(first) == 1_792_888_200)
        #expect(try DateTimeValue.zoned(try local(2026, 10, 25, 2, 30), timeZone: "Europe/Berlin") == first)

        let explicitFirst = try dateTime("2026-10-25T02:30:00+02:00[Europe/Berlin]")
        #expect(explicitFirst == first)

        let second = try dateTime("2026-10-25T02:30:00+01:00[Europe/Berlin]")
        #expect(second.description == "2026-10-25T02:30:00+01:00[Europe/Berlin]")
        #expect(epoch(second) == 1_792_891_800)
        #expect(second.localTime == first.localTime)
        #expect(second != first)

        // The same in New York on 2026-11-01 at 01:30.
        let newYork = try dateTime("2026-11-01T01:30:00[America/New_York]")
        #expect(newYork.description == "2026-11-01T01:30:00-04:00[America/New_York]")
        #expect(epoch(newYork) == 1_793_511_000)
        #expect(epoch(try dateTime("2026-11-01T01:30:00-05:00[America/New_York]")) == 1_793_514_600)
    }

    @Test("An offset that does not match the zone at that moment is an error")
    func offsetMismatch() throws {
        let cases = [
            "2026-06-15T08:00:00+01:00[Europe/Berlin]",
            "2026-01-15T08:00:00+02:00[Europe/Berlin]",
            "2026-06-15T08:00:00+00:00[Europe/Zurich]",
            "2026-06-15T08:00:00-05:00[America/New_York]",
        ]
        for text in cases {
            let error = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: text) }, "\(text)")
            #expect(error.code == .invalidDateTime, "\(text)")
            #expect(error.message.contains("does not match time zone"), "\(text)")
        }
        let berlin = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: cases[0]) })
        #expect(berlin.message.contains("+02:00 at that time"))
    }

    // MARK: Zones

    @Test("An unknown zone is an error with unknown_time_zone, never a floating time", arguments: [
        "Mars/Olympus", "Europe/Berln", "GMT+2", "Europe", "../../etc/passwd", "utc", "",
    ])
    func unknownZone(_ zone: String) throws {
        let error = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: "2026-06-15T08:00:00[\(zone)]") })
        #expect(error.code == .unknownTimeZone)
        let withOffset = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: "2026-06-15T08:00:00+02:00[\(zone)]") })
        #expect(withOffset.code == .unknownTimeZone)
        #expect(valueError { () throws(ValueError) in try TimeZones.zone(zone) }?.code == .unknownTimeZone)
        let eight = try local(2026, 6, 15, 8, 0)
        #expect(valueError { () throws(ValueError) in try DateTimeValue.zoned(eight, timeZone: zone) }?.code == .unknownTimeZone)
    }

    @Test("The unknown-zone message names the zone and how to fix it")
    func unknownZoneMessage() throws {
        let error = try #require(valueError { () throws(ValueError) in try DateTimeValue(parsing: "2026-06-15T08:00:00[Mars/Olympus]") })
        #expect(error.message.contains("'Mars/Olympus'"))
        #expect(error.message.contains("Europe/Berlin"))
    }

    @Test("tzdata aliases such as US/Eastern are accepted and keep their name")
    func aliases() throws {
        let eastern = try dateTime("2026-06-15T08:00:00[US/Eastern]")
        #expect(eastern.description == "2026-06-15T08:00:00-04:00[US/Eastern]")
        let newYork = try dateTime("2026-06-15T08:00:00-04:00[America/New_York]")
        #expect(eastern.instant == newYork.instant)
        #expect(TimeZones.isKnown("US/Eastern"))
        #expect(TimeZones.isKnown("Etc/GMT+5"))
        #expect(TimeZones.isKnown("UTC"))
        #expect(!TimeZones.isKnown("Mars/Olympus"))
        // A zone is kept under the name it was given, so nothing is renamed on the way through.
        let utc = try dateTime("2026-06-15T08:00:00[UTC]")
        #expect(utc.timeZoneIdentifier == "UTC")
        #expect(utc.description == "2026-06-15T08:00:00+00:00[UTC]")
    }

    // MARK: Date and local time

    @Test("Calendar dates know month lengths and leap years")
    func calendarDates() {
        #expect(CalendarDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CalendarDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CalendarDate(year: 2100, month: 2, day: 29) == nil)
        #expect(CalendarDate(year: 2026, month: 4, day: 31) == nil)
        #expect(CalendarDate(year: 2026, month: 13, day: 1) == nil)
        #expect(CalendarDate(year: 2026, month: 1, day: 0) == nil)
        #expect(CalendarDate(year: 0, month: 1, day: 1) == nil)
        #expect(CalendarDate(parsing: "2026-06-15")?.description == "2026-06-15")
        #expect(CalendarDate(parsing: "20260615")?.description == "2026-06-15")
        #expect(CalendarDate(parsing: "2026-06-15")?.icalText == "20260615")
        #expect(CalendarDate(parsing: "2026-6-15") == nil)
        #expect(CalendarDate(parsing: "2026/06/15") == nil)
        #expect(CalendarDate(parsing: "+026-06-15") == nil)
        #expect(CalendarDate(parsing: "2026-06-1x") == nil)
        if let early = CalendarDate(year: 2026, month: 6, day: 15), let late = CalendarDate(year: 2026, month: 7, day: 1) {
            #expect(early < late)
        }
    }

    @Test("Local date-times parse ISO and RFC 5545 forms and compare in time order")
    func localDateTimes() throws {
        let value = try #require(LocalDateTime(parsing: "2026-06-15T08:05:09"))
        #expect(value.description == "2026-06-15T08:05:09")
        #expect(value.icalText == "20260615T080509")
        #expect(LocalDateTime(parsing: "20260615T0805")?.description == "2026-06-15T08:05:00")
        #expect(LocalDateTime(parsing: "2026-06-15T08") == nil)
        #expect(LocalDateTime(parsing: "2026-06-15T08:05:09:01") == nil)
        #expect(LocalDateTime(parsing: "2026-06-15T-8:05") == nil)
        #expect(LocalDateTime(parsing: "2026-06-15") == nil)
        #expect(try local(2026, 6, 15, 8, 0) < (try local(2026, 6, 15, 8, 1)))
        #expect(try local(2026, 6, 14, 23, 59) < (try local(2026, 6, 15, 0, 0)))
    }

    @Test("Civil-day arithmetic agrees with the calendar across eras")
    func civilArithmetic() {
        #expect(TimeZones.daysFromCivil(1970, 1, 1) == 0)
        #expect(TimeZones.daysFromCivil(2000, 3, 1) == 11_017)
        #expect(TimeZones.daysFromCivil(1969, 12, 31) == -1)
        for seconds: Int64 in [0, -1, 86_399, 86_400, -86_401, 951_782_400, 1_781_503_200, -14_182_940, 253_402_300_799] {
            let local = TimeZones.localFromEpoch(seconds)
            #expect(TimeZones.epochSeconds(of: local, offset: 0) == seconds, "\(seconds)")
        }
        #expect(TimeZones.localFromEpoch(-1).description == "1969-12-31T23:59:59")
        #expect(TimeZones.localFromEpoch(951_782_400).description == "2000-02-29T00:00:00")
        #expect(TimeZones.offsetText(-16_200) == "-04:30")
        #expect(TimeZones.offsetText(19_800) == "+05:30")
        #expect(TimeZones.offsetText(0) == "+00:00")
    }
}
