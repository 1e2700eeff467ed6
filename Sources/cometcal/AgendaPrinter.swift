import Foundation
import CometSchema
import CometStore
import CometIntents
import CometText

/// Occurrences grouped by day in the person's zone, aligned, a line each:
/// `  08:00–09:00  Zero Gravity Yoga  ↻  Lunar Orbit Log · Gym`.
struct AgendaPrinter {
    let context: AppContext

    private var terminal: Terminal { context.terminal }

    struct Line {
        let day: CalendarDate
        let time: String
        let title: String
        let detail: String
        let recurring: Bool
        /// The calendar's colour, for its dot.
        let color: String?
    }

    /// With `everyDay` (the week view), each day of the range gets its heading, and a day with
    /// nothing on it says so.
    func print(_ occurrences: [Occurrence], from: Date? = nil, to: Date? = nil, everyDay: Bool = false) {
        let lines = occurrences.flatMap { self.lines(for: $0, from: from, to: to) }
        guard !lines.isEmpty || everyDay else {
            terminal.out("Nothing scheduled.")
            return
        }
        let grouped = Dictionary(grouping: lines, by: \.day)
        var days = grouped.keys.sorted()
        if everyDay, let from, let to {
            let first = DateTimeValue.utc(from).wallTime(in: context.zone).date.dayNumber
            let last = DateTimeValue.utc(to.addingTimeInterval(-1)).wallTime(in: context.zone).date.dayNumber
            if first <= last { days = (first...last).map { LocalDateTime(wallSeconds: $0 * 86_400).date } }
        }
        let timeWidth = lines.map(\.time.count).max() ?? 0
        let titleWidth = min(40, lines.map { $0.title.count + ($0.recurring ? 2 : 0) }.max() ?? 0)
        let today = DateTimeValue.utc(context.now).wallTime(in: context.zone).date
        var first = true
        for day in days {
            if !first { terminal.out() }
            first = false
            terminal.out(terminal.style(dayHeading(day) + (everyDay && day == today ? " (today)" : ""), .bold))
            if grouped[day] == nil { terminal.out("  " + terminal.style("Nothing scheduled.", .dim)) }
            for line in grouped[day] ?? [] {
                let time = line.time.padding(toLength: timeWidth, withPad: " ", startingAt: 0)
                var title = line.title + (line.recurring ? " ↻" : "")
                if title.count < titleWidth { title += String(repeating: " ", count: titleWidth - title.count) }
                let text = "  " + terminal.style(time, .cyan) + "  " + terminal.style(title, .bold)
                    + (line.detail.isEmpty ? "" : "  " + terminal.swatch(line.color) + terminal.style(line.detail, .dim))
                terminal.out(text.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
            }
        }
    }

    func dayHeading(_ day: CalendarDate) -> String {
        DateFormat.format(context.config.dateFormat, date: day)
    }

    /// A time of day in the configured format (default 24-hour, 09:30).
    func clock(_ time: LocalDateTime) -> String {
        context.config.timeFormat.text(time)
    }

    /// One line per day the occurrence touches inside the range (all-day and multi-day events
    /// appear on each of their days).
    func lines(for occurrence: Occurrence, from: Date?, to: Date?) -> [Line] {
        let registry = context.registry
        let record = occurrence.record
        guard let entity = registry.entity(record.entity), let fields = entity.temporalFields else { return [] }
        let allDay: Bool = { if let property = fields.isAllDay, case .bool(true)? = record[property] { return true } else { return false } }()
        let start = occurrence.start.isFloating ? occurrence.start.localTime : occurrence.start.wallTime(in: context.zone)
        let end = occurrence.end.isFloating ? occurrence.end.localTime : occurrence.end.wallTime(in: context.zone)
        var details: [String] = []
        var color: String?
        for property in entity.properties where property.type.isOptional || property.name == "calendar" {
            guard property.name == "calendar" || property.name == "location", let value = record[property.name] else { continue }
            if case .reference(let id) = value, case .entity(let target) = property.type.base,
               let referenced = try? context.backend.record(target, id: id) {
                details.append(Terminal.printable(registry.title(of: referenced)))
                color = AgendaPrinter.color(of: referenced, in: registry)
            } else {
                details.append(Terminal.printable(registry.displayText(value)))
            }
        }
        let title = Terminal.printable(registry.title(of: record)) + (statusSuffix(record))
        let lastDay: CalendarDate = {
            if allDay || end.date != start.date {
                let endSeconds = end.wallSeconds - (end.hour == 0 && end.minute == 0 && end.second == 0 ? 1 : 0)
                return LocalDateTime(wallSeconds: max(start.wallSeconds, endSeconds)).date
            }
            return start.date
        }()
        // An occurrence changed on its own (an override) is still one of its series'.
        let recurring = occurrence.isRecurrenceInstance || fields.recurrenceID.map { record[$0] != nil } == true
        var result: [Line] = []
        var day = start.date
        let lowerDay = from.map { DateTimeValue.utc($0).wallTime(in: context.zone).date }
        let upperDay = to.map { DateTimeValue.utc($0.addingTimeInterval(-1)).wallTime(in: context.zone).date }
        while day <= lastDay, result.count < 62 {
            defer { day = LocalDateTime(wallSeconds: (day.dayNumber + 1) * 86_400).date }
            if let lowerDay, day < lowerDay { continue }
            if let upperDay, day > upperDay { break }
            let time: String
            if allDay {
                time = "all day"
            } else if start.date == lastDay {
                time = end.wallSeconds == start.wallSeconds ? clock(start) : clock(start) + "–" + clock(end)
            } else if day == start.date {
                time = clock(start) + " →"
            } else if day == lastDay {
                time = "→ " + clock(end)
            } else {
                time = "all day"
            }
            result.append(Line(day: day, time: time, title: title, detail: details.filter { !$0.isEmpty }.joined(separator: " · "), recurring: recurring, color: color))
        }
        return result
    }

    /// A record's `@color` property, when it has one.
    static func color(of record: EntityRecord, in registry: Registry) -> String? {
        guard let property = registry.entity(record.entity)?.properties.first(where: { $0.annotations.contains(named: "color") }),
              case .string(let text)? = record[property.name] else { return nil }
        return text
    }

    private func statusSuffix(_ record: EntityRecord) -> String {
        if case .enumCase("cancelled")? = record["status"] { return " (cancelled)" }
        if case .enumCase("tentative")? = record["status"] { return " (tentative)" }
        return ""
    }
}
