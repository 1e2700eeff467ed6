/// How a numeric date such as "3/5" is read: month first ("mdy", US English, the default) or
/// day first ("dmy"). A number that cannot be a month (13 to 31) is the day whatever the
/// order, and the reading then says so (`notes`): "23/05" is May 23rd in both.
public enum TemporalDateOrder: String, Sendable, Hashable, CaseIterable {
    case mdy
    case dmy

    /// Whether "first/second" names the month first.
    func readsMonthFirst(_ first: Int, _ second: Int) -> Bool {
        switch self {
        case .mdy: return !(first > 12 && second <= 12)
        case .dmy: return second > 12 && first <= 12
        }
    }

    /// What a reader should be told about each numeric date in `tokens`: that it depends on
    /// this setting (both numbers could be the month), or that it goes against the setting
    /// (one number cannot be the month). Nothing when the order makes no difference ("6/6").
    func notes(_ tokens: [TemporalToken]) -> [TemporalNote] {
        var notes: [TemporalNote] = []
        var position = 0
        while position + 2 < tokens.count {
            defer { position += 1 }
            guard case .number(let first, let firstDigits) = tokens[position].kind, (1...2).contains(firstDigits),
                  tokens[position + 1].kind == .symbol("/"),
                  case .number(let second, let secondDigits) = tokens[position + 2].kind, (1...2).contains(secondDigits),
                  position == 0 || tokens[position - 1].kind != .symbol("/") else { continue }
            let written = tokens[position].text + "/" + tokens[position + 2].text
            let monthFirst = readsMonthFirst(first, second)
            let (month, day) = monthFirst ? (first, second) : (second, first)
            guard (1...12).contains(month), first != second else { continue }
            let reading = TemporalMessages.monthAndDay(month: month, day: day)
            let column = tokens[position].column
            if (1...12).contains(day) {
                notes.append(TemporalNote(message: TemporalMessages.dependsOnDateOrder(written, reading: reading, order: self, otherReading: TemporalMessages.monthAndDay(month: day, day: month)), column: column))
            } else if monthFirst != (self == .mdy) {
                notes.append(TemporalNote(message: TemporalMessages.againstDateOrder(written, reading: reading, notMonth: day, order: self), column: column))
            }
        }
        return notes
    }
}

/// Something the reader should know about how a text was read, though it was understood: a
/// reading that depends on a setting, or that goes against it.
public struct TemporalNote: Sendable, Hashable {
    public let message: String
    /// 1-based column of the words the note is about.
    public let column: Int
}

/// A resolution and the notes on how it was reached.
public struct TemporalReading: Sendable, Hashable {
    public let resolution: TemporalResolution
    public let notes: [TemporalNote]
}
