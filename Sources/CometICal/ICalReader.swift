import Foundation
import CometSchema

/// A component read from a file and decoded into an entity's values.
public struct ICalRecord: Sendable {
    public let entity: QualifiedName
    public let values: [String: Value]
    public let uid: String?
    public let line: Int
    /// The line of its UID property (duplicates are reported there).
    public let uidLine: Int
}

/// What a file holds, in order, as the reader streams through it.
public enum ICalItem: Sendable {
    /// A VCALENDAR (or a run of bare components): the values of the entity mapped to
    /// VCALENDAR (a calendar's X-WR-CALNAME, …) and the iTIP METHOD, if any.
    case calendar(entity: QualifiedName?, values: [String: Value], method: String?, line: Int)
    case record(ICalRecord)
    /// An iTIP cancellation or reply to apply to a stored event.
    case message(ICalMessage)
    /// A component no entity maps (VJOURNAL in a calendar-only setup): left out, not an error.
    case skipped(component: String, line: Int)
    case problem(ICalProblem)
    /// Read in a way the file did not literally say, or left out on purpose: never fatal.
    case warning(ICalProblem)
    case calendarEnd
}

/// Reads iCalendar files component by component (the whole file is never held in memory),
/// parses each component with libical, and decodes it with the registry's `@ical` mapping.
/// Every problem comes with its line and UID.
public final class ICalReader {
    private let registry: Registry
    private var reader: ComponentReader
    private var zones = ZoneResolver()
    private var defaultZone: String?
    /// The calendar's iTIP METHOD (RFC 5546), upper-cased.
    private var method: String?
    /// Whether reading floating times in X-WR-TIMEZONE was said for this calendar.
    private var announcedDefaultZone = false
    private var calendarProperties: [ContentLine] = []
    private var calendarLine = 1
    private var calendarAnnounced = false
    private var deferred: [RawComponent] = []
    /// A calendar refused as a whole (vCalendar 1.0): its components are not read.
    private var refuseCalendar = false
    private var queue: [ICalItem] = []
    /// Entities by the component they map to (VEVENT → calendar.Event).
    private let entities: [String: EntityDefinition]
    /// Per entity, what its mapping gives every component's decoding (the reader's registry
    /// never changes, so neither do they).
    private var tablesByEntity: [QualifiedName: (decoder: ComponentDecoder.Tables, icalNames: Set<String>)] = [:]

    private func decoderTables(_ entity: EntityDefinition) -> (decoder: ComponentDecoder.Tables, icalNames: Set<String>) {
        if let known = tablesByEntity[entity.name] { return known }
        let made = (ComponentDecoder.Tables(entity), Set(entity.properties.compactMap { $0.icalName }))
        tablesByEntity[entity.name] = made
        return made
    }

    public init(registry: Registry, handle: FileHandle) {
        self.registry = registry
        reader = ComponentReader(scanner: .reading(handle))
        entities = ICalReader.componentEntities(registry)
    }

    public init(registry: Registry, text: String) {
        self.registry = registry
        reader = ComponentReader(scanner: .reading(text))
        entities = ICalReader.componentEntities(registry)
    }

    static func componentEntities(_ registry: Registry) -> [String: EntityDefinition] {
        var result: [String: EntityDefinition] = [:]
        for entity in registry.allEntities where entity.kind == .indexed {
            if let name = entity.annotations.first(named: "ical")?.firstString?.uppercased(), result[name] == nil { result[name] = entity }
        }
        return result
    }

    /// Bytes read so far, for progress bars.
    public var bytesRead: Int { reader.bytesRead }

