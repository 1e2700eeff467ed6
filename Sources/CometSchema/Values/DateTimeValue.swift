import Foundation

/// An instant with the IANA time zone it was expressed in, a UTC instant, or a floating
/// wall-clock time (the same clock reading in every zone, RFC 5545 "form #1").
///
/// Zoned values keep the instant, not the wall time: the instant is what the user meant even
/// in the repeated hour of a DST change, and the wall time is derived from it with the zone.
/// A wall time that a DST change skips (02:30 on the day clocks jump from 02:00 to 03:00) is
/// placed after the gap, as RFC 5545 §3.3.5 says, and keeps the time it was written with as
/// `nominal`: a series starting then repeats at 02:30 on the other days (§3.3.10).
public struct DateTimeValue: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case utc(epochSeconds: Int64)
        case zoned(epochSeconds: Int64, timeZone: String)
        case floating(LocalDateTime)
    }

    public let kind: Kind
    /// For a zoned value written at a wall time that does not exist in its zone: that wall time.
    public let nominal: LocalDateTime?

    public init(kind: Kind, nominal: LocalDateTime? = nil) {
        self.kind = kind
        if case .zoned = kind { self.nominal = nominal } else { self.nominal = nil }
    }

    public static func utc(_ date: Date) -> DateTimeValue {
        DateTimeValue(kind: .utc(epochSeconds: Int64(date.timeIntervalSince1970.rounded(.down))))
    }

    public static func floating(_ local: LocalDateTime) -> DateTimeValue {
        DateTimeValue(kind: .floating(local))
    }

    /// The instant at which `local` reads on the clocks of `timeZone`. Throws for an unknown zone.
    /// A wall time skipped by a DST change moves forward by the gap, as RFC 5545 prescribes.
    public static func zoned(_ local: LocalDateTime, timeZone identifier: String) throws(ValueError) -> DateTimeValue {
        let zone = try TimeZones.zone(identifier)
        guard let instant = TimeZones.instant(of: local, in: zone) else {
            throw ValueError(.invalidDateTime, "cannot place \(local) in time zone '\(identifier)'")
        }
        return DateTimeValue(kind: .zoned(epochSeconds: instant, timeZone: identifier), nominal: TimeZones.skipped(local, placedAt: instant, in: zone))
    }

    /// The wall time a series repeats at: the time as written, even where a DST gap moved this
    /// one instance (see `nominal`).
    public var expansionWallTime: LocalDateTime { nominal ?? localTime }

    /// The instant, or nil for a floating time (which has none until a zone is chosen).
    public var instant: Date? {
        switch kind {
        case .utc(let seconds), .zoned(let seconds, _): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .floating: return nil
        }
    }

    /// The IANA zone for zoned values; nil for UTC and floating.
    public var timeZoneIdentifier: String? {
        if case .zoned(_, let zone) = kind { return zone }
        return nil
    }

    public var isFloating: Bool {
        if case .floating = kind { return true }
        return false
    }

    /// The wall-clock reading: in the value's zone, in UTC, or the floating time itself.
    public var localTime: LocalDateTime {
        switch kind {
        case .floating(let local): return local
        case .utc(let seconds): return TimeZones.local(of: seconds, in: TimeZones.utcZone)
        case .zoned(let seconds, let identifier):
            let zone = (try? TimeZones.zone(identifier)) ?? TimeZones.utcZone
            return TimeZones.local(of: seconds, in: zone)
        }
    }

    /// RFC 3339 with the RFC 9557 zone suffix, so nothing is lost in JSON:
    /// `2026-06-15T08:00:00+02:00[Europe/Berlin]`, `2026-06-15T06:00:00Z`, `2026-06-15T08:00:00`.
    public var description: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48)
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses the forms `description` produces, plus an offset without a zone (read as that
    /// instant in UTC) and `Z` with a bracketed zone.
    public init(parsing text: String) throws(ValueError) {
        self = try DateTimeValue.parse(text)
        // An instant past the ends of the years 1 to 9999 has no date to show (an offset can
        // push 9999-12-31T23:00 into the year 10000): refused, never shown as another date.
        if let instant = instant, !TimeZones.representable.contains(Int64(instant.timeIntervalSince1970)) {
            throw ValueError(.invalidDateTime, "'\(text)' is outside the years 1 to 9999 in UTC")
        }
    }

    private static func parse(_ text: String) throws(ValueError) -> DateTimeValue {
        var body = Substring(text)
        var zoneName: String?
        if body.hasSuffix("]"), let open = body.lastIndex(of: "[") {
            zoneName = String(body[body.index(after: open)..<body.index(before: body.endIndex)])
            body = body[..<open]
        }
        // Made only when needed: a stored record's times are parsed on every read.
        var invalid: ValueError { ValueError(.invalidDateTime, "'\(text)' is not a date-time; write it like 2026-06-15T08:00:00, with Z, an offset or [Zone/Name] for a fixed instant") }
        var offsetSeconds: Int?
        // `Z` names the instant in UTC; with a zone it is valid whatever the zone's offset is
        // (RFC 9557 §4.2), while a numeric offset must be the zone's own at that instant.
        var isZulu = false
        if body.hasSuffix("Z") || body.hasSuffix("z") {
            offsetSeconds = 0
            isZulu = true
            body = body.dropLast()
        } else if body.count > 6 {
            let chars = Array(body.suffix(6))
            if chars[0] == "+" || chars[0] == "-", chars[3] == ":" {
                // RFC 3339 time-numoffset: two-digit hours 00-23 and minutes 00-59.
                let digits = [chars[1], chars[2], chars[4], chars[5]]
                guard digits.allSatisfy(\.isASCIIDigit), let hours = Int(String(chars[1...2])), let minutes = Int(String(chars[4...5])),
                      hours <= 23, minutes <= 59 else { throw invalid }
                offsetSeconds = (hours * 3600 + minutes * 60) * (chars[0] == "-" ? -1 : 1)
                body = body.dropLast(6)
            }
        }
        guard let local = LocalDateTime(parsing: String(body)) else { throw invalid }
        if let zoneName {
            let zone = try TimeZones.zone(zoneName)
            if let offsetSeconds {
                let instant = TimeZones.epochSeconds(of: local, offset: offsetSeconds)
                let actual = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
                guard actual == offsetSeconds || isZulu else {
                    throw ValueError(.invalidDateTime, "offset \(TimeZones.offsetText(offsetSeconds)) in '\(text)' does not match time zone '\(zoneName)' (\(TimeZones.offsetText(actual)) at that time)")
                }
                // The zone keeps the name it was written with: Foundation would rename `UTC` to `GMT`.
                return DateTimeValue(kind: .zoned(epochSeconds: instant, timeZone: zoneName))
            } else {
                return try DateTimeValue.zoned(local, timeZone: zoneName)
            }
        } else if let offsetSeconds {
            return DateTimeValue(kind: .utc(epochSeconds: TimeZones.epochSeconds(of: local, offset: offsetSeconds)))
        } else {
            return DateTimeValue(kind: .floating(local))
        }
    }
}

