import Foundation
import CLibical
import CometSchema

/// Writes records as RFC 5545 iCalendar: the inverse of `ComponentDecoder`, driven by the same
/// `@ical` annotations. Lines are composed here (escaped, parameters quoted), checked by libical,
/// and folded at 75 octets with CRLF. Output is deterministic: the same records always give the
/// same bytes.
public struct ICalWriter: Sendable {
    public let registry: Registry
    public static let productID = "-//CometCal//CometCal 1.0//EN"

    public init(registry: Registry) {
        self.registry = registry
    }

    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// One VCALENDAR holding `records` (any mapped entities), with `calendar` (a record of the
    /// entity mapped to VCALENDAR) giving its name, and one VTIMEZONE per zone used.
    public func document(calendar: EntityRecord?, records: [EntityRecord]) throws -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(ICalWriter.productID)", "CALSCALE:GREGORIAN"]
        if let calendar, let entity = registry.entity(calendar.entity) {
            lines += propertyLines(of: calendar, entity: entity, skipping: ["UID"]).filter { !ICalWriter.isHousekeeping($0) }
        }
        let sorted = ICalWriter.inExportOrder(records, registry)
        var zoneUse: [String: (Int64, Int64, Bool)] = [:]
        var components: [(record: EntityRecord, entity: EntityDefinition, component: String)] = []
        components.reserveCapacity(sorted.count)
        for record in sorted {
            guard let entity = registry.entity(record.entity), let component = entity.annotations.first(named: "ical")?.firstString else { continue }
            noteZones(record, entity: entity, into: &zoneUse)
            components.append((record, entity, component))
        }
        // Each component is written and checked on its own, so the work is shared out over the
        // cores in runs of consecutive components, joined back in order.
        let ordered = components
        let body = try ICalWriter.concurrentJoin(ordered.count) { index in
            let (record, entity, component) = ordered[index]
            let text = ["BEGIN:\(component)"] + componentLines(record, entity: entity) + ["END:\(component)"]
            return try serialize(text, what: "\(component) \(record.id.lowercasedText)")
        }
        var timezones = ""
        for zone in zoneUse.keys.sorted() {
            guard let (first, last, unbounded) = zoneUse[zone] else { continue }
            timezones += try vtimezone(zone, from: first, to: unbounded ? nil : last)
        }
        let head = try serialize(lines + ["END:VCALENDAR"], what: "VCALENDAR")
        return String(head.dropLast("END:VCALENDAR\r\n".count)) + timezones + body + "END:VCALENDAR\r\n"
    }

    /// A VCALENDAR with no components, holding only these calendar properties (TEXT values,
    /// escaped and folded here): how a folder's metadata files (a vdir's `displayname`, `color`)
    /// are read as a calendar, through the same `@ical` mapping as any file's.
    public func calendarHeader(_ properties: [(name: String, text: String)]) -> String {
        let lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(ICalWriter.productID)"]
            + properties.map { "\($0.name):" + ICalWriter.escape($0.text) } + ["END:VCALENDAR"]
        return lines.map(ICalText.fold).joined()
    }

    /// Calendar properties the writer writes itself.
    static func isHousekeeping(_ line: String) -> Bool {
        let name = ContentLine(text: line, line: 0).name
        return ["VERSION", "PRODID", "CALSCALE", "METHOD"].contains(name)
    }

    /// Series before their overrides, by UID then RECURRENCE-ID; then by id for stability. Each
    /// record's key is made once (made in the comparison, it was a quarter of an export).
    static func inExportOrder(_ records: [EntityRecord], _ registry: Registry) -> [EntityRecord] {
        func key(_ record: EntityRecord) -> (String, String, Int64, UInt64, UInt64) {
            let fields = registry.entity(record.entity)?.temporalFields
            let uid: String = { if let property = registry.entity(record.entity).flatMap(ICalWriter.uidField), case .string(let text)? = record[property] { return text } else { return record.id.lowercasedText } }()
            let recurrence: Int64 = { if let property = fields?.recurrenceID, case .dateTime(let value)? = record[property] { return value.sortKey } else { return Int64.min } }()
            let id = record.id.orderingKey
            return (record.entity.description, uid, recurrence, id.0, id.1)
        }
        return records.map { (key($0), $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Threads a join uses, asked once per process: Foundation on Linux reads the cgroup's
    /// files at every `activeProcessorCount`, and a CalDAV answer writes a document per event.
    static let joinWorkers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    /// The texts of `count` items made by `make` (called from several threads at once), joined
    /// in order; the first error in order is thrown.
    static func concurrentJoin(_ count: Int, _ make: @Sendable (Int) throws -> String) throws -> String {
        guard count > 64, joinWorkers > 1 else { return try (0..<count).map(make).joined() }
        let workers = joinWorkers
        let runs = workers * 4
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var texts: [String]
            var errors: [(Int, any Error)] = []
            init(_ runs: Int) { texts = Array(repeating: "", count: runs) }
        }
        let results = Results(runs)
        DispatchQueue.concurrentPerform(iterations: runs) { run in
            let range = (count * run / runs)..<(count * (run + 1) / runs)
            var text = ""
            do {
                for index in range { text += try make(index) }
                results.lock.withLock { results.texts[run] = text }
            } catch {
                results.lock.withLock { results.errors.append((run, error)) }
            }
        }
        if let (_, error) = results.errors.min(by: { $0.0 < $1.0 }) { throw error }
        return results.texts.joined()
    }

    private func serialize(_ lines: [String], what: String) throws -> String {
        let checked = lines.filter { !ComponentPrepass.needsVerbatim(ContentLine(text: $0, line: 0)) }
        guard let tree = LibicalTree(parsing: checked.joined(separator: "\r\n") + "\r\n") else { throw WriteError(message: "libical could not build \(what)") }
        let errors = tree.node.errors + tree.node.children.flatMap(\.errors)
        guard errors.isEmpty else { throw WriteError(message: "\(what) would not be valid iCalendar: \(errors.joined(separator: "; "))") }
        return lines.map(ICalText.fold).joined()
    }

    // MARK: Components

    private func componentLines(_ record: EntityRecord, entity: EntityDefinition) -> [String] {
        var lines: [String] = []
        let uid: String = { if let property = ICalWriter.uidField(of: entity), case .string(let text)? = record[property] { return text } else { return record.id.lowercasedText } }()
        lines.append("UID:" + ICalWriter.escape(uid))
        var rest = propertyLines(of: record, entity: entity, skipping: ["UID", "DTSTAMP"])
        // An entity with no rule for DTSTAMP kept the one it arrived with among its extras.
        if !ComponentDecoder.consumes("DTSTAMP", entity), let kept = rest.firstIndex(where: { ContentLine(text: $0, line: 0).name == "DTSTAMP" }) {
            lines.append(rest.remove(at: kept))
        } else {
            lines.append("DTSTAMP:" + stampText(record, entity: entity))
        }
        return lines + rest
    }

    /// The field the UID is kept in: a series' (its master and overrides share it), or, for an
    /// entity that has no times of its own (a to-do), any string mapped to UID.
    static func uidField(of entity: EntityDefinition) -> String? {
        entity.temporalFields?.uid ?? entity.properties.first { $0.icalName == "UID" && $0.icalParameter == nil && $0.type.base == .builtin(.string) }?.name
    }

    /// DTSTAMP must be there: the one the event arrived with or CometCal wrote (the field mapped
    /// to DTSTAMP), else one derived from the record (LAST-MODIFIED, CREATED, or the start), so
    /// that two exports of the same data are identical.
    private func stampText(_ record: EntityRecord, entity: EntityDefinition) -> String {
        let stamp = ICalWriter.stamp(record.values, entity: entity, from: ["DTSTAMP", "LAST-MODIFIED", "CREATED", "DTSTART"])
        // DTSTAMP is always UTC; a floating (all-day) start is read as UTC for it.
        return stamp.map { LocalDateTime(wallSeconds: $0).icalText + "Z" } ?? "19700101T000000Z"
    }

    /// The DTSTAMP export derives when the record has none of its own. An imported DTSTAMP equal
    /// to it need not be stored: export writes the same bytes, and a round trip the same record.
    static func derivedStamp(_ values: [String: Value], entity: EntityDefinition) -> Int64? {
        stamp(values, entity: entity, from: ["LAST-MODIFIED", "CREATED", "DTSTART"])
    }

    private static func stamp(_ values: [String: Value], entity: EntityDefinition, from names: [String]) -> Int64? {
        for name in names {
            if let property = entity.properties.first(where: { $0.icalName == name && $0.icalParameter == nil }),
               case .dateTime(let value)? = values[property.name] {
                return value.sortKey
            }
        }
        return nil
    }

    /// The lines of every mapped field but those for the properties in `skipping` (written by
    /// the caller), then the kept extras.
    func propertyLines(of record: EntityRecord, entity: EntityDefinition, skipping: Set<String> = []) -> [String] {
        var lines: [String] = []
        let allDay: Bool = { if let property = entity.temporalFields?.isAllDay, case .bool(true)? = record[property] { return true } else { return false } }()
        let extrasText: String? = entity.properties.first { $0.ical?.firstString == "*" }.flatMap { property in
            if case .string(let text)? = record[property.name] { return text } else { return nil }
        }
        var (extras, keptChildren, held) = ICalWriter.separateKeptChildren(extrasText, of: record)
        // A kept line of a field's own property stands in for the field's line while it holds.
        let replaced = Set(held.filter { binding in
            let name = ContentLine(text: binding.line, line: 0).name
            return entity.property(binding.field)?.icalName == name || name == "DURATION" && binding.field == entity.temporalFields?.end
        }.map(\.field))
        let length: Int64? = {
            guard let fields = entity.temporalFields, case .dateTime(let start)? = record[fields.start] else { return nil }
            if let end = fields.end, case .dateTime(let endValue)? = record[end] { return endValue.sortKey - start.sortKey }
            return allDay ? 86_400 : 0
        }()
        for property in entity.properties {
            guard let ical = property.ical, let name = ical.firstString?.uppercased(), ical.string("param") == nil, name != "*", !skipping.contains(name) else { continue }
            guard let value = record[property.name], !replaced.contains(property.name) else { continue }
            if value == property.defaultValue, property.type.isArray, case .array(let items) = value, items.isEmpty { continue }
            // An alarm still as it arrived is written as it arrived (its ACTION, text, REPEAT…);
            // one added or changed in CometCal is a DISPLAY alarm.
            if case .union = property.type.base, case .array(let items) = value {
                for item in items {
                    let key = ICalWriter.childKey(item)
                    if let index = keptChildren.firstIndex(where: { $0.key == key || length.map { key + ";length=\($0)" } == $0.key }) {
                        lines += keptChildren.remove(at: index).lines
                    } else {
                        lines += alarmLines(item, record: record, entity: entity)
                    }
                }
                continue
            }
            // A start the DST gap moved is written as given; its end then as a DURATION, which
            // reads back to the same instant (a DTEND would be measured from the written start).
            if property.name == entity.temporalFields?.end, let startField = entity.temporalFields?.start,
               case .dateTime(let start)? = record[startField], start.nominal != nil, case .dateTime(let end) = value, !allDay {
                // Exact hours, minutes and seconds: a day of DURATION is nominal and would be
                // measured across the DST change again.
                let seconds = Int(end.sortKey - start.sortKey)
                let exact = DurationValue(isNegative: seconds < 0, hours: abs(seconds) / 3600, minutes: abs(seconds) % 3600 / 60, seconds: abs(seconds) % 60)
                lines.append("DURATION:" + exact.description)
                continue
            }
            // Our own extensions are written only when they say something.
            if value == property.defaultValue, name.hasPrefix("X-") { continue }
            lines += encode(value, property: property, name: name, allDay: allDay, record: record, entity: entity)
        }
        lines += extras
        return lines
    }

    private func encode(_ value: Value, property: PropertyDefinition, name: String, allDay: Bool, record: EntityRecord, entity: EntityDefinition) -> [String] {
        let ical = property.ical
        switch value {
        case .array(let items):
            if case .union = property.type.base { return items.flatMap { alarmLines($0, record: record, entity: entity) } }
            if property.type.base == .builtin(.string) {
                let texts = items.compactMap { if case .string(let text) = $0 { return ICalWriter.escape(text) } else { return nil } }
                return texts.isEmpty ? [] : ["\(name):" + texts.joined(separator: ",")]
            }
            return items.flatMap { encode($0, property: property, name: name, allDay: allDay, record: record, entity: entity) }
        case .string(let text): return text.isEmpty ? [] : ["\(name):" + ICalWriter.escape(text)]
        case .int(let number): return ["\(name):\(number)"]
        case .double(let number): return ["\(name):\(number)"]
        case .bool(let flag):
            if let whenTrue = ical?.string("whenTrue"), let whenFalse = ical?.string("whenFalse") { return ["\(name):" + (flag ? whenTrue : whenFalse)] }
            if let whenTrue = ical?.string("whenTrue") { return flag ? ["\(name):\(whenTrue)"] : [] }
            return ["\(name):" + (flag ? "TRUE" : "FALSE")]
        case .dateTime(let dateTime): return [name + ICalWriter.dateTimeSuffix(dateTime, allDay: allDay && ICalWriter.dateOnAllDay.contains(name))]
        case .date(let date): return ["\(name);VALUE=DATE:\(date.icalText)"]
        case .duration(let duration): return ["\(name)\(name.hasPrefix("X-") ? ";VALUE=DURATION" : ""):\(duration)"]
        case .url(let url): return ["\(name)\(name == "URL" ? "" : ";VALUE=URI"):\(url.absoluteString)"]
        case .uuid(let uuid): return ["\(name):\(uuid.lowercasedText)"]
        case .recurrence(let rule): return ["\(name):\(rule)"]
        case .enumCase(let caseName):
            guard case .enumeration(let enumName) = property.type.base,
                  let text = registry.enumeration(enumName)?.enumCase(caseName)?.annotations.first(named: "ical")?.firstString else { return [] }
            return ["\(name):\(text)"]
        case .person(let person): return [personLine(name, person, parameters: [])]
        case .object(let properties):
            guard case .entity(let transientName) = property.type.base, let transient = registry.entity(transientName) else { return [] }
            return [transientLine(name, properties, transient)]
        case .union(_, let payload):
            if case .place(let place) = payload {
                let text = [place.name, place.address].compactMap { $0 }.joined(separator: "\n")
                var result = text.isEmpty ? [] : ["LOCATION:" + ICalWriter.escape(text)]
                if let latitude = place.latitude, let longitude = place.longitude {
                    result.append("GEO:" + ICalWriter.decimal(latitude) + ";" + ICalWriter.decimal(longitude))
                }
                return result
            }
            if case .string(let text) = payload { return ["\(name):" + ICalWriter.escape(text)] }
            return []
        case .reference, .place:
            return []
        }
    }

    /// A VALARM: DISPLAY with the event's title, triggered relative to the start or at a time.
    private func alarmLines(_ value: Value, record: EntityRecord, entity: EntityDefinition) -> [String] {
        guard case .union(_, let payload) = value else { return [] }
        let trigger: String
        switch payload {
        case .duration(let duration): trigger = "TRIGGER:\(duration)"
        case .dateTime(let dateTime): trigger = "TRIGGER;VALUE=DATE-TIME:" + ICalWriter.utcText(dateTime)
        default: return []
        }
        // A DISPLAY alarm needs a DESCRIPTION (RFC 5545 §3.6.6), also for an event without a title.
        let title = registry.title(of: record)
        return ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + ICalWriter.escape(title.isBlank ? "Reminder" : title), trigger, "END:VALARM"]
    }

    private func personLine(_ name: String, _ person: PersonValue, parameters: [String]) -> String {
        var head = name
        if let cn = person.name { head += ";CN=" + ICalWriter.parameterValue(cn) }
        for parameter in parameters { head += ";" + parameter }
        let address: String
        if let email = person.email {
            address = "mailto:" + email
        } else if let phone = person.phone {
            address = "tel:" + phone
        } else {
            // A person with only a name still needs a calendar address (RFC 5545 cal-address).
            address = ICalWriter.namelessAddressPrefix + ((person.name ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        return head + ":" + address
    }

    /// ATTENDEE;CN=…;PARTSTAT=…;ROLE=…;CUTYPE=…:mailto:…, from the transient entity's mapping.
    private func transientLine(_ name: String, _ properties: [String: Value], _ transient: EntityDefinition) -> String {
        var parameters: [String] = []
        var person = PersonValue()
        let kept = ICalWriter.keptParameters(properties, transient)
        for property in transient.properties {
            guard let value = properties[property.name], let ical = property.ical else { continue }
            if let param = ical.string("param"), param == "*" { continue }
            if let param = ical.string("param"), let original = kept.first(where: { $0.name == param.uppercased() }),
               ComponentDecoder.readsAs(ICalText.decodeParameter(original.value), property: property, registry: registry) == value {
                // The value as it arrived (ROLE=CHAIR, PARTSTAT=X-FOO), while the field still says what it said.
                parameters.append("\(param)=\(original.value)")
                continue
            }
            if let param = ical.string("param") {
                switch value {
                case .bool(let flag):
                    if let text = flag ? ical.string("whenTrue") : ical.string("whenFalse") { parameters.append("\(param)=\(text)") }
                case .enumCase(let caseName):
                    if case .enumeration(let enumName) = property.type.base,
                       let text = registry.enumeration(enumName)?.enumCase(caseName)?.annotations.first(named: "ical")?.firstString {
                        parameters.append("\(param)=\(text)")
                    }
                case .string(let text): parameters.append("\(param)=" + ICalWriter.parameterValue(text))
                default: continue
                }
            } else if case .person(let found) = value {
                person = found
            }
        }
        let written = Set(parameters.map { String($0.prefix { $0 != "=" }).uppercased() })
        let mappedParameters = Set(transient.properties.compactMap { $0.icalParameter })
        parameters += kept.filter { !written.contains($0.name) && !mappedParameters.contains($0.name) }.map { "\($0.name)=\($0.value)" }
        return personLine(name, person, parameters: parameters)
    }

    /// The parameters an ATTENDEE arrived with that no field holds, as written (`@ical(param: "*")`).
    static func keptParameters(_ properties: [String: Value], _ transient: EntityDefinition) -> [(name: String, value: String)] {
        guard let field = transient.properties.first(where: { $0.icalParameter == "*" }), case .string(let text)? = properties[field.name] else { return [] }
        return ContentLine.rawParameters(of: Substring("X;" + text))
    }

    /// Properties an all-day event writes as VALUE=DATE.
    static let dateOnAllDay: Set<String> = ["DTSTART", "DTEND", "EXDATE", "RDATE", "RECURRENCE-ID"]

    // MARK: Text

    /// The address written for a person known only by name; read back as "no address".
    static let namelessAddressPrefix = "urn:x-cometcal:name:"

    /// A FLOAT as RFC 5545 §3.3.7 writes one: digits and a point, never an exponent (`1e-05` is
    /// not a FLOAT), with the digits that read back to the same Double.
    static func decimal(_ value: Double) -> String {
        let text = "\(value)"
        guard text.contains("e") || text.contains("E") else { return text }
        return Decimal(string: text)?.description ?? String(format: "%.15f", value)
    }

    /// RFC 5545 TEXT escaping (see `ICalText`).
    static func escape(_ text: String) -> String { ICalText.escape(text) }

    /// A parameter value, RFC 6868-escaped and quoted when it holds characters that end a parameter.
    static func parameterValue(_ text: String) -> String { ICalText.encodeParameter(text) }

    static func utcText(_ value: DateTimeValue) -> String {
        let utc = LocalDateTime(wallSeconds: value.sortKey)
        return value.isFloating ? value.localTime.icalText : utc.icalText + "Z"
    }

    /// `;TZID=Europe/Berlin:20260615T080000`, `:20260615T060000Z`, `:20260615T080000`, `;VALUE=DATE:20260615`.
    static func dateTimeSuffix(_ value: DateTimeValue, allDay: Bool) -> String {
        if allDay { return ";VALUE=DATE:" + value.localTime.date.icalText }
        switch value.kind {
        case .utc: return ":" + utcText(value)
        case .floating(let local): return ":" + local.icalText
        case .zoned(_, let zone):
            // A wall time skipped by DST is written as it was given: readers place it again.
            if let nominal = value.nominal { return ";TZID=\(zone):" + nominal.icalText }
            // A wall time that reads back as another instant (the repeated hour when clocks go
            // back) is written in UTC, so the instant survives.
            if let timeZone = TimeZone(identifier: zone), value.localTime.dateTime(in: timeZone).sortKey != value.sortKey {
                return ":" + utcText(value)
            }
            return ";TZID=\(zone):" + value.localTime.icalText
        }
    }

    // MARK: Time zones

    private func noteZones(_ record: EntityRecord, entity: EntityDefinition, into use: inout [String: (Int64, Int64, Bool)]) {
        let unbounded: Bool = {
            guard let fields = entity.temporalFields else { return false }
            let first: [RecurrenceRule] = { if let property = fields.recurrence, case .recurrence(let rule)? = record[property] { return [rule] } else { return [] } }()
            return (first + fields.extraRules(of: record.values).more).contains { $0.end == .never }
        }()
        let allDay: Bool = { if let property = entity.temporalFields?.isAllDay, case .bool(true)? = record[property] { return true } else { return false } }()
        for property in entity.properties where property.type.base == .builtin(.dateTime) {
            // On an all-day event these are written as dates, which use no zone.
            if allDay, let name = property.icalName, ICalWriter.dateOnAllDay.contains(name) { continue }
            let values: [Value] = { if case .array(let items)? = record[property.name] { return items } else { return record[property.name].map { [$0] } ?? [] } }()
            for value in values {
                guard case .dateTime(let dateTime) = value, let zone = dateTime.timeZoneIdentifier else { continue }
                let key = dateTime.sortKey
                let isStart = property.name == entity.temporalFields?.start
                if let current = use[zone] {
                    use[zone] = (min(current.0, key), max(current.1, key), current.2 || (isStart && unbounded))
                } else {
                    use[zone] = (key, key, isStart && unbounded)
                }
            }
        }
    }

    /// The zone's VTIMEZONE from tzdata (through libical), truncated to the years the events
    /// use, with a plain Olson TZID (libical's own prefix removed).
    private func vtimezone(_ identifier: String, from first: Int64, to last: Int64?) throws -> String {
        guard let zone = icaltimezone_get_builtin_timezone(identifier), let component = icaltimezone_get_component(zone),
              let clone = icalcomponent_new_clone(component) else {
            throw WriteError(message: "tzdata has no zone '\(identifier)' (is the 'tzdata' package installed?)")
        }
        let tree = LibicalTree(adopting: clone)
        func yearStart(_ year: Int) -> icaltimetype {
            icaltimetype(year: Int32(year), month: 1, day: 1, hour: 0, minute: 0, second: 0, is_date: 0, is_daylight: 0, zone: nil)
        }
        let start = yearStart(LocalDateTime(wallSeconds: first).date.year - 1)
        let end = last.map { yearStart(LocalDateTime(wallSeconds: $0).date.year + 1) } ?? icaltime_null_time()
        icaltimezone_truncate_vtimezone(tree.root, start, end, 1)
        // Plain Olson TZIDs (libical prefixes its own): what clients understand and what our TZID parameters say.
        if let tzid = icalcomponent_get_first_property(tree.root, ICAL_TZID_PROPERTY) { icalproperty_set_tzid(tzid, identifier) }
        guard let raw = icalcomponent_as_ical_string_r(tree.root) else { throw WriteError(message: "libical could not write the VTIMEZONE of \(identifier)") }
        defer { free(raw) }
        let text = String(cString: raw)
        return text
    }
}