    public func next() -> ICalItem? {
        while head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
            guard let event = reader.next() else { return nil }
            handle(event)
        }
        defer { head += 1 }
        return queue[head]
    }

    /// The next item of `queue` to hand out: a deferred calendar can queue thousands at once.
    private var head = 0

    private func handle(_ event: ReaderEvent) {
        switch event {
        case .calendarBegins(let line):
            calendarProperties = []
            calendarLine = line
            calendarAnnounced = false
            refuseCalendar = false
            defaultZone = nil
            method = nil
            announcedDefaultZone = false
            zones = ZoneResolver()
        case .calendarProperty(let line):
            guard !calendarAnnounced else {
                // The calendar's events were read already without it; saying so beats applying
                // it to some of them.
                queue.append(.warning(ICalProblem(line: line.line, uid: nil,
                                                  message: "\(line.name) comes after the calendar's events, where it no longer applies to them; it is ignored (put calendar properties before the first VEVENT)")))
                return
            }
            calendarProperties.append(line)
        case .component(let raw):
            // A VTIMEZONE may come before the calendar's own properties (Apple, Outlook).
            if raw.name != "VTIMEZONE" { announceCalendar() }
            if refuseCalendar { return }
            if raw.name == "VTIMEZONE" {
                if let tzid = raw.value("TZID"), tzid.isBlank {
                    queue.append(.warning(ICalProblem(line: raw.line(of: "TZID") ?? raw.beginLine, uid: nil,
                                                      message: "this VTIMEZONE has an empty TZID (as Exchange 2010 wrote them); times with TZID=\"\" use its definition")))
                }
                zones.define(raw)
                return
            }
            if referencesUndefinedZone(raw) {
                deferred.append(raw)  // its VTIMEZONE may come later in the file
                return
            }
            decode(raw)
        case .calendarEnds:
            announceCalendar()
            let pending = deferred
            deferred = []
            pending.forEach(decode)
            queue.append(.calendarEnd)
        case .problem(let problem):
            queue.append(.problem(problem))
        case .warning(let warning):
            queue.append(.warning(warning))
        }
    }

    private func announceCalendar() {
        guard !calendarAnnounced else { return }
        calendarAnnounced = true
        if let zone = calendarProperties.first(where: { $0.name == "X-WR-TIMEZONE" })?.value.trimmingSpaces() {
            if let iana = TimeZoneNames.ianaIdentifier(for: zone) {
                defaultZone = iana
            } else {
                queue.append(.warning(ICalProblem(line: calendarProperties.first { $0.name == "X-WR-TIMEZONE" }?.line ?? calendarLine, uid: nil,
                                                  message: "X-WR-TIMEZONE '\(zone)' is not a time zone CometCal knows; floating times stay floating")))
            }
        }
        if let version = calendarProperties.first(where: { $0.name == "VERSION" }), version.value.trimmingSpaces() == "1.0" {
            queue.append(.problem(ICalProblem(line: version.line, uid: nil, message: "this is a vCalendar 1.0 file; CometCal reads iCalendar 2.0 (RFC 5545) — export it again as iCalendar from its program")))
            refuseCalendar = true
        }
        method = calendarProperties.first { $0.name == "METHOD" }?.value.trimmedBlanks.uppercased()
        guard let entity = entities["VCALENDAR"] else {
            queue.append(.calendar(entity: nil, values: [:], method: method, line: calendarLine))
            return
        }
        var raw = RawComponent(name: "VCALENDAR", beginLine: calendarLine)
        let structural = calendarProperties.filter { ICalReader.calendarHousekeeping.contains($0.name) || $0.value.isBlank }
        raw.properties = calendarProperties.filter { line in !structural.contains { $0.line == line.line } && !ComponentPrepass.needsVerbatim(line) }
        let verbatim = calendarProperties.filter { line in !structural.contains { $0.line == line.line } && ComponentPrepass.needsVerbatim(line) }
        var values: [String: Value] = [:]
        var accounted = Set(structural.map(\.line))
        if let tree = LibicalTree(parsing: raw.text) {
            let decoder = ComponentDecoder(registry: registry, entity: entity, zones: zones, defaultZone: nil)
            let properties = tree.node.properties(alignedWith: raw.properties) ?? tree.node.properties
            let decoded = decoder.decode(raw, tree.node, properties: properties, verbatim: verbatim, requireStart: false)
            values = decoded.values
            for error in properties where error.name == "X-LIC-ERROR" {
                let line = error.source?.line ?? calendarLine
                queue.append(.warning(ICalProblem(line: line, uid: nil, message: ICalReader.libicalComplaint(error.text, about: error.source) + "; this calendar property is left out")))
                accounted.insert(line)
            }
            queue.append(contentsOf: decoded.warnings.map(ICalItem.warning))
            queue.append(contentsOf: decoded.problems.map(ICalItem.warning))
            accounted.formUnion(decoded.accounted)
            accounted.formUnion(decoded.warnings.map(\.line))
            accounted.formUnion(decoded.problems.map(\.line))
        }
        unaccountedLines += calendarProperties.map(\.line).filter { !accounted.contains($0) }
        queue.append(.calendar(entity: entity.name, values: values, method: method, line: calendarLine))
    }

    private func referencesUndefinedZone(_ raw: RawComponent) -> Bool {
        for line in raw.properties + raw.children.flatMap(\.properties) {
            guard let tzid = ICalReader.parameter("TZID", of: line) else { continue }
            if TimeZoneNames.ianaIdentifier(for: tzid) == nil, !zones.isDefined(tzid) { return true }
        }
        return false
    }

    /// FNV-1a, 64 bits, in hex: stable across runs and machines.
    static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    static func parameter(_ name: String, of line: ContentLine) -> String? {
        line.parameter(name)
    }

    private func decode(_ original: RawComponent) {
        var original = original
        if original.value("UID") == nil, original.name != "VTIMEZONE" {
            // RFC 5545 requires a UID; without one, a stable one from the content makes a
            // re-import find the same event instead of adding it again.
            let content = original.properties.filter { $0.name != "DTSTAMP" }.map(\.text).joined(separator: "\n")
            let derived = "cometcal-" + ICalReader.stableHash(content)
            original.properties.append(ContentLine(text: "UID:" + derived, line: original.beginLine))
            queue.append(.warning(ICalProblem(line: original.beginLine, uid: derived,
                                              message: "this \(original.name) has no UID (RFC 5545 requires one): it gets \(derived), made from its content, so importing it again finds it")))
        }
        // UID is TEXT: compared and stored unescaped, as the field holds it.
        let uid = original.value("UID").map(ICalText.unescape)
        guard let entity = entities[original.name] else {
            queue.append(.skipped(component: original.name, line: original.beginLine))
            return
        }
        if let method, !ICalReader.importedMethods.contains(method), !ICalReader.messageMethods.contains(method) {
            queue.append(.warning(ICalProblem(line: original.beginLine, uid: uid,
                                              message: "METHOD:\(method) asks the organizer's calendar to act (RFC 5546); CometCal acts on PUBLISH, REQUEST, REPLY and CANCEL, so this \(original.name) is skipped")))
            return
        }
        let prepared = ComponentPrepass.prepare(original, uid: uid)
        let raw = prepared.component
        queue.append(contentsOf: prepared.warnings.map(ICalItem.warning))
        guard let tree = LibicalTree(parsing: raw.libicalText) else {
            queue.append(.problem(ICalProblem(line: raw.beginLine, uid: uid, message: "libical could not parse this \(raw.name)")))
            return
        }
        let aligned = tree.node.properties(alignedWith: raw.properties)
        let properties = aligned ?? tree.node.properties
        var problems = prepared.problems
        for property in properties where property.name == "X-LIC-ERROR" {
            problems.append(ICalProblem(line: property.source?.line ?? QuirkNormalizer.line(of: property.text, in: raw), uid: uid,
                                        message: ICalReader.libicalComplaint(property.text, about: property.source)))
        }
        let tables = decoderTables(entity)
        let mappedChildren = tables.icalNames
        for (index, child) in tree.node.children.enumerated() where mappedChildren.contains(child.kindName) {
            let rawChild = ICalReader.rawChild(of: raw, matching: tree.node.children, at: index)
            let childProperties = rawChild.flatMap { child.properties(alignedWith: $0.properties.filter { !ComponentPrepass.needsVerbatim($0) }) } ?? child.properties
            for property in childProperties where property.name == "X-LIC-ERROR" {
                let line = property.source?.line ?? rawChild.map { QuirkNormalizer.line(of: property.text, in: $0) } ?? QuirkNormalizer.line(of: property.text, in: raw)
                problems.append(ICalProblem(line: line, uid: uid, message: "in \(child.kindName): " + ICalReader.libicalComplaint(property.text, about: property.source)))
            }
        }
        let decoder = ComponentDecoder(registry: registry, entity: entity, zones: zones, defaultZone: defaultZone, tables: tables.decoder)
        let isMessage = method.map(ICalReader.messageMethods.contains) ?? false
        let decoded = decoder.decode(raw, tree.node, properties: properties, verbatim: prepared.verbatim, requireStart: !isMessage)
        problems += decoded.problems
        // One complaint per line: where the prepass found a fault, libical and the decoder saying
        // the same of that line in their own words are left out.
        let prepassLines = Set(prepared.problems.map(\.line))
        problems = prepared.problems + problems.dropFirst(prepared.problems.count).filter { !prepassLines.contains($0.line) }
        queue.append(contentsOf: decoded.warnings.map(ICalItem.warning))
        for note in zones.takeNotes() {
            let line = raw.properties.first { ZoneResolver.key($0.parameter("TZID") ?? "") == note.tzid }?.line ?? raw.beginLine
            queue.append(.warning(ICalProblem(line: line, uid: uid, message: note.message)))
        }
        if decoded.usedDefaultZone, !announcedDefaultZone, let defaultZone {
            announcedDefaultZone = true
            queue.append(.warning(ICalProblem(line: raw.beginLine, uid: uid,
                                              message: "times without a zone are read in \(defaultZone), the calendar's X-WR-TIMEZONE (from this event on)")))
        }
        audit(original, prepared: prepared, decoded: decoded, problems: problems)
        guard problems.isEmpty else {
            queue.append(contentsOf: problems.map(ICalItem.problem))
            return
        }
        var values = decoded.values
        if let stamp = entity.properties.first(where: { $0.icalName == "DTSTAMP" && $0.icalParameter == nil }),
           case .dateTime(let written)? = values[stamp.name], written.sortKey == ICalWriter.derivedStamp(values, entity: entity) {
            values[stamp.name] = nil
        }
        for property in entity.properties where property.isRequired && values[property.name] == nil && property.type == .builtin(.string) && property.ical != nil {
            values[property.name] = .string("")
        }
        if isMessage, let method, let uid {
            queue.append(.message(ICalMessage(method: method, entity: entity.name, uid: uid, values: values, line: raw.beginLine)))
            return
        }
        do {
            var checked = values
            checked["id"] = nil
            // References (an event's calendar) are the importer's to fill; check the rest.
            // A required text with no value (an event without SUMMARY, valid in RFC 5545) is empty text.
            for property in entity.properties where checked[property.name] == nil {
                if case .entity(let target) = property.type.base, registry.entity(target)?.kind == .indexed { checked[property.name] = .reference(UUID()) }
            }
            try registry.validateObject(checked, of: entity)
        } catch {
            queue.append(.problem(ICalProblem(line: raw.beginLine, uid: uid, message: "\(error)")))
            return
        }
        // RFC 5545 lets an event go without SUMMARY (busy-time feeds do): it is kept, and said.
        for property in entity.properties where property.annotations.contains(named: "nonBlank") {
            guard case .string(let text)? = values[property.name], text.allSatisfy(\.isWhitespace), let name = property.icalName else { continue }
            let noun = property.annotations.first(named: "display")?.firstString ?? property.name
            // The component as the file wrote it: the prepass leaves empty values out of `raw`.
            let written = original.line(of: name)
            let message = written == nil ? "\(raw.name) has no \(name), so it is kept with an empty \(noun)"
                : "\(name) is empty, so the \(raw.name) is kept with an empty \(noun)"
            queue.append(.warning(ICalProblem(line: written ?? raw.beginLine, uid: uid, message: message)))
        }
        queue.append(.record(ICalRecord(entity: entity.name, values: values, uid: uid, line: raw.beginLine, uidLine: raw.line(of: "UID") ?? raw.beginLine)))
        for override in decoder.periodOverrides(values, properties: properties) {
            queue.append(.warning(ICalProblem(line: override.line, uid: uid,
                                              message: "this RDATE period is not as long as the event, so its occurrence is kept as an override with the period's own end")))
            queue.append(.record(ICalRecord(entity: entity.name, values: override.values, uid: uid, line: override.line, uidLine: override.line)))
        }
    }

    /// Calendar properties that describe the file rather than the calendar: export writes its
    /// own (VERSION, PRODID, CALSCALE), and METHOD is acted on, not kept (an export is no iTIP
    /// message).
    static let calendarHousekeeping: Set<String> = ["VERSION", "PRODID", "CALSCALE", "METHOD"]

    /// libical's X-LIC-ERROR text as a refusal: it says it removes the property, but CometCal
    /// refuses the component rather than lose it.
    static func libicalComplaint(_ text: String, about line: ContentLine?) -> String {
        let marker = ". Removing entire property: "
        guard let range = text.range(of: marker) else { return "invalid value: \(text)" }
        let value = String(text[range.upperBound...])
        // libical names the property: "Can't parse as GEO value in GEO property".
        let named = text[..<range.lowerBound].components(separatedBy: " in ").last?.components(separatedBy: " ").first
        let name = line?.name ?? named ?? "the property"
        return "\(name) '\(value)' cannot be read (libical: \(text[..<range.lowerBound]))"
    }

    /// Methods whose components are the events themselves (RFC 5546): imported as calendars.
    static let importedMethods: Set<String> = ["PUBLISH", "REQUEST", "ADD"]
    /// Methods whose components only name an event to change: a cancellation, a reply.
    static let messageMethods: Set<String> = ["CANCEL", "REPLY"]

    /// The raw child libical's child `index` came from: the same kind, in the same order.
    static func rawChild(of raw: RawComponent, matching children: [LibicalNode], at index: Int) -> RawComponent? {
        let kind = children[index].kindName
        let position = children[..<index].filter { $0.kindName == kind }.count
        let candidates = raw.children.filter { $0.name == kind }
        return candidates.indices.contains(position) ? candidates[position] : nil
    }

    // MARK: The audit

    /// Lines of accepted components that went nowhere: not into a field, not kept for export, not
    /// named in a warning. The importer's promise is that this stays empty; tests hold it to it.
    public private(set) var unaccountedLines: [Int] = []

    private func audit(_ original: RawComponent, prepared: PreparedComponent, decoded: ComponentDecoder.Decoded, problems: [ICalProblem]) {
        guard problems.isEmpty else { return }
        var accounted = decoded.accounted
        accounted.formUnion(prepared.warnings.map(\.line))
        accounted.formUnion(decoded.warnings.map(\.line))
        // A warning about a removed VALARM names its lines by range.
        for child in original.children where prepared.warnings.contains(where: { $0.line == child.beginLine }) {
            accounted.formUnion(child.allLines)
        }
        for line in original.properties where line.value.isBlank || line.line == original.beginLine && line.name == "UID" {
            accounted.insert(line.line)  // an empty value carries nothing; a derived UID is ours
        }
        for child in original.children {
            // Mapped subcomponents (VALARM): their TRIGGER is the field; what else they hold is
            // the documented limit of an alarm (docs/icalendar.md, Known limits).
            accounted.formUnion(child.allLines)
        }
        unaccountedLines += original.properties.map(\.line).filter { !accounted.contains($0) }
    }
}

/// An iTIP message about an event (METHOD:CANCEL or REPLY): what it names and says. It has no
/// event of its own to import; the importer applies it to the stored one.
public struct ICalMessage: Sendable {
    public let method: String
    public let entity: QualifiedName
    public let uid: String
    /// The fields the component gave (RECURRENCE-ID, SEQUENCE, STATUS, ATTENDEE, …).
    public let values: [String: Value]
    public let line: Int
}
