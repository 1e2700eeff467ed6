import Foundation
import CometSchema

/// Warnings for what is read other than literally, where the value itself is kept.
extension ComponentDecoder {
    /// RFC 5545 §3.2 values a field may not tell apart (ROLE=CHAIR reads as required) but that
    /// are kept as written, so nothing is lost and there is nothing to warn about.
    static let standardParameterValues: [String: Set<String>] = [
        "ROLE": ["CHAIR", "REQ-PARTICIPANT", "OPT-PARTICIPANT", "NON-PARTICIPANT"],
        "PARTSTAT": ["NEEDS-ACTION", "ACCEPTED", "DECLINED", "TENTATIVE", "DELEGATED", "COMPLETED", "IN-PROCESS"],
        "CUTYPE": ["INDIVIDUAL", "GROUP", "RESOURCE", "ROOM", "UNKNOWN"],
    ]

    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "−" : "+"
        let magnitude = abs(seconds)
        return sign + String(format: "%02d:%02d", magnitude / 3600, (magnitude % 3600) / 60)
    }

    /// Warnings for what is read other than literally, where the value itself is kept: each a
    /// reading RFC 5545 allows or producers mean, said once at its line.
    func noteReadings(_ raw: RawComponent, properties: [LibicalProperty], values: [String: Value], warn: (String, String, LibicalProperty?) -> Void,
                              warnAt: (Int, String) -> Void) {
        let startProperty = properties.first { $0.name == "DTSTART" }
        let startIsDate = startProperty?.parameter("VALUE")?.uppercased() == "DATE"
        // An IANA zone the file defines too, where the file's rules give another offset.
        if let startProperty, let tzid = startProperty.parameter("TZID"), let fields = entity.temporalFields,
           case .dateTime(let start)? = values[fields.start],
           // Compared where the start really is: at a wall time the clocks skip (already said in
           // its own warning) the file and tzdata may name either side's offset, and neither is wrong.
           let offsets = zones.embeddedOffsets(tzid, at: start.localTime) {
            warn("DTSTART", "the file's VTIMEZONE for \(tzid) gives UTC\(ComponentDecoder.offsetText(offsets.file)) here, tzdata UTC\(ComponentDecoder.offsetText(offsets.tzdata)) (the file's definition is truncated or out of date); tzdata is used", startProperty)
        }
        // Text with escapes RFC 5545 does not have.
        for property in properties {
            guard let source = property.source, ComponentReader.isText(source), source.value.utf8.contains(UInt8(ascii: "\\")) else { continue }
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
                  transient.kind == .transient, let name = property.icalName else { continue }
            for source in properties where source.name == name {
                for field in transient.properties {
                    guard let param = field.icalParameter, param != "*", let text = source.parameter(param),
                          !ComponentDecoder.isCanonical(text, property: field, registry: registry),
                          !(ComponentDecoder.standardParameterValues[param]?.contains(text.uppercased()) ?? false),
                          let reading = ComponentDecoder.readsAs(text, property: field, registry: registry) else { continue }
                    warn(name, "\(param)=\(text) is not a value CometCal knows: read as \(registry.displayText(reading)), and kept as written for export", source)
                }
            }
        }
        // Alarms read other than literally.
        guard entity.properties.contains(where: { $0.icalName == "VALARM" }) else { return }
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
}
