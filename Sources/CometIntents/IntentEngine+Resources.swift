import Foundation
import CometSchema
import CometStore
import CometICal

/// A calendar as a sync client (CalDAV) sees it: a collection of resources, each one event with
/// its overrides, named after its UID as `export --vdir` names its files.
public struct CalendarCollection: Sendable, Hashable {
    public let id: UUID
    public let title: String
    public let color: String?
    public let description: String?
    /// The components its resources may hold (VEVENT, and VTODO when the tasks schemas are loaded).
    public let components: [String]
}

/// One resource of a collection: its name in the collection, its UID, and its ETag (quoted), which
/// changes whenever what a GET returns would.
public struct CalendarResource: Sendable, Hashable {
    public let name: String
    public let uid: String
    public let etag: String
    /// The components its text holds besides time zones (VEVENT, VTODO), read from its records'
    /// entities: a filter on component names alone needs no parse of the text.
    public let components: Set<String>
}

/// Why a resource was not written or deleted; each maps to an HTTP status and a precondition.
public struct ResourceRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// If-Match or If-None-Match did not hold (412).
        case preconditionFailed
        /// Nothing by that name (404).
        case notFound
        /// The text is not calendar data the importer accepts (C:valid-calendar-data).
        case invalidCalendarData
        /// Not a calendar object resource by RFC 4791 §4.1: more than one UID, or an iTIP
        /// message (METHOD) (C:valid-calendar-object-resource).
        case notAnObjectResource
        /// A component this collection does not hold (C:supported-calendar-component).
        case unsupportedComponent
        /// The UID is another resource's (C:no-uid-conflict): `conflict` names it.
        case uidConflict(collection: UUID, name: String)
        /// The store refused the change (a rule of the schema).
        case refusedByStore
        /// A query would expand one repeating series past the instances the store reads for one
        /// query (`OccurrenceAssembly.maximumExpandedPerSeries`): refused whole, never answered in part.
        case tooManyInstances
    }

    public let reason: Reason
    public let message: String
    /// The importer's problems, each with its line, when the text was refused.
    public let problems: [ImportReport.Problem]

    public var description: String { message }
}

/// What a resource write did.
public struct ResourceWrite: Sendable {
    public let resource: CalendarResource
    public let created: Bool
    /// What the importer said without refusing the text (as `cometcal import` says it).
    public let warnings: [ImportReport.Problem]
    /// The journal entry of the change, when something changed.
    public let journalSequence: Int64?
    /// Every record created, changed or deleted, for change notifications.
    public let changes: [ImportReport.Change]
}

/// What changed in a collection since a point of the store's change feed.
public struct CollectionChanges: Sendable {
    /// Resources added or changed, with their new ETags.
    public let changed: [CalendarResource]
    /// Names of resources that are not in the collection: those deleted from it, and those of
    /// other calendars changed in the interval. The feed does not keep which calendar a record
    /// was on before a change, so one moved away from this calendar cannot be told from one
    /// that was never on it; both are listed (RFC 6578 lets a server list a removed member the
    /// client never had, and clients delete nothing they do not have).
    public let removed: [String]
    /// The point to ask from next time.
    public let head: Int64
    /// Each listed resource's newest change in the feed, by name: a sync cut after some of
    /// them can go on from the last one it gave.
    public let sequences: [String: Int64]
}

extension IntentEngine {
    /// Every calendar, in the order of their titles (then ids), then a collection for each
    /// entity whose records are on no calendar (the tasks domain's to-dos).
    public func calendarCollections() throws -> [CalendarCollection] {
        try store.readTransaction { transaction in
            var collections: [CalendarCollection] = []
            if let calendarEntity {
                collections = inTitleOrder(try transaction.fetchAll(calendarEntity.name, matching: [], limit: nil)).map { collection(of: $0, entity: calendarEntity) }
            }
            return collections + standaloneEntities.map(standaloneCollection)
        }
    }

    /// The calendar (or entity collection) with this id, if there is one.
    public func calendarCollection(_ id: UUID) throws -> CalendarCollection? {
        try store.readTransaction { try collection(id, $0) }
    }

