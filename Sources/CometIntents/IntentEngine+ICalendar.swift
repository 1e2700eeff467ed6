import Foundation
import CometSchema
import CometStore
import CometICal
import CometText

/// A file (or standard input) to import.
public struct ImportSource {
    public let name: String
    let reader: ICalReader
    /// The calendar (by title) this source's components go into, whatever its VCALENDAR names:
    /// a vdir item goes into its folder's calendar. `ImportOptions.calendar` still wins.
    let calendar: String?

    public init(name: String, handle: FileHandle, registry: Registry, calendar: String? = nil) {
        self.name = name
        reader = ICalReader(registry: registry, handle: handle)
        self.calendar = calendar
    }

    public init(name: String, text: String, registry: Registry, calendar: String? = nil) {
        self.name = name
        reader = ICalReader(registry: registry, text: text)
        self.calendar = calendar
    }
}

public struct ImportOptions {
    /// Put everything into this calendar (by title; created when missing) instead of the
    /// calendar the file names (X-WR-CALNAME).
    public var calendar: String?
    /// Import the valid components and report the others, instead of all or nothing.
    public var skipInvalid: Bool
    /// Called now and then with the bytes read of the current source.
    public var progress: ((String, Int) -> Void)?
    /// What the journal says the import came from ("the folder cal"), instead of the sources' names.
    public var label: String?
    /// Put everything into this calendar (by id): a resource a sync client wrote into a collection.
    var calendarID: UUID?
    /// The file's versions replace the stored ones whatever their SEQUENCE and LAST-MODIFIED: a
    /// sync client's write, which its ETag already guarded against lost updates.
    var replacesStored = false

    public init(calendar: String? = nil, skipInvalid: Bool = false, progress: ((String, Int) -> Void)? = nil) {
        self.calendar = calendar
        self.skipInvalid = skipInvalid
        self.progress = progress
    }
}

/// What an import did. Nothing is written when `problems` is non-empty and the import was
/// not told to skip invalid components.
public struct ImportReport: Sendable {
    public struct Problem: Sendable, Hashable {
        public let source: String
        public let line: Int
        public let uid: String?
        public let message: String

        public init(source: String, line: Int, uid: String?, message: String) {
            self.source = source
            self.line = line
            self.uid = uid
            self.message = message
        }
    }

    public var added = 0
    public var updated = 0
    public var unchanged = 0
    /// Components whose stored version is as new or newer (by SEQUENCE, then LAST-MODIFIED).
    public var olderVersions = 0
    /// Components no entity maps (VJOURNAL, VFREEBUSY, …), by component name.
    public var ignoredComponents: [String: Int] = [:]
    public var problems: [Problem] = []
    /// iTIP cancellations and replies that named nothing stored, or were older (each has a warning).
    public var skippedMessages = 0
    /// Things worth knowing that do not stop the import (an override whose series is absent).
    public var warnings: [Problem] = []
    public var calendars: [String] = []
    public var written = false
    /// The database went away during the import's commit: it may have been kept or not
    /// (`written` is false, and the JSON says null).
    public var outcomeUnknown = false
    /// The import's journal entry, when it changed something.
    public var journalSequence: Int64?
    /// Every record the import created or changed, in order (for change notifications).
    public var changes: [Change] = []
    /// Where each record's change is in `changes`, so noting one costs no scan.
    private var changeIndex: [UUID: Int] = [:]

    public struct Change: Sendable, Hashable {
        public enum Kind: String, Sendable { case created, updated, deleted }
        public let entity: QualifiedName
        public let id: UUID
        public let kind: Kind
    }

    /// Notes a change; a record created and then changed in the same import stays created,
    /// and one created and then taken back is no change at all.
    mutating func note(_ entity: QualifiedName, _ id: UUID, _ kind: Change.Kind) {
        if let index = changeIndex[id] {
            if kind == .deleted, changes[index].kind == .created {
                // Rare (a duplicate UID taken back): rebuild the index after the removal.
                changes.remove(at: index)
                changeIndex = Dictionary(uniqueKeysWithValues: changes.enumerated().map { ($1.id, $0) })
            }
            return
        }
        changeIndex[id] = changes.count
        changes.append(Change(entity: entity, id: id, kind: kind))
    }
}

