import CometSchema

/// Recurrence rules and durations in plain words: "every week on Monday and Wednesday". Public
/// for the front ends that say a rule back (`cometcal when`).
public enum RecurrenceText {
    static let dayNames: [RecurrenceRule.Weekday: String] = [
        .monday: "Monday", .tuesday: "Tuesday", .wednesday: "Wednesday", .thursday: "Thursday",
        .friday: "Friday", .saturday: "Saturday", .sunday: "Sunday",
    ]

    public static func describe(_ rule: RecurrenceRule) -> String {
        let unit: String
        switch rule.frequency {
        case .secondly: unit = "second"
        case .minutely: unit = "minute"
        case .hourly: unit = "hour"
        case .daily: unit = "day"
        case .weekly: unit = "week"
        case .monthly: unit = "month"
        case .yearly: unit = "year"
        }
        var text: String
        let weekdays: [RecurrenceRule.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
        if rule.frequency == .weekly, rule.interval == 1, Set(rule.byDay.map(\.weekday)) == Set(weekdays), rule.byDay.allSatisfy({ $0.ordinal == nil }) {
            text = "every weekday"
        } else {
            text = rule.interval == 1 ? "every \(unit)" : "every \(rule.interval) \(unit)s"
            if !rule.byDay.isEmpty {
                let days = rule.byDay.map { occurrence -> String in
                    let name = dayNames[occurrence.weekday] ?? occurrence.weekday.rawValue
                    guard let ordinal = occurrence.ordinal else { return name }
                    return ordinalText(ordinal) + " " + name
                }
                // "on the second Tuesday", "on the last Friday", but "on Monday and Wednesday".
                let article = rule.byDay.first?.ordinal != nil ? "the " : ""
                text += " on " + article + list(days)
            }
            if !rule.byMonthDay.isEmpty {
                let lastDays = rule.byMonthDay.allSatisfy { $0 < 0 }
                text += (lastDays ? " on the " : " on day ") + list(rule.byMonthDay.map { $0 < 0 ? ordinalText($0) + " day" : String($0) })
            }
            if !rule.byMonth.isEmpty {
                text += " in " + list(rule.byMonth.compactMap { (1...12).contains($0) ? String(Presenter.months[$0 - 1]) : nil })
            }
        }
        switch rule.end {
        case .never: break
        case .count(let count): text += count == 1 ? ", once" : ", \(count) times"
        case .untilDate(let date): text += ", until \(date)"
        case .untilDateTime(let value): text += ", until \(value.localTime.date)"
        }
        return text
    }

    static func ordinalText(_ number: Int) -> String {
        switch number {
        case -1: return "last"
        case -2: return "second-to-last"
        case 1: return "first"
        case 2: return "second"
        case 3: return "third"
        case 4: return "fourth"
        case 5: return "fifth"
        default: return number > 0 ? "\(number)th" : "\(-number)th-to-last"
        }
    }

    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
    }
}

public enum DurationText {
    /// "15 minutes", "1 hour 30 minutes", "2 days".
    public static func describe(_ duration: DurationValue) -> String {
        var parts: [String] = []
        func add(_ count: Int, _ unit: String) {
            if count > 0 { parts.append("\(count) \(unit)\(count == 1 ? "" : "s")") }
        }
        add(duration.weeks, "week")
        add(duration.days, "day")
        add(duration.hours, "hour")
        add(duration.minutes, "minute")
        add(duration.seconds, "second")
        return parts.isEmpty ? "0 minutes" : parts.joined(separator: " ")
    }
}
