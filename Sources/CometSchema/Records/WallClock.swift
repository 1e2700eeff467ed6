import Foundation

/// Exact wall-clock arithmetic (no Calendar, no zone), used to index and step through
/// local times quickly.
extension LocalDateTime {
    /// Seconds since 1970-01-01T00:00:00 of the same wall-clock reading, as if it were UTC.
    public var wallSeconds: Int64 {
        TimeZones.daysFromCivil(date.year, date.month, date.day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public init(wallSeconds: Int64) {
        self = TimeZones.localFromEpoch(wallSeconds)
    }

    /// This wall time in `zone` (nil: floating), as a DateTime value.
    public func dateTime(in zone: TimeZone?) -> DateTimeValue {
        guard let zone else { return .floating(self) }
        if zone.identifier == "UTC" || zone.identifier == "GMT" {
            return DateTimeValue(kind: .utc(epochSeconds: wallSeconds))
        }
        let instant = TimeZones.instant(of: self, in: zone) ?? wallSeconds
        return DateTimeValue(kind: .zoned(epochSeconds: instant, timeZone: zone.identifier), nominal: TimeZones.skipped(self, placedAt: instant, in: zone))
    }
}

extension CalendarDate {
    /// Days since 1970-01-01.
    public var dayNumber: Int64 { TimeZones.daysFromCivil(year, month, day) }

    /// 0 for Sunday … 6 for Saturday (1970-01-01 was a Thursday).
    public var weekdayIndex: Int { Int(((dayNumber % 7) + 7 + 4) % 7) }
}

extension DateTimeValue {
    /// The zone to expand a series in: the named zone, UTC, or nil for floating times.
    public var expansionZone: TimeZone? {
        switch kind {
        case .floating: return nil
        case .utc: return TimeZones.utcZone
        case .zoned(_, let identifier): return (try? TimeZones.zone(identifier)) ?? TimeZones.utcZone
        }
    }

    /// Seconds for ordering and range queries: the instant, or for a floating time its wall
    /// reading as if it were UTC (callers widen windows by 14 h for floating values).
    public var sortKey: Int64 {
        switch kind {
        case .utc(let seconds), .zoned(let seconds, _): return seconds
        case .floating(let local): return local.wallSeconds
        }
    }
}

extension DateTimeValue {
    /// The wall reading of this value on the clocks of `zone`; floating values read as they are,
    /// and a nil zone reads zoned values in their own zone.
    public func wallTime(in zone: TimeZone?) -> LocalDateTime {
        guard let zone, let instant = instant else { return localTime }
        return TimeZones.local(of: Int64(instant.timeIntervalSince1970), in: zone)
    }
}

extension DateTimeValue {
    /// The wall time a series compares this value with, in its zone: as `wallTime(in:)`, but a
    /// time a DST gap moved keeps the time it was written with (an EXDATE of 02:30 on the gap day
    /// names the 02:30 instance, placed at 03:30).
    public func recurrenceWallTime(in zone: TimeZone?) -> LocalDateTime {
        if let nominal, zone == nil || zone?.identifier == timeZoneIdentifier { return nominal }
        return wallTime(in: zone)
    }
}

extension DateTimeValue {
    /// The same kind of value (UTC, same zone, or floating) moved by exact seconds.
    public func adding(seconds: Int64) -> DateTimeValue {
        switch kind {
        case .utc(let epoch): return DateTimeValue(kind: .utc(epochSeconds: epoch + seconds))
        case .zoned(let epoch, let zone): return DateTimeValue(kind: .zoned(epochSeconds: epoch + seconds, timeZone: zone))
        case .floating(let local): return .floating(LocalDateTime(wallSeconds: local.wallSeconds + seconds))
        }
    }

    /// The same wall-clock reading moved by whole days (a day across a DST change is 23 or 25
    /// hours), in the value's own zone.
    public func adding(days: Int) -> DateTimeValue {
        let local = LocalDateTime(wallSeconds: expansionWallTime.wallSeconds + Int64(days) * 86_400)
        return local.dateTime(in: expansionZone)
    }
}

extension DateTimeValue {
    /// The instants (sort keys) of years 1–9999, with a day to spare for zone offsets: what a
    /// date-time can hold. Arithmetic that leaves it is an error, never a wrapped-around date.
    public static let supportedKeys: ClosedRange<Int64> = (-62_135_596_800 - 86_400)...(253_402_300_799 + 86_400)

    public var isInSupportedRange: Bool {
        DateTimeValue.supportedKeys.contains(sortKey) && (nominal ?? localTime).date.year >= 1
    }

    /// This value moved by a duration (nominal days on the wall clock, then exact seconds), or an
    /// error naming the result when it would leave years 1–9999.
    public func adding(_ duration: DurationValue) throws(ValueError) -> DateTimeValue {
        let days = Int64(duration.signedDays)
        let seconds = Int64(duration.signedTimeSeconds)
        let wall = expansionWallTime.wallSeconds
        let (byDays, daysOverflow) = days.multipliedReportingOverflow(by: 86_400)
        let (target, targetOverflow) = wall.addingReportingOverflow(byDays)
        let (instant, instantOverflow) = sortKey.addingReportingOverflow(byDays &+ seconds)
        guard !daysOverflow, !targetOverflow, !instantOverflow, DateTimeValue.supportedKeys.contains(target),
              DateTimeValue.supportedKeys.contains(instant) else {
            throw ValueError(.outOfRange, "\(self) plus \(duration) is out of range: CometCal holds dates of years 1–9999")
        }
        return adding(days: Int(days)).adding(seconds: seconds)
    }

    /// This value moved by exact seconds, or an error when that leaves years 1–9999.
    public func checkedAdding(seconds: Int64) throws(ValueError) -> DateTimeValue {
        let (instant, overflow) = sortKey.addingReportingOverflow(seconds)
        guard !overflow, DateTimeValue.supportedKeys.contains(instant) else {
            throw ValueError(.outOfRange, "\(self) moved by \(seconds) seconds is out of range: CometCal holds dates of years 1–9999")
        }
        return adding(seconds: seconds)
    }
}