extension IntentEngine {
    /// Imports iCalendar files in one transaction: every component becomes (or updates) a
    /// record; the same file imported twice changes nothing. All or nothing unless
    /// `skipInvalid`. An import that changed something is one journal entry ("Imported 1,250
    /// events from work.ics"): undo takes back exactly it, redo does it again.
    public func importCalendars(_ sources: [ImportSource], options: ImportOptions = ImportOptions()) -> ImportReport {
        var report = ImportReport()
        do {
            try store.transaction { transaction in
                // Only digests of what the import saved: its records are in the store already.
                let recorder = ChangeRecorder(transaction, digestsOnly: registry)
                var importer = Importer(engine: self, transaction: recorder, options: options)
                for source in sources { try importer.run(source) }
                report = importer.report
                if !report.problems.isEmpty, !options.skipInvalid { throw ImportAborted() }
                let changes = recorder.changes
                if !changes.isEmpty {
                    report.journalSequence = try transaction.appendJournal(JournalEntry(
                        intent: "ical.import", summary: importSummary(changes, sources: sources, label: options.label), created: clock(), changes: changes))
                }
                report.written = true
            }
        } catch is ImportAborted {
            report.written = false
        } catch let error as StoreError {
            report.problems.append(.init(source: sources.first?.name ?? "", line: 0, uid: nil,
                                         message: (error.mayHaveCommitted ? "" : "the store could not save the import: ") + error.message))
            report.written = false
            report.outcomeUnknown = error.mayHaveCommitted
        } catch {
            report.problems.append(.init(source: sources.first?.name ?? "", line: 0, uid: nil, message: "\(error)"))
            report.written = false
        }
        return report
    }

