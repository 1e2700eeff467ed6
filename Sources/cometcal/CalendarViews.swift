import Foundation
import CometSchema
import CometStore

/// The days a month grid shows: whole weeks from the week holding the 1st to the week holding
/// the last day, starting on the configured weekday.
struct MonthGrid {
    let year: Int
    let month: Int
    let weekStart: Int
    let today: CalendarDate

    var first: CalendarDate { CalendarDate(year: year, month: month, day: 1) ?? today }
    var last: CalendarDate { CalendarDate(year: year, month: month, day: CalendarDate.daysIn(month: month, year: year)) ?? today }
    var firstShown: CalendarDate { CalendarViews.weekStart(containing: first, weekStart: weekStart) }
    var lastShown: CalendarDate { CalendarViews.day(CalendarViews.weekStart(containing: last, weekStart: weekStart).dayNumber + 6) }

    /// The weeks, each seven days.
    var weeks: [[CalendarDate]] {
        stride(from: firstShown.dayNumber, through: lastShown.dayNumber, by: 7).map { start in
            (0..<7).map { CalendarViews.day(start + Int64($0)) }
        }
    }
}

/// The week and month views of `agenda`.
struct CalendarViews {
    let context: AppContext

    private var terminal: Terminal { context.terminal }

    static func day(_ number: Int64) -> CalendarDate { LocalDateTime(wallSeconds: number * 86_400).date }

    /// The first day of the week holding `date`, weeks starting on `weekStart` (0 = Sunday).
    static func weekStart(containing date: CalendarDate, weekStart: Int) -> CalendarDate {
        let back = (date.weekdayIndex - weekStart + 7) % 7
        return day(date.dayNumber - Int64(back))
    }

    /// Events a cell lists before "+N more".
    static let linesPerDay = 3

    /// A month as a grid of weeks, each day's events in its cell (time and title, in the
    /// calendar's colour where the terminal has colours), cut to the terminal's width. Today is
    /// marked (reversed, or in brackets without colour); days of other months are dimmed.
    func printMonth(_ grid: MonthGrid, occurrences: [Occurrence]) {
        let printer = AgendaPrinter(context: context)
        let lines = occurrences.flatMap { printer.lines(for: $0, from: nil, to: nil) }
        let byDay = Dictionary(grouping: lines, by: \.day)
        let columns = Terminal.columns
        // Under 6 columns a cell holds no title: a narrow terminal gets the day numbers, a dot
        // marking the days with events.
        let compact = (columns - 8) / 7 < 6
        let width = compact ? 4 : min(24, (columns - 8) / 7)
        let names = DateFormat.weekdays
        let months = DateFormat.months
        let total = width * 7 + 8
        let title = "\(months[grid.month - 1]) \(grid.year)"
        terminal.out(String(repeating: " ", count: max(0, (total - title.count) / 2)) + terminal.style(title, .bold))
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + Array(repeating: String(repeating: "─", count: width), count: 7).joined(separator: middle) + right
        }
        func row(_ cells: [String]) -> String { "│" + cells.joined(separator: "│") + "│" }
        terminal.out(rule("┌", "┬", "┐"))
        terminal.out(row((0..<7).map { fit(String(names[(grid.weekStart + $0) % 7].prefix(width >= 9 ? 9 : compact ? 2 : 3)), width: width, style: [.bold]) }))
        for week in grid.weeks {
            terminal.out(rule("├", "┼", "┤"))
            if compact {
                terminal.out(row(week.map { day in
                    let entries = byDay[day] ?? []
                    let mark = entries.isEmpty ? " " : terminal.colored("•", css: entries.first?.color)
                    let number = (day.day < 10 ? " " : "") + String(day.day)
                    if day == grid.today {
                        return terminal.useColor ? " " + fit(number, width: 2, style: [.bold], reversed: true) + mark : ">" + number + mark
                    }
                    return " " + fit(number, width: 2, style: day.month == grid.month ? [] : [.dim]) + mark
                }))
                continue
            }
            terminal.out(row(week.map { dayNumberCell($0, grid: grid, width: width) }))
            for index in 0..<CalendarViews.linesPerDay {
                let cells = week.map { day -> String in
                    let entries = byDay[day] ?? []
                    if entries.count > CalendarViews.linesPerDay, index == CalendarViews.linesPerDay - 1 {
                        return fit("+\(entries.count - index) more", width: width, style: [.dim])
                    }
                    guard index < entries.count else { return String(repeating: " ", count: width) }
                    let entry = entries[index]
                    let time = entry.time.hasSuffix("day") || entry.time.hasPrefix("→") ? "" : String(entry.time.prefix { $0 != "–" && $0 != " " }) + " "
                    return fit(time + entry.title, width: width, css: entry.color)
                }
                // Rows below every day's last event are left out.
                if index > 0, week.allSatisfy({ (byDay[$0]?.count ?? 0) <= index }) { break }
                terminal.out(row(cells))
            }
        }
        terminal.out(rule("└", "┴", "┘"))
        let count = occurrences.count
        let monthDays = Set(lines.filter { $0.day.month == grid.month && $0.day.year == grid.year }.map(\.day)).count
        let next = CalendarViews.day(grid.last.dayNumber + 1)
        let summary = count == 0 ? "Nothing scheduled in \(months[grid.month - 1])."
            : "\(monthDays) day\(monthDays == 1 ? "" : "s") of \(months[grid.month - 1]) \(monthDays == 1 ? "has" : "have") events; 'cometcal agenda --from \(grid.first) --to \(next)' lists them."
        terminal.out(terminal.style(summary, .dim))
    }

    private func dayNumberCell(_ day: CalendarDate, grid: MonthGrid, width: Int) -> String {
        let inMonth = day.month == grid.month
        let label = inMonth || day.day != 1 ? String(day.day) : "\(DateFormat.months[day.month - 1].prefix(3)) 1"
        if day == grid.today {
            if terminal.useColor { return fit(label, width: width, style: [.bold], reversed: true) }
            return fit("[" + label + "]", width: max(width, label.count + 2))
        }
        return fit(label, width: width, style: inMonth ? [] : [.dim])
    }

    /// Text cut (with "…") or padded to exactly `width` columns, then styled: escapes are added
    /// after measuring, so they never count toward the width.
    private func fit(_ text: String, width: Int, style: [Terminal.Style] = [], css: String? = nil, reversed: Bool = false) -> String {
        var cut = text
        if cut.count > width { cut = String(cut.prefix(width - 1)) + "…" }
        let padding = String(repeating: " ", count: width - cut.count)
        var styled = css != nil ? terminal.colored(cut, css: css) : cut
        for one in style { styled = terminal.style(styled, one) }
        if reversed, terminal.useColor { styled = "\u{1B}[7m" + styled + "\u{1B}[0m" }
        return styled + padding
    }
}
