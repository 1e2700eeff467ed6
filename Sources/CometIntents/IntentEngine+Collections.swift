import Foundation
import CometSchema
import CometStore
import CometICal

/// What a sync client does to calendars themselves (MKCALENDAR, PROPPATCH, DELETE of a
/// collection), and the questions a CalDAV REPORT asks of the occurrences.
extension IntentEngine {
    /// A collection property a client may change, as the calendar's property that holds it.
    public enum CollectionProperty: Sendable, Hashable {
        case title, color, description
    }

    /// The segment each calendar answers at in a client's URLs: the segment a client created it
    /// with (MKCALENDAR), else its id.
    public func collectionSegments() throws -> [UUID: String] {
        try store.readTransaction { transaction in
            var segments: [UUID: String] = [:]
            let calendars = try calendarCollectionRecords(transaction).map(\.id)
            // A deleted calendar keeps its segment (for an undo) but answers at nothing.
            let existing = Set(calendars + standaloneEntities.map { IntentEngine.standaloneID($0.name) })
            for (segment, id) in try chosenSegments(transaction) where existing.contains(id) { segments[id] = segment }
            for id in calendars where segments[id] == nil {
                segments[id] = id.lowercasedText
            }
            // An entity's own collection (the to-dos) answers at its plural noun: tasks.
            for entity in standaloneEntities where segments[IntentEngine.standaloneID(entity.name)] == nil {
                segments[IntentEngine.standaloneID(entity.name)] = Vdir.safeName(IntentEngine.noun(entity.name, count: 2, in: registry).lowercased())
            }
            return segments
        }
    }

    /// The components a calendar holds (VEVENT; more when other entities refer to calendars).
    public var calendarComponents: [String] {
        guard let calendarEntity else { return [] }
        return exportedEntities.filter { calendarReference(of: $0, to: calendarEntity) != nil }
            .compactMap { $0.annotations.first(named: "ical")?.firstString?.uppercased() }
    }

    /// The entity collection (the to-dos) holding this component, when there is one.
    public func standaloneCollection(holding component: String) -> CalendarCollection? {
        standaloneEntities.first { $0.annotations.first(named: "ical")?.firstString?.uppercased() == component.uppercased() }
            .map { standaloneCollection($0) }
    }

    /// Gives a collection the segment a client asked for (MKCALENDAR of a to-do list answers
    /// with the one to-do collection, at the client's URL). False when another collection has
    /// that segment, or a client already named this one: a second to-do list would be the same
    /// to-dos again, and moving the first would take it from the client that made it.
    public func nameCollection(_ id: UUID, segment: String) throws -> Bool {
        try store.transaction { transaction in
            var chosen = try chosenSegments(transaction)
            // A segment whose calendar was deleted goes to the new one.
            if let owner = chosen[segment] {
                if owner == id { return true }
                if try collection(owner, transaction) != nil { return false }
            }
            if chosen.values.contains(id) { return false }
            chosen[segment] = id
            try saveSegments(chosen, transaction)
            return true
        }
    }

