import CLibical
import CometSchema

/// A component's own lines checked and sorted before libical reads them, because libical
/// repairs or drops in silence what it cannot parse (`DTEND:20260301T10300Z` becomes a floating
/// 10:30; `EXDATE:a,bad,c` loses c; `LINK` becomes an X-LIC-ERROR). What comes out is what
/// libical may read, the lines to keep exactly as written, and every problem and warning with
/// its line. docs/icalendar.md lists each decision.
struct PreparedComponent {
    /// What libical parses.
    var component: RawComponent
    /// Properties RFC 5545 says to keep that libical cannot carry (RFC 9253 `LINK`, iana-tokens
    /// it does not know, `VALUE=` with an x-name): kept as written and written back as written.
    var verbatim: [ContentLine] = []
    var problems: [ICalProblem] = []
    var warnings: [ICalProblem] = []
}

enum ComponentPrepass {
    static func prepare(_ original: RawComponent, uid: String?) -> PreparedComponent {
        var warnings: [ICalProblem] = []
        var prepared = PreparedComponent(component: QuirkNormalizer.normalize(original, uid: uid, warnings: &warnings))
        prepared.warnings = warnings
        var kept: [ContentLine] = []
        var previous: ContentLine?
        for line in prepared.component.properties {
            defer { previous = line }
            if needsVerbatim(line) {
                prepared.verbatim.append(line)
                if let note = verbatimNote(line) { prepared.warnings.append(ICalProblem(line: line.line, uid: uid, message: note)) }
                // `Zoom: https://…` right after a DESCRIPTION is more likely its next line (the
                // producer wrote a raw line break) than a property nobody registered: said, kept.
                if !line.name.hasPrefix("X-"), line.parameter("VALUE") == nil, let previous, ComponentReader.isText(previous) {
                    prepared.warnings.append(ICalProblem(line: line.line, uid: uid,
                                                         message: "\(line.name) is a property no standard defines, kept as written; if it is the next line of \(previous.name) above, the file lost a line break there"))
                }
                continue
            }
            switch check(line, uid: uid) {
            case .fine: kept.append(line)
            case .problem(let problem): prepared.problems.append(problem); kept.append(line)
            case .dropped(let warning): prepared.warnings.append(warning)
            case .rewritten(let replacement, let warning): prepared.warnings.append(warning); kept.append(replacement)
            }
        }
        prepared.component.properties = collapseRepeatedRules(kept, uid: uid, into: &prepared)
        prepared.component.children = prepared.component.children.compactMap { child in
            if let unusable = unusableAlarm(child, uid: uid) {
                prepared.warnings.append(unusable)
                return nil
            }
            var copy = child
            copy.properties = child.properties.compactMap { line in
                switch check(line, uid: uid, inAlarm: child.name == "VALARM") {
                case .fine: return line
                case .problem(let problem): prepared.problems.append(problem); return line
                case .dropped(let warning): prepared.warnings.append(warning); return nil
                case .rewritten(let replacement, let warning): prepared.warnings.append(warning); return replacement
                }
            }
            return copy
        }
        return prepared
    }

    // MARK: Alarms that cannot fire

    /// A VALARM without a TRIGGER, or with one that is neither a duration nor a date-time
    /// (`PT-2H` for `-PT2H`, `-15M`), can never fire: left out with a warning, the event kept.
    /// The smallest unit that can be dropped is the alarm, not its event.
    static func unusableAlarm(_ child: RawComponent, uid: String?) -> ICalProblem? {
        guard child.name == "VALARM" else { return nil }
        let lines = child.endLine > child.beginLine ? "lines \(child.beginLine)–\(child.endLine)" : "line \(child.beginLine)"
        guard let trigger = child.properties.first(where: { $0.name == "TRIGGER" }) else {
            return ICalProblem(line: child.beginLine, uid: uid, message: "this VALARM (\(lines)) has no TRIGGER, so it can never fire; it is left out and the event is kept")
        }
        let text = trigger.value.trimmedBlanks
        let isDateTime = (text.count == 15 || text.count == 16) && problem(text, type: "DATE-TIME", allowPeriod: false) == nil
        // libical reads a date-time TRIGGER without VALUE=DATE-TIME too (and so does the decoder).
        let readable = trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" ? isDateTime : isDateTime || (try? DurationValue(validating: text)) != nil
        guard !readable else { return nil }
        return ICalProblem(line: trigger.line, uid: uid,
                           message: "TRIGGER '\(text)' is neither a duration (such as -PT15M) nor a date-time, so this VALARM (\(lines)) can never fire; it is left out and the event is kept")
    }

