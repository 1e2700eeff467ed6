import CometSchema

/// Fixes, before libical sees a component, what common producers get wrong in ways whose
/// meaning is clear (docs/icalendar.md lists every decision):
/// empty values are absent values; a DATE with a time (`DTSTART;VALUE=DATE:20260101T100000`)
/// is that date.
/// Every change is said in a warning with its line, but one: an empty value (`DESCRIPTION:`),
/// which carries nothing to lose.
enum QuirkNormalizer {
    static func normalize(_ raw: RawComponent, uid: String?, warnings: inout [ICalProblem]) -> RawComponent {
        var result = raw
        let startText = raw.value("DTSTART").map { String($0.prefix(15)) }
        let start = startText.flatMap { LocalDateTime(parsing: $0) ?? CalendarDate(parsing: String($0.prefix(8))).flatMap { LocalDateTime(date: $0, hour: 0, minute: 0) } }
        var notes: [ICalProblem] = []
        func note(_ line: ContentLine, _ message: String) { notes.append(ICalProblem(line: line.line, uid: uid, message: message)) }
        result.properties = raw.properties.compactMap { normalize($0, start: start, note: note) }
        result.children = raw.children.map { child in
            var copy = child
            copy.properties = child.properties.compactMap { normalize($0, start: nil, note: note) }
            return copy
        }
        warnings += notes
        return result
    }

    private static func normalize(_ line: ContentLine, start: LocalDateTime?, note: (ContentLine, String) -> Void) -> ContentLine? {
        let value = line.value
        // X-LIC-ERROR in the input is another program's note about its own parse, not data.
        if line.name == "X-LIC-ERROR" {
            note(line, "X-LIC-ERROR is another program's complaint about its own reading of this file, not data; left out")
            return nil
        }
        // COUNT and UNTIL together: libical drops the whole rule, so choose the earlier end first.
        if line.name == "RRULE", value.uppercased().contains("COUNT="), value.uppercased().contains("UNTIL=") {
            let parts = value.split(separator: ";").map(String.init)
            let withCount = parts.filter { !$0.uppercased().hasPrefix("UNTIL=") }.joined(separator: ";")
            let withUntil = parts.filter { !$0.uppercased().hasPrefix("COUNT=") }.joined(separator: ";")
            if let countRule = try? RecurrenceRule(parsing: withCount), let untilRule = try? RecurrenceRule(parsing: withUntil) {
                let kept = ComponentDecoder.earlierEnding(countRule, untilRule, start: start)
                note(line, "RRULE has both COUNT and UNTIL (RFC 5545 allows one); the \(kept == untilRule ? "UNTIL" : "COUNT"), which ends the series first, is kept")
                return ContentLine(text: "RRULE:" + kept.description, line: line.line)
            }
        }
        if value.isBlank, line.name != "BEGIN", line.name != "END" {
            // An empty value carries nothing, but parameters without a value are something lost.
            if line.head.contains(";") { note(line, "\(line.name) has parameters but no value; it is left out") }
            return nil
        }
        if ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"].contains(line.name),
           ICalReader.parameter("VALUE", of: line)?.uppercased() == "DATE", value.contains("T") {
            let dates = value.split(separator: ",").map { String($0.prefix(8)) }.joined(separator: ",")
            let head = line.text.dropLast(value.count)
            note(line, "\(line.name) says VALUE=DATE but gives a time too ('\(value)'); read as the date, the time is left out")
            return ContentLine(text: head + dates, line: line.line)
        }
        return line
    }

    /// The line of the property an X-LIC-ERROR message is about (libical names the property or
    /// quotes the value), else the component's first line.
    static func line(of message: String, in raw: RawComponent) -> Int {
        let upper = message.uppercased()
        for line in raw.properties + raw.children.flatMap(\.properties) {
            let value = line.value.trimmingSpaces()
            if !value.isEmpty, message.containsBytes(value) { return line.line }
        }
        for line in raw.properties + raw.children.flatMap(\.properties) where upper.containsBytes(line.name) && line.name.count > 2 {
            return line.line
        }
        return raw.beginLine
    }
}