    /// Creates a calendar as MKCALENDAR asks, through the schema's intent that creates
    /// calendars (its rules hold: a title no other calendar has), answering at `segment`.
    public func createCollection(segment: String, title: String?, color: String?, description: String?) -> Result<CalendarCollection, ResourceRefusal> {
        guard let calendarEntity, let intent = registry.allIntents.first(where: { $0.action == .create && $0.entity == calendarEntity.name }) else {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "the schemas have no intent that creates calendars", problems: []))
        }
        do {
            if try collectionSegments().values.contains(segment) {
                return .failure(ResourceRefusal(reason: .preconditionFailed, message: "a calendar already answers at \(segment)", problems: []))
            }
        } catch {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "\(error)", problems: []))
        }
        var values: [CollectionProperty: String?] = [.title: title ?? segment]
        if let color { values[.color] = color }
        if let description { values[.description] = description }
        let outcome = perform(IntentRequest(intent: intent.name.description, parameters: bindings(values, entity: calendarEntity), confirmation: .confirmed))
        guard case .done(let result) = outcome, let record = result.record else { return .failure(refusal(outcome)) }
        do {
            if segment != record.id.lowercasedText {
                try store.transaction { transaction in
                    var chosen = try chosenSegments(transaction)
                    chosen[segment] = record.id
                    try saveSegments(chosen, transaction)
                }
            }
            guard let created = try calendarCollection(record.id) else {
                return .failure(ResourceRefusal(reason: .refusedByStore, message: "the new calendar is not in the store", problems: []))
            }
            return .success(created)
        } catch {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "\(error)", problems: []))
        }
    }

    /// Changes a calendar's title, colour or description as PROPPATCH asks, through the schema's
    /// intent that updates calendars: all of them or none. A nil value removes the property.
    public func updateCollection(_ id: UUID, _ changes: [CollectionProperty: String?]) -> Result<CalendarCollection, ResourceRefusal> {
        if let entity = standaloneEntity(id) {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "the \(IntentEngine.noun(entity.name, count: 2, in: registry)) collection holds every \(IntentEngine.noun(entity.name, count: 1, in: registry)) and has no properties to change", problems: []))
        }
        guard let calendarEntity, let intent = registry.allIntents.first(where: { $0.action == .update && $0.entity == calendarEntity.name }),
              let target = intent.parameters.first(where: \.isTarget) else {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "the schemas have no intent that updates calendars", problems: []))
        }
        var parameters = bindings(changes, entity: calendarEntity)
        parameters[target.name] = .set(.reference(id))
        let outcome = perform(IntentRequest(intent: intent.name.description, parameters: parameters, confirmation: .confirmed))
        guard case .done = outcome else { return .failure(refusal(outcome)) }
        do {
            guard let updated = try calendarCollection(id) else {
                return .failure(ResourceRefusal(reason: .notFound, message: "there is no such calendar", problems: []))
            }
            return .success(updated)
        } catch {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "\(error)", problems: []))
        }
    }

    /// Deletes a calendar and everything on it, as DELETE of a collection asks: one journal
    /// entry, so one undo brings all of it back.
    /// An entity's own collection (the to-dos) is emptied, and answers at its own URL again.
    public func deleteCollection(_ id: UUID) -> Result<Int, ResourceRefusal> {
        do {
            let count = try store.transaction { transaction -> Int in
                let standalone = standaloneEntity(id)
                let calendar = try calendarEntity.flatMap { try transaction.fetch($0.name, id: id) }
                guard standalone != nil || calendar != nil else {
                    throw ResourceRefusal(reason: .notFound, message: "there is no such calendar", problems: [])
                }
                let recorder = ChangeRecorder(transaction)
                var members: [EntityRecord] = []
                for entity in exportedEntities {
                    guard let filters = memberFilters(entity, in: id) else { continue }
                    members += try transaction.fetchAll(entity.name, matching: filters, limit: nil)
                }
                // Overrides before their series, then the calendar.
                let isOverride: (EntityRecord) -> Bool = { record in
                    guard let property = self.registry.entity(record.entity)?.temporalFields?.recurrenceID else { return false }
                    return record[property] != nil
                }
                for record in members.sorted(by: { isOverride($0) && !isOverride($1) }) { try recorder.delete(record.entity, id: record.id) }
                if let calendar { try recorder.delete(calendar.entity, id: id) }
                // A calendar's URL stays its own, so that an undo brings it back where clients
                // knew it (a new calendar made there takes it over); the to-dos answer at their
                // own URL again.
                var chosen = try chosenSegments(transaction)
                if standalone != nil, let segment = chosen.first(where: { $0.value == id })?.key {
                    chosen[segment] = nil
                    try saveSegments(chosen, transaction)
                }
                guard !recorder.changes.isEmpty else { return 0 }
                _ = try transaction.appendJournal(JournalEntry(
                    intent: "caldav.deleteCollection",
                    summary: calendar.map { "Deleted the calendar “\(registry.title(of: $0))” and its \(members.count) event\(members.count == 1 ? "" : "s") from a calendar client" }
                        ?? "Deleted all \(members.count) \(standalone.map { IntentEngine.noun($0.name, count: members.count, in: registry) } ?? "records") from a calendar client",
                    created: clock(), changes: recorder.changes))
                return members.count
            }
            return .success(count)
        } catch let refusal as ResourceRefusal {
            return .failure(refusal)
        } catch {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "\(error)", problems: []))
        }
    }

    /// The UIDs of a calendar's resources with an occurrence overlapping [from, to), read from
    /// the engine's own expansion of every series (what a calendar-query's time-range asks).
    public func resourceUIDs(in calendar: UUID, overlapping from: Date, to: Date) throws -> Set<String> {
        try expandingWithinLimit { try store.readTransaction { transaction in
            var uids = Set<String>()
            for entity in exportedEntities where entity.temporalFields != nil {
                guard let filters = memberFilters(entity, in: calendar) else { continue }
                for occurrence in try transaction.occurrences(entity.name, from: from, to: to, zone: timeZone, matching: filters) {
                    uids.insert(uid(of: occurrence.record, entity: entity) ?? occurrence.record.id.lowercasedText)
                }
            }
            return uids
        } }
    }

    /// One instance of a resource in a range, as calendar-data's `expand` returns it: the
    /// record it comes from (the series, or the override standing in for it) written alone, its
    /// start and end, and its RECURRENCE-ID when it belongs to a series.
    public struct ExpandedInstance: Sendable {
        public let text: String
        public let start: Date
        public let end: Date
        public let recurrenceID: Date?
        /// Whether the instance is an override of its own (RECURRENCE-ID), not the series' rule.
        public let isOverride: Bool
    }

    /// The instances of a collection's resource (by UID) that overlap [from, to), from the
    /// engine's own expansion, in start order.
    public func expandedInstances(in collection: UUID, uid: String, from: Date, to: Date) throws -> [ExpandedInstance] {
        try expandingWithinLimit { try store.readTransaction { transaction in
            var instances: [(Date, ExpandedInstance)] = []
            let writer = ICalWriter(registry: registry)
            for entity in exportedEntities where entity.temporalFields != nil {
                guard let filters = memberFilters(entity, in: collection), let uidProperty = uidProperty(of: entity) else { continue }
                let recurrenceID = entity.temporalFields?.recurrenceID
                for occurrence in try transaction.occurrences(entity.name, from: from, to: to, zone: timeZone, matching: filters + [.equals(uidProperty, .string(uid))]) {
                    let isOverride = recurrenceID.map { occurrence.record[$0] != nil } ?? false
                    let inSeries = occurrence.isRecurrenceInstance || isOverride
                    let text: String
                    do {
                        text = try writer.document(calendar: nil, records: [occurrence.record])
                    } catch let error as ICalWriter.WriteError {
                        throw IntentError(.invalidValue, error.message)
                    }
                    let start = instant(occurrence.start)
                    instances.append((start, ExpandedInstance(text: text, start: start, end: instant(occurrence.end),
                                                              recurrenceID: inSeries ? instant(occurrence.recurrenceKey) : nil, isOverride: isOverride)))
                }
            }
            return instances.sorted { $0.0 < $1.0 }.map(\.1)
        } }
    }

    /// What a busy time is, as free-busy reports it (RFC 5545 FBTYPE).
    public enum BusyKind: String, Sendable {
        case busy = "BUSY"
        case tentative = "BUSY-TENTATIVE"
    }

    /// The busy times of a calendar in [from, to), as a free-busy query answers (RFC 4791
    /// §7.10): every occurrence that blocks time (not TRANSP:TRANSPARENT, not
    /// STATUS:CANCELLED), all-day ones included, clipped to the range; a tentative one is
    /// BUSY-TENTATIVE. Overlapping times of one kind are merged.
    public func busyPeriods(in calendar: UUID, from: Date, to: Date) throws -> [(start: Date, end: Date, kind: BusyKind)] {
        try expandingWithinLimit { try store.readTransaction { transaction in
            var spans: [(start: Date, end: Date, kind: BusyKind)] = []
            for entity in exportedEntities where entity.temporalFields != nil {
                guard let filters = memberFilters(entity, in: calendar) else { continue }
                let transparency = entity.properties.first { $0.type.base == .builtin(.bool) && $0.icalName == "TRANSP" && $0.icalParameter == nil }?.name
                let status = entity.properties.first { $0.icalName == "STATUS" && $0.icalParameter == nil }
                func statusText(_ record: EntityRecord) -> String? {
                    guard let status, case .enumCase(let name)? = record[status.name], case .enumeration(let enumName) = status.type.base,
                          let found = registry.enumeration(enumName)?.cases.first(where: { $0.name == name }) else { return nil }
                    return (found.annotations.first(named: "ical")?.firstString ?? found.name).uppercased()
                }
                for occurrence in try transaction.occurrences(entity.name, from: from, to: to, zone: timeZone, matching: filters) {
                    if let transparency, case .bool(false)? = occurrence.record[transparency] { continue }
                    let state = statusText(occurrence.record)
                    if state == "CANCELLED" { continue }
                    // A floating or all-day time is read in the engine's zone, as the agenda reads it.
                    let start = max(instant(occurrence.start), from)
                    let end = min(instant(occurrence.end), to)
                    if end > start { spans.append((start, end, state == "TENTATIVE" ? .tentative : .busy)) }
                }
            }
            spans.sort { ($0.start, $0.kind.rawValue) < ($1.start, $1.kind.rawValue) }
            var merged: [(start: Date, end: Date, kind: BusyKind)] = []
            for span in spans {
                if let index = merged.lastIndex(where: { $0.kind == span.kind }), span.start <= merged[index].end {
                    merged[index].end = max(merged[index].end, span.end)
                } else {
                    merged.append(span)
                }
            }
            return merged
        } }
    }

    // MARK: Helpers

    /// Runs a read that expands series over a client's range; a series with more instances in
    /// it than the store reads for one query is the resource refusal that says so.
    private func expandingWithinLimit<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError where error.code == .tooManyOccurrences {
            throw ResourceRefusal(reason: .tooManyInstances, message: error.message, problems: [])
        }
    }

    /// The instant of a time; a floating one (an all-day event's) read in the engine's zone.
    func instant(_ value: DateTimeValue) -> Date {
        value.instant ?? value.localTime.dateTime(in: timeZone).instant ?? Date(timeIntervalSince1970: TimeInterval(value.sortKey))
    }

    private func calendarCollectionRecords(_ transaction: any StoreReader) throws -> [EntityRecord] {
        guard let calendarEntity else { return [] }
        return try transaction.fetchAll(calendarEntity.name, matching: [], limit: nil)
    }

    /// The calendar property that holds a collection property.
    func collectionPropertyName(_ property: CollectionProperty, entity: EntityDefinition) -> String? {
        switch property {
        case .title: return entity.titleProperty?.name
        case .color: return entity.properties.first { $0.icalName == "COLOR" || $0.ical?.string("alias")?.uppercased() == "COLOR" }?.name
        case .description: return entity.properties.first { $0.icalName == "DESCRIPTION" || $0.ical?.string("alias")?.uppercased() == "DESCRIPTION" }?.name
        }
    }

    private func bindings(_ values: [CollectionProperty: String?], entity: EntityDefinition) -> ParameterBindings {
        var parameters = ParameterBindings()
        for (property, value) in values {
            guard let name = collectionPropertyName(property, entity: entity) else { continue }
            parameters[name] = value.map { .set(.string($0)) } ?? .cleared
        }
        return parameters
    }

    private func refusal(_ outcome: IntentOutcome) -> ResourceRefusal {
        switch outcome {
        case .failed(let error): return ResourceRefusal(reason: .refusedByStore, message: error.message, problems: [])
        case .needsValue(_, let prompt): return ResourceRefusal(reason: .refusedByStore, message: "a value is missing: \(prompt)", problems: [])
        case .needsDisambiguation(_, let prompt, _): return ResourceRefusal(reason: .refusedByStore, message: prompt, problems: [])
        case .needsConfirmation(let prompt, _): return ResourceRefusal(reason: .refusedByStore, message: prompt, problems: [])
        case .cancelled(let dialog): return ResourceRefusal(reason: .refusedByStore, message: dialog.full, problems: [])
        case .done: return ResourceRefusal(reason: .refusedByStore, message: "the intent returned no calendar", problems: [])
        }
    }

    private static let segmentsKey = "caldav.collections"

    /// Segments clients chose for calendars (MKCALENDAR), by segment.
    private func chosenSegments(_ transaction: any StoreReader) throws -> [String: UUID] {
        guard let text = try transaction.meta(IntentEngine.segmentsKey), case .object(let object)? = try? JSONParser.parse(text) else { return [:] }
        var segments: [String: UUID] = [:]
        for (segment, value) in object { if let id = value.stringValue.flatMap(UUID.init(parsing:)) { segments[segment] = id } }
        return segments
    }

    private func saveSegments(_ segments: [String: UUID], _ transaction: any StoreWriter) throws {
        let object = JSONObject(segments.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value.lowercasedText)) })
        try transaction.setMeta(IntentEngine.segmentsKey, JSONWriter.compact(.object(object)))
    }
}

