import CometSchema

/// What a temporal expression means once the clock and zone are known. The cases are the
/// kinds of answer a calendar can act on; every expression resolves to exactly one.
public enum TemporalResolution: Sendable, Hashable {
    /// A moment: "next friday at noon", "in two hours".
    case instant(DateTimeValue)
    /// A whole day with no time: "June 15th", "tomorrow".
    case date(CalendarDate)
    /// A clock time on no particular day: "noon", "at 3". The caller supplies the day (the
    /// event's own, when moving one).
    case timeOfDay(hour: Int, minute: Int)
    /// A half-open span [start, end): "from 2 to 3:30pm", "this week". Whole days start and end
    /// at midnight; `wholeDays` names them.
    case range(start: DateTimeValue, end: DateTimeValue)
    /// A length of time: "for 45 minutes", "1h30".
    case duration(DurationValue)
    /// A change to an event that already has a time: "an hour later", "move it to Thursday".
    case shift(TemporalShift)
    /// A repeat rule; nil means "do not repeat" (the recurrence is cleared, not left alone).
    case recurrence(RecurrenceRule?)
    /// Only where an existing series ends: "until July", "10 times". A rule needs a frequency
    /// and this says none, so it is kept apart rather than guessed into a rule.
    case recurrenceEnd(RecurrenceRule.End)

    /// The kind's stable name, as in JSON: `instant`, `date`, `timeOfDay`, `range`, `duration`,
    /// `shift`, `recurrence`, `recurrenceEnd`.
    public var kind: String {
        switch self {
        case .instant: return "instant"
        case .date: return "date"
        case .timeOfDay: return "timeOfDay"
        case .range: return "range"
        case .duration: return "duration"
        case .shift: return "shift"
        case .recurrence: return "recurrence"
        case .recurrenceEnd: return "recurrenceEnd"
        }
    }

    /// For a range from one midnight to another: its first and last day (the end is exclusive,
    /// so "this weekend" is Saturday to Sunday). Nil for any other resolution.
    public var wholeDays: (first: CalendarDate, last: CalendarDate)? {
        guard case .range(let start, let end) = self else { return nil }
        let first = start.wallTime(in: nil)
        let after = end.wallTime(in: nil)
        guard first.hour == 0, first.minute == 0, first.second == 0,
              after.hour == 0, after.minute == 0, after.second == 0, after.date > first.date else { return nil }
        return (first.date, LocalDateTime(wallSeconds: (after.date.dayNumber - 1) * 86_400).date)
    }
}

/// How an existing event moves. A duration moves it by that much (negative: earlier); a date
/// keeps its time of day; a time of day keeps its date.
public enum TemporalShift: Sendable, Hashable {
    case by(DurationValue)
    case toDate(CalendarDate)
    case toTimeOfDay(hour: Int, minute: Int)
    case toInstant(DateTimeValue)
}
