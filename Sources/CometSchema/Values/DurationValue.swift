/// An RFC 5545 duration: `PT15M`, `-PT30M`, `P1D`, `P2W`, `P1DT2H`.
///
/// Days are nominal (a day across a DST change is 23 or 25 hours) and hours/minutes/seconds
/// exact, as RFC 5545 §3.3.6 says, so the two are kept apart rather than folded into seconds.
public struct DurationValue: Sendable, Hashable, CustomStringConvertible {
    public let isNegative: Bool
    public let weeks: Int
    public let days: Int
    public let hours: Int
    public let minutes: Int
    public let seconds: Int

    public init(isNegative: Bool = false, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.isNegative = isNegative
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Builds a duration from exact seconds, using whole days and weeks only where they divide it.
    public init(totalSeconds: Int) {
        let magnitude = abs(totalSeconds)
        let days = magnitude / 86_400
        let rest = magnitude % 86_400
        if rest == 0, days % 7 == 0, days > 0 {
            self.init(isNegative: totalSeconds < 0, weeks: days / 7)
        } else {
            self.init(isNegative: totalSeconds < 0, days: days, hours: rest / 3600, minutes: (rest % 3600) / 60, seconds: rest % 60)
        }
    }

    /// Nominal days including weeks, signed.
    public var signedDays: Int { (weeks * 7 + days) * (isNegative ? -1 : 1) }
    /// Exact seconds of the time part, signed.
    public var signedTimeSeconds: Int { (hours * 3600 + minutes * 60 + seconds) * (isNegative ? -1 : 1) }
    /// The length assuming 24-hour days: for sorting and display, not for calendar arithmetic.
    public var approximateSeconds: Int { signedDays * 86_400 + signedTimeSeconds }

    /// Parses RFC 5545 `dur-value` (and the ISO 8601 subset it is); nil for anything else,
    /// including a duration longer than the calendar's 10,000 years.
    public init?(parsing text: String) {
        guard let parsed = try? DurationValue(validating: text) else { return nil }
        self = parsed
    }

    /// The longest duration any two date-times of years 1–9999 can be apart, in seconds.
    public static let maximumSeconds: Int64 = 10_000 * 366 * 86_400

    /// Parses RFC 5545 `dur-value`, saying whether the text is not a duration or one too long
    /// for any calendar (`P999999999999999999W`), never wrapping around.
    public init(validating text: String) throws(ValueError) {
        guard let parsed = DurationValue(grammar: text) else {
            throw ValueError(.invalidDuration, "'\(text)' is not a duration; write it like PT15M, -PT30M, P1D or P1DT2H")
        }
        let (weekSeconds, weekOverflow) = Int64(parsed.weeks).multipliedReportingOverflow(by: 604_800)
        let (daySeconds, dayOverflow) = Int64(parsed.days).multipliedReportingOverflow(by: 86_400)
        let (hourSeconds, hourOverflow) = Int64(parsed.hours).multipliedReportingOverflow(by: 3_600)
        let (minuteSeconds, minuteOverflow) = Int64(parsed.minutes).multipliedReportingOverflow(by: 60)
        let parts = [weekSeconds, daySeconds, hourSeconds, minuteSeconds, Int64(parsed.seconds)]
        guard !(weekOverflow || dayOverflow || hourOverflow || minuteOverflow),
              parts.allSatisfy({ $0 <= DurationValue.maximumSeconds }), parts.reduce(0, +) <= DurationValue.maximumSeconds else {
            throw ValueError(.outOfRange, "'\(text)' is out of range: it is longer than 10,000 years, more than any two dates of years 1–9999 can be apart")
        }
        self = parsed
    }

    private init?(grammar text: String) {
        var chars = Substring(text.uppercased())
        var negative = false
        if chars.first == "+" || chars.first == "-" {
            negative = chars.first == "-"
            chars = chars.dropFirst()
        }
        guard chars.first == "P" else { return nil }
        chars = chars.dropFirst()
        var inTime = false
        var number = ""
        // Units come in RFC 5545 order (W, D, then T with H, M, S): `PT30S15M` is not a duration.
        let order: [Character] = ["W", "D", "h", "m", "s"]
        var lastRank = -1
        var fields: [Character: Int] = [:]
        for char in chars {
            if char.isASCIIDigit {
                number.append(char)
                continue
            }
            if char == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            let key: Character = inTime ? Character(char.lowercased()) : char
            let allowed: Set<Character> = inTime ? ["h", "m", "s"] : ["W", "D"]
            guard allowed.contains(key), !number.isEmpty, let rank = order.firstIndex(of: key), rank > lastRank,
                  let value = Int(number) else { return nil }
            lastRank = rank
            fields[key] = value
            number = ""
        }
        guard number.isEmpty, !fields.isEmpty else { return nil }
        if inTime, fields["h"] == nil, fields["m"] == nil, fields["s"] == nil { return nil }
        // RFC 5545 forbids mixing weeks with other units; producers do it anyway, so keep both.
        self.init(isNegative: negative, weeks: fields["W"] ?? 0, days: fields["D"] ?? 0,
                  hours: fields["h"] ?? 0, minutes: fields["m"] ?? 0, seconds: fields["s"] ?? 0)
    }

    public var description: String {
        var text = isNegative ? "-P" : "P"
        if weeks > 0 { text += "\(weeks)W" }
        if days > 0 { text += "\(days)D" }
        if hours > 0 || minutes > 0 || seconds > 0 {
            text += "T"
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if seconds > 0 { text += "\(seconds)S" }
        }
        if weeks == 0, days == 0, hours == 0, minutes == 0, seconds == 0 { text += "T0S" }
        return text
    }
}
