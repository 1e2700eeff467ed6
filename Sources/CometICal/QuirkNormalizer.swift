/// Fixes, before libical sees a component, what common producers get wrong in ways whose
/// meaning is clear (docs/icalendar.md lists every decision):
/// empty values are absent values; a DATE with a time (`DTSTART;VALUE=DATE:20260101T100000`)
/// is that date.
enum QuirkNormalizer {
    static func normalize(_ raw: RawComponent) -> RawComponent {
        var result = raw
        result.properties = raw.properties.compactMap(normalize)
        result.children = raw.children.map(normalize)
        return result
    }

    private static func normalize(_ line: ContentLine) -> ContentLine? {
        let value = line.value
        if value.trimmingCharacters(in: .whitespaces).isEmpty, line.name != "BEGIN", line.name != "END" { return nil }
        if ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"].contains(line.name),
           ICalReader.parameter("VALUE", of: line)?.uppercased() == "DATE", value.contains("T") {
            let dates = value.split(separator: ",").map { String($0.prefix(8)) }.joined(separator: ",")
            let head = line.text.dropLast(value.count)
            return ContentLine(text: head + dates, line: line.line)
        }
        return line
    }

    /// The line of the property an X-LIC-ERROR message is about (libical names the property or
    /// quotes the value), else the component's first line.
    static func line(of message: String, in raw: RawComponent) -> Int {
        let upper = message.uppercased()
        for line in raw.properties + raw.children.flatMap(\.properties) {
            let value = line.value.trimmingCharacters(in: .whitespaces)
            if !value.isEmpty, message.contains(value) { return line.line }
        }
        for line in raw.properties + raw.children.flatMap(\.properties) where upper.contains(line.name) && line.name.count > 2 {
            return line.line
        }
        return raw.beginLine
    }
}
