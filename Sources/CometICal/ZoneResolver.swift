import Foundation
import CLibical
import CometSchema

/// Turns the TZIDs of one file into zones: IANA names (and aliases, Windows names, prefixed
/// names) directly; otherwise the file's own VTIMEZONE definition, matched to the IANA zone
/// whose offsets agree with it over the years around now ("US--Fictitious-Eastern" behaves as
/// America/New_York). A definition no IANA zone matches is still used, through libical, and its
/// times are kept as UTC instants. An unknown TZID with no definition resolves to nil: the
/// caller reports it with its line, never falling back to floating time.
final class ZoneResolver {
    enum Resolution {
        case zoned(String)
        /// Wall time → UTC epoch seconds by the file's own VTIMEZONE rules.
        case offsets((LocalDateTime) -> Int64)
    }

    private var definitions: [String: RawComponent] = [:]
    private var cache: [String: Resolution?] = [:]
    private var customZones: [OpaquePointer] = []

    deinit {
        for zone in customZones { icaltimezone_free(zone, 1) }
    }

    /// Defines a zone by its VTIMEZONE. The TZID is TEXT there (`Kuala Lumpur\, Singapore`) and
    /// a parameter value where it is used (`TZID="Kuala Lumpur, Singapore"`), so both are compared
    /// unescaped and unquoted. Exchange 2010 wrote an empty TZID: that definition is kept too,
    /// under a name libical accepts.
    func define(_ vtimezone: RawComponent) {
        guard let written = vtimezone.value("TZID") else { return }
        let tzid = ZoneResolver.key(ICalText.unescape(written))
        var definition = vtimezone
        if tzid.isEmpty {
            definition.properties = vtimezone.properties.map { $0.name == "TZID" ? ContentLine(text: "TZID:cometcal-unnamed-zone", line: $0.line) : $0 }
        }
        definitions[tzid] = definition
        cache[tzid] = nil
    }

