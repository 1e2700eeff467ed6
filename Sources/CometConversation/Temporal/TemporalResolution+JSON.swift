import Foundation
import CometSchema

extension TemporalResolution {
    /// The stable JSON shape (docs/json.md): `{"kind": "instant", "value": "2026-06-15T08:00:00-07:00"}`,
    /// `{"kind": "duration", "value": "PT45M"}`, `{"kind": "recurrence", "rrule": "FREQ=WEEKLY"}`…
    /// Instants are RFC 3339 with the offset in force then; the zone is named beside them.
    public var json: JSONValue {
        var object = JSONObject([("kind", .string(kind))])
        switch self {
        case .instant(let value):
            object["value"] = .string(value.rfc3339Text)
            object["timeZone"] = value.timeZoneIdentifier.map(JSONValue.string) ?? .null
        case .date(let date):
            object["value"] = .string(date.description)
        case .timeOfDay(let hour, let minute):
            object["value"] = .string(Self.clockText(hour, minute))
            object["hour"] = .int(hour)
            object["minute"] = .int(minute)
        case .range(let start, let end):
            object["start"] = .string(start.rfc3339Text)
            object["end"] = .string(end.rfc3339Text)
            object["timeZone"] = start.timeZoneIdentifier.map(JSONValue.string) ?? .null
            if let days = wholeDays {
                object["wholeDays"] = .bool(true)
                object["firstDay"] = .string(days.first.description)
                object["lastDay"] = .string(days.last.description)
            } else {
                object["wholeDays"] = .bool(false)
            }
        case .duration(let duration):
            object["value"] = .string(duration.description)
        case .shift(let shift):
            switch shift {
            case .by(let duration): object["by"] = .string(duration.description)
            case .toDate(let date): object["toDate"] = .string(date.description)
            case .toTimeOfDay(let hour, let minute): object["toTimeOfDay"] = .string(Self.clockText(hour, minute))
            case .toInstant(let value):
                object["to"] = .string(value.rfc3339Text)
                object["timeZone"] = value.timeZoneIdentifier.map(JSONValue.string) ?? .null
            }
        case .recurrence(let rule):
            object["rrule"] = rule.map { .string($0.description) } ?? .null
        case .recurrenceEnd(let end):
            switch end {
            case .never: object["never"] = .bool(true)
            case .count(let count): object["count"] = .int(count)
            case .untilDate(let date): object["until"] = .string(date.description)
            case .untilDateTime(let value): object["until"] = .string(value.rfc3339Text)
            }
        }
        return .object(object)
    }

    /// ISO 8601 time of day: `08:00:00`.
    static func clockText(_ hour: Int, _ minute: Int) -> String {
        String(format: "%02d:%02d:00", hour, minute)
    }
}

extension DateTimeValue {
    /// RFC 3339 with the offset in force at the instant (`2026-06-15T08:00:00-07:00`), `Z` for
    /// UTC, no offset for a floating time. A wall time a DST gap skips is written as the
    /// instant it was placed at.
    public var rfc3339Text: String {
        switch kind {
        case .floating(let local):
            return local.description
        case .utc(let seconds):
            return LocalDateTime(wallSeconds: seconds).description + "Z"
        case .zoned(let seconds, _):
            let offset = (expansionZone ?? TimeZone(secondsFromGMT: 0))?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) ?? 0
            let sign = offset < 0 ? "-" : "+"
            let magnitude = abs(offset)
            return LocalDateTime(wallSeconds: seconds + Int64(offset)).description
                + String(format: "%@%02d:%02d", sign, magnitude / 3600, magnitude % 3600 / 60)
        }
    }
}
