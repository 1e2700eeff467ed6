/// The one way times become text for people: the config's `time_format` (strftime directives,
/// `%H:%M` by default, `%-I:%M %p` for 12-hour times), used by the agenda, the engine's replies,
/// cards, prompts and errors, the conversation, `cometcal when` and the daemon. No locale is
/// involved, so the same setting gives the same text on every machine. JSON never goes through
/// it: JSON keeps ISO 8601.
public struct TimeFormat: Sendable, Hashable {
    /// The strftime-style pattern, such as `%H:%M`.
    public let pattern: String

    /// A pattern as given; `unknownDirective(in:)` says whether each directive is known.
    public init(_ pattern: String) {
        self.pattern = pattern
    }

    /// "13:00": what every front end says when no time_format is set.
    public static let twentyFourHour = TimeFormat("%H:%M")

    /// What a pattern is read from: a wall-clock moment, with its day for date directives.
    public struct Moment: Sendable, Hashable {
        public let year: Int
        public let month: Int
        public let day: Int
        /// 0 = Sunday … 6 = Saturday.
        public let weekdayIndex: Int
        public let hour: Int
        public let minute: Int

        public init(year: Int, month: Int, day: Int, weekdayIndex: Int, hour: Int, minute: Int) {
            self.year = year
            self.month = month
            self.day = day
            self.weekdayIndex = weekdayIndex
            self.hour = hour
            self.minute = minute
        }
    }

    /// The directives this knows, in the order a message lists them; `%-x` is `%x` without its
    /// leading zero.
    public static let knownDirectives = ["Y", "y", "m", "-m", "d", "-d", "e", "B", "b", "A", "a", "H", "-H", "I", "-I", "M", "p", "%"]
    static let directives = Set(knownDirectives)

    public static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    public static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// The first directive of `pattern` this does not know (without its `%`; "" for a lone `%`
    /// at the end), or nil when it knows them all: a setting is refused rather than half-printed.
    public static func unknownDirective(in pattern: String) -> String? {
        var iterator = Array(pattern).makeIterator()
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

    /// Why a pattern cannot be a setting, as the config's error message says it; nil when it can.
    public static func problem(in pattern: String) -> String? {
        guard let bad = unknownDirective(in: pattern) else { return nil }
        return "'%\(bad)' is not a format directive this knows; use " + knownDirectives.map { "%" + $0 }.joined(separator: " ")
    }

    /// The moment as the pattern writes it.
    public func text(_ moment: Moment) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let hour12 = moment.hour % 12 == 0 ? 12 : moment.hour % 12
        var result = ""
        var characters = Array(pattern)[...]
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
            switch next {
            case "Y": result += String(moment.year)
            case "y": result += two(moment.year % 100)
            case "m": result += unpadded ? String(moment.month) : two(moment.month)
            case "d": result += unpadded ? String(moment.day) : two(moment.day)
            case "e": result += moment.day < 10 ? " \(moment.day)" : String(moment.day)
            case "B": result += TimeFormat.months[moment.month - 1]
            case "b": result += String(TimeFormat.months[moment.month - 1].prefix(3))
            case "A": result += TimeFormat.weekdays[moment.weekdayIndex]
            case "a": result += String(TimeFormat.weekdays[moment.weekdayIndex].prefix(3))
            case "H": result += unpadded ? String(moment.hour) : two(moment.hour)
            case "I": result += unpadded ? String(hour12) : two(hour12)
            case "M": result += two(moment.minute)
            case "p": result += moment.hour < 12 ? "AM" : "PM"
            case "%": result += "%"
            default: result += "%" + String(next)
            }
        }
        return result
    }
}
