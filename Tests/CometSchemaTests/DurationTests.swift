import Testing
@testable import CometSchema

@Suite("RFC 5545 durations")
struct DurationTests {
    @Test("Canonical durations parse and print unchanged", arguments: [
        "PT15M", "-PT15M", "P1D", "P2W", "P1DT2H30M", "PT0S", "PT1H", "PT1H30M", "PT45S", "PT1H0M5S",
        "-P1D", "-P1W", "P1DT12H", "P10DT1S", "P1W2D", "PT90M",
    ])
    func roundTrip(_ text: String) throws {
        let duration = try #require(DurationValue(parsing: text))
        let expected = text == "PT1H0M5S" ? "PT1H5S" : text
        #expect(duration.description == expected)
        #expect(DurationValue(parsing: duration.description) == duration)
    }

    @Test("Parsed durations keep nominal days apart from exact time")
    func components() throws {
        let alarm = try #require(DurationValue(parsing: "-PT15M"))
        #expect(alarm == DurationValue(isNegative: true, minutes: 15))
        #expect(alarm.signedTimeSeconds == -900)
        #expect(alarm.signedDays == 0)
        #expect(alarm.approximateSeconds == -900)

        let mixed = try #require(DurationValue(parsing: "P1DT2H30M"))
        #expect(mixed == DurationValue(days: 1, hours: 2, minutes: 30))
        #expect(mixed.signedDays == 1)
        #expect(mixed.signedTimeSeconds == 9_000)
        #expect(mixed.approximateSeconds == 95_400)

        let fortnight = try #require(DurationValue(parsing: "P2W"))
        #expect(fortnight.weeks == 2)
        #expect(fortnight.days == 0)
        #expect(fortnight.signedDays == 14)

        let backwards = try #require(DurationValue(parsing: "-P1W2D"))
        #expect(backwards.signedDays == -9)

        let zero = try #require(DurationValue(parsing: "PT0S"))
        #expect(zero == DurationValue())
        #expect(zero.approximateSeconds == 0)
    }

    @Test("A leading plus sign and lower-case letters are accepted and printed canonically")
    func lenientInput() {
        #expect(DurationValue(parsing: "+PT15M")?.description == "PT15M")
        #expect(DurationValue(parsing: "pt15m")?.description == "PT15M")
        #expect(DurationValue(parsing: "-p1dt1h")?.description == "-P1DT1H")
        #expect(DurationValue(parsing: "P0D")?.description == "PT0S")
    }

    @Test("Text that is not an RFC 5545 duration is refused", arguments: [
        "P", "PT", "P1H", "15M", "P1Y", "P1M", "", "-", "+", "PT15", "P1DT", "PT1M1M", "P1D1D", "P1.5D", "PT-15M",
        "--PT15M", "PTM", "P1TD", "PT1HT1M", " PT15M", "PT15M ", "PT30S15M", "PT1S1H", "P1D2W", "P99999999999999999999D",
        "T15M", "P15",
    ])
    func invalid(_ text: String) {
        #expect(DurationValue(parsing: text) == nil)
    }

    @Test("Durations built from seconds use weeks only when whole")
    func fromSeconds() {
        #expect(DurationValue(totalSeconds: 900).description == "PT15M")
        #expect(DurationValue(totalSeconds: -900).description == "-PT15M")
        #expect(DurationValue(totalSeconds: 86_400).description == "P1D")
        #expect(DurationValue(totalSeconds: 1_209_600).description == "P2W")
        #expect(DurationValue(totalSeconds: 1_209_601).description == "P14DT1S")
        #expect(DurationValue(totalSeconds: 90_061).description == "P1DT1H1M1S")
        #expect(DurationValue(totalSeconds: 0).description == "PT0S")
        #expect(DurationValue(totalSeconds: -604_800) == DurationValue(isNegative: true, weeks: 1))
        for seconds in [0, 1, 59, 3_600, 86_399, 86_400, 90_061, 604_800, -3_601] {
            #expect(DurationValue(totalSeconds: seconds).approximateSeconds == seconds, "\(seconds)")
        }
    }
}