    /// "Imported 1,250 events from work.ics": what the journal calls an import, counting the
    /// records of each entity but calendars (which an import makes on the way).
    private func importSummary(_ changes: [JournalEntry.Change], sources: [ImportSource], label: String?) -> String {
        var counts: [QualifiedName: Int] = [:]
        var order: [QualifiedName] = []
        let calendarEntity = registry.allEntities.first { $0.annotations.first(named: "ical")?.firstString?.uppercased() == "VCALENDAR" }?.name
        for change in changes where change.entity != calendarEntity {
            if counts[change.entity] == nil { order.append(change.entity) }
            counts[change.entity, default: 0] += 1
        }
        var parts = order.map { entity -> String in
            let count = counts[entity] ?? 0
            let noun = entity.name.lowercased()
            return "\(NumberText.grouped(count)) \(count == 1 ? noun : noun + "s")"
        }
        if parts.isEmpty { parts = ["\(changes.count) calendar\(changes.count == 1 ? "" : "s")"] }
        let what = parts.count > 1 ? parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1] : parts[0]
        let names = sources.map { $0.name == "-" ? "standard input" : URL(fileURLWithPath: $0.name).lastPathComponent }
        let from = label ?? (names.count <= 2 ? names.joined(separator: " and ") : "\(names.count) files")
        return "Imported \(what) from \(from)"
    }

    /// Exports as iCalendar: every record of the entities mapped to components, or those of one
    /// calendar, those with occurrences in a range, or one event (with its overrides). Each
    /// calendar is its own VCALENDAR carrying its name, colour and description, in the order of
    /// their titles (then ids), so that an import puts every event back in its calendar; with
    /// `calendar` there is exactly one. Byte-identical for the same data.
    public func exportCalendar(calendar: String? = nil, from: Date? = nil, to: Date? = nil, event: String? = nil) throws -> String {
        try store.readTransaction { transaction in
            let writer = ICalWriter(registry: registry)
            var calendarRecord: EntityRecord?
            if let calendar {
                guard let calendarEntity = calendarEntity else { throw IntentError(.notSupported, "no entity maps VCALENDAR, so there are no calendars to choose from") }
                calendarRecord = try findByTitle(calendar, entity: calendarEntity, transaction: transaction)
            }
            var records: [EntityRecord] = []
            for entity in exportedEntities {
                var filters: [RecordFilter] = []
                if let calendarRecord, let reference = entity.properties.first(where: { $0.type.base == .entity(calendarRecord.entity) }) {
                    filters.append(.equals(reference.name, .reference(calendarRecord.id)))
                } else if calendarRecord != nil {
                    continue
                }
                var selected = try transaction.fetchAll(entity.name, matching: filters, limit: nil)
                if let event {
                    let target = try findByTitle(event, entity: entity, transaction: transaction)
                    selected = selected.filter { sameSeries($0, target, entity: entity) }
                }
                if from != nil || to != nil, entity.temporalFields != nil {
                    let lower = from ?? Date(timeIntervalSince1970: -62_135_596_800)
                    let upper = to ?? Date(timeIntervalSince1970: 253_402_300_799)
                    let hits = try transaction.occurrences(entity.name, from: lower, to: upper, zone: timeZone, matching: filters)
                    let uids = Set(hits.compactMap { uid(of: $0.record, entity: entity) })
                    let ids = Set(hits.map(\.record.id))
                    selected = selected.filter { ids.contains($0.id) || uid(of: $0, entity: entity).map(uids.contains) == true }
                }
                records += selected
            }
            do {
                if calendarRecord != nil { return try writer.document(calendar: calendarRecord, records: records) }
                let groups = try byCalendar(records, transaction: transaction)
                if groups.isEmpty { return try writer.document(calendar: nil, records: []) }
                return try groups.map { try writer.document(calendar: $0.calendar, records: $0.records) }.joined()
            } catch let error as ICalWriter.WriteError {
                throw IntentError(.invalidValue, error.message)
            }
        }
    }

    /// The entity mapped to VCALENDAR (the calendars), if the schemas have one.
    var calendarEntity: EntityDefinition? {
        registry.allEntities.first { $0.annotations.first(named: "ical")?.firstString?.uppercased() == "VCALENDAR" }
    }

    /// The stored entities mapped to components inside a VCALENDAR (events, tasks).
    var exportedEntities: [EntityDefinition] {
        registry.allEntities.filter { entity in
            guard entity.kind == .indexed, let component = entity.annotations.first(named: "ical")?.firstString?.uppercased() else { return false }
            return component != "VCALENDAR"
        }
    }

    /// The property of `entity` that says which calendar a record is on.
    func calendarReference(of entity: EntityDefinition, to calendarEntity: EntityDefinition) -> PropertyDefinition? {
        entity.properties.first { $0.type.base == .entity(calendarEntity.name) }
    }

    /// `records` grouped by the calendar each is on, the calendars in the order of their titles
    /// (then ids); records on no calendar come first, in a group without one.
    func byCalendar(_ records: [EntityRecord], transaction: any StoreReader) throws -> [(calendar: EntityRecord?, records: [EntityRecord])] {
        guard let calendarEntity else { return records.isEmpty ? [] : [(nil, records)] }
        var loose: [EntityRecord] = []
        var grouped: [UUID: [EntityRecord]] = [:]
        for record in records {
            guard let entity = registry.entity(record.entity), let property = calendarReference(of: entity, to: calendarEntity),
                  case .reference(let id)? = record[property.name] else {
                loose.append(record)
                continue
            }
            grouped[id, default: []].append(record)
        }
        var calendars: [EntityRecord] = []
        for id in grouped.keys {
            if let found = try transaction.fetch(calendarEntity.name, id: id) {
                calendars.append(found)
            } else {
                loose += grouped[id] ?? []
            }
        }
        var groups: [(calendar: EntityRecord?, records: [EntityRecord])] = loose.isEmpty ? [] : [(nil, loose)]
        for found in inTitleOrder(calendars) { groups.append((found, grouped[found.id] ?? [])) }
        return groups
    }

    /// Calendars by title, then by id: the order of an export's VCALENDARs and a vdir's folders.
    func inTitleOrder(_ calendars: [EntityRecord]) -> [EntityRecord] {
        calendars.map { (registry.title(of: $0), $0.id.lowercasedText, $0) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map(\.2)
    }

    func uid(of record: EntityRecord, entity: EntityDefinition) -> String? {
        guard let property = uidProperty(of: entity), case .string(let text)? = record[property] else { return nil }
        return text
    }

    /// The property holding the iCalendar UID: the temporal one, else the one mapped to UID
    /// (a to-do without a start has no temporal fields).
    func uidProperty(of entity: EntityDefinition) -> String? {
        entity.temporalFields?.uid ?? entity.properties.first { $0.icalName == "UID" && $0.icalParameter == nil }?.name
    }

    private func sameSeries(_ record: EntityRecord, _ target: EntityRecord, entity: EntityDefinition) -> Bool {
        if record.id == target.id { return true }
        guard let left = uid(of: record, entity: entity), let right = uid(of: target, entity: entity) else { return false }
        return left == right
    }

    /// The record `--calendar` or `--event` names, by the one rule every intent resolves with
    /// (`EntityResolver`); several matches are an error that lists them, as there is no one to ask.
    func findByTitle(_ text: String, entity: EntityDefinition, transaction: any StoreReader) throws -> EntityRecord {
        let presenter = Presenter(registry: registry, transaction: transaction, timeZone: timeZone, timeFormat: timeFormat, now: clock())
        switch try EntityResolver(registry: registry, transaction: transaction, presenter: presenter).resolve(text, as: entity.name, parameter: nil) {
        case .found(let record):
            return record
        case .ambiguous(let prompt, _):
            throw IntentError(.invalidValue, "'\(text)' matches several. " + prompt)
        }
    }
}

