import Foundation
import CometSchema
import CometText
import CometConversation

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
    /// Where it was read from, when a file was.
    var path: String?

    struct Key {
        let name: String
        let values: String
        let help: String
    }

    static let keys: [Key] = [
        Key(name: "calendar", values: "a calendar's title", help: "New events go to this calendar when --calendar is not given."),
        Key(name: "timezone", values: "an IANA zone, e.g. Europe/Berlin", help: "The zone times are read and shown in (before $TZ)."),
        Key(name: "week_start", values: "monday, sunday or saturday (any day)", help: "The first column of the month grid and the first day of --week."),
        Key(name: "date_format", values: "strftime, e.g. %a %d.%m.%Y", help: "The agenda's day headings. Default: %A, %B %-d, %Y."),
        Key(name: "time_format", values: "strftime, e.g. %I:%M %p", help: "Times in the agenda and the views. Default: %H:%M."),
        Key(name: "event_length", values: "a duration, e.g. 1h or 30m", help: "How long a new event lasts when it has a start and no --end."),
        Key(name: "date_order", values: "mdy or dmy", help: "How a numeric date such as 3/5 is read: month first (mdy, the default) or day first (dmy)."),
        Key(name: "alarm", values: "as --alarm, e.g. 15m (before the start)", help: "The reminder a new event gets when no --alarm is given."),
    ]

    struct Problem: Error {
        let message: String
    }

    /// The file to read: $COMETCAL_CONFIG, else $XDG_CONFIG_HOME/cometcal/config, else
    /// ~/.config/cometcal/config.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["COMETCAL_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/cometcal/config"
    }

    /// Reads the file; a missing file is the defaults (an explicit $COMETCAL_CONFIG must exist).
    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Config {
        let path = defaultPath(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                throw Problem(message: "error: \(path): cannot be read as a config file (check its permissions)")
            }
            if !(environment["COMETCAL_CONFIG"] ?? "").isEmpty {
                throw Problem(message: "error: \(path): no such config file (named by COMETCAL_CONFIG)")
            }
            return Config()
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(message: "error: \(path): is not UTF-8 text")
        }
        var config = try parse(text, path: path)
        config.path = path
        return config
    }

    static func parse(_ text: String, path: String) throws -> Config {
        var config = Config()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let place = "\(path):\(index + 1)"
            let keyColumn = line.distance(from: line.startIndex, to: line.firstIndex { !$0.isWhitespace } ?? line.startIndex) + 1
            guard let equals = line.firstIndex(of: "=") else {
                throw Problem(message: "\(place):\(keyColumn): error: '\(Terminal.printable(trimmed))' is not key = value (for example: week_start = monday)")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let valueColumn = line.distance(from: line.startIndex, to: line.index(after: equals)) + 1
                + (line[line.index(after: equals)...].prefix { $0 == " " || $0 == "\t" }.count)
            guard keys.contains(where: { $0.name == key }) else {
                let suggestion = EditDistance.closest(to: key, among: keys.map(\.name)).map { " Did you mean '\($0)'?" } ?? ""
                throw Problem(message: "\(place):\(keyColumn): error: unknown key '\(Terminal.printable(key))'.\(suggestion) Keys: \(keys.map(\.name).joined(separator: ", ")).")
            }
            do {
                try config.set(key, value)
            } catch let problem as Problem {
                throw Problem(message: "\(place):\(valueColumn): error: \(key): \(problem.message)")
            }
        }
        return config
    }

    private mutating func set(_ key: String, _ value: String) throws {
        guard !value.isEmpty else { throw Problem(message: "no value; write one, or remove the line") }
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