    func collection(_ id: UUID, _ transaction: any StoreReader) throws -> CalendarCollection? {
        if let entity = standaloneEntity(id) { return standaloneCollection(entity) }
        guard let calendarEntity, let record = try transaction.fetch(calendarEntity.name, id: id) else { return nil }
        return collection(of: record, entity: calendarEntity)
    }

    /// Entities mapped to components whose records are on no calendar: each is one collection.
    var standaloneEntities: [EntityDefinition] {
        exportedEntities.filter { entity in calendarEntity.map { calendarReference(of: entity, to: $0) == nil } ?? true }
    }

    /// The id of an entity's own collection: the same for the same entity name, every time.
    static func standaloneID(_ entity: QualifiedName) -> UUID {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x84222325_cbf29ce4
        for byte in "collection:\(entity)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 7
        }
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: hash >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: second >> ($0 * 8)) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6] & 0x0f | 0x50, bytes[7],
                           bytes[8] & 0x3f | 0x80, bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    func standaloneEntity(_ id: UUID) -> EntityDefinition? {
        standaloneEntities.first { IntentEngine.standaloneID($0.name) == id }
    }

    func standaloneCollection(_ entity: EntityDefinition) -> CalendarCollection {
        let plural = IntentEngine.noun(entity.name, count: 2, in: registry)
        return CalendarCollection(id: IntentEngine.standaloneID(entity.name), title: plural.prefix(1).uppercased() + plural.dropFirst(), color: nil, description: nil,
                                  components: [entity.annotations.first(named: "ical")?.firstString?.uppercased() ?? entity.name.name.uppercased()])
    }

    /// The filters selecting a collection's records of `entity`; nil when they are not in it.
    func memberFilters(_ entity: EntityDefinition, in collection: UUID) -> [RecordFilter]? {
        if let own = standaloneEntity(collection) { return own.name == entity.name ? [] : nil }
        guard let calendarEntity, let reference = calendarReference(of: entity, to: calendarEntity) else { return nil }
        return [.equals(reference.name, .reference(collection))]
    }

    /// The collection a record is in.
    func collectionID(of record: EntityRecord, entity: EntityDefinition) -> UUID? {
        if standaloneEntities.contains(where: { $0.name == entity.name }) { return IntentEngine.standaloneID(entity.name) }
        guard let calendarEntity, let reference = calendarReference(of: entity, to: calendarEntity), case .reference(let id)? = record[reference.name] else { return nil }
        return id
    }

    /// The change feed's head: what a collection's ctag and sync token are made of.
    public func changeHead() throws -> Int64 {
        try store.readTransaction { try $0.changeHead() }
    }

    /// What changed in a collection after `since` (a point of the change feed); nil when the
    /// store cannot say any more (the client starts over).
    public func collectionChanges(in calendar: UUID, since: Int64) throws -> CollectionChanges? {
        try store.readTransaction { transaction in
            let head = try transaction.changeHead()
            guard let changes = try transaction.changes(since: since) else { return nil }
            let names = try resourceNames(calendar, transaction)
            var touched: [String] = []
            var seen = Set<String>()
            var newest: [String: Int64] = [:]
            for change in changes {
                guard let entity = registry.entity(change.entity), exportedEntities.contains(where: { $0.name == entity.name }) else { continue }
                let record: EntityRecord?
                if let gone = change.gone {
                    // A deleted record is this collection's business only if it was on it.
                    guard isOn(gone, calendar: calendar, entity: entity) else { continue }
                    record = gone
                } else {
                    // It exists; on another calendar now, it may have been moved away from this one.
                    record = try transaction.fetch(change.entity, id: change.id)
                }
                guard let record else { continue }
                let uid = uid(of: record, entity: entity) ?? record.id.lowercasedText
                newest[uid] = max(newest[uid] ?? 0, change.sequence)
                if seen.insert(uid).inserted { touched.append(uid) }
            }
            var changed: [CalendarResource] = []
            var removed: [String] = []
            var sequences: [String: Int64] = [:]
            for uid in touched {
                let records = try members(uid: uid, of: calendar, transaction)
                let name: String
                if records.isEmpty {
                    name = resourceName(uid, names)
                    removed.append(name)
                } else {
                    let found = resource(uid: uid, records: records, names: names)
                    name = found.name
                    changed.append(found)
                }
                sequences[name] = newest[uid]
            }
            return CollectionChanges(changed: changed, removed: removed, head: head, sequences: sequences)
        }
    }

    /// Writes a resource as a PUT does: the text is imported through the same reader and
    /// decisions as `cometcal import`, into this calendar, replacing the stored versions of its
    /// UID whatever their SEQUENCE (the ETag guards against lost updates); overrides the text no
    /// longer has are deleted. `ifMatch` is an ETag the resource must have; `ifNoneMatch` (`*`)
    /// means it must not exist. One journal entry; refused whole, with the reason.
    public func putResource(in calendar: UUID, named name: String, text: String, ifMatch: String? = nil,
                            ifNoneMatch: Bool = false) -> Result<ResourceWrite, ResourceRefusal> {
        writing { transaction in
            guard let holder = try collection(calendar, transaction) else {
                throw ResourceRefusal(reason: .notFound, message: "there is no such calendar", problems: [])
            }
            var names = try resourceNames(calendar, transaction)
            let existing = try lookUp(name, in: calendar, names: names, transaction)
            try checkPreconditions(existing.map { resource(uid: $0.uid, records: $0.records, names: names) }, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch)
            let incoming = try scan(text, name: name, in: calendar, holds: holder.components)
            if let existing, existing.uid != incoming.uid {
                throw ResourceRefusal(reason: .uidConflict(collection: calendar, name: name),
                                      message: "this resource holds UID '\(existing.uid)'; a PUT may not change it (write the new UID to a new resource)", problems: [])
            }
            if existing == nil, !(try members(uid: incoming.uid, of: calendar, transaction)).isEmpty {
                let taken = resourceName(incoming.uid, names)
                throw ResourceRefusal(reason: .uidConflict(collection: calendar, name: taken),
                                      message: "UID '\(incoming.uid)' is already the resource \(taken) of this calendar; write to that name", problems: [])
            }
            if existing == nil, let elsewhere = try lookUpElsewhere(uid: incoming.uid, besides: calendar, transaction) {
                throw ResourceRefusal(reason: .uidConflict(collection: elsewhere.calendar, name: elsewhere.name),
                                      message: "UID '\(incoming.uid)' is already used by \(elsewhere.name) in another calendar; a UID is unique in a user's calendars (move it with MOVE, or DELETE it there first)", problems: [])
            }
            let recorder = ChangeRecorder(transaction)
            var options = ImportOptions()
            options.calendarID = calendar
            options.replacesStored = true
            var importer = Importer(engine: self, transaction: recorder, options: options)
            try importer.run(ImportSource(name: name, text: text, registry: registry))
            var report = importer.report
            if !report.problems.isEmpty {
                throw ResourceRefusal(reason: .invalidCalendarData, message: "the calendar data is refused: " + report.problems.map { "line \($0.line): \($0.message)" }.joined(separator: "; "),
                                      problems: report.problems)
            }
            // Overrides the new text no longer has.
            for record in existing?.records ?? [] {
                guard let entity = registry.entity(record.entity), !incoming.keys.contains(recurrenceKey(of: record, entity: entity)) else { continue }
                try recorder.delete(record.entity, id: record.id)
                report.note(record.entity, record.id, .deleted)
            }
            let standard = Vdir.safeName(incoming.uid) + ".ics"
            if name != standard, names[incoming.uid] != name {
                names[incoming.uid] = name
                try saveResourceNames(names, calendar, transaction)
            }
            let records = try members(uid: incoming.uid, of: calendar, transaction)
            let changes = recorder.changes
            var sequence: Int64?
            if !changes.isEmpty {
                let title = records.first.map { registry.title(of: $0) } ?? incoming.uid
                sequence = try transaction.appendJournal(JournalEntry(
                    intent: "caldav.put", summary: "\(existing == nil ? "Added" : "Changed") “\(title)” from a calendar client", created: clock(), changes: changes))
            }
            var warnings = report.warnings
            if let method = Self.calendarMethod(text) {
                warnings.append(ImportReport.Problem(source: name, line: method.line, uid: incoming.uid,
                                                     message: "METHOD:\(method.value) is not kept: a calendar object resource has no METHOD (RFC 4791 §4.1); the event it carries is stored"))
            }
            return ResourceWrite(resource: resource(uid: incoming.uid, records: records, names: names), created: existing == nil,
                                 warnings: warnings, journalSequence: sequence, changes: report.changes)
        }
    }

    /// The VCALENDAR's METHOD (an iTIP message's), with its line: before the first component.
    static func calendarMethod(_ text: String) -> (value: String, line: Int)? {
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let upper = line.uppercased()
            if upper.hasPrefix("BEGIN:"), upper != "BEGIN:VCALENDAR" { return nil }
            if upper.hasPrefix("METHOD:") { return (String(line.dropFirst("METHOD:".count)), index + 1) }
        }
        return nil
    }

    /// Deletes a resource (the event and its overrides) as a DELETE does; one journal entry.
    public func deleteResource(in calendar: UUID, named name: String, ifMatch: String? = nil) -> Result<ResourceWrite, ResourceRefusal> {
        writing { transaction in
            let names = try resourceNames(calendar, transaction)
            guard let existing = try lookUp(name, in: calendar, names: names, transaction) else {
                throw ResourceRefusal(reason: .notFound, message: "there is no resource named \(name)", problems: [])
            }
            let before = resource(uid: existing.uid, records: existing.records, names: names)
            try checkPreconditions(before, ifMatch: ifMatch, ifNoneMatch: false)
            let recorder = ChangeRecorder(transaction)
            var report = ImportReport()
            // Overrides before their series.
            for record in existing.records.sorted(by: { isOverride($0) && !isOverride($1) }) {
                try recorder.delete(record.entity, id: record.id)
                report.note(record.entity, record.id, .deleted)
            }
            let title = existing.records.first { !isOverride($0) }.map { registry.title(of: $0) } ?? existing.uid
            let sequence = try transaction.appendJournal(JournalEntry(
                intent: "caldav.delete", summary: "Deleted “\(title)” from a calendar client", created: clock(), changes: recorder.changes))
            return ResourceWrite(resource: before, created: false, warnings: [], journalSequence: sequence, changes: report.changes)
        }
    }

    /// One write transaction for a client's change; a refusal, or the store's, as the answer.
    private func writing(_ body: (any StoreWriter) throws -> ResourceWrite) -> Result<ResourceWrite, ResourceRefusal> {
        do {
            return .success(try store.transaction(body))
        } catch let refusal as ResourceRefusal {
            return .failure(refusal)
        } catch let error as StoreError {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "the store refused the change: \(error.message)", problems: []))
        } catch {
            return .failure(ResourceRefusal(reason: .refusedByStore, message: "\(error)", problems: []))
        }
    }

    // MARK: Resources and their records

    private func collection(of record: EntityRecord, entity: EntityDefinition) -> CalendarCollection {
        func text(_ icalName: String) -> String? {
            guard let property = entity.properties.first(where: { $0.icalName == icalName || $0.ical?.string("alias")?.uppercased() == icalName }),
                  case .string(let text)? = record[property.name], !text.isEmpty else { return nil }
            return text
        }
        let components = exportedEntities.filter { calendarReference(of: $0, to: entity) != nil }
            .compactMap { $0.annotations.first(named: "ical")?.firstString?.uppercased() }
        return CalendarCollection(id: record.id, title: registry.title(of: record), color: text("COLOR"), description: text("DESCRIPTION"), components: components)
    }

    /// The records on a calendar, by UID (a record without a UID is its own resource, by id).
    func members(of calendar: UUID, _ transaction: any StoreReader) throws -> [(uid: String, records: [EntityRecord])] {
        var byUID: [String: [EntityRecord]] = [:]
        var order: [String] = []
        for entity in exportedEntities {
            guard let filters = memberFilters(entity, in: calendar) else { continue }
            for record in try transaction.fetchAll(entity.name, matching: filters, limit: nil) {
                let key = uid(of: record, entity: entity) ?? record.id.lowercasedText
                if byUID[key] == nil { order.append(key) }
                byUID[key, default: []].append(record)
            }
        }
        return order.map { ($0, byUID[$0] ?? []) }
    }

    /// The records with this UID on a calendar.
    func members(uid: String, of calendar: UUID, _ transaction: any StoreReader) throws -> [EntityRecord] {
        var found: [EntityRecord] = []
        for entity in exportedEntities {
            guard let filters = memberFilters(entity, in: calendar), let uidProperty = uidProperty(of: entity) else { continue }
            found += try transaction.fetchAll(entity.name, matching: filters + [.equals(uidProperty, .string(uid))], limit: nil)
        }
        return found
    }

    /// The resource a name stands for: a name a client chose (kept per calendar), else the
    /// name made from its UID.
    private func lookUp(_ name: String, in calendar: UUID, names: [String: String], _ transaction: any StoreReader) throws -> (uid: String, records: [EntityRecord])? {
        if let uid = names.first(where: { $0.value == name })?.key {
            let records = try members(uid: uid, of: calendar, transaction)
            return records.isEmpty ? nil : (uid, records)
        }
        guard name.hasSuffix(".ics") else { return nil }
        let stem = String(name.dropLast(4))
        if !stem.contains("~"), let uid = stem.removingPercentEncoding, Vdir.safeName(uid) == stem {
            let records = try members(uid: uid, of: calendar, transaction)
            return records.isEmpty || names[uid] != nil ? nil : (uid, records)
        }
        // A long UID's name ends in a hash and cannot be read back: look among the calendar's.
        return try members(of: calendar, transaction).first { Vdir.safeName($0.uid) == stem && names[$0.uid] == nil }
    }

    /// Where else in the store a UID is used, as (calendar, resource name).
    private func lookUpElsewhere(uid: String, besides calendar: UUID, _ transaction: any StoreReader) throws -> (calendar: UUID, name: String)? {
        for entity in exportedEntities {
            guard let uidProperty = uidProperty(of: entity) else { continue }
            for record in try transaction.fetchAll(entity.name, matching: [.equals(uidProperty, .string(uid))], limit: nil) {
                guard let other = collectionID(of: record, entity: entity), other != calendar else { continue }
                let names = try resourceNames(other, transaction)
                return (other, resourceName(uid, names))
            }
        }
        return nil
    }

    func resource(uid: String, records: [EntityRecord], names: [String: String]) -> CalendarResource {
        CalendarResource(name: resourceName(uid, names), uid: uid, etag: etag(of: records), components: components(of: records))
    }

    /// The name a resource has: the one a client chose, else the one made from its UID.
    func resourceName(_ uid: String, _ names: [String: String]) -> String {
        names[uid] ?? Vdir.safeName(uid) + ".ics"
    }

    /// Each record's id and digest, in id order: the same records, the same text, the same ETag.
    func etag(of records: [EntityRecord]) -> String {
        var hash = RecordDigest.FNV1a()
        for record in records.sorted(by: { $0.id.lowercasedText < $1.id.lowercasedText }) {
            hash.add(text: record.id.lowercasedText)
            hash.add(bits: RecordDigest.of(record, registry: registry))
        }
        return "\"" + String(format: "%016llx", hash.value) + "\""
    }

    func components(of records: [EntityRecord]) -> Set<String> {
        Set(records.compactMap { record in
            registry.entity(record.entity).map { $0.annotations.first(named: "ical")?.firstString?.uppercased() ?? $0.name.name.uppercased() }
        })
    }

    func text(of records: [EntityRecord]) throws -> String {
        do {
            return try ICalWriter(registry: registry).document(calendar: nil, records: records)
        } catch let error as ICalWriter.WriteError {
            throw IntentError(.invalidValue, error.message)
        }
    }

    private func isOn(_ record: EntityRecord, calendar: UUID, entity: EntityDefinition) -> Bool {
        collectionID(of: record, entity: entity) == calendar
    }

    private func isOverride(_ record: EntityRecord) -> Bool {
        guard let entity = registry.entity(record.entity) else { return false }
        return recurrenceKey(of: record, entity: entity) != nil
    }

    private func recurrenceKey(of record: EntityRecord, entity: EntityDefinition) -> Int64? {
        guard let property = entity.temporalFields?.recurrenceID, case .dateTime(let value)? = record[property] else { return nil }
        return value.sortKey
    }

    private func checkPreconditions(_ current: CalendarResource?, ifMatch: String?, ifNoneMatch: Bool) throws {
        if ifNoneMatch, let current {
            throw ResourceRefusal(reason: .preconditionFailed, message: "If-None-Match: * but \(current.name) exists (ETag \(current.etag))", problems: [])
        }
        if let ifMatch {
            guard let current else {
                throw ResourceRefusal(reason: .preconditionFailed, message: "If-Match: \(ifMatch) but there is no such resource", problems: [])
            }
            let wanted = ifMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard wanted.contains("*") || wanted.contains(current.etag) else {
                throw ResourceRefusal(reason: .preconditionFailed, message: "the resource changed since it was read: its ETag is \(current.etag), not \(ifMatch)", problems: [])
            }
        }
    }

    /// The UID of a resource's text and the recurrence keys of its components, read (without
    /// saving anything) to check the resource's rules before the import: one UID, components
    /// this calendar holds.
    private func scan(_ text: String, name: String, in collection: UUID, holds components: [String]) throws -> (uid: String, keys: Set<Int64?>) {
        let reader = ICalReader(registry: registry, text: text)
        var uids = Set<String>()
        var keys = Set<Int64?>()
        var problems: [ImportReport.Problem] = []
        var unsupported: [String] = []
        var calendars = 0
        var isMessage = false
        while let item = reader.next() {
            switch item {
            case .calendar: calendars += 1
            case .record(let record):
                guard let uid = record.uid else {
                    problems.append(.init(source: name, line: record.line, uid: nil, message: "a component has no UID; a calendar object resource needs one (RFC 4791 §4.1)"))
                    continue
                }
                uids.insert(uid)
                if let entity = registry.entity(record.entity), memberFilters(entity, in: collection) == nil {
                    unsupported.append(entity.annotations.first(named: "ical")?.firstString?.uppercased() ?? entity.name.name)
                }
                if let entity = registry.entity(record.entity), let property = entity.temporalFields?.recurrenceID, case .dateTime(let value)? = record.values[property] {
                    keys.insert(value.sortKey)
                } else {
                    keys.insert(nil)
                }
            case .message(let message):
                uids.insert(message.uid)
                isMessage = true
            case .skipped(let component, _):
                if !["VTIMEZONE"].contains(component.uppercased()) { unsupported.append(component) }
            case .problem(let problem): problems.append(.init(source: name, line: problem.line, uid: problem.uid, message: problem.message))
            case .warning, .calendarEnd: break
            }
        }
        if !problems.isEmpty {
            throw ResourceRefusal(reason: .invalidCalendarData, message: "the calendar data is refused: " + problems.map { "line \($0.line): \($0.message)" }.joined(separator: "; "), problems: problems)
        }
        if !unsupported.isEmpty {
            throw ResourceRefusal(reason: .unsupportedComponent, message: "this calendar holds \(components.joined(separator: " and ")), not \(Set(unsupported).sorted().joined(separator: ", "))", problems: [])
        }
        guard calendars == 1 else {
            throw ResourceRefusal(reason: .invalidCalendarData, message: calendars == 0 ? "the body is not iCalendar data (no VCALENDAR)" : "a resource holds one VCALENDAR, not \(calendars)", problems: [])
        }
        if isMessage {
            throw ResourceRefusal(reason: .notAnObjectResource, message: "a calendar object resource has no METHOD (RFC 4791 §4.1): this is an iTIP message; `cometcal import` applies those, or send it without METHOD", problems: [])
        }
        guard uids.count == 1, let uid = uids.first else {
            throw ResourceRefusal(reason: .notAnObjectResource, message: uids.isEmpty ? "the calendar holds no event" : "a resource holds one event and its overrides (one UID), not \(uids.count) UIDs (RFC 4791 §4.1)", problems: [])
        }
        return (uid, keys)
    }

    // MARK: Names clients chose

    private func namesKey(_ calendar: UUID) -> String { "caldav.names." + calendar.lowercasedText }

    /// The names clients gave resources that differ from the names made from their UIDs, by UID.
    func resourceNames(_ calendar: UUID, _ transaction: any StoreReader) throws -> [String: String] {
        guard let text = try transaction.meta(namesKey(calendar)), case .object(let object)? = try? JSONParser.parse(text) else { return [:] }
        var names: [String: String] = [:]
        for (uid, value) in object { if let name = value.stringValue { names[uid] = name } }
        return names
    }

    private func saveResourceNames(_ names: [String: String], _ calendar: UUID, _ transaction: any StoreWriter) throws {
        let object = JSONObject(names.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        try transaction.setMeta(namesKey(calendar), JSONWriter.compact(.object(object)))
    }
}