struct ImportAborted: Error {}

/// The state of one import run.
struct Importer {
    let engine: IntentEngine
    /// The write, through the recorder that journals what the import changes.
    let transaction: ChangeRecorder
    let options: ImportOptions
    var report = ImportReport()
    private var calendarID: UUID?
    private var calendarEntity: EntityDefinition?
    /// (entity, uid, recurrence key) → where it was first seen and the id of what was saved, to
    /// catch duplicates. The id, not the record: holding every record of a 50,000-event file
    /// made the import's memory grow by 3 KB an event (a duplicate reads its twin back).
    private var seen: [String: (line: Int, id: UUID?)] = [:]
    private var overrides: [(source: String, record: ICalRecord, uid: String)] = []
    private var mastersInFile = Set<String>()
    /// Whether the store held no record of an entity when this import first met one. Then a
    /// record of it can match only one this import saved, which `seen` finds (the same entity,
    /// UID and RECURRENCE-ID), and the store is not asked: a query per record, on a server
    /// store a round trip each. A message applied (a METHOD:CANCEL may add an override) ends it.
    private var startedEmpty: [QualifiedName: Bool] = [:]

    var registry: Registry { engine.registry }

    init(engine: IntentEngine, transaction: ChangeRecorder, options: ImportOptions) {
        self.engine = engine
        self.transaction = transaction
        self.options = options
        calendarEntity = engine.registry.allEntities.first { $0.annotations.first(named: "ical")?.firstString?.uppercased() == "VCALENDAR" }
    }

    mutating func run(_ source: ImportSource) throws {
        var lastProgress = 0
        calendarID = nil
        // The file is read and decoded on a second thread while this one saves.
        let items = ICalReadAhead(source.reader)
        while let item = items.next() {
            if let progress = options.progress, items.bytesRead - lastProgress > 1 << 18 {
                lastProgress = items.bytesRead
                progress(source.name, lastProgress)
            }
            switch item {
            case .calendar(_, let values, _, let line):
                // iTIP messages (METHOD:REQUEST, CANCEL) import like calendars: a cancellation's
                // components carry STATUS:CANCELLED and a higher SEQUENCE, so they update the event.
                calendarID = try chooseCalendar(values, source: source, line: line)
            case .record(let record):
                try store(record, source: source.name)
            case .message(let message):
                try apply(message, source: source.name)
            case .skipped(let component, _):
                report.ignoredComponents[component, default: 0] += 1
            case .problem(let found):
                problem(source.name, line: found.line, uid: found.uid, found.message)
            case .warning(let found):
                report.warnings.append(.init(source: source.name, line: found.line, uid: found.uid, message: found.message))
            case .calendarEnd:
                calendarID = nil
            }
        }
        options.progress?(source.name, items.bytesRead)
        // An override needs its series, in this file or already stored.
        for (sourceName, record, uid) in overrides where !mastersInFile.contains(uid) {
            guard let entity = registry.entity(record.entity), let uidProperty = entity.temporalFields?.uid,
                  let recurrenceProperty = entity.temporalFields?.recurrenceID else { continue }
            let stored = try transaction.fetchAll(record.entity, matching: [.equals(uidProperty, .string(uid)), .equals(recurrenceProperty, nil)], limit: 1)
            if stored.isEmpty {
                // Reported, and kept: single-occurrence invitations are sent exactly like this.
                report.warnings.append(.init(source: sourceName, line: record.line, uid: uid,
                                             message: "this RECURRENCE-ID override has no series in the file or the store; it is kept as a single occurrence"))
            }
        }
        overrides.removeAll { !$0.source.isEmpty }
    }

    private mutating func problem(_ source: String, line: Int, uid: String?, _ message: String) {
        report.problems.append(.init(source: source, line: line, uid: uid, message: message))
    }