    // MARK: Lines libical cannot carry

    /// A property libical does not know by name and that is not an x-name (RFC 5545 §3.8.8.1:
    /// iana-tokens are kept), or one whose VALUE is a type libical does not know (§3.2.20).
    static func needsVerbatim(_ line: ContentLine) -> Bool {
        let name = line.name
        if name == "BEGIN" || name == "END" { return false }
        if !name.hasPrefix("X-"), !isKnownToLibical(name) { return true }
        if let type = line.parameter("VALUE") {
            if valueTypesLibicalRejects[name]?.contains(type.uppercased()) == true { return true }
            let kind = icalvalue_string_to_kind(type)
            return kind == ICAL_NO_VALUE || kind == ICAL_X_VALUE
        }
        return false
    }

    /// Value types later RFCs allow on a property that libical 3.0 only takes as RFC 5545
    /// defined it: RFC 9253 §8 lets LOCATION and RELATED-TO be a URI.
    static let valueTypesLibicalRejects: [String: Set<String>] = ["LOCATION": ["URI"], "RELATED-TO": ["URI"]]

    /// Why a field reads nothing from a line kept as written, for the warning; nil when no field
    /// would have read it.
    static func verbatimNote(_ line: ContentLine) -> String? {
        guard let type = line.parameter("VALUE")?.uppercased(), valueTypesLibicalRejects[line.name]?.contains(type) == true else { return nil }
        return "\(line.name);VALUE=\(type) (RFC 9253) is kept as written and written back; the event's field for \(line.name) reads text, so it stays empty"
    }

    /// Whether libical knows the property name. libical looks a name up by comparing it with
    /// every name it knows (strcasecmp, in a profile 2% of an import); a file uses a few dozen.
    private static func isKnownToLibical(_ name: String) -> Bool {
        if let known = knownNames.withLock({ $0[name] }) { return known }
        let known = icalproperty_string_to_kind(name) != ICAL_NO_PROPERTY
        knownNames.withLock { names in
            // Names are bounded by what files hold, but a hostile file can invent any number.
            if names.count > 4_096 { names.removeAll() }
            names[name] = known
        }
        return known
    }

    private static let knownNames = LockedCache<[String: Bool]>([:])

    // MARK: Date and date-time values

    enum Verdict {
        case fine
        case problem(ICalProblem)
        /// Left out, with the warning that says so.
        case dropped(ICalProblem)
        /// Read as this line instead, with the warning that says so.
        case rewritten(ContentLine, ICalProblem)
    }

