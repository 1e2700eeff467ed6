import Foundation

/// The ISO 8601 / RFC 9557 text of dates and times, written into bytes: the daemon writes
/// thousands of times per answer, and making each one a string from pieces (with the zone
/// looked up and its offset asked twice) was a quarter of building an answer in a profile.
extension DateTimeValue {
    /// Appends `description`'s text.
    func appendText(to bytes: inout [UInt8]) {
        switch kind {
        case .floating(let local):
            local.appendText(to: &bytes)
        case .utc(let seconds):
            TimeZones.localFromEpoch(seconds).appendText(to: &bytes)
            bytes.append(UInt8(ascii: "Z"))
        case .zoned(let seconds, let identifier):
            // A skipped wall time is written as written, without an offset (none matches it);
            // parsing places it again and keeps it as nominal.
            if let nominal {
                nominal.appendText(to: &bytes)
            } else {
                let zone = (try? TimeZones.zone(identifier)) ?? TimeZones.utcZone
                let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
                TimeZones.localFromEpoch(seconds + Int64(offset)).appendText(to: &bytes)
                TimeZones.appendOffset(offset, to: &bytes)
            }
            bytes.append(UInt8(ascii: "["))
            bytes.append(contentsOf: identifier.utf8)
            bytes.append(UInt8(ascii: "]"))
        }
    }
}

extension LocalDateTime {
    /// Appends `description`'s text: `2026-06-15T08:00:00`.
    func appendText(to bytes: inout [UInt8]) {
        date.appendText(to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        Digits.append(hour, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Digits.append(minute, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Digits.append(second, width: 2, to: &bytes)
    }
}

extension CalendarDate {
    /// Appends `description`'s text: `2026-06-15`.
    func appendText(to bytes: inout [UInt8]) {
        Digits.append(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Digits.append(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        Digits.append(day, width: 2, to: &bytes)
    }
}

extension TimeZones {
    /// `+02:00`, `-05:00`: hours and minutes of an offset (the seconds of an old local mean
    /// time are not written, as RFC 3339 has no place for them).
    static func appendOffset(_ seconds: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: seconds < 0 ? "-" : "+"))
        let magnitude = abs(seconds)
        Digits.append(magnitude / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Digits.append((magnitude % 3600) / 60, width: 2, to: &bytes)
    }
}

extension Digits {
    /// `n` in at least `width` digits, as `padded` writes it, appended to bytes.
    static func append(_ n: Int, width: Int, to bytes: inout [UInt8]) {
        if n >= 0 && n < 10_000 && width <= 4 {
            // The common case (years, months, hours): no intermediate array.
            let digits = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : 4
            for _ in 0..<max(0, width - digits) { bytes.append(48) }
            var divisor = digits == 1 ? 1 : digits == 2 ? 10 : digits == 3 ? 100 : 1000
            while divisor > 0 {
                bytes.append(UInt8(truncatingIfNeeded: (n / divisor) % 10) + 48)
                divisor /= 10
            }
        } else {
            bytes.append(contentsOf: padded(n, width).utf8)
        }
    }
}
