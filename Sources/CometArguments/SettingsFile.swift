import Foundation
import CometText

/// The person's settings file, read by both executables: `key = value` lines and `#` comments,
/// at `$COMETCAL_CONFIG`, else `$XDG_CONFIG_HOME/cometcal/config`, else `~/.config/cometcal/config`.
/// It knows every key either program reads (`SettingsFile.keys`), so neither takes another's key
/// for a typo; what a value means is each program's business.
public struct SettingsFile: Sendable {
    public struct Key: Sendable {
        public let name: String
        public let values: String
        public let help: String
    }

    /// One `key = value` line, with where its value starts for error messages.
    public struct Line: Sendable {
        public let key: String
        public let value: String
        /// `path:line`.
        public let place: String
        public let valueColumn: Int
    }

    public struct Problem: Error, Sendable {
        public let message: String
    }

    public static let keys: [Key] = [
        Key(name: "calendar", values: "a calendar's title", help: "New events go to this calendar when --calendar is not given."),
        Key(name: "timezone", values: "an IANA zone, e.g. Europe/Berlin", help: "The zone times are read and shown in (before $TZ)."),
        Key(name: "week_start", values: "monday, sunday or saturday (any day)", help: "The first column of the month grid and the first day of --week."),
        Key(name: "date_format", values: "strftime, e.g. %a %d.%m.%Y", help: "The agenda's day headings. Default: %A, %B %-d, %Y."),
        Key(name: "time_format", values: "strftime, e.g. %I:%M %p", help: "Times everywhere: the agenda and views, replies, cards, prompts, when, and cometcald's replies. Default: %H:%M."),
        Key(name: "event_length", values: "a duration, e.g. 1h or 30m", help: "How long a new event lasts when it has a start and no --end."),
        Key(name: "date_order", values: "mdy or dmy", help: "How a numeric date such as 3/5 is read: month first (mdy, the default) or day first (dmy)."),
        Key(name: "alarm", values: "as --alarm, e.g. 15m (before the start)", help: "The reminder a new event gets when no --alarm is given."),
        Key(name: "notify", values: "a shell command", help: "Run for each alarm as it fires, by cometcald and cometcal remind (as --notify)."),
        Key(name: "notify_seconds", values: "seconds, e.g. 30", help: "How long the notify command may run before it is killed (as --notify-seconds). Default: 30."),
        Key(name: "users", values: "a file, e.g. ~/.config/cometcal/users", help: "The CalDAV server's password file, read by cometcald and written by cometcal user (as --users); a relative path is from this file's folder. Default: users beside this file."),
        Key(name: "caldav", values: "an address, e.g. 127.0.0.1:5232", help: "cometcald also serves CalDAV on this address (as --caldav)."),
        Key(name: "caldav_owner", values: "a user of the password file", help: "The CalDAV user whose calendars are cometcald's own store (as --caldav-owner). Default: the login name."),
    ]

    public let path: String
    public let lines: [Line]

    /// The file to read: $COMETCAL_CONFIG, else $XDG_CONFIG_HOME/cometcal/config, else
    /// ~/.config/cometcal/config.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["COMETCAL_CONFIG"], !explicit.isEmpty { return explicit }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return base + "/cometcal/config"
    }

    /// The CalDAV server's password file, by one rule for `cometcal user` and `cometcald`:
    /// `flag` (--users), else the `users` key (`configured`; relative to the folder of the
    /// config file at `configPath`), else `users` beside the config file.
    public static func usersFilePath(flag: String?, configured: String?, configPath: String?,
                                     environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let flag { return (flag as NSString).expandingTildeInPath }
        let configFolder = ((configPath ?? defaultPath(environment: environment)) as NSString).deletingLastPathComponent
        if let configured {
            let expanded = (configured as NSString).expandingTildeInPath
            return expanded.hasPrefix("/") ? expanded : (configFolder as NSString).appendingPathComponent(expanded)
        }
        return (configFolder as NSString).appendingPathComponent("users")
    }

    /// Reads the file; nil when there is none (an explicit $COMETCAL_CONFIG must exist).
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Problem) -> SettingsFile? {
        let path = defaultPath(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                throw Problem(message: "error: \(path): cannot be read as a config file (check its permissions)")
            }
            if !(environment["COMETCAL_CONFIG"] ?? "").isEmpty {
                throw Problem(message: "error: \(path): no such config file (named by COMETCAL_CONFIG)")
            }
            return nil
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(message: "error: \(path): is not UTF-8 text")
        }
        return try SettingsFile(text, path: path)
    }

    /// Splits the text into lines; a line that is not `key = value`, or whose key no program
    /// knows, is an error naming the file, line and column.
    public init(_ text: String, path: String) throws(Problem) {
        self.path = path
        var lines: [Line] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let place = "\(path):\(index + 1)"
            let keyColumn = line.distance(from: line.startIndex, to: line.firstIndex { !$0.isWhitespace } ?? line.startIndex) + 1
            guard let equals = line.firstIndex(of: "=") else {
                throw Problem(message: "\(place):\(keyColumn): error: '\(SettingsFile.printable(trimmed))' is not key = value (for example: week_start = monday)")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            let valueColumn = line.distance(from: line.startIndex, to: line.index(after: equals)) + 1
                + (line[line.index(after: equals)...].prefix { $0 == " " || $0 == "\t" }.count)
            let names = SettingsFile.keys.map(\.name)
            guard names.contains(key) else {
                let suggestion = EditDistance.closest(to: key, among: names).map { " Did you mean '\($0)'?" } ?? ""
                throw Problem(message: "\(place):\(keyColumn): error: unknown key '\(SettingsFile.printable(key))'.\(suggestion) Keys: \(names.joined(separator: ", ")).")
            }
            guard !value.isEmpty else {
                throw Problem(message: "\(place):\(valueColumn): error: \(key): no value; write one, or remove the line")
            }
            lines.append(Line(key: key, value: value, place: place, valueColumn: valueColumn))
        }
        self.lines = lines
    }

    /// The last value given for a key.
    public func value(_ key: String) -> Line? { lines.last { $0.key == key } }

    /// Control characters shown as escapes, so a message about a bad line cannot move the cursor.
    static func printable(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value == 0x09 || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }
}
