import Foundation
import CometSchema
import CometText
import CometConversation

/// Reads the values people type on a command line: ISO 8601 and simple date forms
/// (`2026-06-15 08:00`, `tomorrow 10:00`, `friday 9am`, `+1h`), and after them every temporal
/// expression `cometcal when` reads (`next friday at noon`, `in 2 hours`), durations (`15m`, `1h30m`,
/// `-PT15M`), recurrence (`weekly`, RRULEs), people (`Ada <ada@example.org>`), enum cases, and
/// JSON (`{…}`, `[…]`) for structured values. Times without a zone are read in the person's zone.
///
/// A value is read by its type, never guessed from its first character: text is text
/// (`[WIP] Review`, `{draft`), and JSON is read only for structured types — places, people,
/// transient entities, unions, and arrays of them.
struct ValueText {
    let registry: Registry
    let zone: TimeZone
    let now: Date
    /// The config file's date_order, for numeric dates such as 3/5.
    var dateOrder = TemporalDateOrder.mdy

    struct Problem: Error {
        let message: String
    }

    func parse(_ text: String, as type: TypeExpression) throws -> Value {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if takesJSON(type.element), let value = try json(trimmed, as: type.element.required) { return value }
        let value = try parseSingle(trimmed, as: type.element)
        do {
            try registry.validate(value, as: type.element)
        } catch {
            throw Problem(message: "\(error)")
        }
        return value
    }

    /// An array parameter: one value per flag, or all of them as one JSON array when the items
    /// are structured (`--attendee '[{…}, {…}]'`).
    func parseArray(_ texts: [String], as type: TypeExpression) throws -> Value {
        if texts.count == 1, takesJSON(type.element), texts[0].trimmingCharacters(in: .whitespaces).hasPrefix("["),
           let value = try json(texts[0].trimmingCharacters(in: .whitespaces), as: type.required) {
            return value
        }
        return .array(try texts.map { try parse($0, as: type.element) })
    }

    /// Types whose values can be written as JSON: those with more than one part.
    private func takesJSON(_ type: TypeExpression) -> Bool {
        switch type.base {
        case .builtin(let builtin): return builtin == .place || builtin == .person
        case .union: return true
        case .entity(let name): return registry.entity(name)?.kind == .transient
        case .enumeration: return false
        }
    }

