import CometSchema
import CometText

extension TimeFormat {
    /// A wall-clock reading as the pattern writes it.
    public func text(_ local: LocalDateTime) -> String {
        text(Moment(year: local.date.year, month: local.date.month, day: local.date.day, weekdayIndex: local.date.weekdayIndex,
                    hour: local.hour, minute: local.minute))
    }

    /// A day at a clock time as the pattern writes it (a time of day is read on some day for
    /// the pattern's date directives).
    public func text(_ date: CalendarDate, hour: Int, minute: Int) -> String {
        text(Moment(year: date.year, month: date.month, day: date.day, weekdayIndex: date.weekdayIndex, hour: hour, minute: minute))
    }
}
