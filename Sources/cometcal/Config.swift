import Foundation
import CometSchema
import CometText
import CometConversation
import CometArguments

/// The person's settings, from `$XDG_CONFIG_HOME/cometcal/config` (else
/// `~/.config/cometcal/config`, or `$COMETCAL_CONFIG`): `key = value` lines, `#` comments.
/// Every key is in `Config.keys`, documented in docs/cli.md; an unknown key or a bad value is
/// an error that names the file, line and column, with a did-you-mean.
struct Config {
    /// New events go to this calendar when --calendar is not given.
    var calendar: String?
    /// The zone times are read and shown in; before $TZ.
    var timeZone: TimeZone?
    /// The first day of a week (0 = Sunday … 6 = Saturday), for the week and month views.
    var weekStart = 1
    /// strftime-style formats for the agenda's day headings and times.
    var dateFormat = "%A, %B %-d, %Y"
    var timeFormat = "%H:%M"
    /// How long a new event lasts when it has a start and no --end.
    var eventLength: DurationValue?
    /// The reminder a new event gets when no --alarm is given (as --alarm reads it: 15m is before).
    var alarm: String?
    /// How a numeric date such as 3/5 is read by `when` and the date flags: month first or day first.
    var dateOrder = TemporalDateOrder.mdy
    /// The command run for each alarm as it fires (`cometcal remind`; cometcald reads it too).
    var notify: String?
    /// How long that command may run before it is killed.
    var notifySeconds: Double?
    /// Where it was read from, when a file was.
    var path: String?

    /// Every key of the settings file (shared with cometcald, which reads `notify` too).
    static var keys: [SettingsFile.Key] { SettingsFile.keys }

    struct Problem: Error {
        let message: String
    }

    /// Reads the file; a missing file is the defaults (an explicit $COMETCAL_CONFIG must exist).
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Config {
        let file: SettingsFile?
        do {
            file = try SettingsFile.load(environment: environment)
        } catch {
            throw Problem(message: error.message)
        }
        guard let file else { return Config() }
        var config = try parse(file)
        config.path = file.path
        return config
    }

    static func parse(_ text: String, path: String) throws -> Config {
        do {
            return try parse(SettingsFile(text, path: path))
        } catch let problem as SettingsFile.Problem {
            throw Problem(message: problem.message)
        }
    }

    private static func parse(_ file: SettingsFile) throws -> Config {
        var config = Config()
        for line in file.lines {
            do {
                try config.set(line.key, line.value)
            } catch let problem as Problem {
                throw Problem(message: "\(line.place):\(line.valueColumn): error: \(line.key): \(problem.message)")
            }
        }
        return config
    }

    private mutating func set(_ key: String, _ value: String) throws {
        switch key {
        case "calendar": calendar = value
        case "timezone":
            guard let zone = TimeZone(identifier: value) else {
                throw Problem(message: "'\(value)' is not an IANA time zone (such as Europe/Berlin or America/New_York)")
            }
            timeZone = zone
        case "week_start":
            let names = DateFormat.weekdays.map { $0.lowercased() }
            guard let index = names.firstIndex(where: { $0 == value.lowercased() || $0.prefix(3) == value.lowercased() }) else {
                throw Problem(message: "'\(value)' is not a day; write monday, sunday or saturday")
            }
            weekStart = index
        case "date_format", "time_format":
            if let bad = DateFormat.unknownDirective(in: value) {
                throw Problem(message: "'%\(bad)' is not a format directive this knows; use %Y %y %m %-m %d %-d %e %B %b %A %a %H %-H %I %-I %M %p %%")
            }
            if key == "date_format" { dateFormat = value } else { timeFormat = value }
        case "event_length":
            guard let length = try? ValueText.duration(value), length.approximateSeconds > 0 else {
                throw Problem(message: "'\(value)' is not a length; write 1h, 30m or 1h30m")
            }
            eventLength = length
        case "date_order":
            guard let order = TemporalDateOrder(rawValue: value.lowercased()) else {
                throw Problem(message: "'\(value)' is not a date order; write mdy (3/5 is March 5) or dmy (3/5 is 3 May)")
            }
            dateOrder = order
        case "notify": notify = value
        case "notify_seconds":
            guard let seconds = Double(value), seconds > 0 else {
                throw Problem(message: "'\(value)' is not a number of seconds above 0")
            }
            notifySeconds = seconds
        default:
            alarm = value
        }
    }
}

/// A small strftime: the directives a date or a time needs, with `%-d` for no padding. No
/// locale is involved, so the same settings give the same text everywhere.
enum DateFormat {
    static let directives: Set<String> = ["Y", "y", "m", "-m", "d", "-d", "e", "B", "b", "A", "a", "H", "-H", "I", "-I", "M", "p", "%"]

    static func unknownDirective(in format: String) -> String? {
        var iterator = Array(format).makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { continue }
            guard var next = iterator.next() else { return "" }
            var directive = String(next)
            if next == "-" {
                guard let after = iterator.next() else { return "-" }
                next = after
                directive += String(after)
            }
            if !directives.contains(directive) { return directive }
        }
        return nil
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    static func format(_ format: String, date: CalendarDate, hour: Int = 0, minute: Int = 0) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var result = ""
        var characters = Array(format)[...]
        while let character = characters.popFirst() {
            guard character == "%", var next = characters.popFirst() else {
                result.append(character)
                continue
            }
            var unpadded = false
            if next == "-", let after = characters.popFirst() {
                unpadded = true
                next = after
            }
            let hour12 = hour % 12 == 0 ? 12 : hour % 12
            switch next {
            case "Y": result += String(date.year)
            case "y": result += two(date.year % 100)
            case "m": result += unpadded ? String(date.month) : two(date.month)
            case "d": result += unpadded ? String(date.day) : two(date.day)
            case "e": result += date.day < 10 ? " \(date.day)" : String(date.day)
            case "B": result += months[date.month - 1]
            case "b": result += String(months[date.month - 1].prefix(3))
            case "A": result += weekdays[date.weekdayIndex]
            case "a": result += String(weekdays[date.weekdayIndex].prefix(3))
            case "H": result += unpadded ? String(hour) : two(hour)
            case "I": result += unpadded ? String(hour12) : two(hour12)
            case "M": result += two(minute)
            case "p": result += hour < 12 ? "AM" : "PM"
            case "%": result += "%"
            default: result += "%" + String(next)
            }
        }
        return result
    }
}
