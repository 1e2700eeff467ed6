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
    /// A component no entity maps (VJOURNAL in a calendar-only setup): left out, not an error.
    case skipped(component: String, line: Int)
    case problem(ICalProblem)
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
    private var calendarProperties: [ContentLine] = []
    private var calendarLine = 1
    private var calendarAnnounced = false
    private var deferred: [RawComponent] = []
    /// A calendar refused as a whole (vCalendar 1.0): its components are not read.
    private var refuseCalendar = false
    private var queue: [ICalItem] = []
    /// Entities by the component they map to (VEVENT → calendar.Event).
    private let entities: [String: EntityDefinition]

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
        while queue.isEmpty {
            guard let event = reader.next() else { return nil }
            handle(event)
        }
        return queue.removeFirst()
    }

    private func handle(_ event: ReaderEvent) {
        switch event {
        case .calendarBegins(let line):
            calendarProperties = []
            calendarLine = line
            calendarAnnounced = false
            refuseCalendar = false
            defaultZone = nil
            zones = ZoneResolver()
        case .calendarProperty(let line):
            calendarProperties.append(line)
        case .component(let raw):
            announceCalendar()
            if refuseCalendar { return }
            if raw.name == "VTIMEZONE" {
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
        }
    }

    private func announceCalendar() {
        guard !calendarAnnounced else { return }
        calendarAnnounced = true
        if let zone = calendarProperties.first(where: { $0.name == "X-WR-TIMEZONE" })?.value.trimmingCharacters(in: .whitespaces) {
            if let iana = TimeZoneNames.ianaIdentifier(for: zone) {
                defaultZone = iana
            } else {
                queue.append(.problem(ICalProblem(line: calendarProperties.first { $0.name == "X-WR-TIMEZONE" }?.line ?? calendarLine, uid: nil,
                                                  message: "X-WR-TIMEZONE '\(zone)' is not a time zone CometCal knows; floating times stay floating")))
            }
        }
        if let version = calendarProperties.first(where: { $0.name == "VERSION" }), version.value.trimmingCharacters(in: .whitespaces) == "1.0" {
            queue.append(.problem(ICalProblem(line: version.line, uid: nil, message: "this is a vCalendar 1.0 file; CometCal reads iCalendar 2.0 (RFC 5545) — export it again as iCalendar from its program")))
            refuseCalendar = true
        }
        let method = calendarProperties.first { $0.name == "METHOD" }?.value.uppercased()
        guard let entity = entities["VCALENDAR"] else {
            queue.append(.calendar(entity: nil, values: [:], method: method, line: calendarLine))
            return
        }
        var raw = RawComponent(name: "VCALENDAR", beginLine: calendarLine)
        raw.properties = calendarProperties.filter { !$0.value.isEmpty }
        var values: [String: Value] = [:]
        if let tree = LibicalTree(parsing: raw.text) {
            let decoder = ComponentDecoder(registry: registry, entity: entity, zones: zones, defaultZone: nil)
            values = decoder.decode(raw, tree.node).values
            values = values.filter { key, _ in entity.property(key)?.ical?.firstString != "*" }
        }
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
        let head = line.text.prefix { $0 != ":" }
        for part in head.split(separator: ";").dropFirst() {
            let pieces = part.split(separator: "=", maxSplits: 1)
            if pieces.count == 2, pieces[0].uppercased() == name {
                var value = Substring(pieces[1])
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
                return String(value)
            }
        }
        return nil
    }

    private func decode(_ original: RawComponent) {
        var original = original
        if original.value("UID") == nil, original.name != "VTIMEZONE" {
            // RFC 5545 requires a UID; without one, a stable one from the content makes a
            // re-import find the same event instead of adding it again.
            let content = original.properties.filter { $0.name != "DTSTAMP" }.map(\.text).joined(separator: "\n")
            original.properties.append(ContentLine(text: "UID:cometcal-" + ICalReader.stableHash(content), line: original.beginLine))
        }
        let uid = original.value("UID")
        guard let entity = entities[original.name] else {
            queue.append(.skipped(component: original.name, line: original.beginLine))
            return
        }
        let raw = QuirkNormalizer.normalize(original)
        guard let tree = LibicalTree(parsing: raw.text) else {
            queue.append(.problem(ICalProblem(line: raw.beginLine, uid: uid, message: "libical could not parse this \(raw.name)")))
            return
        }
        var problems: [ICalProblem] = []
        for message in tree.node.errors {
            problems.append(ICalProblem(line: QuirkNormalizer.line(of: message, in: raw), uid: uid, message: "invalid value: \(message)"))
        }
        let mappedChildren = Set(entity.properties.compactMap { $0.ical?.firstString?.uppercased() })
        for child in tree.node.children where mappedChildren.contains(child.kindName) {
            for message in child.errors {
                problems.append(ICalProblem(line: QuirkNormalizer.line(of: message, in: raw), uid: uid, message: "invalid value in \(child.kindName): \(message)"))
            }
        }
        let decoder = ComponentDecoder(registry: registry, entity: entity, zones: zones, defaultZone: defaultZone)
        let decoded = decoder.decode(raw, tree.node)
        problems += decoded.problems
        if problems.isEmpty {
            do {
                var values = decoded.values
                values["id"] = nil
                for property in entity.properties where property.isRequired && values[property.name] == nil && property.type == .builtin(.string) && property.ical != nil {
                    values[property.name] = .string("")
                }
                // References (an event's calendar) are the importer's to fill; check the rest.
                // A required text with no value (an event without SUMMARY, valid in RFC 5545) is empty text.
                for property in entity.properties where values[property.name] == nil {
                    if case .entity(let target) = property.type.base, registry.entity(target)?.kind == .indexed { values[property.name] = .reference(UUID()) }
                }
                try registry.validateObject(values, of: entity)
            } catch {
                problems.append(ICalProblem(line: raw.beginLine, uid: uid, message: "\(error)"))
            }
        }
        if problems.isEmpty {
            var values = decoded.values
            for property in entity.properties where property.isRequired && values[property.name] == nil && property.type == .builtin(.string) && property.ical != nil {
                values[property.name] = .string("")
            }
            queue.append(.record(ICalRecord(entity: entity.name, values: values, uid: uid, line: raw.beginLine, uidLine: raw.line(of: "UID") ?? raw.beginLine)))
        } else {
            queue.append(contentsOf: problems.map(ICalItem.problem))
        }
    }
}