    /// A TZID as compared: without quotes and surrounding blanks.
    static func key(_ tzid: String) -> String {
        var text = Substring(tzid.trimmedBlanks)
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    func isDefined(_ tzid: String) -> Bool { definitions[ZoneResolver.key(tzid)] != nil }

    func resolve(_ written: String) -> Resolution? {
        let tzid = ZoneResolver.key(written)
        if let cached = cache[tzid] { return cached }
        let result = compute(tzid)
        cache[tzid] = result
        switch result {
        case .zoned(let identifier) where identifier != tzid:
            let how = TimeZoneNames.ianaIdentifier(for: tzid) != nil ? "a name for" : "defined by the file's VTIMEZONE, whose offsets match"
            notes.append((tzid, "TZID '\(tzid)' is \(how) the IANA zone \(identifier), and is stored as that zone"))
        case .offsets:
            notes.append((tzid, "TZID '\(tzid)' is known only from the file's VTIMEZONE, which matches no IANA zone: its times are read by those rules and stored as UTC instants"))
        default:
            break
        }
        return result
    }

    /// What was read other than as written (a Windows name, a prefix, a definition), once per
    /// TZID, for the reader to say.
    private var notes: [(tzid: String, message: String)] = []

    func takeNotes() -> [(tzid: String, message: String)] {
        defer { notes.removeAll() }
        return notes
    }

    /// For an IANA TZID the file also defines: the offsets the file's VTIMEZONE and tzdata give
    /// at this wall time, when they differ (a truncated or out-of-date definition). tzdata is used
    /// either way; this says where the producer showed another time.
    func embeddedOffsets(_ written: String, at local: LocalDateTime) -> (file: Int, tzdata: Int)? {
        let tzid = ZoneResolver.key(written)
        guard let iana = TimeZoneNames.ianaIdentifier(for: tzid), let zone = TimeZone(identifier: iana), let definition = definitions[tzid] else { return nil }
        if embedded[tzid] == nil { embedded[tzid] = .some(offsetFunction(definition)) }
        guard let offset = embedded[tzid] ?? nil else { return nil }
        let file = offset(local)
        let instant = Date(timeIntervalSince1970: TimeInterval(local.wallSeconds - Int64(file)))
        let tzdata = zone.secondsFromGMT(for: instant)
        return file == tzdata ? nil : (file, tzdata)
    }

    /// The file's own offset rules for IANA TZIDs it defines, made when first asked.
    private var embedded: [String: ((LocalDateTime) -> Int)?] = [:]

    /// UTC offset of a wall time by a VTIMEZONE's own rules, through libical.
    private func offsetFunction(_ definition: RawComponent) -> ((LocalDateTime) -> Int)? {
        guard ZoneResolver.hasObservances(definition), ZoneResolver.unusableRule(definition) == nil, let tree = LibicalTree(parsing: definition.text),
              let clone = icalcomponent_new_clone(tree.root) else { return nil }
        guard let zone = icaltimezone_new() else { return nil }
        guard icaltimezone_set_component(zone, clone) != 0 else {
            icaltimezone_free(zone, 1)
            return nil
        }
        customZones.append(zone)
        return { local in
            var time = icaltimetype(year: Int32(local.date.year), month: Int32(local.date.month), day: Int32(local.date.day),
                                    hour: Int32(local.hour), minute: Int32(local.minute), second: Int32(local.second),
                                    is_date: 0, is_daylight: 0, zone: nil)
            var isDaylight: Int32 = 0
            return Int(icaltimezone_get_utc_offset(zone, &time, &isDaylight))
        }
    }

    /// Why a TZID resolves to nothing, for the message where it is used.
    func unresolvedReason(_ written: String) -> String {
        let tzid = ZoneResolver.key(written)
        if let definition = definitions[tzid], !ZoneResolver.hasObservances(definition) {
            return "TZID '\(tzid)' is defined by a VTIMEZONE with no STANDARD or DAYLIGHT part, so no offset can be computed; add its observances or use an IANA name such as Europe/Berlin"
        }
        if let definition = definitions[tzid], let rule = ZoneResolver.unusableRule(definition) {
            return "TZID '\(tzid)' is defined by a VTIMEZONE whose observance repeats by \(rule), not yearly, so it cannot be used; fix the VTIMEZONE or use an IANA name such as Europe/Berlin"
        }
        return "TZID '\(tzid)' is neither an IANA time zone nor defined by a VTIMEZONE in the file; add its VTIMEZONE or use an IANA name such as Europe/Berlin"
    }

    static func hasObservances(_ definition: RawComponent) -> Bool {
        definition.children.contains { $0.name == "STANDARD" || $0.name == "DAYLIGHT" }
    }

    /// An observance whose rule is not yearly (`FREQ=SECONDLY` in a DAYLIGHT part): no zone
    /// changes like that, and libical would expand it for ever.
    static func unusableRule(_ definition: RawComponent) -> String? {
        for observance in definition.children where observance.name == "STANDARD" || observance.name == "DAYLIGHT" {
            for line in observance.properties where line.name == "RRULE" {
                let frequency = line.value.uppercased().split(separator: ";").first { $0.hasPrefix("FREQ=") }.map { String($0.dropFirst(5)) }
                if frequency != "YEARLY" { return "RRULE:\(line.value) (line \(line.line))" }
            }
        }
        return nil
    }

    private func compute(_ tzid: String) -> Resolution? {
        if let iana = TimeZoneNames.ianaIdentifier(for: tzid) { return .zoned(iana) }
        // A definition without observances has no offset at all; libical would read it as UTC.
        guard let definition = definitions[tzid], let offset = offsetFunction(definition) else { return nil }
        // The definition must agree with the IANA zone over its own years too (a 1997 rule set is
        // not today's), from its earliest onset on.
        let onsets = definition.children.compactMap { $0.value("DTSTART").flatMap { Int($0.prefix(4)) } }
        let firstYear = max(1970, onsets.min() ?? 2020)
        if let match = ZoneResolver.ianaZone(matching: offset, from: min(firstYear, 2020)) { return .zoned(match) }
        return .offsets { local in local.wallSeconds - Int64(offset(local)) }
    }

    /// The IANA zone whose UTC offsets agree with `offset` twice a month from `firstYear` to 2031,
    /// preferring the zones CLDR lists as Windows defaults (the "main" zone of each region).
    static func ianaZone(matching offset: (LocalDateTime) -> Int, from firstYear: Int = 2020) -> String? {
        var samples: [(LocalDateTime, Int)] = []
        for year in firstYear...2031 {
            for month in 1...12 {
                for day in [1, 15] {
                    guard let date = CalendarDate(year: year, month: month, day: day), let local = LocalDateTime(date: date, hour: 12, minute: 0) else { continue }
                    samples.append((local, offset(local)))
                }
            }
        }
        guard let first = samples.first else { return nil }
        let preferred = TimeZoneNames.preferredZones
        let candidates = preferred + TimeZone.knownTimeZoneIdentifiers.sorted().filter { !preferred.contains($0) }
        for identifier in candidates {
            guard let zone = TimeZone(identifier: identifier) else { continue }
            func agrees(_ sample: (LocalDateTime, Int)) -> Bool {
                let instant = Date(timeIntervalSince1970: TimeInterval(sample.0.wallSeconds - Int64(sample.1)))
                return zone.secondsFromGMT(for: instant) == sample.1
            }
            guard agrees(first), samples.allSatisfy(agrees) else { continue }
            return identifier
        }
        return nil
    }
}
