import Foundation
import Testing
import CometSchema
@testable import CometConversation

/// One row of a table: the text, and its resolution written the way the table reads it:
///
///     time 15:00                  date 2026-06-19             instant 2026-06-19T12:00:00-07:00
///     days 2026-06-13 2026-06-14  range START END             duration PT45M
///     shift PT1H / shift -PT30M   shift to 2026-06-11         shift to 12:00
///     rrule FREQ=WEEKLY           rrule none                  until 2026-06-30 / count 10
///     error COLUMN CODE
struct TemporalCase: Sendable, CustomTestStringConvertible {
    let text: String
    let expected: String

    init(_ text: String, _ expected: String) {
        self.text = text
        self.expected = expected
    }

    var testDescription: String { "\"\(text)\" → \(expected)" }
}

/// A fixed clock and zone.
struct TemporalClock: Sendable {
    let now: Date
    let zone: TimeZone
    let dateOrder: TemporalDateOrder

    /// `at` is an RFC 3339 instant with its offset.
    init(_ at: String, _ zone: String, dateOrder: TemporalDateOrder = .mdy) {
        let value = try? DateTimeValue(parsing: at)
        now = value?.instant ?? Date(timeIntervalSince1970: 0)
        self.zone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0) ?? .current
        self.dateOrder = dateOrder
    }

    var parser: TemporalParser { TemporalParser(now: now, timeZone: zone, dateOrder: dateOrder) }

    func reading(_ text: String) -> String {
        do {
            return TemporalClock.render(try parser.parse(text))
        } catch {
            return "error \(error.column) \(error.code.rawValue)"
        }
    }

    static func render(_ resolution: TemporalResolution) -> String {
        switch resolution {
        case .instant(let value): return "instant \(value.rfc3339Text)"
        case .date(let date): return "date \(date)"
        case .timeOfDay(let hour, let minute): return String(format: "time %02d:%02d", hour, minute)
        case .range(let start, let end):
            if let days = resolution.wholeDays { return "days \(days.first) \(days.last)" }
            return "range \(start.rfc3339Text) \(end.rfc3339Text)"
        case .duration(let duration): return "duration \(duration)"
        case .shift(.by(let duration)): return "shift \(duration)"
        case .shift(.toDate(let date)): return "shift to \(date)"
        case .shift(.toTimeOfDay(let hour, let minute)): return String(format: "shift to %02d:%02d", hour, minute)
        case .shift(.toInstant(let value)): return "shift to \(value.rfc3339Text)"
        case .recurrence(let rule): return "rrule " + (rule?.description ?? "none")
        case .recurrenceEnd(.count(let count)): return "count \(count)"
        case .recurrenceEnd(.untilDate(let date)): return "until \(date)"
        case .recurrenceEnd(let end): return "end \(end)"
        }
    }
}
