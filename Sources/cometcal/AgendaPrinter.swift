import Foundation
import CometSchema
import CometStore
import CometIntents

/// Occurrences grouped by day in the person's zone, aligned, a line each:
/// `  08:00–09:00  Zero Gravity Yoga  ↻  Lunar Orbit Log · Gym`.
struct AgendaPrinter {
    let context: AppContext

    private var terminal: Terminal { context.terminal }

    private struct Line {
        let day: CalendarDate
        let time: String
        let title: String
        let detail: String
        let recurring: Bool
        /// The calendar's colour, for its dot.
        let color: String?
    }

    func print(_ occurrences: [Occurrence], from: Date? = nil, to: Date? = nil) {
        let lines = occurrences.flatMap { self.lines(for: $0, from: from, to: to) }
        guard !lines.isEmpty else {
            terminal.out("Nothing scheduled.")
            return
        }
        let grouped = Dictionary(grouping: lines, by: \.day)
        let timeWidth = lines.map(\.time.count).max() ?? 0
        let titleWidth = min(40, lines.map { $0.title.count + ($0.recurring ? 2 : 0) }.max() ?? 0)
        var first = true
        for day in grouped.keys.sorted() {
            if !first { terminal.out() }
            first = false
            terminal.out(terminal.style(dayHeading(day), .bold))
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

    private func dayHeading(_ day: CalendarDate) -> String {
        let weekday = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][day.weekdayIndex]
        let month = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][day.month - 1]
        return "\(weekday), \(month) \(day.day), \(day.year)"
    }

    /// One line per day the occurrence touches inside the range (all-day and multi-day events
    /// appear on each of their days).
    private func lines(for occurrence: Occurrence, from: Date?, to: Date?) -> [Line] {
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
                details.append(registry.title(of: referenced))
                color = AgendaPrinter.color(of: referenced, in: registry)
            } else {
                details.append(registry.displayText(value))
            }
        }
        let title = registry.title(of: record) + (statusSuffix(record))
        let lastDay: CalendarDate = {
            if allDay || end.date != start.date {
                let endSeconds = end.wallSeconds - (end.hour == 0 && end.minute == 0 && end.second == 0 ? 1 : 0)
                return LocalDateTime(wallSeconds: max(start.wallSeconds, endSeconds)).date
            }
            return start.date
        }()
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
                time = end.wallSeconds == start.wallSeconds ? String(format: "%02d:%02d", start.hour, start.minute)
                    : String(format: "%02d:%02d–%02d:%02d", start.hour, start.minute, end.hour, end.minute)
            } else if day == start.date {
                time = String(format: "%02d:%02d →", start.hour, start.minute)
            } else if day == lastDay {
                time = String(format: "→ %02d:%02d", end.hour, end.minute)
            } else {
                time = "all day"
            }
            result.append(Line(day: day, time: time, title: title, detail: details.filter { !$0.isEmpty }.joined(separator: " · "), recurring: occurrence.isRecurrenceInstance, color: color))
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
