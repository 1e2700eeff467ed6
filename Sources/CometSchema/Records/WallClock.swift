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
        return DateTimeValue(kind: .zoned(epochSeconds: instant, timeZone: zone.identifier))
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
        let local = LocalDateTime(wallSeconds: localTime.wallSeconds + Int64(days) * 86_400)
        return local.dateTime(in: expansionZone)
    }
}
