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
    /// The strftime-style format of the agenda's day headings.
    var dateFormat = "%A, %B %-d, %Y"
    /// How every front end writes a time of day (the agenda, replies, cards, prompts, `when`).
    var timeFormat = TimeFormat.twentyFourHour
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
    /// The CalDAV server's password file, as written (resolved by `SettingsFile.usersFilePath`).
    var users: String?
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
            if let problem = TimeFormat.problem(in: value) { throw Problem(message: problem) }
            if key == "date_format" { dateFormat = value } else { timeFormat = TimeFormat(value) }
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
        case "users": users = value
        case "caldav", "caldav_owner": break // cometcald's
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

/// The agenda's day headings and the views' names of days and months, through the one
/// formatter (`TimeFormat`) the engine and every front end share.
enum DateFormat {
    static let weekdays = TimeFormat.weekdays
    static let months = TimeFormat.months

    static func format(_ format: String, date: CalendarDate) -> String {
        TimeFormat(format).text(date, hour: 0, minute: 0)
    }
}
