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
        var mapped = Set<String>(ComponentDecoder.consumedElsewhere)
        account(properties.filter { ComponentDecoder.consumedElsewhere.contains($0.name) })
        /// Repeated single-valued properties (a second SUMMARY) that no field can hold: kept.
        var surplus: [LibicalProperty] = []
        var keptChildren: [String] = []
        let start = properties.first { $0.name == "DTSTART" }

        for property in entity.properties {
            guard let ical = property.ical else { continue }
            let name = ical.firstString?.uppercased()
            if name == "*" { continue }
            if let param = ical.string("param")?.uppercased() {
                // A field read from a parameter of the component's own property (DTSTART;VALUE=DATE, DTSTART;TZID).
                guard let owner = name, let source = properties.first(where: { $0.name == owner }) else { continue }
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
                continue
            }
            guard let name else { continue }
            var sources = properties.filter { $0.name == name }
            // Other names producers use for the same thing (`alias: "NAME"`, or several).
            if sources.isEmpty, let aliases = ical.string("alias")?.uppercased().split(whereSeparator: { $0 == "," || $0 == " " }) {
                for alias in aliases.map(String.init) where sources.isEmpty {
                    sources = properties.filter { $0.name == alias }
                    if !sources.isEmpty { mapped.insert(alias) }
                }
            }
            mapped.insert(name)
            if !property.type.isArray, !ComponentDecoder.isList(property, registry: registry), sources.count > 1 {
                let extra = sources.dropFirst().filter { $0.source?.line != sources[0].source?.line }
                surplus += extra
                for repeated in extra {
                    warn(name, "\(name) appears again (first on line \(line(of: sources[0], or: name))); the first is read, and this one is kept as written for export", at: repeated)
                }
                sources = Array(sources.prefix(1))
            }
            account(sources)
            let children = node.children.filter { $0.kindName == name }
            do {
                let rawChildren = raw.children.filter { $0.name == name }
                if let value = try decodeField(property, name: name, sources: sources, children: children, rawChildren: rawChildren, start: start,
                                               properties: properties, keptChildren: &keptChildren) {
                    values[property.name] = value
                }
            } catch let error as DecodeError {
                if let line = error.line {
                    decoded.problems.append(ICalProblem(line: line, uid: uid, message: error.message))
                } else {
                    problem(name, error.message, at: sources.first)
                }
            } catch {
                problem(name, "\(error)", at: sources.first)
            }
        }
        // Only when DTSTART is absent: a DTSTART that failed to read was reported already.
        if requireStart, values[entityStartProperty ?? ""] == nil, raw.line(of: "DTSTART") == nil, let startField = entityStartProperty,
           entity.property(startField)?.isRequired == true {
            decoded.problems.append(ICalProblem(line: raw.beginLine, uid: uid, message: "\(raw.name) has no DTSTART; an event needs a start (add DTSTART, or remove the component)"))
        }
        if let exrule = raw.properties.first(where: { $0.name == "EXRULE" }) {
            decoded.problems.append(ICalProblem(line: exrule.line, uid: uid, message: "EXRULE was removed from iCalendar by RFC 5545 and cannot be kept; list the exceptions as EXDATEs"))
        }
        if let fields = entity.temporalFields, let ruleField = fields.recurrence, case .recurrence(let rule)? = values[ruleField],
           let line = raw.line(of: "RRULE") {
            if let message = ComponentDecoder.unusable(rule) { decoded.problems.append(ICalProblem(line: line, uid: uid, message: message)) }
        }
        /// Kept lines that hold only while a field keeps the value read from them, by line.
        var bindings: [Int: String] = [:]
        if let fields = entity.temporalFields {
            reconcileTimes(fields, &values, properties: properties, problem: problem, warn: warn)
            outlookAllDay(fields, &values, properties: properties, warn: warn)
            // Outlook's marker is written back while the event stays all-day.
            if let marker = properties.first(where: { $0.name == "X-MICROSOFT-CDO-ALLDAYEVENT" }), marker.text.uppercased() == "TRUE",
               let line = marker.source?.line, let field = fields.isAllDay, values[field] == .bool(true) {
                bindings[line] = field + "=" + ICalWriter.valueKey(.bool(true))
            }
        }
        // Apple's structured location is written back while the location stays the place it was.
        if let apple = properties.first(where: { $0.name == "X-APPLE-STRUCTURED-LOCATION" }), let line = apple.source?.line,
           let field = entity.properties.first(where: { $0.ical?.firstString?.uppercased() == "LOCATION" && $0.ical?.string("param") == nil }),
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
            let handledChildren: Set<String> = Set(entity.properties.compactMap { $0.ical?.firstString?.uppercased() })
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
        return decoded
    }

    /// RDATE;VALUE=PERIOD adds occurrences with their own end. The RDATE field holds starts, so
    /// a period whose length differs from the event's becomes an override of that occurrence
    /// carrying the period's end: nothing of the period is lost, and the export says the same
    /// with an RDATE and an override.
    func periodOverrides(_ values: [String: Value], properties: [LibicalProperty]) -> [(values: [String: Value], line: Int)] {
        guard let fields = entity.temporalFields, let endField = fields.end, let recurrenceField = fields.recurrenceID,
              case .dateTime(let start)? = values[fields.start] else { return [] }
        let length: Int64 = { if case .dateTime(let end)? = values[endField] { return end.sortKey - start.sortKey } else { return 0 } }()
        var result: [(values: [String: Value], line: Int)] = []
        for property in properties where property.name == "RDATE" && property.parameter("VALUE")?.uppercased() == "PERIOD" {
            let parts = property.text.split(separator: "/").map(String.init)
            guard parts.count == 2, var periodStart = try? dateTime(parts[0], from: property) else { continue }
            var periodEnd: DateTimeValue
            if let duration = DurationValue(parsing: parts[1]) {
                guard let end = try? periodStart.adding(duration) else { continue }
                periodEnd = end
            } else if let end = try? dateTime(parts[1], from: property) {
                periodEnd = end
            } else {
                continue
            }
            guard periodEnd.sortKey - periodStart.sortKey != length else { continue }
            if let zone = start.timeZoneIdentifier {
                periodStart = DateTimeValue(kind: .zoned(epochSeconds: periodStart.sortKey, timeZone: zone))
                periodEnd = DateTimeValue(kind: .zoned(epochSeconds: periodEnd.sortKey, timeZone: zone))
            }
            var override = values
            for name in [fields.recurrence, fields.exclusions, fields.additions].compactMap({ $0 }) {
                override[name] = entity.property(name)?.defaultValue
            }
            override[recurrenceField] = .dateTime(periodStart)
            override[fields.start] = .dateTime(periodStart)
            override[endField] = .dateTime(periodEnd)
            result.append((override, property.source?.line ?? 0))
        }
        return result
    }

    /// Outlook writes an all-day event as midnight to midnight in its zone, with
    /// X-MICROSOFT-CDO-ALLDAYEVENT:TRUE: that is the date, or dates, it covers.
    private func outlookAllDay(_ fields: TemporalFields, _ values: inout [String: Value], properties: [LibicalProperty],
                               warn: (String, String, LibicalProperty?) -> Void) {
        guard let marker = properties.first(where: { $0.name == "X-MICROSOFT-CDO-ALLDAYEVENT" }), marker.text.uppercased() == "TRUE",
              let allDayField = fields.isAllDay, values[allDayField] != .bool(true),
              case .dateTime(let start)? = values[fields.start], !start.isFloating else { return }
        let startWall = start.localTime
        guard startWall.hour == 0, startWall.minute == 0, startWall.second == 0, let startDay = LocalDateTime(date: startWall.date, hour: 0, minute: 0) else { return }
        var endDay: LocalDateTime?
        if let endField = fields.end, case .dateTime(let end)? = values[endField] {
            let endWall = end.wallTime(in: start.expansionZone)
            guard endWall.hour == 0, endWall.minute == 0, endWall.second == 0, endWall.date > startWall.date else { return }
            endDay = LocalDateTime(date: endWall.date, hour: 0, minute: 0)
        }
        values[fields.start] = .dateTime(.floating(startDay))
        if let endField = fields.end { values[endField] = endDay.map { .dateTime(.floating($0)) } }
        values[allDayField] = .bool(true)
        if let zoneField = entity.properties.first(where: { $0.ical?.string("param")?.uppercased() == "TZID" }) { values[zoneField.name] = nil }
        warn("X-MICROSOFT-CDO-ALLDAYEVENT", "Outlook's all-day event, written as midnight to midnight: read as the date\(endDay.map { $0.date.dayNumber - startWall.date.dayNumber > 1 ? "s from \(startWall.date) to \(LocalDateTime(wallSeconds: $0.wallSeconds - 86_400).date)" : " \(startWall.date)" } ?? " \(startWall.date)")", marker)
    }

    /// RFC 5545 §3.2 values a field may not tell apart (ROLE=CHAIR reads as required) but that
    /// are kept as written, so nothing is lost and there is nothing to warn about.
    static let standardParameterValues: [String: Set<String>] = [
        "ROLE": ["CHAIR", "REQ-PARTICIPANT", "OPT-PARTICIPANT", "NON-PARTICIPANT"],
        "PARTSTAT": ["NEEDS-ACTION", "ACCEPTED", "DECLINED", "TENTATIVE", "DELEGATED", "COMPLETED", "IN-PROCESS"],
        "CUTYPE": ["INDIVIDUAL", "GROUP", "RESOURCE", "ROOM", "UNKNOWN"],
    ]

    /// Warnings for what is read other than literally, where the value itself is kept: each a
    /// reading RFC 5545 allows or producers mean, said once at its line.
    private func noteReadings(_ raw: RawComponent, properties: [LibicalProperty], values: [String: Value], warn: (String, String, LibicalProperty?) -> Void,
                              warnAt: (Int, String) -> Void) {
        let startProperty = properties.first { $0.name == "DTSTART" }
        let startIsDate = startProperty?.parameter("VALUE")?.uppercased() == "DATE"
        // Text with escapes RFC 5545 does not have.
        for property in properties {
            guard let source = property.source, ComponentReader.isText(source), source.value.contains("\\") else { continue }
            var odd: Set<String> = []
            var escaped = false
            for character in source.value {
                if escaped {
                    if !"nN,;\\".contains(character) { odd.insert("\\" + String(character)) }
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                }
            }
            guard !odd.isEmpty else { continue }
            let list = odd.sorted().joined(separator: " ")
            warn(property.name, "\(property.name) has escapes RFC 5545 does not define (\(list)): \\: is read as ':', others are kept as written", property)
        }
        // UNTIL of the other kind than DTSTART.
        if let fields = entity.temporalFields, let ruleField = fields.recurrence, case .recurrence(let rule)? = values[ruleField],
           case .dateTime(let start)? = values[fields.start] {
            let ruleProperty = properties.first { $0.name == "RRULE" }
            switch rule.end {
            case .untilDate where !startIsDate:
                warn("RRULE", "UNTIL is a date on a series with times: read as through the end of that day in the event's zone", ruleProperty)
            case .untilDateTime where startIsDate:
                warn("RRULE", "UNTIL is a date-time on an all-day series: read as its date", ruleProperty)
            case .untilDateTime(let until) where until.isFloating && !start.isFloating:
                warn("RRULE", "UNTIL has no Z on a series in a zone: read as wall time in the event's zone", ruleProperty)
            case .untilDateTime(let until) where !until.isFloating && start.isFloating:
                warn("RRULE", "UNTIL is in UTC on a floating series: compared as a wall time", ruleProperty)
            default: break
            }
        }
        // EXDATE and RDATE of the other value type than DTSTART.
        for property in properties where property.name == "EXDATE" || property.name == "RDATE" {
            let isDate = property.parameter("VALUE")?.uppercased() == "DATE"
            if isDate != startIsDate, property.parameter("VALUE")?.uppercased() != "PERIOD" {
                let verb = property.name == "EXDATE" ? "removes" : "adds"
                warn(property.name, isDate ? "\(property.name) is a date on a series with times: it \(verb) that day's occurrence, at the series' time"
                                           : "\(property.name) is a date-time on an all-day series: it \(verb) the occurrence on its date", property)
            }
        }
        if let recurrence = properties.first(where: { $0.name == "RECURRENCE-ID" }), recurrence.parameter("RANGE")?.uppercased() == "THISANDFUTURE" {
            warn("RECURRENCE-ID", "RANGE=THISANDFUTURE: this override is kept for its own occurrence; the later occurrences are not moved with it (a known limit, see docs/icalendar.md)", recurrence)
        }
        // Attendee parameters no field reads as written (kept for export all the same).
        for property in entity.properties {
            guard property.type.isArray, case .entity(let transientName) = property.type.base, let transient = registry.entity(transientName),
                  transient.kind == .transient, let name = property.ical?.firstString?.uppercased() else { continue }
            for source in properties where source.name == name {
                for field in transient.properties {
                    guard let param = field.ical?.string("param")?.uppercased(), param != "*", let text = source.parameter(param),
                          !ComponentDecoder.isCanonical(text, property: field, registry: registry),
                          !(ComponentDecoder.standardParameterValues[param]?.contains(text.uppercased()) ?? false),
                          let reading = ComponentDecoder.readsAs(text, property: field, registry: registry) else { continue }
                    warn(name, "\(param)=\(text) is not a value CometCal knows: read as \(registry.displayText(reading)), and kept as written for export", source)
                }
            }
        }
        // Alarms read other than literally.
        guard entity.properties.contains(where: { $0.ical?.firstString?.uppercased() == "VALARM" }) else { return }
        for child in raw.children where child.name == "VALARM" {
            let action = child.value("ACTION")?.trimmedBlanks.uppercased()
            if action == nil {
                warnAt(child.beginLine, "this VALARM has no ACTION (RFC 5545 requires one): read as a reminder at its trigger")
            } else if let action, action.hasPrefix("X-") {
                warnAt(child.beginLine, "ACTION:\(action) is not a standard action: read as a reminder at its trigger, and kept for export")
            }
            if let trigger = child.properties.first(where: { $0.name == "TRIGGER" }), trigger.parameter("RELATED")?.uppercased() == "END" {
                warnAt(trigger.line, "TRIGGER;RELATED=END is stored relative to the start, using this event's length; it is written back as it came while that length stays")
            }
        }
    }

    /// A single-valued field that still reads a list (CATEGORIES is an array; a String field
    /// fed by a multi-valued property would be one too).
    static func isList(_ property: PropertyDefinition, registry: Registry) -> Bool {
        property.type.isArray
    }

    /// Start, end and DURATION together, as RFC 5545 means them: both times of one kind, an end
    /// after the start, a DURATION that agrees, a start skipped by DST keeping its length.
    private func reconcileTimes(_ fields: TemporalFields, _ values: inout [String: Value], properties: [LibicalProperty],
                                problem: (String, String, LibicalProperty?) -> Void, warn: (String, String, LibicalProperty?) -> Void) {
        let startProperty = properties.first { $0.name == "DTSTART" }
        let endProperty = properties.first { $0.name == "DTEND" }
        let durationProperty = properties.first { $0.name == "DURATION" }
        guard case .dateTime(var startValue)? = values[fields.start] else { return }
        let isDate = startProperty?.parameter("VALUE")?.uppercased() == "DATE"
        // An all-day occurrence is named by its date: a RECURRENCE-ID written as a zoned midnight
        // (as some producers do) is that date, or it would miss the occurrence it replaces.
        if isDate, let recurrenceField = fields.recurrenceID, case .dateTime(let original)? = values[recurrenceField], !original.isFloating,
           let midnight = LocalDateTime(date: original.localTime.date, hour: 0, minute: 0) {
            values[recurrenceField] = .dateTime(.floating(midnight))
            let property = properties.first { $0.name == "RECURRENCE-ID" }
            warn("RECURRENCE-ID", "RECURRENCE-ID is a date-time on an all-day event; read as its date, \(original.localTime.date)", property)
        }
        if let endField = fields.end, case .dateTime(var endValue)? = values[endField] {
            // A floating time beside a zoned one: RFC 5545 wants both of one kind; the zone the
            // other names is the only one the producer can have meant.
            if !isDate, startValue.isFloating, let zone = endValue.timeZoneIdentifier, let timeZone = TimeZone(identifier: zone) {
                startValue = startValue.localTime.dateTime(in: timeZone)
                values[fields.start] = .dateTime(startValue)
                if let zoneField = entity.properties.first(where: { $0.ical?.string("param")?.uppercased() == "TZID" }) { values[zoneField.name] = .string(zone) }
                warn("DTSTART", "DTSTART is a floating time but DTEND is in \(zone); the start is read in \(zone) too", startProperty)
            } else if !isDate, endValue.isFloating, let zone = startValue.timeZoneIdentifier, let timeZone = TimeZone(identifier: zone) {
                endValue = endValue.localTime.dateTime(in: timeZone)
                values[endField] = .dateTime(endValue)
                warn("DTEND", "DTEND is a floating time but DTSTART is in \(zone); the end is read in \(zone) too", endProperty)
            }
            // A start that does not exist (02:30 on the day clocks skip 02:00–03:00) is placed
            // after the gap (§3.3.5); its end moves with it, so the event keeps the length it was
            // written with.
            if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier, endValue.timeZoneIdentifier == zone {
                let length = endValue.expansionWallTime.wallSeconds - nominal.wallSeconds
                if length >= 0, let moved = try? startValue.checkedAdding(seconds: length) {
                    endValue = moved
                    values[endField] = .dateTime(endValue)
                }
                let series = properties.contains { $0.name == "RRULE" || $0.name == "RDATE" }
                    ? "; the other occurrences keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))" : ""
                warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so the event starts at \(startValue.localTime) (RFC 5545 §3.3.5) and keeps its length, ending at \(endValue.localTime)\(series)", startProperty)
            } else if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier {
                warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so this occurrence is at \(startValue.localTime) (RFC 5545 §3.3.5); the others keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))", startProperty)
            }
            // An all-day event ending on its own start day means that one day (the end of a date
            // is exclusive, so some producers' inclusive end would otherwise last no time).
            if isDate, endValue.sortKey == startValue.sortKey, let nextDay = try? startValue.adding(DurationValue(days: 1)) {
                endValue = nextDay
                values[endField] = .dateTime(nextDay)
                warn("DTEND", "DTEND equals DTSTART on an all-day event: read as that one day (DTEND is the day after)", endProperty)
            }
            if endValue.sortKey < startValue.sortKey {
                problem("DTEND", "DTEND (\(endValue)) is before DTSTART (\(startValue)); fix the end, or remove it for an event without length", endProperty)
            }
            if let durationProperty, let duration = DurationValue(parsing: durationProperty.writtenValue) {
                if let implied = try? startValue.adding(duration), implied.sortKey != endValue.sortKey {
                    problem("DURATION", "both DTEND and DURATION are given and they disagree (\(durationProperty.writtenValue) from the start is \(implied), DTEND is \(endValue)); keep one", durationProperty)
                } else {
                    warn("DURATION", "both DTEND and DURATION are given (RFC 5545 allows one); they agree, so DTEND is kept and DURATION left out", durationProperty)
                }
            }
            // An end written in UTC (as exports do for the repeated hour) belongs to the start's zone.
            if case .utc(let seconds) = endValue.kind, let zone = startValue.timeZoneIdentifier {
                values[endField] = .dateTime(DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: zone)))
            }
            return
        }
        if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier {
            warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so this occurrence is at \(startValue.localTime) (RFC 5545 §3.3.5); the others keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))", startProperty)
        }
        // DURATION stands for DTEND when there is none.
        guard let endField = fields.end, let durationProperty else { return }
        do {
            // As written: libical wraps a huge DURATION around to another length.
            let duration = try DurationValue(validating: durationProperty.writtenValue)
            values[endField] = .dateTime(try startValue.adding(duration))
        } catch {
            problem("DURATION", "DURATION \(error.message)", durationProperty)
        }
    }

    private var entityStartProperty: String? { entity.temporalFields?.start }

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
    }

    // MARK: Fields

    /// `keptChildren` collects subcomponents a field reads only in part (a VALARM's trigger),
    /// each as written and marked with the value read from it, so export can write it back.
    private func decodeField(_ property: PropertyDefinition, name: String, sources: [LibicalProperty], children: [LibicalNode], rawChildren: [RawComponent],
                             start: LibicalProperty?, properties: [LibicalProperty], keptChildren: inout [String]) throws -> Value? {
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
                    guard let value = try decodeUnionChild(union, child, start: start, properties: properties) else { continue }
                    items.append(value)
                    // RELATED=END holds only while the event keeps the length it had.
                    let trigger = child.properties.first { $0.name == "TRIGGER" }
                    let length = trigger?.parameter("RELATED")?.uppercased() == "END" ? eventLength(start: start, properties: properties) : nil
                    if aligned { keptChildren.append(ICalWriter.markedChild(rawChildren[index], for: value, length: length)) }
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
        case .builtin(.recurrence): return .recurrence(try recurrence(text, source: source))
        case .builtin(.person): return .person(person(source))
        case .builtin(.place):
            return .place(PlaceValue(name: text))
        case .enumeration(let name):
            guard let definition = registry.enumeration(name),
                  let match = definition.cases.first(where: { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() }) else {
                throw DecodeError(message: "\(source.name) '\(text)' is not one of \(registry.enumeration(name)?.cases.compactMap { $0.annotations.first(named: "ical")?.firstString }.joined(separator: ", ") ?? "")")
            }
            return .enumCase(match.name)
        case .union, .entity:
            throw DecodeError(message: "\(source.name) cannot be read as \(type)")
        }
    }

    // MARK: Times

    /// DATE, DATE-TIME (UTC, with TZID, or floating) → DateTimeValue. Dates become floating
    /// midnights; floating times take the calendar's X-WR-TIMEZONE when it has one.
    func dateTime(_ text: String, from source: LibicalProperty) throws -> DateTimeValue {
        let trimmed = text.trimmedBlanks
        if source.parameter("VALUE")?.uppercased() == "DATE" || trimmed.count == 8 {
            guard let date = CalendarDate(parsing: String(trimmed.prefix(8))), let midnight = LocalDateTime(date: date, hour: 0, minute: 0) else {
                throw DecodeError(message: "\(source.name) '\(text)' is not a date")
            }
            return .floating(midnight)
        }
        let isUTC = trimmed.uppercased().hasSuffix("Z")
        guard let local = LocalDateTime(parsing: isUTC ? String(trimmed.dropLast()) : trimmed) else {
            throw DecodeError(message: "\(source.name) '\(text)' is not a date-time")
        }
        if isUTC { return local.dateTime(in: TimeZone(identifier: "UTC")) }
        if let tzid = source.parameter("TZID") {
            switch zones.resolve(tzid) {
            case .zoned(let identifier): return local.dateTime(in: TimeZone(identifier: identifier))
            case .offsets(let converter): return DateTimeValue(kind: .utc(epochSeconds: converter(local)))
            case nil:
                throw DecodeError(message: zones.unresolvedReason(tzid))
            }
        }
        if let defaultZone { return local.dateTime(in: TimeZone(identifier: defaultZone)) }
        return .floating(local)
    }

    /// COUNT together with UNTIL never reaches here: `QuirkNormalizer` resolves it before libical.
    private func recurrence(_ text: String, source: LibicalProperty) throws -> RecurrenceRule {
        do {
            return try RecurrenceRule(parsing: text)
        } catch {
            throw DecodeError(message: "RRULE: \(error.message)")
        }
    }

    /// Of two rules that differ only in their end, the one whose series ends first.
    static func earlierEnding(_ countRule: RecurrenceRule, _ untilRule: RecurrenceRule, start: LocalDateTime? = nil) -> RecurrenceRule {
        guard case .count(let count) = countRule.end else { return countRule }
        // From the event's start (UTC is close enough to compare with a UTC UNTIL): does UNTIL
        // stop the series before COUNT occurrences?
        let start = start ?? LocalDateTime(wallSeconds: 0)
        let produced = RecurrenceSet(start: start, timeZone: nil, rule: untilRule, additions: [], exclusions: [], isAllDay: false)
            .occurrences(limit: count + 1).count
        return produced < count ? untilRule : countRule
    }

    // MARK: People

    /// ORGANIZER/ATTENDEE: CN is the name; a mailto: value the email; anything else is kept as
    /// the address (some producers omit mailto:).
    func person(_ source: LibicalProperty) -> PersonValue {
        var address = source.text.trimmedBlanks
        if address.lowercased().hasPrefix(ICalWriter.namelessAddressPrefix) { return PersonValue(name: source.parameter("CN")) }
        if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
        let name = source.parameter("CN")
        if address.contains("@") { return PersonValue(name: name, email: address) }
        if address.lowercased().hasPrefix("tel:") { return PersonValue(name: name, phone: String(address.dropFirst(4))) }
        return PersonValue(name: name ?? (address.isEmpty ? nil : address), email: nil)
    }

    /// A transient entity from one property and its parameters (ATTENDEE;PARTSTAT=…;ROLE=…).
    private func decodeTransient(_ definition: EntityDefinition, from source: LibicalProperty) throws -> [String: Value] {
        var values: [String: Value] = [:]
        var kept: [String] = []
        let mapped = Set(definition.properties.compactMap { $0.ical?.string("param")?.uppercased() }).union(["CN"])
        // Parameters no field holds, and values a field can only approximate (ROLE=CHAIR reads
        // as required, PARTSTAT=X-FOO as needs action), stay as written for export.
        if let line = source.source {
            for (name, raw) in ContentLine.rawParameters(of: line.head) {
                if !mapped.contains(name) {
                    kept.append("\(name)=\(raw)")
                } else if let property = definition.properties.first(where: { $0.ical?.string("param")?.uppercased() == name }),
                          !ComponentDecoder.isCanonical(ICalText.decodeParameter(raw), property: property, registry: registry) {
                    kept.append("\(name)=\(raw)")
                }
            }
        }
        for property in definition.properties {
            guard let ical = property.ical else {
                if let value = property.defaultValue { values[property.name] = value }
                continue
            }
            if let param = ical.string("param")?.uppercased() {
                if param == "*" {
                    // In name order, so that the export (which writes mapped parameters first)
                    // reads back the same.
                    let ordered = kept.enumerated().sorted { ($0.element.prefix { $0 != "=" }, $0.offset) < ($1.element.prefix { $0 != "=" }, $1.offset) }.map(\.element)
                    if !ordered.isEmpty { values[property.name] = .string(ordered.joined(separator: ";")) }
                    continue
                }
                guard let text = source.parameter(param) else {
                    if let value = property.defaultValue { values[property.name] = value }
                    continue
                }
                values[property.name] = ComponentDecoder.readsAs(text, property: property, registry: registry)
            } else if property.type.base == .builtin(.person) {
                values[property.name] = .person(person(source))
            } else {
                values[property.name] = .string(source.text)
            }
        }
        return values.compactMapValues { $0 }
    }

    /// What a field mapped to a parameter reads from its text: the Bool of `whenTrue`, the enum
    /// case of that name (else the field's default: RFC 5545 reads unknown PARTSTAT values as
    /// NEEDS-ACTION), or the text.
    static func readsAs(_ text: String, property: PropertyDefinition, registry: Registry) -> Value? {
        if property.type.base == .builtin(.bool), let whenTrue = property.ical?.string("whenTrue") {
            return .bool(text.uppercased() == whenTrue.uppercased())
        }
        if case .enumeration(let name) = property.type.base {
            let match = registry.enumeration(name)?.cases.first { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() }
            return match.map { .enumCase($0.name) } ?? property.defaultValue
        }
        return .string(text)
    }

    /// Whether export, writing the field, gives this parameter value back (up to case).
    static func isCanonical(_ text: String, property: PropertyDefinition, registry: Registry) -> Bool {
        guard let ical = property.ical else { return true }
        if property.type.base == .builtin(.bool) {
            return [ical.string("whenTrue"), ical.string("whenFalse")].compactMap { $0?.uppercased() }.contains(text.uppercased())
        }
        if case .enumeration(let name) = property.type.base {
            return registry.enumeration(name)?.cases.contains { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() } ?? false
        }
        return true
    }

    // MARK: Unions

    /// LOCATION (text) or LOCATION with GEO (a place).
    private func decodeUnion(_ union: UnionDefinition, name: String, sources: [LibicalProperty], properties: [LibicalProperty]) throws -> Value? {
        let text = sources.first?.text
        if let placeCase = union.cases.first(where: { $0.type.base == .builtin(.place) }),
           let geo = properties.first(where: { $0.name == "GEO" })?.text {
            let parts = geo.split(whereSeparator: { $0 == ";" || $0 == "," }).compactMap { Double($0.trimmedBlanks) }
            if parts.count == 2, (-90...90).contains(parts[0]), (-180...180).contains(parts[1]) {
                let lines = text?.split(separator: "\n", maxSplits: 1).map(String.init) ?? []
                return .union(placeCase.name, .place(PlaceValue(name: lines.first.flatMap { $0.isEmpty ? nil : $0 },
                                                                address: lines.count > 1 ? lines[1] : nil,
                                                                latitude: parts[0], longitude: parts[1])))
            }
            throw DecodeError(message: "GEO '\(geo)' is not latitude;longitude")
        }
        if let placeCase = union.cases.first(where: { $0.type.base == .builtin(.place) }), let place = ComponentDecoder.applePlace(properties) {
            return .union(placeCase.name, .place(place))
        }
        guard let text, !text.isEmpty, let textCase = union.cases.first(where: { $0.type.base == .builtin(.string) }) else { return nil }
        return .union(textCase.name, .string(text))
    }

    /// Apple's X-APPLE-STRUCTURED-LOCATION (`…;X-TITLE=…;X-ADDRESS=…:geo:52.5,13.4`): the place,
    /// when there is no GEO.
    static func applePlace(_ properties: [LibicalProperty]) -> PlaceValue? {
        guard let apple = properties.first(where: { $0.name == "X-APPLE-STRUCTURED-LOCATION" }) else { return nil }
        let value = apple.writtenValue
        guard value.lowercased().hasPrefix("geo:") else { return nil }
        let numbers = value.dropFirst(4).split(separator: ";").first?.split(separator: ",").compactMap { Double($0.trimmedBlanks) } ?? []
        guard numbers.count >= 2, (-90...90).contains(numbers[0]), (-180...180).contains(numbers[1]) else { return nil }
        // Apple writes the address's line breaks as `\n` inside the quoted parameter.
        let address = apple.parameter("X-ADDRESS").map { ICalText.unescape($0) }
        return PlaceValue(name: apple.parameter("X-TITLE"), address: address, latitude: numbers[0], longitude: numbers[1])
    }

    /// Seconds from start to end: DTEND, else the start plus DURATION, else (RFC 5545 §3.6.1)
    /// a day for an all-day event and nothing for a timed one.
    func eventLength(start: LibicalProperty?, properties: [LibicalProperty]) -> Int64? {
        guard let start, let startValue = try? dateTime(start.text, from: start) else { return nil }
        if let endProperty = properties.first(where: { $0.name == "DTEND" }), let endValue = try? dateTime(endProperty.text, from: endProperty) {
            return endValue.sortKey - startValue.sortKey
        }
        if let durationProperty = properties.first(where: { $0.name == "DURATION" }), let span = DurationValue(parsing: durationProperty.writtenValue),
           let endValue = try? startValue.adding(span) {
            return endValue.sortKey - startValue.sortKey
        }
        return start.parameter("VALUE")?.uppercased() == "DATE" ? 86_400 : 0
    }

    /// VALARM: TRIGGER as a duration (relative to the start, or to the end with RELATED=END,
    /// which is turned into one relative to the start) or an absolute DATE-TIME.
    private func decodeUnionChild(_ union: UnionDefinition, _ child: LibicalNode, start: LibicalProperty?, properties: [LibicalProperty]) throws -> Value? {
        // A VALARM without TRIGGER was left out before libical; one without it now had a
        // TRIGGER libical could not read, which is reported with its line already.
        guard let trigger = child.properties.first(where: { $0.name == "TRIGGER" }) else { return nil }
        let text = trigger.text
        if trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" || (DurationValue(parsing: text) == nil && text.count >= 15) {
            guard let absolute = union.cases.first(where: { $0.type.base == .builtin(.dateTime) }) else { return nil }
            return .union(absolute.name, .dateTime(try dateTime(text, from: trigger)))
        }
        guard var duration = DurationValue(parsing: text), let relative = union.cases.first(where: { $0.type.base == .builtin(.duration) }) else {
            throw DecodeError(message: "TRIGGER '\(text)' is neither a duration nor a date-time")
        }
        if trigger.parameter("RELATED")?.uppercased() == "END", let length = eventLength(start: start, properties: properties) {
            duration = DurationValue(totalSeconds: duration.approximateSeconds + Int(length))
        }
        return .union(relative.name, .duration(duration))
    }
}