    /// A structured value written as JSON, or nil when the text is not JSON and is left to the
    /// type's text form (`[Team] Ada <ada@example.org>`, `"quoted" place`). Text that opens an
    /// object or an array of values (`{…`, `[{…`) was meant as JSON: malformed, it is an error.
    private func json(_ text: String, as type: TypeExpression) throws -> Value? {
        guard let first = text.first, first == "{" || first == "[" || first == "\"" else { return nil }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(text)
        } catch {
            guard ValueText.opensJSON(text) else { return nil }
            let hint = textCase(of: type).map { "; for text that starts like JSON, write {\"\($0)\": \"…\"}" } ?? ""
            throw Problem(message: "'\(ValueText.shown(text))' is not valid JSON: \(error)\(hint)")
        }
        do {
            return try registry.decode(parsed, as: type)
        } catch {
            // JSON text ("Lab 3") that fits no case may still be the type's text form; an object
            // or array of the wrong shape is a mistake to report.
            switch parsed {
            case .object, .array: throw Problem(message: "\(error)")
            default: return nil
            }
        }
    }

    /// The answers an enum takes, for prompts and errors: each case's name, then its display
    /// phrase ("this (only this event), future (this and future events), all (all events)").
    static func answers(_ enumeration: EnumDefinition) -> String {
        enumeration.cases.map { enumCase in
            enumCase.phrases.first.map { "\(enumCase.name) (\($0))" } ?? enumCase.name
        }.joined(separator: ", ")
    }

    /// A value quoted in a message: a long one (a pasted file) shown by its start and length,
    /// so an error never repeats megabytes back.
    static func shown(_ text: String) -> String {
        guard text.count > 80 else { return text }
        return String(text.prefix(60)) + "… (\(NumberText.grouped(text.count)) characters)"
    }

    /// "a" or "an", by the sound of the first letter (good enough for type names).
    static func article(_ noun: String) -> String {
        guard let first = noun.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    /// A reminder's time as people say it: `15m` and `15m before` count back from the start,
    /// `5m after` and `+5m` forward, `-15m` back; an ISO 8601 duration (`-PT15M`) keeps its own
    /// sign, as RFC 5545 writes it. Nil when the text is not a duration at all.
    func leadTime(_ text: String) throws -> DurationValue? {
        var body = text.lowercased().trimmingCharacters(in: .whitespaces)
        var direction: Int?
        for (suffix, sign) in [(" before the start", -1), (" after the start", 1), (" before start", -1), (" after start", 1),
                               (" before", -1), (" after", 1), (" earlier", -1), (" later", 1)] where body.hasSuffix(suffix) {
            body = String(body.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            direction = sign
            break
        }
        let signed = body.first == "+" || body.first == "-"
        if signed, direction != nil {
            throw Problem(message: "'\(ValueText.shown(text))' says its direction twice; write 15m before, 5m after, -15m or +5m")
        }
        let unsigned = signed ? String(body.dropFirst()) : body
        if unsigned.hasPrefix("p") {
            guard direction == nil, let iso = DurationValue(parsing: body) else { return nil }
            return iso
        }
        guard let length = try Self.friendlyDuration(unsigned) else { return nil }
        if body.first == "+" || direction == 1 || length.approximateSeconds == 0 { return length }
        return DurationValue(isNegative: true, weeks: length.weeks, days: length.days, hours: length.hours, minutes: length.minutes, seconds: length.seconds)
    }

    /// A time of day alone, as people write one: `9:00`, `09:30`, `9am`, `9:30 pm`, `at 9:00`.
    /// Nil for anything with a day, a sign or a length (`friday 9:00`, `-15m`, `9`).
    static func clockTime(_ text: String) -> (hour: Int, minute: Int)? {
        var body = text.lowercased().trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("at ") { body = String(body.dropFirst(3)).trimmingCharacters(in: .whitespaces) }
        var meridiem: String?
        for suffix in ["am", "pm", "a.m.", "p.m."] where body.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            body = String(body.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              var hour = Int(parts[0]) else { return nil }
        let minute = parts.count == 2 ? Int(parts[1]) ?? 60 : 0
        guard minute < 60, parts.count == 2 || meridiem != nil else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "p" ? 12 : 0)
        }
        guard hour < 24 else { return nil }
        return (hour, minute)
    }

    /// The day a text names when it names only a day, no time: `friday`, `2026-06-15`,
    /// `tomorrow`, `June 15th`. Nil for a moment (`friday 9am`, `+1h`, `now`).
    func dateOnly(_ text: String) -> CalendarDate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = CalendarDate(parsing: trimmed) { return date }
        if trimmed.first == "+" || trimmed.first == "-" || trimmed.lowercased() == "now" { return nil }
        if !trimmed.contains(" "), let local = try? relative(trimmed) { return local.date }
        if (try? DateTimeValue(parsing: trimmed)) != nil { return nil }
        if case .date(let date)? = try? temporal.parse(trimmed) { return date }
        return nil
    }

    /// The case of a union that holds plain text (a location's `text`), if any.
    private func textCase(of type: TypeExpression) -> String? {
        guard case .union(let name) = type.base else { return nil }
        return registry.union(name)?.cases.first { $0.type.base == .builtin(.string) && !$0.type.isArray }?.name
    }

    /// `{…`, or `[` followed by `{`, `[`, `"` or `]`: the start of a JSON object or array.
    private static func opensJSON(_ text: String) -> Bool {
        if text.hasPrefix("{") { return true }
        guard text.hasPrefix("[") else { return false }
        guard let next = text.dropFirst().first(where: { !$0.isWhitespace }) else { return true }
        return next == "{" || next == "[" || next == "\"" || next == "]"
    }

    private func parseSingle(_ text: String, as type: TypeExpression) throws -> Value {
        switch type.base {
        case .builtin(let builtin): return try parseBuiltin(text, builtin)
        case .enumeration(let name):
            // A case by its name or by the words a prompt offers ("all events", "this and future").
            guard let enumeration = registry.enumeration(name) else { throw Problem(message: "unknown enum \(name)") }
            if let found = enumeration.enumCase(answering: text) { return .enumCase(found.name) }
            throw Problem(message: "'\(ValueText.shown(text))' is not one of: \(ValueText.answers(enumeration))")

        case .union(let name):
            guard let union = registry.union(name) else { throw Problem(message: "unknown union \(name)") }
            // The first case (in schema order) that can read the text: "-15m" is an alarm's
            // `relative` duration before it is an absolute time; "Lab 3" is a location's `text`.
            for unionCase in union.cases {
                if unionCase.annotations.contains(named: "leadTime"), unionCase.type.base == .builtin(.duration) {
                    if let lead = try leadTime(text) { return .union(unionCase.name, .duration(lead)) }
                    continue
                }
                if let value = try? parse(text, as: unionCase.type) { return .union(unionCase.name, value) }
            }
            let noun = IntentFlags.kebab(name.name).replacingOccurrences(of: "-", with: " ")
            let forms = union.cases.map { unionCase -> String in
                if unionCase.annotations.contains(named: "leadTime") { return "a duration (15m or 1h before the start, 5m after)" }
                switch unionCase.type.base {
                case .builtin(.duration): return "a duration (15m, 1h30m)"
                case .builtin(.dateTime): return "a date and time (friday 9:00, 2026-06-15 08:00)"
                case .builtin(.date): return "a date (2026-06-15, friday)"
                case .builtin(.string): return "text"
                default: return "{\"\(unionCase.name)\": …} in JSON"
                }
            }
            throw Problem(message: "'\(ValueText.shown(text))' is not \(ValueText.article(noun)) \(noun); write \(forms.joined(separator: " or "))")
        case .entity(let name):
            guard let entity = registry.entity(name), entity.kind == .transient, let title = entity.titleProperty else {
                throw Problem(message: "name a \(name.name) by its title or id")
            }
            // A transient entity from text: its title property, the rest defaulted.
            var properties: [String: Value] = [:]
            for property in entity.properties { if let value = property.defaultValue { properties[property.name] = value } }
            properties[title.name] = try parse(text, as: title.type.required)
            return .object(properties)
        }
    }

    private func parseBuiltin(_ text: String, _ builtin: BuiltinType) throws -> Value {
        switch builtin {
        case .string: return .string(text)
        case .int:
            guard let number = Int(text) else { throw Problem(message: "'\(ValueText.shown(text))' is not a whole number") }
            return .int(number)
        case .double:
            guard let number = Double(text) else { throw Problem(message: "'\(ValueText.shown(text))' is not a number") }
            return .double(number)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "y", "1", "on": return .bool(true)
            case "false", "no", "n", "0", "off": return .bool(false)
            default: throw Problem(message: "'\(ValueText.shown(text))' is not yes or no")
            }
        case .date:
            if let date = CalendarDate(parsing: text) { return .date(date) }
            if let local = try? relative(text) { return .date(local.date) }
            switch try? temporal.parse(text) {
            case .date(let date)?: return .date(date)
            case .instant(let value)?: return .date(value.wallTime(in: zone).date)
            default: throw Problem(message: "'\(ValueText.shown(text))' is not a date; write 2026-06-15, today, tomorrow, June 15th or next friday")
            }
        case .dateTime: return .dateTime(try dateTime(text))
        case .duration: return .duration(try duration(text))
        case .url:
            guard let url = URL(string: text), url.scheme != nil else { throw Problem(message: "'\(ValueText.shown(text))' is not an absolute URL (https://…)") }
            return .url(url)
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw Problem(message: "'\(ValueText.shown(text))' is not a UUID") }
            return .uuid(uuid)
        case .person: return .person(PersonValue(displayText: text))
        case .place:
            throw Problem(message: "write a place as JSON: {\"name\": \"Observatory\", \"address\": \"…\", \"latitude\": 52.5, \"longitude\": 13.4}")
        case .recurrence:
            do {
                return .recurrence(try RecurrenceRule(parsing: text))
            } catch {
                // An RRULE's own error says which part is wrong; words are read as `when` reads them.
                if text.contains("=") { throw Problem(message: error.message) }
                if case .recurrence(let rule?)? = try? temporal.parse(text) { return .recurrence(rule) }
                throw Problem(message: "'\(ValueText.shown(text))' is not a repeat rule; write daily, weekly, weekdays, every 2 weeks, every other tuesday, monthly, yearly, or an RRULE such as FREQ=WEEKLY;BYDAY=MO,WE")
            }
        }
    }

    // MARK: Time

    func dateTime(_ text: String) throws -> DateTimeValue {
        if let parsed = try? DateTimeValue(parsing: text) {
            // A bare wall time means the person's own clock, not a floating time.
            if case .floating(let local) = parsed.kind { return local.dateTime(in: zone) }
            return parsed
        }
        let shortForm: LocalDateTime?
        do {
            shortForm = try relative(text)
        } catch {
            // "tomorrow at noon" starts like a short form but is a temporal expression.
            if let value = try? temporalDateTime(text) { return value }
            throw error
        }
        if let shortForm { return shortForm.dateTime(in: zone) }
        if let date = CalendarDate(parsing: text), let local = LocalDateTime(date: date, hour: 0, minute: 0) {
            return local.dateTime(in: zone)
        }
        return try temporalDateTime(text)
    }

    /// A span of time as `cometcal when` reads it: a range ("next week", "from 2 to 4pm") as
    /// it is, a day ("tomorrow", 2026-06-12) from its midnight to the next, a moment from it to
    /// the end of its day.
    func range(_ text: String) throws -> (start: DateTimeValue, end: DateTimeValue) {
        if let date = CalendarDate(parsing: text) {
            let start = try wall(date, 0, 0).dateTime(in: zone)
            return (start, start.adding(days: 1))
        }
        let resolution: TemporalResolution
        do {
            resolution = try temporal.parse(text)
        } catch {
            throw Problem(message: "'\(ValueText.shown(text))' is not a span of time (\(error)); write today, tomorrow, friday, next week, this weekend, from 2 to 4pm or 2026-06-15")
        }
        switch resolution {
        case .range(let start, let end):
            return (start, end)
        case .date(let date):
            let start = try wall(date, 0, 0).dateTime(in: zone)
            return (start, start.adding(days: 1))
        case .instant(let value):
            let day = value.wallTime(in: zone).date
            return (value, try wall(day, 0, 0).dateTime(in: zone).adding(days: 1))
        case .timeOfDay(let hour, let minute):
            let start = try wall(today.date, hour, minute).dateTime(in: zone)
            return (start, try wall(today.date, 0, 0).dateTime(in: zone).adding(days: 1))
        default:
            throw Problem(message: "'\(ValueText.shown(text))' is \(WhenCommand.article(resolution)), not a span of time; write today, tomorrow, next week or from 2 to 4pm")
        }
    }

    /// The parser of `cometcal when` and the conversation, on the same clock and zone.
    private var temporal: TemporalParser { TemporalParser(now: now, timeZone: zone, dateOrder: dateOrder) }

    /// A temporal expression that names one moment: an instant, a day (its midnight) or a time
    /// of day (today's).
    private func temporalDateTime(_ text: String) throws -> DateTimeValue {
        let resolution: TemporalResolution
        do {
            resolution = try temporal.parse(text)
        } catch {
            throw Problem(message: "'\(ValueText.shown(text))' is not a date and time (\(error)); write 2026-06-15 08:00, 2026-06-15T08:00:00+02:00, tomorrow 10:00, friday 9am, next friday at noon, in 2 hours or +1h")
        }
        switch resolution {
        case .instant(let value):
            return value
        case .date(let date):
            return try wall(date, 0, 0).dateTime(in: zone)
        case .timeOfDay(let hour, let minute):
            return try wall(today.date, hour, minute).dateTime(in: zone)
        default:
            throw Problem(message: "'\(ValueText.shown(text))' is \(WhenCommand.article(resolution)), not a date and time; write one moment, such as next friday at noon or in 2 hours")
        }
    }

    private func wall(_ date: CalendarDate, _ hour: Int, _ minute: Int) throws -> LocalDateTime {
        guard let local = LocalDateTime(date: date, hour: hour, minute: minute) else { throw Problem(message: "\(date) \(hour):\(minute) is not a time") }
        return local
    }

    private var today: LocalDateTime { DateTimeValue.utc(now).wallTime(in: zone) }

    /// `now`, `+90m`, `-1d`, `today`, `tomorrow 10:00`, `monday 9am`.
    func relative(_ text: String) throws -> LocalDateTime? {
        let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
        if lower == "now" { return today }
        if let first = lower.first, first == "+" || first == "-", lower.count > 1 {
            guard let offset = try DurationValue(parsing: lower) ?? Self.friendlyDuration(lower) else { return nil }
            do {
                let moved = try DateTimeValue.utc(now).checkedAdding(seconds: Int64(offset.approximateSeconds))
                return LocalDateTime(wallSeconds: moved.wallTime(in: zone).wallSeconds)
            } catch {
                throw Problem(message: "'\(ValueText.shown(text))' is out of range: CometCal holds dates of years 1–9999")
            }
        }
        let words = lower.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return nil }
        var day: CalendarDate?
        let base = today.date
        func shifted(_ days: Int) -> CalendarDate { LocalDateTime(wallSeconds: (base.dayNumber + Int64(days)) * 86_400).date }
        // "next monday" is left to the temporal parser, which owns what "next" means.
        switch words[0] {
        case "today": day = base
        case "tomorrow": day = shifted(1)
        case "yesterday": day = shifted(-1)
        default:
            let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
            if let index = names.firstIndex(where: { $0 == words[0] || $0.prefix(3) == words[0] }) {
                let current = base.weekdayIndex
                var ahead = (index - current + 7) % 7
                if ahead == 0 { ahead = 7 }
                day = shifted(ahead)
            } else if let date = CalendarDate(parsing: words[0]) {
                day = date
            }
        }
        guard let day else { return nil }
        guard words.count > 1 else { return LocalDateTime(date: day, hour: 0, minute: 0) }
        guard let (hour, minute) = clockTime(words.dropFirst().joined(separator: " ")) else {
            throw Problem(message: "'\(words.dropFirst().joined(separator: " "))' is not a time of day; write 10:00, 9am or 14:30")
        }
        return LocalDateTime(date: day, hour: hour, minute: minute)
    }

    /// `10:00`, `9am`, `9:30 pm`, `noon`, `midnight`.
    func clockTime(_ text: String) -> (Int, Int)? {
        var lower = text.lowercased().replacingOccurrences(of: " ", with: "")
        if lower == "noon" { return (12, 0) }
        if lower == "midnight" { return (0, 0) }
        var offset = 0
        if lower.hasSuffix("am") || lower.hasSuffix("pm") {
            offset = lower.hasSuffix("pm") ? 12 : 0
            lower.removeLast(2)
            let parts = lower.split(separator: ":").compactMap { Int($0) }
            guard let hour = parts.first, (1...12).contains(hour), parts.count <= 2 else { return nil }
            let minute = parts.count == 2 ? parts[1] : 0
            guard (0...59).contains(minute) else { return nil }
            return ((hour % 12) + offset, minute)
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        return (hour, minute)
    }

    func duration(_ text: String) throws -> DurationValue { try Self.duration(text) }

    static func duration(_ text: String) throws -> DurationValue {
        if let parsed = try DurationValue(parsing: text) ?? friendlyDuration(text.lowercased()) { return parsed }
        throw Problem(message: "'\(ValueText.shown(text))' is not a duration; write 15m, 1h30m, 2d, -10m or PT15M")
    }

    /// `15m`, `1h30m`, `2d`, `1w`, `-10m`, `90 minutes`.
    static func friendlyDuration(_ text: String) throws -> DurationValue? {
        var body = Substring(text.replacingOccurrences(of: " ", with: ""))
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        let units: [(String, Int)] = [("weeks", 604_800), ("week", 604_800), ("w", 604_800), ("days", 86_400), ("day", 86_400), ("d", 86_400),
                                      ("hours", 3600), ("hour", 3600), ("h", 3600), ("minutes", 60), ("minute", 60), ("min", 60), ("m", 60),
                                      ("seconds", 1), ("second", 1), ("s", 1)]
        var total = 0
        var sawUnit = false
        while !body.isEmpty {
            let digits = body.prefix { $0.isNumber }
            guard !digits.isEmpty, let number = Int(digits) else { return nil }
            body = body.dropFirst(digits.count)
            guard let unit = units.first(where: { body.hasPrefix($0.0) }) else { return nil }
            body = body.dropFirst(unit.0.count)
            let (seconds, overflow) = number.multipliedReportingOverflow(by: unit.1)
            let (sum, sumOverflow) = total.addingReportingOverflow(seconds)
            guard !overflow, !sumOverflow, Int64(sum) <= DurationValue.maximumSeconds else {
                throw Problem(message: "'\(ValueText.shown(text))' is out of range: longer than 10,000 years, more than any two dates of years 1–9999 can be apart")
            }
            total = sum
            sawUnit = true
        }
        guard sawUnit else { return nil }
        return DurationValue(totalSeconds: negative ? -total : total)
    }
}
