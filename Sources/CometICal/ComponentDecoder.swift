import Foundation
import CometSchema

/// Turns one parsed component into property values of its entity, driven by the `@ical`
/// annotations: which property, parameter or value each field maps to. Calendar semantics that
/// no annotation can express (times and zones, DURATION, GEO with LOCATION, VALARM triggers)
/// are handled here by type. Properties no field maps are kept verbatim in the `@ical("*")` field.
struct ComponentDecoder {
    let registry: Registry
    let entity: EntityDefinition
    let zones: ZoneResolver
    /// The calendar's default zone for floating times (X-WR-TIMEZONE), if any.
    let defaultZone: String?
    /// What the entity's mapping gives, when the caller keeps it between components.
    var tables: Tables? = nil

    /// What decoding needs from the entity's mapping alone. A reader makes it once per entity:
    /// made for each component, it was 4% of an import's instructions (callgrind, 2,000 events).
    struct Tables {
        /// iCalendar names that are both a single field's and a list's (`overflowingNames`).
        let overflowing: Set<String>
        /// The other names producers use for a field's property (`alias: "NAME"`, or several),
        /// upper-cased, by field.
        let aliases: [String: [String]]
        /// The names of `consumedElsewhere` this entity has a rule for; the others are kept.
        let consumed: Set<String>

        init(_ entity: EntityDefinition) {
            overflowing = ComponentDecoder.overflowingNames(entity)
            consumed = ComponentDecoder.consumedElsewhere.filter { ComponentDecoder.consumes($0, entity) }
            var aliases: [String: [String]] = [:]
            for property in entity.properties {
                guard let text = property.ical?.string("alias") else { continue }
                aliases[property.name] = text.uppercased().split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            }
            self.aliases = aliases
        }
    }

    struct Decoded {
        var values: [String: Value]
        var problems: [ICalProblem]
        var warnings: [ICalProblem] = []
        /// The lines whose content went into a field or is kept for export (for the audit that
        /// no line is dropped in silence).
        var accounted: Set<Int> = []
        /// A floating time was read in the calendar's X-WR-TIMEZONE.
        var usedDefaultZone = false
    }

