import Foundation
import Testing
@testable import CometSchema

@Suite("TZID normalization to IANA zone names")
struct TimeZoneNamesTests {
    // MARK: Windows zone IDs

    @Test("W. Europe Standard Time is Europe/Berlin")
    func westernEurope() {
        #expect(TimeZoneNames.ianaIdentifier(for: "W. Europe Standard Time") == "Europe/Berlin")
    }

    @Test("Pacific Standard Time is America/Los_Angeles")
    func pacific() {
        #expect(TimeZoneNames.ianaIdentifier(for: "Pacific Standard Time") == "America/Los_Angeles")
    }

    @Test("Tokyo Standard Time is Asia/Tokyo")
    func tokyo() {
        #expect(TimeZoneNames.ianaIdentifier(for: "Tokyo Standard Time") == "Asia/Tokyo")
    }

    @Test("India Standard Time is CLDR's Asia/Calcutta, and both Indian spellings are tzdata names")
    func india() {
        #expect(TimeZoneNames.ianaIdentifier(for: "India Standard Time") == "Asia/Calcutta")
        #expect(TimeZoneNames.ianaIdentifier(for: "Asia/Calcutta") == "Asia/Calcutta")
        #expect(TimeZoneNames.ianaIdentifier(for: "Asia/Kolkata") == "Asia/Kolkata")
    }

    @Test("Eastern Standard Time is America/New_York")
    func eastern() {
        #expect(TimeZoneNames.ianaIdentifier(for: "Eastern Standard Time") == "America/New_York")
    }

    @Test("GMT Standard Time is Europe/London, not UTC")
    func britain() {
        #expect(TimeZoneNames.ianaIdentifier(for: "GMT Standard Time") == "Europe/London")
    }

    @Test("Romance Standard Time is Europe/Paris")
    func romance() {
        #expect(TimeZoneNames.ianaIdentifier(for: "Romance Standard Time") == "Europe/Paris")
    }

    @Test("AUS Eastern Standard Time is Australia/Sydney")
    func australiaEastern() {
        #expect(TimeZoneNames.ianaIdentifier(for: "AUS Eastern Standard Time") == "Australia/Sydney")
    }

    @Test("Windows IDs match regardless of case, spacing and quotes")
    func windowsSpelling() {
        #expect(TimeZoneNames.ianaIdentifier(for: "  w. europe   STANDARD time\n") == "Europe/Berlin")
        #expect(TimeZoneNames.ianaIdentifier(for: "\"Pacific Standard Time\"") == "America/Los_Angeles")
    }

    @Test("Fixed-offset Windows IDs map to Etc/GMT zones with tzdata's inverted sign")
    func fixedOffsetWindowsIDs() {
        #expect(TimeZoneNames.ianaIdentifier(for: "UTC-11") == "Etc/GMT+11")
        #expect(TimeZoneNames.ianaIdentifier(for: "UTC+12") == "Etc/GMT-12")
        #expect(TimeZoneNames.ianaIdentifier(for: "Dateline Standard Time") == "Etc/GMT+12")
    }

    @Test("Retired Windows IDs from old Outlook files still resolve, except the ambiguous Mexico one")
    func retiredWindowsIDs() {
        #expect(TimeZoneNames.ianaIdentifier(for: "Mid-Atlantic Standard Time") == "Etc/GMT+2")
        #expect(TimeZoneNames.ianaIdentifier(for: "Mexico Standard Time") == "America/Mexico_City")
        #expect(TimeZoneNames.ianaIdentifier(for: "Mexico Standard Time 2") == nil)
    }

    // MARK: UTC and plain IANA names

    @Test("UTC spellings all become UTC", arguments: [
        "UTC", "GMT", "Z", "Etc/UTC", "Etc/GMT", "Universal", "Zulu", "utc", " Etc/Zulu ",
    ])
    func utcSpellings(_ tzid: String) {
        #expect(TimeZoneNames.ianaIdentifier(for: tzid) == "UTC")
    }