    /// The calendar records go into: --calendar, else the file's own name (X-WR-CALNAME) —
    /// found by title or created — else the default calendar, else one named after the file.
    private mutating func chooseCalendar(_ values: [String: Value], source importing: ImportSource, line: Int) throws -> UUID? {
        guard let entity = calendarEntity else { return nil }
        if let id = options.calendarID { return id }
        let source = importing.name
        let title = entity.titleProperty?.name
        let forced = options.calendar ?? importing.calendar
        var wanted = forced
        if wanted == nil, let title, case .string(let name)? = values[title], !name.isEmpty { wanted = name }
        if let wanted {
            if let existing = try transaction.fetchAll(entity.name, matching: [], limit: nil).first(where: {
                // As `@unique` compares titles: a calendar named the same up to case and accents is that calendar.
                registry.title(of: $0).compare(wanted, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
            }) {
                note(wanted)
                return existing.id
            }
            var newValues = forced == nil ? values : [:]
            if let title { newValues[title] = .string(wanted) }
            return try create(entity, values: newValues, name: wanted)
        }
        if let marker = entity.properties.first(where: { $0.annotations.contains(named: "marksDefault") }),
           let chosen = try transaction.fetchAll(entity.name, matching: [.equals(marker.name, .bool(true))], limit: 1).first {
            note(registry.title(of: chosen))
            return chosen.id
        }
        let fileName = ((source as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = fileName.isEmpty || source == "-" ? "Imported" : fileName
        var newValues = values
        if let title { newValues[title] = .string(name) }
        return try create(entity, values: newValues, name: name)
    }

    private mutating func create(_ entity: EntityDefinition, values: [String: Value], name: String) throws -> UUID {
        var filled = values
        for property in entity.properties where filled[property.name] == nil {
            if let value = property.defaultValue { filled[property.name] = value }
        }
        if let marker = entity.properties.first(where: { $0.annotations.contains(named: "marksDefault") }) {
            filled[marker.name] = .bool(try transaction.count(entity.name) == 0)
        }
        let record = EntityRecord(entity: entity.name, id: UUID(), values: filled)
        try transaction.saveNew(record)
        report.note(entity.name, record.id, .created)
        note(name)
        return record.id
    }

    private mutating func note(_ calendar: String) {
        if !report.calendars.contains(calendar) { report.calendars.append(calendar) }
    }

    private mutating func store(_ incoming: ICalRecord, source: String) throws {
        guard let entity = registry.entity(incoming.entity) else { return }
        let storeHeldNone = try storeHeldNone(entity.name)
        var values = incoming.values
        for property in entity.properties where values[property.name] == nil {
            if let value = property.defaultValue { values[property.name] = value }
        }
        if let calendarEntity, let reference = entity.properties.first(where: { $0.type.base == .entity(calendarEntity.name) }) {
            guard let calendarID else {
                problem(source, line: incoming.line, uid: incoming.uid, "no calendar to put this in")
                return
            }
            values[reference.name] = .reference(calendarID)
        }
        let fields = entity.temporalFields
        let uidProperty = entity.properties.first { $0.icalName == "UID" && $0.icalParameter == nil }?.name
        let recurrenceKey: Int64? = { if let property = fields?.recurrenceID, case .dateTime(let value)? = values[property] { return value.sortKey } else { return nil } }()
        if let uid = incoming.uid {
            let key = "\(entity.name)|\(uid)|\(recurrenceKey.map(String.init) ?? "-")"
            if let first = seen[key] {
                try duplicate(of: first, key: key, values: values, incoming: incoming, entity: entity, source: source, uid: uid)
                return
            }
            seen[key] = (incoming.uidLine, nil)
            if recurrenceKey == nil { mastersInFile.insert(uid) } else { overrides.append((source, incoming, uid)) }
        }
        var filters: [RecordFilter] = []
        if let uidProperty, let uid = incoming.uid { filters.append(.equals(uidProperty, .string(uid))) }
        if let property = fields?.recurrenceID { filters.append(.equals(property, values[property])) }
        let existing = filters.isEmpty || incoming.uid == nil || storeHeldNone ? nil : try transaction.fetchAll(entity.name, matching: filters, limit: 1).first
        guard let existing else {
            let record = EntityRecord(entity: entity.name, id: UUID(), values: values)
            try save(record, incoming: incoming, source: source, isNew: true)
            report.added += 1
            report.note(entity.name, record.id, .created)
            remember(record, incoming: incoming, entity: entity)
            return
        }
        // Keep where it already lives (its calendar) and compare the rest.
        var candidate = EntityRecord(entity: entity.name, id: existing.id, values: values)
        if let calendarEntity, let reference = entity.properties.first(where: { $0.type.base == .entity(calendarEntity.name) }) {
            candidate[reference.name] = existing[reference.name]
        }
        if sameContent(candidate, existing, entity: entity) {
            report.unchanged += 1
            remember(existing, incoming: incoming, entity: entity)
            return
        }
        if options.replacesStored || isNewer(candidate, than: existing, entity: entity) {
            try save(candidate, incoming: incoming, source: source)
            report.updated += 1
            report.note(entity.name, candidate.id, .updated)
            remember(candidate, incoming: incoming, entity: entity)
        } else {
            report.olderVersions += 1
            remember(existing, incoming: incoming, entity: entity)
        }
    }

    private mutating func storeHeldNone(_ entity: QualifiedName) throws -> Bool {
        if let known = startedEmpty[entity] { return known }
        let none = try transaction.count(entity) == 0
        startedEmpty[entity] = none
        return none
    }

    private mutating func remember(_ record: EntityRecord, incoming: ICalRecord, entity: EntityDefinition) {
        guard let uid = incoming.uid else { return }
        let recurrenceKey: Int64? = { if let property = entity.temporalFields?.recurrenceID, case .dateTime(let value)? = record[property] { return value.sortKey } else { return nil } }()
        let key = "\(entity.name)|\(uid)|\(recurrenceKey.map(String.init) ?? "-")"
        seen[key] = (seen[key]?.line ?? incoming.uidLine, record.id)
    }

    /// The same UID (and RECURRENCE-ID) twice in one import: identical copies collapse, a newer
    /// revision (SEQUENCE, then LAST-MODIFIED) wins, and of two unrelated events the first is
    /// kept and the second skipped with a warning naming both lines (RFC 5545 gives no rule;
    /// the rest of the file still imports).
    private mutating func duplicate(of first: (line: Int, id: UUID?), key: String, values: [String: Value], incoming: ICalRecord,
                                    entity: EntityDefinition, source: String, uid: String) throws {
        guard let savedID = first.id, let saved = try transaction.fetch(entity.name, id: savedID) else {
            problem(source, line: incoming.uidLine, uid: uid, "UID '\(uid)' is used again (first on line \(first.line)); each event needs its own UID")
            return
        }
        var candidate = EntityRecord(entity: entity.name, id: saved.id, values: values)
        if let calendarEntity, let reference = entity.properties.first(where: { $0.type.base == .entity(calendarEntity.name) }) {
            candidate[reference.name] = saved[reference.name]
        }
        func note(_ message: String) {
            report.warnings.append(.init(source: source, line: incoming.uidLine, uid: uid, message: message))
        }
        if sameContent(candidate, saved, entity: entity) {
            note("UID '\(uid)' appears again (first on line \(first.line)) with the same content: imported once")
            return
        }
        if isNewer(candidate, than: saved, entity: entity) {
            try save(candidate, incoming: incoming, source: source)
            seen[key] = (first.line, candidate.id)
            note("UID '\(uid)' appears again (first on line \(first.line)) as a newer revision (SEQUENCE, then LAST-MODIFIED): this one is kept")
            return
        }
        if isNewer(saved, than: candidate, entity: entity) {
            note("UID '\(uid)' appears again (first on line \(first.line)) as an older revision: the one on line \(first.line) is kept")
            return
        }
        note("UID '\(uid)' is used again (first on line \(first.line)) by a different event, and neither is a newer revision (same SEQUENCE, no later LAST-MODIFIED): the event of line \(first.line) is kept and this one (line \(incoming.uidLine)) is skipped; give each event its own UID")
    }

    /// Equal but for DTSTAMP, which says when a file was written, not what the event is.
    private func sameContent(_ left: EntityRecord, _ right: EntityRecord, entity: EntityDefinition) -> Bool {
        guard let stamp = entity.properties.first(where: { $0.icalName == "DTSTAMP" && $0.icalParameter == nil }) else {
            return left == right
        }
        var left = left
        var right = right
        left[stamp.name] = nil
        right[stamp.name] = nil
        return left == right
    }

    // MARK: iTIP messages

    /// A cancellation marks the stored event, or the one occurrence, as cancelled; a reply sets
    /// the replying attendees' status. Nothing else of the stored event changes (Outlook's
    /// "Canceled: …" title is not taken over). A message for an event CometCal does not have, or
    /// older than what is stored, is skipped with a warning that says why.
    private mutating func apply(_ message: ICalMessage, source: String) throws {
        guard let entity = registry.entity(message.entity), let fields = entity.temporalFields, let uidProperty = fields.uid else { return }
        startedEmpty[entity.name] = false
        func skip(_ why: String) {
            report.warnings.append(.init(source: source, line: message.line, uid: message.uid, message: "METHOD:\(message.method) \(why); skipped"))
            report.skippedMessages += 1
        }
        let occurrence = fields.recurrenceID.flatMap { message.values[$0] }
        let sequenceProperty = entity.properties.first { $0.icalName == "SEQUENCE" && $0.type.base == .builtin(.int) }
        let sequence: Int? = { if let sequenceProperty, case .int(let number)? = message.values[sequenceProperty.name] { return number } else { return nil } }()
        // The series and its overrides; an occurrence is matched by its instant, whatever zone
        // either side wrote it in (as the occurrence index matches overrides).
        let family = try transaction.fetchAll(entity.name, matching: [.equals(uidProperty, .string(message.uid))], limit: nil)
        func recurrenceKey(_ record: EntityRecord) -> Int64? {
            guard let property = fields.recurrenceID, case .dateTime(let value)? = record[property] else { return nil }
            return value.sortKey
        }
        let master = family.first { recurrenceKey($0) == nil }
        let occurrenceKey: Int64? = { if case .dateTime(let value)? = occurrence { return value.sortKey } else { return nil } }()
        var target = occurrenceKey.map { key in family.first { recurrenceKey($0) == key } } ?? master
        guard target != nil || (occurrence != nil && master != nil && message.method == "CANCEL") else {
            skip("names UID \(message.uid)\(occurrence.map { " at \(registry.displayText($0))" } ?? ""), which is not in the store")
            return
        }
        if let stored = target ?? master, let sequenceProperty, let sequence, case .int(let current)? = stored[sequenceProperty.name], sequence < current {
            skip("has SEQUENCE \(sequence), older than the stored event's \(current)")
            return
        }
        switch message.method {
        case "CANCEL":
            guard let statusProperty = entity.properties.first(where: { $0.icalName == "STATUS" }),
                  case .enumeration(let enumName) = statusProperty.type.base,
                  let cancelled = registry.enumeration(enumName)?.cases.first(where: { $0.annotations.first(named: "ical")?.firstString?.uppercased() == "CANCELLED" }) else {
                skip("cannot be applied: \(entity.name.name) has no cancelled status")
                return
            }
            var isNew = false
            if target == nil, let master, let occurrence, case .dateTime(let original) = occurrence {
                target = try cancelledOccurrence(of: master, at: original, entity: entity, fields: fields)
                isNew = true
            }
            guard let found = target else { return }
            // A cancelled series cancels its overrides too (RFC 5546 §3.2.5); one occurrence only itself.
            let affected = occurrence == nil ? family : [found]
            var changed = 0
            for var record in affected {
                let before = record
                record[statusProperty.name] = .enumCase(cancelled.name)
                if let sequenceProperty, let sequence { record[sequenceProperty.name] = .int(sequence) }
                if isNew || record != before {
                    try transaction.save(record)
                    report.note(record.entity, record.id, isNew ? .created : .updated)
                    changed += 1
                }
            }
            if isNew { report.added += 1 } else if changed > 0 { report.updated += changed } else { report.unchanged += 1 }
        default:
            guard var record = target, let replies = replyAttendees(message, entity: entity, record: record) else {
                skip("has no attendee CometCal can match")
                return
            }
            record = replies.record
            for stranger in replies.unmatched {
                report.warnings.append(.init(source: source, line: message.line, uid: message.uid,
                                             message: "METHOD:REPLY from \(stranger), who is not an attendee of this event; that answer is skipped"))
            }
            if replies.changed {
                try transaction.save(record)
                report.updated += 1
                report.note(record.entity, record.id, .updated)
            } else {
                report.unchanged += 1
            }
        }
    }

    /// An override of one occurrence that the series' organizer cancelled: the series' own values
    /// at that occurrence.
    private func cancelledOccurrence(of master: EntityRecord, at original: DateTimeValue, entity: EntityDefinition, fields: TemporalFields) throws -> EntityRecord {
        var record = EntityRecord(entity: entity.name, id: UUID(), values: master.values)
        for property in fields.seriesProperties {
            record[property] = entity.property(property)?.defaultValue
        }
        guard case .dateTime(let start)? = master[fields.start], let recurrenceID = fields.recurrenceID else { return record }
        let occurrenceStart = original.wallTime(in: start.expansionZone).dateTime(in: start.expansionZone)
        record[recurrenceID] = .dateTime(occurrenceStart)
        record[fields.start] = .dateTime(occurrenceStart)
        if let end = fields.end, case .dateTime(let endValue)? = master[end] {
            record[end] = .dateTime(try occurrenceStart.checkedAdding(seconds: endValue.sortKey - start.sortKey))
        }
        return record
    }

    /// The record with each replying attendee's status taken from the reply (matched by email,
    /// else by name), and the repliers it does not list.
    private func replyAttendees(_ message: ICalMessage, entity: EntityDefinition, record: EntityRecord) -> (record: EntityRecord, changed: Bool, unmatched: [String])? {
        guard let attendeesProperty = entity.properties.first(where: { $0.icalName == "ATTENDEE" && $0.type.isArray }),
              case .entity(let transientName) = attendeesProperty.type.base, let transient = registry.entity(transientName),
              let personProperty = transient.properties.first(where: { $0.type.base == .builtin(.person) }),
              let statusProperty = transient.properties.first(where: { $0.icalParameter == "PARTSTAT" }),
              case .array(let replies)? = message.values[attendeesProperty.name] else { return nil }
        var attendees: [Value] = { if case .array(let items)? = record[attendeesProperty.name] { return items } else { return [] } }()
        func person(_ value: Value) -> PersonValue? {
            if case .object(let fields) = value, case .person(let found)? = fields[personProperty.name] { return found }
            return nil
        }
        var changed = false
        var unmatched: [String] = []
        var copy = record
        for reply in replies {
            guard let replier = person(reply), case .object(let replyFields) = reply else { continue }
            let index = attendees.firstIndex { value in
                guard let known = person(value) else { return false }
                if let mail = replier.email, let knownMail = known.email { return mail.lowercased() == knownMail.lowercased() }
                return replier.name != nil && known.name == replier.name
            }
            guard let index, case .object(var fields) = attendees[index] else {
                unmatched.append(replier.email ?? replier.name ?? "someone")
                continue
            }
            if fields[statusProperty.name] != replyFields[statusProperty.name] {
                fields[statusProperty.name] = replyFields[statusProperty.name]
                attendees[index] = .object(fields)
                changed = true
            }
        }
        copy[attendeesProperty.name] = .array(attendees)
        return (copy, changed, unmatched)
    }

    /// RFC 5545 revision order: a higher SEQUENCE wins; with equal SEQUENCE, a later LAST-MODIFIED.
    private func isNewer(_ incoming: EntityRecord, than existing: EntityRecord, entity: EntityDefinition) -> Bool {
        func value(_ name: String) -> (Value?, Value?) {
            guard let property = entity.properties.first(where: { $0.icalName == name && $0.icalParameter == nil }) else { return (nil, nil) }
            return (incoming[property.name], existing[property.name])
        }
        let (newSequence, oldSequence) = value("SEQUENCE")
        if case .int(let new)? = newSequence, case .int(let old)? = oldSequence, new != old { return new > old }
        let (newModified, oldModified) = value("LAST-MODIFIED")
        if case .dateTime(let new)? = newModified {
            guard case .dateTime(let old)? = oldModified else { return true }
            return new.sortKey > old.sortKey
        }
        return false
    }

    private mutating func save(_ record: EntityRecord, incoming: ICalRecord, source: String, isNew: Bool = false) throws {
        do {
            if isNew { try transaction.saveNew(record) } else { try transaction.save(record) }
        } catch let error as StoreError where error.code == .invalidData || error.code == .constraint || error.code == .tooManyOccurrences {
            problem(source, line: incoming.line, uid: incoming.uid, error.message)
            return
        }
        // Imported as it is (the file says so), and said: a repeat every minute fills every agenda.
        if let temporal = registry.entity(record.entity)?.temporalFields,
           let warning = RecurrenceDensity.warning(for: record, temporal: temporal, registry: registry) {
            report.warnings.append(.init(source: source, line: incoming.line, uid: incoming.uid, message: warning))
        }
    }
}