    static let zonedTimeProperties: Set<String> = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]

    /// iCalendar properties that are consumed by rules other than a field's own name.
    static let consumedElsewhere: Set<String> = ["DURATION", "GEO", "DTSTAMP", "X-LIC-ERROR"]

    /// Whether the entity has the rule that reads `name`: DURATION and a derived DTSTAMP belong to
    /// an entity with times (an event), GEO to one with a location. An entity without (a to-do in
    /// the tasks schema) keeps them as written.
    static func consumes(_ name: String, _ entity: EntityDefinition) -> Bool {
        switch name {
        case "DURATION": return entity.temporalFields != nil
        case "DTSTAMP": return entity.temporalFields != nil || entity.properties.contains { $0.icalName == "DTSTAMP" && $0.icalParameter == nil }
        case "GEO": return entity.properties.contains { $0.icalName == "LOCATION" && $0.icalParameter == nil }
        default: return true
        }
    }

    /// `properties` are the node's properties aligned with their lines where that was possible;
    /// `verbatim` the lines kept as written. `requireStart` is false for iTIP replies and
    /// cancellations, which RFC 5545 §3.6.1 lets go without DTSTART.
    func decode(_ raw: RawComponent, _ node: LibicalNode, properties: [LibicalProperty], verbatim: [ContentLine] = [],
                requireStart: Bool = true) -> Decoded {
        var values: [String: Value] = [:]
        var decoded = Decoded(values: [:], problems: [])
        let uid = raw.value("UID")
        func line(of property: LibicalProperty?, or name: String) -> Int {
            property?.source?.line ?? raw.line(of: name) ?? raw.beginLine
        }
        func problem(_ name: String, _ message: String, at property: LibicalProperty? = nil) {
            decoded.problems.append(ICalProblem(line: line(of: property, or: name), uid: uid, message: message))
        }
        func warn(_ name: String, _ message: String, at property: LibicalProperty? = nil) {
            decoded.warnings.append(ICalProblem(line: line(of: property, or: name), uid: uid, message: message))
        }
        func account(_ used: [LibicalProperty]) {
            for property in used { if let line = property.source?.line { decoded.accounted.insert(line) } }
        }
        let tables = self.tables ?? Tables(entity)
        var mapped = tables.consumed
        account(properties.filter { tables.consumed.contains($0.name) })
        for name in ["DURATION", "GEO"] where tables.consumed.contains(name) {
            let all = properties.filter { $0.name == name }
            for repeated in all.dropFirst() {
                warn(name, "\(name) appears again (first on line \(line(of: all[0], or: name))); the first is read, and this one is left out", at: repeated)
            }
        }
        /// Repeated single-valued properties (a second SUMMARY) that no field can hold: kept.
        var surplus: [LibicalProperty] = []
        /// Lines kept as written in place of a field's own form, while the field holds what it
        /// held when read (`field=key`), by line.
        var replacing: [Int: String] = [:]
        var keptChildren: [String] = []
        let start = properties.first { $0.name == "DTSTART" }

        // Alarms are read after start and end are settled: RELATED=END needs the event's length.
        var withChildren: [PropertyDefinition] = []
        var settledLength: Int64?
        var settled = false
        // The component's properties by name, in file order: each field looks up its own.
        var byName: [String: [LibicalProperty]] = [:]
        for property in properties { byName[property.name, default: []].append(property) }
        let overflowing = tables.overflowing
        func read(_ property: PropertyDefinition) {
            guard let ical = property.ical else { return }
            let name = property.icalName
            if name == "*" { return }
            if let param = property.icalParameter {
                // A field read from a parameter of the component's own property (DTSTART;VALUE=DATE, DTSTART;TZID).
                guard let owner = name, let source = byName[owner]?.first else { return }
                mapped.insert(owner)
                if property.type.base == .builtin(.bool), let whenTrue = ical.string("whenTrue") {
                    values[property.name] = .bool(source.parameter(param)?.uppercased() == whenTrue.uppercased())
                } else if param == "TZID" {
                    if let tzid = source.parameter("TZID"), case .zoned(let identifier)? = zones.resolve(tzid), identifier != "UTC" {
                        values[property.name] = .string(identifier)
                    } else if source.parameter("TZID") == nil, let defaultZone, !source.text.hasSuffix("Z"), source.parameter("VALUE") != "DATE" {
                        values[property.name] = .string(defaultZone)
                    }
                } else if let text = source.parameter(param) {
                    values[property.name] = .string(text)
                }
                return
            }
            guard let name else { return }
            var sources = byName[name] ?? []
            // Other names producers use for the same thing (`alias: "NAME"`, or several).
            if sources.isEmpty, let aliases = tables.aliases[property.name] {
                for alias in aliases where sources.isEmpty {
                    sources = byName[alias] ?? []
                    if !sources.isEmpty { mapped.insert(alias) }
                }
            }
            mapped.insert(name)
            if overflowing.contains(name) {
                // A single field and a list on one property (RRULE): the first value is the
                // field's, the others the list's.
                sources = property.type.isArray ? Array(sources.dropFirst()) : Array(sources.prefix(1))
            }
            if !property.type.isArray, sources.count > 1 {
                let extra = sources.dropFirst().filter { $0.source?.line != sources[0].source?.line }
                surplus += extra
                for repeated in extra {
                    warn(name, "\(name) appears again (first on line \(line(of: sources[0], or: name))); the first is read, and this one is kept as written for export", at: repeated)
                }
                sources = Array(sources.prefix(1))
            }
            account(sources)
            let children = node.children.filter { $0.kindName == name }
            if !children.isEmpty, !settled, property.type.isArray {
                withChildren.append(property)
                return
            }
            do {
                let rawChildren = raw.children.filter { $0.name == name }
                if let value = try decodeField(property, name: name, sources: sources, children: children, rawChildren: rawChildren, start: start,
                                               properties: properties, length: settledLength, keptChildren: &keptChildren) {
                    values[property.name] = value
                }
            } catch let error as DecodeError {
                // An x-name read as the type a field assumes (Teams' join link as a URL) that is
                // not of that type (`REDACTED`): an x-property's value is the producer's own, so
                // it is kept as written instead of costing the event.
                if error.line == nil, let source = sources.first, source.name.hasPrefix("X-") || error.keptAsWritten {
                    surplus.append(source)
                    // Written back instead of the field's own line while the field is untouched.
                    if error.keptAsWritten, let line = source.source?.line {
                        replacing[line] = property.name + "=" + (property.defaultValue.map(ICalWriter.valueKey) ?? ICalWriter.absentKey)
                    }
                    warn(name, "\(error.message): \(source.name) is kept as written and written back, and \(property.name) stays empty", at: source)
                    return
                }
                if let line = error.line {
                    decoded.problems.append(ICalProblem(line: line, uid: uid, message: error.message))
                } else {
                    problem(name, error.message, at: sources.first)
                }
            } catch {
                problem(name, "\(error)", at: sources.first)
            }
        }
        entity.properties.forEach(read)
        // A date (VALUE=DATE) read into a date-time field of an entity with no all-day rule (a
        // to-do's DUE): written back as a date while the field keeps the value read from it.
        if entity.temporalFields == nil {
            for property in entity.properties where property.type.base == .builtin(.dateTime) && !property.type.isArray && property.icalParameter == nil {
                guard let value = values[property.name], let name = property.icalName,
                      let source = properties.first(where: { $0.name == name }),
                      source.parameter("VALUE")?.uppercased() == "DATE" || source.text.trimmedBlanks.count == 8,
                      let line = source.source?.line else { continue }
                surplus.append(source)
                replacing[line] = property.name + "=" + ICalWriter.valueKey(value)
            }
        }
        // Only when DTSTART is absent: a DTSTART that failed to read was reported already.
        if requireStart, values[entityStartProperty ?? ""] == nil, raw.line(of: "DTSTART") == nil, let startField = entityStartProperty,
           entity.property(startField)?.isRequired == true {
            decoded.problems.append(ICalProblem(line: raw.beginLine, uid: uid, message: "\(raw.name) has no DTSTART; an event needs a start (add DTSTART, or remove the component)"))
        }
        if let fields = entity.temporalFields {
            // Every RRULE and EXRULE of the series, each at its own line (the first RRULE is the
            // rule field's): an EXRULE is expanded as far as the series, so it is held to the same bounds.
            let first: [RecurrenceRule] = { if let property = fields.recurrence, case .recurrence(let rule)? = values[property] { return [rule] } else { return [] } }()
            let extra = fields.extraRules(of: values)
            for (name, rules) in [("RRULE", first + extra.more), ("EXRULE", extra.exclusions)] {
                for (rule, line) in zip(rules, raw.properties.filter({ $0.name == name }).map(\.line)) {
                    if let message = ComponentDecoder.unusable(rule) { decoded.problems.append(ICalProblem(line: line, uid: uid, message: message)) }
                }
            }
        }
        /// Kept lines that hold only while a field keeps the value read from them, by line.
        var bindings: [Int: String] = replacing
        if let fields = entity.temporalFields {
            reconcileTimes(fields, &values, properties: properties, problem: problem, warn: warn)
            // An end given as DURATION is written back as that DURATION while the event keeps the
            // end it implies (a start skipped by DST is written with its own DURATION by export).
            if let endField = fields.end, let duration = properties.first(where: { $0.name == "DURATION" }), let line = duration.source?.line,
               !properties.contains(where: { $0.name == "DTEND" }), let end = values[endField],
               case .dateTime(let start)? = values[fields.start], start.nominal == nil {
                surplus.append(duration)
                bindings[line] = endField + "=" + ICalWriter.valueKey(end)
            }
            outlookAllDay(fields, &values, properties: properties, warn: warn)
            // Outlook's marker is written back while the event stays all-day.
            if let marker = properties.first(where: { $0.name == "X-MICROSOFT-CDO-ALLDAYEVENT" }), marker.text.uppercased() == "TRUE",
               let line = marker.source?.line, let field = fields.isAllDay, values[field] == .bool(true) {
                bindings[line] = field + "=" + ICalWriter.valueKey(.bool(true))
            }
        }
        // Apple's structured location is written back while the location stays the place it was.
        // Now the alarms, against the length the event ended up with.
        settledLength = settledEventLength(values, isAllDay: properties.first { $0.name == "DTSTART" }?.parameter("VALUE")?.uppercased() == "DATE")
        settled = true
        withChildren.forEach(read)
        if let apple = properties.first(where: { $0.name == "X-APPLE-STRUCTURED-LOCATION" }), let line = apple.source?.line,
           let field = entity.properties.first(where: { $0.icalName == "LOCATION" && $0.icalParameter == nil }),
           let value = values[field.name], case .union(_, .place) = value {
            bindings[line] = field.name + "=" + ICalWriter.valueKey(value)
        }
        noteReadings(raw, properties: properties, values: values, warn: warn) { line, message in
            decoded.warnings.append(ICalProblem(line: line, uid: uid, message: message))
        }
        decoded.usedDefaultZone = defaultZone != nil && properties.contains { property in
            ComponentDecoder.zonedTimeProperties.contains(property.name) && property.parameter("TZID") == nil
                && property.parameter("VALUE")?.uppercased() != "DATE" && !property.writtenValue.uppercased().hasSuffix("Z")
        }
        if let extras = entity.properties.first(where: { $0.ical?.firstString == "*" }) {
            let handledChildren: Set<String> = Set(entity.properties.compactMap { $0.icalName })
            // Kept as the file wrote it (unfolded): libical's own serialization drops some escapes
            // and quotes. A list libical split into one property per value is one line.
            let unmapped = properties.filter { !mapped.contains($0.name) } + surplus
            account(unmapped)
            var seenLines = Set<Int>()
            var kept: [String] = unmapped.compactMap { property in
                guard let source = property.source else { return property.unfoldedText }
                guard seenLines.insert(source.line).inserted else { return nil }
                return bindings[source.line].map { ICalWriter.keptChildMarker + $0 + "\n" + source.text } ?? source.text
            }.filter { !$0.isEmpty }
            // What libical cannot read at all, as written too.
            kept += verbatim.map(\.text)
            kept += keptChildren
            decoded.accounted.formUnion(verbatim.map(\.line))
            // Unmapped subcomponents are kept when libical knows them (it cannot write RFC 9073's
            // VLOCATION or VRESOURCE back, so keeping those would not survive an export).
            let known = Set(node.children.map(\.kindName))
            for child in raw.children where !handledChildren.contains(child.name) {
                if known.contains(child.name) {
                    kept.append(child.text.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\r\n", with: "\n"))
                    decoded.accounted.formUnion(child.allLines)
                } else {
                    warn(child.name, "BEGIN:\(child.name) (line \(child.beginLine)) is a component libical 3.0 cannot write back, so it is not kept", at: nil)
                }
            }
            if !kept.isEmpty { values[extras.name] = .string(kept.joined(separator: "\n")) }
        }
        decoded.values = values
        // One warning per line and message: a list (EXDATE a,b) is one line.
        var said = Set<String>()
        decoded.warnings = decoded.warnings.filter { said.insert("\($0.line)|\($0.message)").inserted }
        return decoded
    }

    private var entityStartProperty: String? { entity.temporalFields?.start }

    /// Properties that both a single field and a list field map (RRULE: `recurrence` and
    /// `moreRules`): the first value goes to the single field, the rest to the list.
    static func overflowingNames(_ entity: EntityDefinition) -> Set<String> {
        let direct = entity.properties.filter { $0.icalParameter == nil }
        let singles = Set(direct.filter { !$0.type.isArray }.compactMap(\.icalName))
        return Set(direct.filter(\.type.isArray).compactMap(\.icalName)).intersection(singles).subtracting(["*"])
    }

    /// Rules that parse but cannot be meant: an ordinal no month or year has (6MO monthly), or an
    /// unbounded rule firing more than 100 times a day (a producer bug that would flood the index).
    static func unusable(_ rule: RecurrenceRule) -> String? {
        if rule.frequency == .monthly || (rule.frequency == .yearly && !rule.byMonth.isEmpty),
           let bad = rule.byDay.first(where: { abs($0.ordinal ?? 0) > 5 }) {
            return "BYDAY=\(bad) can never match: a month has at most 5 of each weekday"
        }
        if rule.end == .never {
            let perDay: Int
            switch rule.frequency {
            case .secondly: perDay = 86_400 / rule.interval
            case .minutely: perDay = 1_440 / rule.interval
            case .hourly: perDay = 24 / rule.interval
            default: perDay = 1
            }
            let limited = !rule.byHour.isEmpty || !rule.byMinute.isEmpty || !rule.bySecond.isEmpty
            if perDay > 100, !limited || rule.frequency == .secondly && rule.bySecond.isEmpty {
                return "FREQ=\(rule.frequency.rawValue) with no end repeats \(perDay) times a day forever; give it a COUNT or UNTIL"
            }
        }
        return nil
    }

    struct DecodeError: Error {
        let message: String
        /// The line it is about, when not the field's first property's.
        var line: Int? = nil
        /// A value outside what the field reads (an enumeration's cases) of a property that is
        /// otherwise fine: the property is kept as written instead of costing the component.
        var keptAsWritten = false
    }

    // MARK: Fields

    /// `keptChildren` collects subcomponents a field reads only in part (a VALARM's trigger),
    /// each as written and marked with the value read from it, so export can write it back.
    private func decodeField(_ property: PropertyDefinition, name: String, sources: [LibicalProperty], children: [LibicalNode], rawChildren: [RawComponent],
                             start: LibicalProperty?, properties: [LibicalProperty], length: Int64?, keptChildren: inout [String]) throws -> Value? {
        let type = property.type
        if type.isArray {
            var items: [Value] = []
            if case .entity(let transient) = type.base, let definition = registry.entity(transient), definition.kind == .transient {
                for source in sources { items.append(.object(try decodeTransient(definition, from: source))) }
            } else if case .union(let unionName) = type.base, let union = registry.union(unionName), !children.isEmpty {
                let aligned = rawChildren.count == children.count
                for (index, child) in children.enumerated() {
                    // Apple's ACTION:NONE placeholder means "no alarm": kept as it is, not a reminder.
                    if child.properties.first(where: { $0.name == "ACTION" })?.text.uppercased() == "NONE" {
                        if aligned { keptChildren.append(rawChildren[index].text.split(separator: "\r\n").joined(separator: "\n")) }
                        continue
                    }
                    guard let value = try decodeUnionChild(union, child, length: length) else { continue }
                    items.append(value)
                    // RELATED=END holds only while the event keeps the length it had.
                    let trigger = child.properties.first { $0.name == "TRIGGER" }
                    let bound = trigger?.parameter("RELATED")?.uppercased() == "END" ? length : nil
                    if aligned { keptChildren.append(ICalWriter.markedChild(rawChildren[index], for: value, length: bound)) }
                }
            } else if type.element.base == .builtin(.string) {
                // TEXT lists from the lines as written: libical splits `a\,b,c` at the escaped comma.
                var seenLines = Set<Int>()
                for source in sources {
                    if let line = source.source {
                        guard seenLines.insert(line.line).inserted else { continue }
                        items += ComponentDecoder.splitUnescapedCommas(line.value).map { .string(ICalText.unescape($0)) }
                    } else {
                        items += ComponentDecoder.listItems(source, type: type.element).map(Value.string)
                    }
                }
            } else {
                for source in sources {
                    for piece in ComponentDecoder.listItems(source, type: type.element) {
                        do {
                            items.append(try decodeScalar(piece, from: source, type: type.element, property: property))
                        } catch var error as DecodeError {
                            error.line = error.line ?? source.source?.line
                            throw error
                        }
                    }
                }
            }
            if items.isEmpty { return nil }
            return .array(items)
        }
        if case .union(let unionName) = type.base, let union = registry.union(unionName) {
            return try decodeUnion(union, name: name, sources: sources, properties: properties)
        }
        guard let source = sources.first else { return nil }
        if case .entity(let transient) = type.base, let definition = registry.entity(transient), definition.kind == .transient {
            return .object(try decodeTransient(definition, from: source))
        }
        return try decodeScalar(source.text, from: source, type: type, property: property)
    }

    /// Multi-valued properties (EXDATE, RDATE, CATEGORIES) may list values with commas.
    static func listItems(_ source: LibicalProperty, type: TypeExpression) -> [String] {
        let text = source.text
        switch type.base {
        case .builtin(.dateTime), .builtin(.date):
            return text.split(separator: ",").map { piece in
                // RDATE;VALUE=PERIOD: the period's start is the occurrence.
                String(piece.split(separator: "/").first ?? piece).trimmedBlanks
            }
        case .builtin(.string):
            return splitUnescapedCommas(text)
        default:
            return [text]
        }
    }

    /// Splits at commas that are not escaped, keeping the escapes for `ICalText.unescape`.
    static func splitUnescapedCommas(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "," {
                items.append(current.trimmedBlanks)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current.trimmedBlanks)
        return items.filter { !$0.isEmpty }
    }

    private func decodeScalar(_ text: String, from source: LibicalProperty, type: TypeExpression, property: PropertyDefinition) throws -> Value {
        switch type.base {
        case .builtin(.string): return .string(text)
        case .builtin(.int):
            guard let number = Int(text.trimmedBlanks) else { throw DecodeError(message: "\(source.name) '\(text)' is not a whole number") }
            return .int(number)
        case .builtin(.double):
            guard let number = Double(text) else { throw DecodeError(message: "\(source.name) '\(text)' is not a number") }
            return .double(number)
        case .builtin(.bool):
            if let whenTrue = property.ical?.string("whenTrue") { return .bool(text.uppercased() == whenTrue.uppercased()) }
            return .bool(["TRUE", "YES", "1"].contains(text.uppercased()))
        case .builtin(.dateTime): return .dateTime(try dateTime(text, from: source))
        case .builtin(.date):
            guard let date = CalendarDate(parsing: String(text.prefix(8))) else { throw DecodeError(message: "\(source.name) '\(text)' is not a date") }
            return .date(date)
        case .builtin(.duration):
            guard let duration = DurationValue(parsing: text) else { throw DecodeError(message: "\(source.name) '\(text)' is not a duration") }
            return .duration(duration)
        case .builtin(.url):
            guard let url = URL(string: text.trimmedBlanks), url.scheme != nil else { throw DecodeError(message: "\(source.name) '\(text)' is not a URL") }
            return .url(url)
        case .builtin(.uuid):
            guard let uuid = UUID(uuidString: text) else { throw DecodeError(message: "\(source.name) '\(text)' is not a UUID") }
            return .uuid(uuid)
        // As written: libical's serialization leaves out parts it takes as defaults (RFC 7529's SKIP=OMIT).
        case .builtin(.recurrence): return .recurrence(try recurrence(source.writtenValue, source: source))
        case .builtin(.person): return .person(person(source))
        case .builtin(.place):
            return .place(PlaceValue(name: text))
        case .enumeration(let name):
            guard let definition = registry.enumeration(name),
                  let match = definition.cases.first(where: { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() }) else {
                throw DecodeError(message: "\(source.name) '\(text)' is not one of \(registry.enumeration(name)?.cases.compactMap { $0.annotations.first(named: "ical")?.firstString }.joined(separator: ", ") ?? "")",
                                  keptAsWritten: true)
            }
            return .enumCase(match.name)
        case .union, .entity:
            throw DecodeError(message: "\(source.name) cannot be read as \(type)")
        }
    }
}