    /// Properties whose values are DATE or DATE-TIME (RFC 5545 §3.3.4, §3.3.5).
    static let temporalProperties: Set<String> = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE", "CREATED", "LAST-MODIFIED",
                                                  "DTSTAMP", "COMPLETED"]
    /// Properties whose value is an INTEGER (RFC 5545 §3.3.8).
    static let integerProperties: Set<String> = ["SEQUENCE", "PRIORITY", "PERCENT-COMPLETE", "REPEAT"]
    /// Properties that only say when the object was written or changed: a bad one is left out
    /// rather than costing the event.
    static let informational: Set<String> = ["CREATED", "LAST-MODIFIED", "DTSTAMP"]

    static func check(_ line: ContentLine, uid: String?, inAlarm: Bool = false) -> Verdict {
        let name = line.name
        if integerProperties.contains(name) {
            // libical reads `SEQUENCE:two` as 0 without a word.
            let text = line.value.trimmedBlanks
            let digits = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
            if digits.isEmpty || !digits.allSatisfy({ $0.isASCII && $0.isNumber }) || Int(text) == nil {
                return .problem(ICalProblem(line: line.line, uid: uid, message: "\(name) '\(text)' is not a whole number"))
            }
            return .fine
        }
        if name == "GEO" {
            // libical reads `GEO:40;east` as 40;0 without a word.
            let parts = line.value.trimmedBlanks.split(separator: ";", omittingEmptySubsequences: false)
            let floats = parts.compactMap { part -> Double? in
                let text = part.trimmedBlanks
                guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }) else { return nil }
                return Double(text)
            }
            // Producers write `GEO:;` (or `GEO:\;`) for no position: nothing a place could hold.
            if parts.count != 2 || floats.count != 2 || !(-90...90).contains(floats[0]) || !(-180...180).contains(floats[1]) {
                return .dropped(ICalProblem(line: line.line, uid: uid,
                                            message: "GEO '\(line.value.trimmedBlanks)' is not latitude;longitude (two decimal numbers, −90 to 90 and −180 to 180): it is left out and the event is kept"))
            }
            return .fine
        }
        if name == "DURATION" || (inAlarm && name == "TRIGGER" && line.parameter("VALUE")?.uppercased() != "DATE-TIME") {
            // libical wraps a huge duration around to another length.
            // (A value that is no duration at all is libical's to report, with its own words.)
            do {
                _ = try DurationValue(validating: line.value.trimmedBlanks)
            } catch where error.code == .outOfRange {
                return .problem(ICalProblem(line: line.line, uid: uid, message: "\(name) \(error.message)"))
            } catch {}
            return .fine
        }
        // Most lines (SUMMARY, DESCRIPTION, ATTENDEE…) are of no kind checked below: they are
        // done with here, before their parameters and value are read.
        let isTemporal = temporalProperties.contains(name)
        guard isTemporal || (inAlarm && name == "TRIGGER") else { return .fine }
        if isTemporal, line.parameter("TZID") != nil, line.value.trimmedBlanks.uppercased().hasSuffix("Z") {
            // RFC 5545 §3.3.5 forbids a TZID on a UTC time; the Z is the unambiguous part.
            let head = ContentLine.rawParameters(of: line.head).filter { $0.name != "TZID" }.map { ";\($0.name)=\($0.value)" }.joined()
            return .rewritten(ContentLine(text: name + head + ":" + line.value, line: line.line),
                              ICalProblem(line: line.line, uid: uid, message: "\(name) has a TZID and a UTC time (Z), which RFC 5545 forbids: read as UTC, the TZID is ignored"))
        }
        if dateValuedProperties.contains(name), line.parameter("VALUE") == nil, isDateList(line.value) {
            // A date written without VALUE=DATE: a day, not the midnight a DATE-TIME reading would make of it.
            let head = line.text[..<(line.valueSeparator ?? line.text.endIndex)]
            return .rewritten(ContentLine(text: head + ";VALUE=DATE:" + line.value, line: line.line),
                              ICalProblem(line: line.line, uid: uid, message: "\(name) '\(line.value.trimmedBlanks)' is a date without VALUE=DATE: read as that day"))
        }
        let isTrigger = inAlarm && name == "TRIGGER" && line.parameter("VALUE")?.uppercased() == "DATE-TIME"
        guard isTemporal || isTrigger else { return .fine }
        let type = line.parameter("VALUE")?.uppercased()
        for piece in pieces(of: line.value) {
            let text = String(piece).trimmedBlanks
            guard let reason = problem(text, type: type, allowPeriod: name == "RDATE") else { continue }
            if informational.contains(name) {
                return .dropped(ICalProblem(line: line.line, uid: uid, message: "\(name) '\(text)' \(reason); it only records when the event was written or changed, so it is left out and the event is kept"))
            }
            return .problem(ICalProblem(line: line.line, uid: uid, message: "\(name) '\(text)' \(reason)"))
        }
        return .fine
    }

    /// A value's comma-separated pieces, empty ones included. An ASCII value (every value a
    /// producer writes as RFC 5545 says) is split on its bytes: split as Characters, the pieces of
    /// each date property were 1.5% of an import's instructions.
    static func pieces(of value: String) -> [Substring] {
        guard value.utf8.allSatisfy({ $0 < 0x80 }) else { return value.split(separator: ",", omittingEmptySubsequences: false) }
        return value.utf8.split(separator: 0x2C, omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// Properties that may hold a DATE where a DATE-TIME is the default.
    static let dateValuedProperties: Set<String> = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]

    /// Whether every comma-separated piece of `value` (empty pieces aside), without its blanks,
    /// is exactly eight ASCII digits, as a DATE is. Read on the bytes: on Characters, with a
    /// string made of each piece, it showed in import profiles.
    static func isDateList(_ value: String) -> Bool {
        var pieceBytes = 0
        var digits = 0
        var blankAfterDigits = false
        for byte in value.utf8 {
            switch byte {
            case 0x2C:
                if pieceBytes > 0, digits != 8 { return false }
                (pieceBytes, digits, blankAfterDigits) = (0, 0, false)
            case 0x20, 0x09:
                pieceBytes += 1
                if digits > 0 { blankAfterDigits = true }
            case 0x30...0x39:
                if blankAfterDigits { return false }
                pieceBytes += 1
                digits += 1
            default:
                return false
            }
        }
        return pieceBytes == 0 || digits == 8
    }

    /// Why `text` is not a value of its type, or nil when it is: exactly `YYYYMMDD` for a DATE,
    /// `YYYYMMDDThhmmss` with an optional `Z` for a DATE-TIME, a real day and time of years
    /// 1–9999, and for RDATE a PERIOD of a start and an end or a duration.
    static func problem(_ text: String, type: String?, allowPeriod: Bool) -> String? {
        if type == "PERIOD", allowPeriod {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { return "is not a PERIOD (start/end or start/duration)" }
            if let reason = problem(parts[0], type: "DATE-TIME", allowPeriod: false) { return reason }
            if parts[1].hasPrefix("P") || parts[1].hasPrefix("+P") || parts[1].hasPrefix("-P") {
                do { _ = try DurationValue(validating: parts[1]) } catch { return "has a period length that \(error.code == .outOfRange ? "is out of range" : "is not a duration")" }
                return nil
            }
            return problem(parts[1], type: "DATE-TIME", allowPeriod: false)
        }
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) }
        }
        let dateOnly = bytes.count == 8
        if type == "DATE", !dateOnly { return "is not a DATE (YYYYMMDD)" }
        guard dateOnly || (bytes.count == 15 || (bytes.count == 16 && bytes[15] == 0x5A)) && bytes[8] == 0x54 else {
            return "is not an RFC 5545 DATE-TIME (YYYYMMDDThhmmss, with Z for UTC)"
        }
        guard let year = digits(0..<4), let month = digits(4..<6), let day = digits(6..<8) else {
            if type == "DATE" { return "is not a DATE (YYYYMMDD)" }
            return "is not an RFC 5545 DATE-TIME (YYYYMMDDThhmmss, with Z for UTC) or DATE (YYYYMMDD)"
        }
        guard year >= 1 else { return "is out of range: CometCal holds dates of years 1–9999" }
        guard CalendarDate(year: year, month: month, day: day) != nil else { return "is not a day of the calendar" }
        if dateOnly { return nil }
        guard let hour = digits(9..<11), let minute = digits(11..<13), let second = digits(13..<15) else {
            return "is not an RFC 5545 DATE-TIME (YYYYMMDDThhmmss, with Z for UTC)"
        }
        guard hour <= 23, minute <= 59, second <= 60 else { return "is not a time of day" }
        return nil
    }

    // MARK: Several rules

    /// RFC 5545 says RRULE SHOULD NOT occur more than once, and RFC 2445's EXRULE is gone from it;
    /// producers still write both. The same rule twice is one rule; different rules are a series
    /// of all their occurrences, less what each EXRULE generates. Each is said at its line.
    private static func collapseRepeatedRules(_ lines: [ContentLine], uid: String?, into prepared: inout PreparedComponent) -> [ContentLine] {
        var rules: [(line: ContentLine, rule: RecurrenceRule?)] = []
        var result: [ContentLine] = []
        for line in lines {
            if line.name == "EXRULE" {
                prepared.warnings.append(ICalProblem(line: line.line, uid: uid,
                                                     message: "EXRULE (RFC 2445; RFC 5545 removed it): the occurrences it generates are left out of the series, and it is written back as an EXRULE"))
            }
            guard line.name == "RRULE" else {
                result.append(line)
                continue
            }
            let rule = try? RecurrenceRule(parsing: line.value)
            if let rule, let same = rules.first(where: { $0.rule == rule }) {
                prepared.warnings.append(ICalProblem(line: line.line, uid: uid,
                                                     message: "this RRULE repeats the rule of line \(same.line.line); the two are one rule"))
                continue
            }
            if let first = rules.first {
                prepared.warnings.append(ICalProblem(line: line.line, uid: uid,
                                                     message: "a second RRULE, different from the one on line \(first.line.line) (RFC 5545 says SHOULD NOT, not MUST NOT): the series has the occurrences of every rule, and each RRULE is written back"))
            }
            rules.append((line, rule))
            result.append(line)
        }
        return result
    }
}