// MARK: Properties clients keep on a calendar

extension IntentEngine {
    private func clientPropertiesKey(_ collection: UUID) -> String { "caldav.properties." + collection.lowercasedText }

    /// Properties a client set on a calendar that CometCal gives no meaning to (a WebDAV dead
    /// property, such as Apple's calendar-order), by name, as text.
    public func collectionClientProperties(_ collection: UUID) throws -> [String: String] {
        try store.readTransaction { try clientProperties(collection, $0) }
    }

    /// Sets (a value) or removes (nil) such properties, all in one transaction.
    public func setCollectionClientProperties(_ collection: UUID, _ changes: [String: String?]) throws {
        try store.transaction { transaction in
            var properties = try clientProperties(collection, transaction)
            for (name, value) in changes { properties[name] = value }
            let object = JSONObject(properties.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
            try transaction.setMeta(clientPropertiesKey(collection), JSONWriter.compact(.object(object)))
        }
    }

    private func clientProperties(_ collection: UUID, _ transaction: any StoreReader) throws -> [String: String] {
        guard let text = try transaction.meta(clientPropertiesKey(collection)), case .object(let object)? = try? JSONParser.parse(text) else { return [:] }
        var properties: [String: String] = [:]
        for (name, value) in object { if let text = value.stringValue { properties[name] = text } }
        return properties
    }
}
