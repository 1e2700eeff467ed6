import Foundation
import CometArguments
import CometSchema
import CometText
import CometIntents
import CometConversation

/// `cometcal when TEXT`: what a temporal expression means, read against a clock and a zone.
/// Needs no store and no schema: it is the parser the date flags and the conversation use.
struct WhenCommand {
    let parsed: ParsedCommand
    let terminal: Terminal

    func run() -> ExitCode {
        let text = parsed.positionals("text").joined(separator: " ")
        let clock: (now: Date, zone: TimeZone)
        do {
            clock = try WhenCommand.readClock(parsed)
        } catch {
            terminal.err(error.rendered)
            return .usage
        }
        let dateOrder: TemporalDateOrder
        let timeFormat: TimeFormat
        do {
            dateOrder = try WhenCommand.readDateOrder(parsed)
            timeFormat = try AppContext.loadConfig().timeFormat
        } catch let failure as CommandFailure {
            terminal.err(failure.message)
            return failure.code
        } catch let usage as UsageError {
            terminal.err(usage.rendered)
            return .usage
        } catch {
            terminal.err("error: \(error)")
            return .internalError
        }
        let reading: TemporalReading
        do {
            reading = try TemporalParser(now: clock.now, timeZone: clock.zone, dateOrder: dateOrder).read(text)
        } catch {
            report(error, in: text)
            return .dataError
        }
        let resolution = reading.resolution
        if parsed.flag("json") {
            guard case .object(var object) = resolution.json else { return .internalError }
            if !reading.notes.isEmpty {
                object["notes"] = .array(reading.notes.map { .object(JSONObject([("message", .string($0.message)), ("column", .int($0.column))])) })
            }
            object["timeZone"] = .string(clock.zone.identifier)
            object["text"] = .string(text)
            let seconds = Int64(clock.now.timeIntervalSince1970.rounded(.down))
            object["now"] = .string(DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: clock.zone.identifier)).rfc3339Text)
            terminal.out(JSONWriter.pretty(.object(object)))
        } else {
            let today = DateTimeValue.utc(clock.now).wallTime(in: clock.zone).date
            terminal.out(terminal.style(WhenCommand.label(resolution), .bold) + "  " + WhenCommand.describe(resolution, timeFormat: timeFormat, today: today))
            // How the text was read when it depended on a setting: never a silent choice.
            for note in reading.notes { terminal.out("note: " + note.message) }
        }
        return .success
    }

    /// --date-order, else the config file's date_order, else month first.
    static func readDateOrder(_ parsed: ParsedCommand) throws -> TemporalDateOrder {
        if let given = parsed.value("date-order") {
            guard let order = TemporalDateOrder(rawValue: given.lowercased()) else {
                throw UsageError.invalidValue(option: "date-order", value: given, reason: "write mdy (3/5 is March 5) or dmy (3/5 is 3 May)", in: parsed)
            }
            return order
        }
        return try AppContext.loadConfig().dateOrder
    }

    /// The zone (--tz, else the zone named in --now, else TZ) and the clock (--now, else
    /// COMETCAL_NOW, else the system clock). `understand` reads its clock the same way.
    static func readClock(_ parsed: ParsedCommand) throws(UsageError) -> (Date, TimeZone) {
        let environment = ProcessInfo.processInfo.environment
        var zone = environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
        var zoneGiven = false
        if let name = parsed.value("tz") {
            do {
                zone = try TimeZones.zone(name)
            } catch {
                throw UsageError.invalidValue(option: "tz", value: name, reason: error.message, in: parsed)
            }
            zoneGiven = true
        }
        let flag = parsed.value("now")
        guard let nowText = flag ?? environment["COMETCAL_NOW"] else { return (Date(), zone) }
        let value: DateTimeValue
        do {
            value = try DateTimeValue(parsing: nowText)
        } catch {
            let reason = "write an ISO 8601 date-time such as 2026-06-10T09:00:00-07:00 or 2026-06-10T09:00[America/Los_Angeles]"
            guard flag != nil else {
                throw UsageError(code: .invalidValue, message: "COMETCAL_NOW is '\(nowText)', not a date-time; \(reason), or give --now.")
            }
            throw UsageError.invalidValue(option: "now", value: nowText, reason: reason, in: parsed)
        }
        if !zoneGiven, let named = value.timeZoneIdentifier, let namedZone = try? TimeZones.zone(named) { zone = namedZone }
        // A clock reading without an offset is on the zone's clocks.
        let instant = value.instant ?? value.localTime.dateTime(in: zone).instant
        guard let instant else { return (Date(), zone) }
        return (instant, zone)
    }

    /// The message, then the text with a caret under the column, as schema diagnostics are shown.
    private func report(_ error: TemporalError, in text: String) {
        terminal.err(["error: \(error)",
                      "  " + text,
                      "  " + String(repeating: " ", count: max(0, error.column - 1)) + "^"].joined(separator: "\n"))
    }

    /// "a range", "a duration": what a value is, for a message that wanted another kind.
    static func article(_ resolution: TemporalResolution) -> String {
        switch resolution {
        case .instant: return "an instant"
        case .date: return "a date"
        case .timeOfDay: return "a time of day"
        case .range: return "a range"
        case .duration: return "a duration"
        case .shift: return "a shift"
        case .recurrence: return "a repeat rule"
        case .recurrenceEnd: return "the end of a series"
        }
    }

    static func label(_ resolution: TemporalResolution) -> String {
        switch resolution {
        case .instant: return "instant"
        case .date: return "date"
        case .timeOfDay: return "time of day"
        case .range: return "range"
        case .duration: return "duration"
        case .shift: return "shift"
        case .recurrence: return "recurrence"
        case .recurrenceEnd: return "series end"
        }
    }

    /// The value in words, then in ISO 8601: "Friday, June 19, 2026, 12:00 (2026-06-19T12:00:00-07:00)".
    /// Times of day are written with `timeFormat` (the config's time_format); a time of day
    /// alone is read on `today` for the format's date directives.
    static func describe(_ resolution: TemporalResolution, timeFormat: TimeFormat, today: CalendarDate) -> String {
        func moment(_ value: DateTimeValue) -> String { day(value.wallTime(in: nil).date) + ", " + clock(value) }
        func clock(_ value: DateTimeValue) -> String { timeFormat.text(value.wallTime(in: nil)) }
        switch resolution {
        case .instant(let value):
            return moment(value) + " (\(value.rfc3339Text)" + (value.timeZoneIdentifier.map { ", \($0)" } ?? "") + ")"
        case .date(let date):
            return day(date) + " (\(date))"
        case .timeOfDay(let hour, let minute):
            return timeFormat.text(today, hour: hour, minute: minute)
        case .range(let start, let end):
            if let days = resolution.wholeDays {
                let span = days.first == days.last ? day(days.first) : day(days.first) + " to " + day(days.last)
                return span + ", whole days (\(start.rfc3339Text) to \(end.rfc3339Text))"
            }
            let endText = start.wallTime(in: nil).date == end.wallTime(in: nil).date ? clock(end) : moment(end)
            return moment(start) + " to " + endText + " (\(start.rfc3339Text) to \(end.rfc3339Text))"
        case .duration(let duration):
            return DurationText.describe(duration) + " (\(duration))"
        case .shift(.by(let duration)):
            let magnitude = DurationValue(weeks: duration.weeks, days: duration.days, hours: duration.hours, minutes: duration.minutes, seconds: duration.seconds)
            return DurationText.describe(magnitude) + (duration.isNegative ? " earlier" : " later") + " (\(duration))"
        case .shift(.toDate(let date)):
            return "to " + day(date) + ", keeping the time (\(date))"
        case .shift(.toTimeOfDay(let hour, let minute)):
            return "to " + timeFormat.text(today, hour: hour, minute: minute) + ", keeping the day"
        case .shift(.toInstant(let value)):
            return "to " + moment(value) + " (\(value.rfc3339Text))"
        case .recurrence(let rule?):
            return RecurrenceText.describe(rule) + " (\(rule))"
        case .recurrence(nil):
            return "does not repeat"
        case .recurrenceEnd(let end):
            switch end {
            case .never: return "never ends"
            case .count(let count): return "after \(count) occurrence\(count == 1 ? "" : "s") (COUNT=\(count))"
            case .untilDate(let date): return "the last day is " + day(date) + " (UNTIL=\(date.icalText))"
            case .untilDateTime(let value): return "until " + moment(value) + " (\(value.rfc3339Text))"
            }
        }
    }

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    private static func day(_ date: CalendarDate) -> String {
        "\(weekdays[date.weekdayIndex]), \(months[date.month - 1]) \(date.day), \(date.year)"
    }
}
