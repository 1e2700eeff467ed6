import Foundation
import CometDAV
import CometSchema

/// The iCalendar text CometCal's own writer produced, as the component tree a calendar-query
/// filter is evaluated against. Only our export's output is read here (never a client's body:
/// PUT goes through the importer and libical), so the content lines are well-formed: unfolded,
/// split at the first unquoted `:`, parameters at unquoted `;` and `,`.
enum ICalendarComponents {
    static func parse(_ text: String) -> DAVComponent {
        var stack: [(name: String, properties: [DAVComponentProperty], components: [DAVComponent])] = []
        var root: DAVComponent?
        for line in unfolded(text) {
            guard let property = contentLine(line) else { continue }
            switch property.name {
            case "BEGIN":
                stack.append((property.value.uppercased(), [], []))
            case "END":
                guard let open = stack.popLast() else { continue }
                let component = DAVComponent(name: open.name, properties: open.properties, components: open.components)
                if stack.isEmpty { root = root ?? component } else { stack[stack.count - 1].components.append(component) }
            default:
                if !stack.isEmpty { stack[stack.count - 1].properties.append(property) }
            }
        }
        return root ?? DAVComponent(name: "VCALENDAR")
    }

    private static func unfolded(_ text: String) -> [String] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else {
                lines.append(line)
            }
        }
        return lines
    }

    private static func contentLine(_ line: String) -> DAVComponentProperty? {
        var name = ""
        var parameters: [DAVComponentParameter] = []
        var index = line.startIndex
        while index < line.endIndex, line[index] != ";", line[index] != ":" { name.append(line[index]); index = line.index(after: index) }
        while index < line.endIndex, line[index] == ";" {
            index = line.index(after: index)
            var parameterName = ""
            while index < line.endIndex, line[index] != "=" { parameterName.append(line[index]); index = line.index(after: index) }
            guard index < line.endIndex else { return nil }
            index = line.index(after: index)
            var values: [String] = []
            var current = ""
            var quoted = false
            while index < line.endIndex {
                let character = line[index]
                if character == "\"" { quoted.toggle() } else if !quoted, character == "," { values.append(current); current = "" }
                else if !quoted, character == ";" || character == ":" { break } else { current.append(character) }
                index = line.index(after: index)
            }
            values.append(current)
            parameters.append(DAVComponentParameter(name: parameterName.uppercased(), values: values))
        }
        guard index < line.endIndex, line[index] == ":", !name.isEmpty else { return nil }
        return DAVComponentProperty(name: name.uppercased(), value: String(line[line.index(after: index)...]), parameters: parameters)
    }

    /// The instant of a date or date-time property: UTC (`…Z`), in its TZID, else floating in
    /// `zone`; a DATE is its midnight in `zone`. Nil when the value is not one.
    static func instant(of property: DAVComponentProperty, zone: TimeZone) -> Date? {
        let value = property.value
        let digits = value.filter(\.isNumber)
        var calendar = Calendar(identifier: .gregorian)
        if let tzid = property.parameters.first(where: { $0.name == "TZID" })?.values.first, let named = TimeZone(identifier: tzid) {
            calendar.timeZone = named
        } else {
            calendar.timeZone = value.hasSuffix("Z") ? TimeZone(identifier: "UTC")! : zone
        }
        func number(_ from: Int, _ length: Int) -> Int? {
            let start = digits.index(digits.startIndex, offsetBy: from)
            return Int(digits[start..<digits.index(start, offsetBy: length)])
        }
        if digits.count == 8, value.count == 8, let year = number(0, 4), let month = number(4, 2), let day = number(6, 2) {
            return calendar.date(from: DateComponents(year: year, month: month, day: day))
        }
        guard digits.count == 14, value.count >= 15, let year = number(0, 4), let month = number(4, 2), let day = number(6, 2),
              let hour = number(8, 2), let minute = number(10, 2), let second = number(12, 2) else { return nil }
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    /// Whether a to-do overlaps a range, by RFC 4791 §9.9's table (DTSTART, DUE, DURATION,
    /// COMPLETED, CREATED); an open end of the range is unbounded.
    static func todoOverlaps(_ todo: DAVComponent, _ range: DAVTimeRange, zone: TimeZone) -> Bool {
        if let instances = recurringToDoInstances(todo, range, zone: zone) {
            return instances.contains { todoOverlaps($0, range, zone: zone) }
        }
        func time(_ name: String) -> Date? {
            todo.properties.first { $0.name == name }.flatMap { instant(of: $0, zone: zone) }
        }
        let start = range.startDate ?? .distantPast
        let end = range.endDate ?? .distantFuture
        let (dtstart, due) = todoTimes(todo, zone: zone)
        let completed = time("COMPLETED")
        let created = time("CREATED")
        switch (dtstart, due) {
        case let (dtstart?, due?): return (start < due || start <= dtstart) && (end > dtstart || end >= due)
        case let (dtstart?, nil): return start <= dtstart && end > dtstart
        case let (nil, due?): return start < due && end >= due
        case (nil, nil): break
        }
        switch (completed, created) {
        case let (completed?, created?): return (start <= created || start <= completed) && (end >= created || end >= completed)
        case let (completed?, nil): return start <= completed && end >= completed
        case let (nil, created?): return end > created
        case (nil, nil): return true
        }
    }

    /// A to-do's DTSTART, and its DUE or, without one, DTSTART + DURATION.
    static func todoTimes(_ todo: DAVComponent, zone: TimeZone) -> (start: Date?, due: Date?) {
        func time(_ name: String) -> Date? { todo.properties.first { $0.name == name }.flatMap { instant(of: $0, zone: zone) } }
        let start = time("DTSTART")
        if let due = time("DUE") { return (start, due) }
        let duration = todo.properties.first { $0.name == "DURATION" }.flatMap { seconds(ofDuration: $0.value) }
        return (start, start.flatMap { start in duration.map { start.addingTimeInterval($0) } })
    }

    /// A to-do with an RRULE and a DTSTART (kept as written: the tasks schema has no recurrence):
    /// its instances that can overlap the range, each with its DTSTART and DUE moved to that
    /// occurrence (§9.9 applies to each), RDATEs added and EXDATEs left out. Nil for a to-do that
    /// does not recur, or whose rule or start cannot be read (then its own times answer).
    static func recurringToDoInstances(_ todo: DAVComponent, _ range: DAVTimeRange, zone: TimeZone, limit: Int = 4) -> [DAVComponent]? {
        guard let rruleText = todo.properties.first(where: { $0.name == "RRULE" })?.value,
              let startProperty = todo.properties.first(where: { $0.name == "DTSTART" }),
              let rule = try? RecurrenceRule(parsing: rruleText),
              case let (first?, due) = todoTimes(todo, zone: zone) else { return nil }
        let length = due.map { $0.timeIntervalSince(first) } ?? 0
        let value = startProperty.value
        let isUTC = value.hasSuffix("Z")
        let isDate = value.count == 8
        var seriesZone = zone
        if isUTC { seriesZone = TimeZone(identifier: "UTC")! }
        if let tzid = startProperty.parameters.first(where: { $0.name == "TZID" })?.values.first, let named = TimeZone(identifier: tzid) { seriesZone = named }
        guard let wall = isDate ? CalendarDate(parsing: value).flatMap({ LocalDateTime(date: $0, hour: 0, minute: 0) })
                                : LocalDateTime(parsing: isUTC ? String(value.dropLast()) : value) else { return nil }
        // The engine's own conversions between instants and the series' wall clock.
        func wallTime(_ date: Date) -> LocalDateTime {
            DateTimeValue(kind: .zoned(epochSeconds: Int64(date.timeIntervalSince1970.rounded(.down)), timeZone: seriesZone.identifier)).localTime
        }
        func instantOf(_ local: LocalDateTime) -> Date? { local.dateTime(in: seriesZone).instant }
        // RDATE and EXDATE (each may list several values, in any zone) on the series' clock.
        func walls(_ name: String) -> [LocalDateTime] {
            todo.properties.filter { $0.name == name }.flatMap { property in
                property.value.split(separator: ",").compactMap { piece in
                    instant(of: DAVComponentProperty(name: name, value: String(piece.split(separator: "/").first ?? piece), parameters: property.parameters), zone: zone)
                }.map(wallTime)
            }
        }
        let set = RecurrenceSet(start: wall, timeZone: seriesZone, rule: rule, additions: walls("RDATE"), exclusions: walls("EXDATE"), isAllDay: isDate)
        // The first occurrences that end at or after the range's start decide: an earlier one
        // ends before the range, and if none of the first few overlaps, none later starts
        // inside the range (§9.9's edges are inclusive, so a few, not one).
        let from = range.startDate.map { wallTime($0.addingTimeInterval(-max(length, 0) - 1)) }
        let through = range.endDate.map(wallTime)
        let starts = set.occurrences(from: from, through: through, limit: limit)
        return starts.compactMap(instantOf).map { start in
            var properties = todo.properties.filter { !["DTSTART", "DUE", "DURATION", "RRULE", "RDATE", "EXDATE"].contains($0.name) }
            properties.append(DAVComponentProperty(name: "RECURRENCE-ID", value: utcText(start)))
            properties.append(DAVComponentProperty(name: "DTSTART", value: utcText(start)))
            if due != nil || length > 0 { properties.append(DAVComponentProperty(name: "DUE", value: utcText(start.addingTimeInterval(length)))) }
            return DAVComponent(name: todo.name, properties: properties, components: todo.components)
        }
    }

    /// The seconds of an iCalendar DURATION (`P1D`, `PT1H30M`, `-PT15M`, `P2W`).
    static func seconds(ofDuration text: String) -> TimeInterval? {
        var rest = Substring(text)
        var sign: TimeInterval = 1
        if rest.hasPrefix("-") { sign = -1; rest = rest.dropFirst() } else if rest.hasPrefix("+") { rest = rest.dropFirst() }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total: TimeInterval = 0
        var number = ""
        for character in rest {
            if character.isNumber { number.append(character); continue }
            if character == "T" { continue }
            guard let value = TimeInterval(number) else { return nil }
            switch character {
            case "W": total += value * 604_800
            case "D": total += value * 86_400
            case "H": total += value * 3_600
            case "M": total += value * 60
            case "S": total += value
            default: return nil
            }
            number = ""
        }
        return number.isEmpty ? sign * total : nil
    }

    /// Content lines of a component and what it holds, folded at 75 octets (RFC 5545 §3.1).
    static func text(of component: DAVComponent) -> String {
        var lines = ["BEGIN:" + component.name]
        for property in component.properties { lines.append(contentLine(property)) }
        for child in component.components { lines.append(text(of: child)) }
        lines.append("END:" + component.name)
        return lines.map { $0.hasSuffix("\r\n") ? String($0.dropLast(2)) : $0 }.map(folded).joined(separator: "\r\n") + "\r\n"
    }

    private static func contentLine(_ property: DAVComponentProperty) -> String {
        var line = property.name
        for parameter in property.parameters {
            let values = parameter.values.map { value in
                value.contains(where: { $0 == ":" || $0 == ";" || $0 == "," }) ? "\"" + value + "\"" : value
            }
            line += ";" + parameter.name + "=" + values.joined(separator: ",")
        }
        return line + ":" + property.value
    }

    /// A line cut into pieces of at most 75 octets, never inside a UTF-8 sequence; each piece
    /// after the first starts with a space.
    private static func folded(_ line: String) -> String {
        // Lines of nested components are already folded and joined.
        if line.contains("\r\n") { return line }
        var pieces: [String] = []
        var current = ""
        var length = 0
        for character in line {
            let size = String(character).utf8.count
            if length + size > (pieces.isEmpty ? 75 : 74) {
                pieces.append(current)
                current = ""
                length = 0
            }
            current.append(character)
            length += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }

    /// `20260613T120000Z`.
    static func utcText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}

extension DAVTimeRange {
    var startDate: Date? { start.map { Date(timeIntervalSince1970: TimeInterval($0.secondsSince1970)) } }
    var endDate: Date? { end.map { Date(timeIntervalSince1970: TimeInterval($0.secondsSince1970)) } }

    /// The range with an open side bounded by the first or last instant an iCalendar date can
    /// name (years 1 and 9999), for the engine's reads.
    var bounds: (from: Date, to: Date) {
        (startDate ?? Date(timeIntervalSince1970: -62_135_596_800), endDate ?? Date(timeIntervalSince1970: 253_402_300_799))
    }
}