    @Test("The Windows UTC zone and its display name become UTC too")
    func windowsUTC() {
        #expect(TimeZoneNames.ianaIdentifier(for: "UTC") == "UTC")
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC) Coordinated Universal Time") == "UTC")
    }

    @Test("Etc/GMT offsets are real tzdata zones and stay as they are", arguments: [
        "Etc/GMT+5", "Etc/GMT-14", "Etc/GMT+12",
    ])
    func etcOffsets(_ tzid: String) {
        #expect(TimeZoneNames.ianaIdentifier(for: tzid) == tzid)
    }

    @Test("tzdata names and aliases come back unchanged", arguments: [
        "Europe/Berlin", "America/Argentina/Buenos_Aires", "US/Eastern", "EST5EDT", "Europe/Kiev", "Europe/Kyiv",
    ])
    func tzdataNames(_ tzid: String) {
        #expect(TimeZoneNames.ianaIdentifier(for: tzid) == tzid)
    }

    // MARK: Outlook display names

    @Test("The W. Europe display name resolves like its Windows ID, to Europe/Berlin")
    func westernEuropeDisplayName() {
        let display = "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"
        #expect(TimeZoneNames.ianaIdentifier(for: display) == "Europe/Berlin")
        #expect(TimeZoneNames.ianaIdentifier(for: display) == TimeZoneNames.ianaIdentifier(for: "W. Europe Standard Time"))
    }

    @Test("Older GMT-prefixed and bare (UTC) display names match the same entries")
    func olderDisplaySpellings() {
        #expect(TimeZoneNames.ianaIdentifier(for: "(GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna") == "Europe/Berlin")
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC) Dublin, Edinburgh, Lisbon, London") == "Europe/London")
        #expect(TimeZoneNames.ianaIdentifier(for: "(utc-08:00)  pacific time (us & canada)") == "America/Los_Angeles")
    }

    @Test("Display names missing from the table map through a listed city with the stated offset")
    func displayNameCityFallback() {
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC+01:00) Oslo") == "Europe/Oslo")
        // La Paz is UTC-4 in tzdata, so the UTC-7 zone has to be Mazatlan.
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC-07:00) La Paz, Mazatlan") == "America/Mazatlan")
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC+05:00) Berlin") == nil)
        #expect(TimeZoneNames.ianaIdentifier(for: "(UTC+01:00)") == nil)
    }

    // MARK: Generator prefixes

    @Test("Generator prefixes are stripped when an IANA name follows", arguments: [
        ("/citadel.org/20190914_1/America/New_York", "America/New_York"),
        ("/mozilla.org/20050126_1/Europe/Berlin", "Europe/Berlin"),
        ("/mozilla.org/20070129_1/Asia/Tokyo", "Asia/Tokyo"),
        ("/freeassociation.sourceforge.net/Tzfile/Europe/London", "Europe/London"),
        ("/freeassociation.sourceforge.net/America/Chicago", "America/Chicago"),
        ("/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("/tzurl.org/20160831/Europe/Paris", "Europe/Paris"),
        ("/bedework.org/Europe/Rome", "Europe/Rome"),
        ("posix/Europe/Berlin", "Europe/Berlin"),
        ("right/Asia/Tokyo", "Asia/Tokyo"),
        ("custom_Europe/Vienna", "Europe/Vienna"),
        ("/example.com/calendar/v2/Pacific/Auckland", "Pacific/Auckland"),
        ("/mozilla.org/20050126_1/Etc/UTC", "UTC"),
    ])
    func prefixes(_ tzid: String, _ expected: String) {
        #expect(TimeZoneNames.ianaIdentifier(for: tzid) == expected)
    }

    // MARK: Unknown names

    @Test("Unknown names resolve to nil", arguments: [
        "US--Fictitious-Eastern", "Mars/Olympus", "", "   ", "Europe", "../../etc/passwd",
        "/mozilla.org/20050126_1/Mars/Olympus", "GMT+5", "Central Standard Time (Mars)",
    ])
    func unknown(_ tzid: String) {
        #expect(TimeZoneNames.ianaIdentifier(for: tzid) == nil)
    }

    // MARK: The tables themselves

    @Test("Every IANA zone in the Windows tables is known to this machine's tzdata")
    func windowsTableZonesExist() {
        #expect(WindowsZones.defaultZone.count >= 139)
        for (windowsName, zone) in WindowsZones.defaultZone.merging(WindowsZones.retiredZone, uniquingKeysWith: { a, _ in a }) {
            #expect(TimeZone(identifier: zone) != nil, "\(windowsName) → \(zone)")
            #expect(TimeZoneNames.isTZDataZone(zone), "\(windowsName) → \(zone)")
        }
    }

    @Test("Every Windows ID in the table resolves to its CLDR zone")
    func everyWindowsIDResolves() {
        for (windowsName, zone) in WindowsZones.defaultZone {
            let expected = zone == "Etc/UTC" ? "UTC" : zone
            #expect(TimeZoneNames.ianaIdentifier(for: windowsName) == expected, "\(windowsName)")
        }
    }

    @Test("Every display name in the table parses and names a Windows ID in the table")
    func everyDisplayNameResolves() {
        #expect(WindowsZones.displayNames.count >= 40)
        for (display, windowsName) in WindowsZones.displayNames {
            let zone = WindowsZones.defaultZone[windowsName]
            #expect(zone != nil, "\(display) → \(windowsName)")
            #expect(TimeZoneNames.ianaIdentifier(for: display) == TimeZoneNames.ianaIdentifier(for: windowsName), "\(display)")
        }
    }
}