/// Time-zone lookups against the system's tzdata, shared by every layer.
public enum TimeZones {
    static let utcZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0)!

    /// The zone for an IANA identifier (or a tzdata alias such as `US/Eastern`). Fixed-offset
    /// spellings such as `GMT+2` are refused: they are not time zones with rules.
    public static func zone(_ identifier: String) throws(ValueError) -> TimeZone {
        if let cached = zoneCache.withLock({ $0[identifier] }) { return cached }
        guard isKnown(identifier), let zone = TimeZone(identifier: identifier) else {
            throw ValueError(.unknownTimeZone, "unknown time zone '\(identifier)'; use an IANA name such as 'Europe/Berlin' or 'America/New_York' (is the 'tzdata' package installed?)")
        }
        zoneCache.withLock { $0[identifier] = zone }
        return zone
    }

    /// Zones looked up once: each lookup reads tzdata (and may `stat` a file), and an import
    /// asks for the same few zones for every event.
    private static let zoneCache = LockedCache<[String: TimeZone]>([:])

    public static func isKnown(_ identifier: String) -> Bool {
        if identifier == "UTC" || identifier == "GMT" { return true }
        if known.contains(identifier) { return true }
        // Aliases (US/Eastern, Etc/GMT+5) live in tzdata files even when ICU lists only canonical names.
        guard !identifier.contains(".."), !identifier.hasPrefix("/"), identifier.range(of: #"^[A-Za-z0-9_+\-/]+$"#, options: .regularExpression) != nil else { return false }
        return FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + identifier)
    }

    private static let known = Set(TimeZone.knownTimeZoneIdentifiers)

    static func instant(of local: LocalDateTime, in zone: TimeZone) -> Int64? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: local.dateComponents) else { return nil }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// `local` when the instant it was placed at reads later on the zone's clocks: a wall time
    /// skipped by a DST change. Nil for every time that exists.
    static func skipped(_ local: LocalDateTime, placedAt instant: Int64, in zone: TimeZone) -> LocalDateTime? {
        let reads = TimeZones.local(of: instant, in: zone)
        return reads > local ? local : nil
    }

    static func local(of epochSeconds: Int64, in zone: TimeZone) -> LocalDateTime {
        let date = Date(timeIntervalSince1970: TimeInterval(epochSeconds))
        let offset = zone.secondsFromGMT(for: date)
        return localFromEpoch(epochSeconds + Int64(offset))
    }

    static func epochSeconds(of local: LocalDateTime, offset: Int) -> Int64 {
        let days = daysFromCivil(local.date.year, local.date.month, local.date.day)
        return days * 86_400 + Int64(local.hour * 3600 + local.minute * 60 + local.second) - Int64(offset)
    }

    static func offsetText(_ seconds: Int) -> String {
        var bytes: [UInt8] = []
        appendOffset(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm: exact, no Calendar).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds since 1970 of 0001-01-01T00:00:00 through 9999-12-31T23:59:59: the instants a
    /// date can be shown for. `DateTimeValue(parsing:)` refuses the others.
    public static let representable: ClosedRange<Int64> = -62_135_596_800 ... 253_402_300_799

    /// The wall reading of seconds since 1970. Past the representable years (reached only by a
    /// zone's offset at their very ends, since values outside them are refused when read) it
    /// stops at the first or last second, never at another date.
    static func localFromEpoch(_ seconds: Int64) -> LocalDateTime {
        let seconds = min(max(seconds, representable.lowerBound), representable.upperBound)
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        let date = CalendarDate(year: year, month: month, day: day)!  // within 1...9999 by the bound above
        let r = Int(rest)
        return LocalDateTime(date: date, hour: r / 3600, minute: (r % 3600) / 60, second: r % 60)!
    }
}

/// A value behind a lock, for caches shared by every thread.
public final class LockedCache<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
