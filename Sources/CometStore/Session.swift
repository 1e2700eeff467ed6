import Foundation
import CometSchema

/// The store inside one transaction.
struct Session: StoreTransaction {
    let store: SQLiteStore

    private var connection: Connection { store.connection }

    private func reader(_ layout: TableLayout) -> RecordReader {
        RecordReader(layout: layout, coding: store.coding)
    }

    private func rowid(of id: UUID, in layout: TableLayout) throws -> Int64? {
        if case .integer(let rowid)? = try connection.prepare("SELECT rowid FROM \(quote(layout.table)) WHERE id = ?").scalar([.text(id.uuidString.lowercased())]) {
            return rowid
        }
        return nil
    }

    // MARK: Reading

    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        let layout = try store.layout(entity)
        var result: EntityRecord?
        try connection.prepare("SELECT \(layout.selectList) FROM \(quote(layout.table)) WHERE id = ?")
            .query([.text(id.uuidString.lowercased())]) { row in result = try reader(layout).record(from: row) }
        return result
    }

    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], limit: Int?) throws -> [EntityRecord] {
        let layout = try store.layout(entity)
        var conditions: [String] = []
        var values: [SQLValue] = []
        for filter in filters {
            if filter.property == "id" {
                guard case .uuid(let id)? = filter.value else { continue }
                conditions.append("id = ?")
                values.append(.text(id.uuidString.lowercased()))
                continue
            }
            guard let column = layout.column(filter.property) else {
                throw StoreError(.notFound, "'\(filter.property)' is not a property of \(entity.name)")
            }
            if let value = filter.value {
                conditions.append("\(quote(column.column)) = ?")
                values.append(store.coding.sqlValues(value, for: column)[0])
            } else {
                conditions.append("\(quote(column.column)) IS NULL")
            }
        }
        var sql = "SELECT \(layout.selectList) FROM \(quote(layout.table))"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let order = layout.entity.titleProperty.map { "\(quote($0.name)) COLLATE NOCASE, " } ?? ""
        sql += " ORDER BY \(order)id"
        if let limit { sql += " LIMIT \(max(0, limit))" }
        var records: [EntityRecord] = []
        try connection.prepare(sql).query(values) { row in records.append(try reader(layout).record(from: row)) }
        return records
    }

    func count(_ entity: QualifiedName) throws -> Int {
        let layout = try store.layout(entity)
        if case .integer(let number)? = try connection.prepare("SELECT count(*) FROM \(quote(layout.table))").scalar() { return Int(number) }
        return 0
    }

    func search(_ entity: QualifiedName, text: String, limit: Int) throws -> [EntityRecord] {
        let layout = try store.layout(entity)
        let rowids = try SearchIndex(connection: connection, layout: layout, coding: store.coding).matches(text, limit: limit)
        var records: [EntityRecord] = []
        let statement = try connection.prepare("SELECT \(layout.selectList) FROM \(quote(layout.table)) WHERE rowid = ?")
        for rowid in rowids {
            try statement.query([.integer(rowid)]) { row in records.append(try reader(layout).record(from: row)) }
        }
        return records
    }

    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter], limit: Int?) throws -> [Occurrence] {
        let layout = try store.layout(entity)
        guard layout.temporal != nil else {
            throw StoreError(.notFound, "'\(entity.name)' has no start time (no property maps to DTSTART), so it has no occurrences")
        }
        let fromKey = Int64(from.timeIntervalSince1970.rounded(.down))
        let toKey = Int64(to.timeIntervalSince1970.rounded(.up))
        guard fromKey < toKey else { return [] }
        let index = store.occurrenceIndex(layout)
        var rows = try index.rows(from: fromKey, to: toKey, maximumDuration: try store.maximumDuration(layout))

        // Outside the materialized window, expand series on the fly.
        if fromKey < store.window.lowerBound || toKey > store.window.upperBound {
            var seen = Set(rows.map { "\($0.0)|\($0.1)" })
            for id in try index.seriesOverlapping(from: fromKey, to: toKey) {
                guard let record = try fetch(entity, id: id), let temporal = layout.temporal,
                      let shape = SeriesShape(record: record, temporal: temporal), let series = shape.series else { continue }
                let overridden = try shape.uid.map { try index.overriddenKeys(uid: $0) } ?? []
                let slack = OccurrenceKey.floatingSlack
                for key in shape.instanceKeys(series, from: fromKey - slack, through: toKey + slack, limit: 100_000)
                where !(key >= store.window.lowerBound && key <= store.window.upperBound) && !overridden.contains(key) {
                    if seen.insert("\(id)|\(key)").inserted { rows.append((id, key, key + shape.durationSeconds, key, true)) }
                }
            }
            rows.sort { $0.1 < $1.1 }
        }

        var cache: [UUID: EntityRecord] = [:]
        var result: [Occurrence] = []
        for (id, startKey, endKey, originalKey, isInstance) in rows {
            // Rows come in key order; floating keys can be off by the zone slack, so stop only
            // once every later row starts after the limit-th result by more than twice that.
            if let limit, result.count >= limit, let last = result.last,
               startKey > last.start.sortKey + 2 * OccurrenceKey.floatingSlack { break }
            let record: EntityRecord
            if let cached = cache[id] {
                record = cached
            } else {
                guard let fetched = try fetch(entity, id: id) else { continue }
                cache[id] = fetched
                record = fetched
            }
            guard matches(record, filters) else { continue }
            guard let temporal = layout.temporal, case .dateTime(let first)? = record[temporal.start] else { continue }
            let start = dateTime(key: startKey, like: first)
            let end = dateTime(key: endKey, like: first)
            // Floating times happen at their wall reading in the viewer's zone.
            let startInstant = start.isFloating ? instant(of: start, in: zone) : startKey
            let endInstant = end.isFloating ? instant(of: end, in: zone) : endKey
            let overlaps = startInstant < toKey && (endInstant > fromKey || (endInstant == startInstant && startInstant >= fromKey))
            guard overlaps else { continue }
            result.append(Occurrence(record: record, start: start, end: end, isRecurrenceInstance: isInstance,
                                     recurrenceKey: dateTime(key: originalKey, like: first)))
        }
        // Sort keys once: instants (floating times in the viewer's zone), then id for stability.
        let keyed = result.map { occurrence -> (Int64, String, Occurrence) in
            (occurrence.start.isFloating ? instant(of: occurrence.start, in: zone) : occurrence.start.sortKey, occurrence.record.id.uuidString, occurrence)
        }
        let sorted = keyed.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
        return limit.map { Array(sorted.prefix($0)) } ?? sorted
    }

    /// A key read back as a DateTime of the same kind (and zone) as the series' start.
    private func dateTime(key: Int64, like template: DateTimeValue) -> DateTimeValue {
        switch template.kind {
        case .floating: return .floating(LocalDateTime(wallSeconds: key))
        case .utc: return DateTimeValue(kind: .utc(epochSeconds: key))
        case .zoned(_, let zone): return DateTimeValue(kind: .zoned(epochSeconds: key, timeZone: zone))
        }
    }

    private func instant(of floating: DateTimeValue, in zone: TimeZone) -> Int64 {
        floating.localTime.dateTime(in: zone).sortKey
    }

    private func matches(_ record: EntityRecord, _ filters: [RecordFilter]) -> Bool {
        filters.allSatisfy { record[$0.property] == $0.value }
    }

    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        let target = TableLayout.tableName(entity)
        var result: [(EntityRecord, String)] = []
        for layout in store.layouts.values.sorted(by: { $0.table < $1.table }) {
            for column in layout.columns {
                guard case .reference(let table) = column.kind, table == target else { continue }
                for record in try fetchAll(layout.entity.name, matching: [.equals(column.property.name, .reference(id))], limit: nil) {
                    result.append((record, column.property.name))
                }
            }
        }
        return result
    }

    // MARK: Writing

    func save(_ record: EntityRecord) throws {
        let layout = try store.layout(record.entity)
        do {
            try store.registry.validateObject(record.values, of: layout.entity)
        } catch {
            throw StoreError(.invalidData, "\(record.entity.name) \(record.id.uuidString.lowercased()): \(error)")
        }
        let values = reader(layout).sqlValues(of: record)
        let savedRowid: Int64
        do {
            if let existing = try rowid(of: record.id, in: layout) {
                try connection.prepare(layout.updateSQL).run(Array(values.dropFirst()) + [.integer(existing)])
                savedRowid = existing
            } else {
                try connection.prepare(layout.insertSQL).run(values)
                savedRowid = connection.lastInsertRowID
            }
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.constraint, "\(record.entity.name) refers to something that does not exist (check its references, such as its calendar)", resultCode: error.resultCode)
        }
        try SearchIndex(connection: connection, layout: layout, coding: store.coding).update(rowid: savedRowid, record: record)
        if let temporal = layout.temporal {
            try store.occurrenceIndex(layout).update(record)
            if let shape = SeriesShape(record: record, temporal: temporal) { store.noteDuration(shape.durationSeconds, of: layout) }
        }
    }

    func delete(_ entity: QualifiedName, id: UUID) throws {
        let layout = try store.layout(entity)
        guard let rowid = try rowid(of: id, in: layout) else { return }
        try SearchIndex(connection: connection, layout: layout, coding: store.coding).remove(rowid: rowid)
        if layout.temporal != nil { try store.occurrenceIndex(layout).remove(id) }
        do {
            try connection.prepare("DELETE FROM \(quote(layout.table)) WHERE rowid = ?").run([.integer(rowid)])
        } catch let error as StoreError where error.code == .constraint {
            throw StoreError(.constraint, "\(entity.name) \(id.uuidString.lowercased()) is still referred to by other records; delete or move those first", resultCode: error.resultCode)
        }
    }

    // MARK: Journal

    func appendJournal(_ entry: JournalEntry) throws -> Int64 {
        // A new action forgets what was undone: redo only follows undo.
        if case .integer(let undone)? = try connection.prepare("SELECT count(*) FROM _journal WHERE state = 'undone'").scalar(), undone > 0 {
            try connection.prepare("DELETE FROM _journal WHERE state = 'undone'").run()
        }
        let changes = JSONValue.array(entry.changes.map(encode))
        try connection.prepare("INSERT INTO _journal (state, intent, summary, created, changes) VALUES ('done', ?, ?, ?, ?)")
            .run([.text(entry.intent), .text(entry.summary), .text(Session.utcText(entry.created)), .text(JSONWriter.compact(changes))])
        return connection.lastInsertRowID
    }

    func journalEntry(toUndo: Bool) throws -> JournalEntry? {
        let sql = toUndo
            ? "SELECT seq, state, intent, summary, created, changes FROM _journal WHERE state = 'done' ORDER BY seq DESC LIMIT 1"
            : "SELECT seq, state, intent, summary, created, changes FROM _journal WHERE state = 'undone' ORDER BY seq ASC LIMIT 1"
        return try journalEntries(sql, []).first
    }

    func setJournal(_ sequence: Int64, undone: Bool) throws {
        try connection.prepare("UPDATE _journal SET state = ? WHERE seq = ?").run([.text(undone ? "undone" : "done"), .integer(sequence)])
    }

    func journal(limit: Int) throws -> [JournalEntry] {
        try journalEntries("SELECT seq, state, intent, summary, created, changes FROM _journal ORDER BY seq DESC LIMIT ?", [.integer(Int64(limit))])
    }

    private func journalEntries(_ sql: String, _ values: [SQLValue]) throws -> [JournalEntry] {
        var rows: [(Int64, String, String, String, String, String)] = []
        try connection.prepare(sql).query(values) { row in
            guard let seq = row.integer(0), let state = row.text(1), let intent = row.text(2), let summary = row.text(3),
                  let created = row.text(4), let changes = row.text(5) else { return }
            rows.append((seq, state, intent, summary, created, changes))
        }
        return try rows.map { seq, state, intent, summary, created, changesText in
            guard case .array(let items) = try JSONParser.parse(changesText) else {
                throw StoreError(.invalidData, "journal entry \(seq) is damaged")
            }
            return JournalEntry(sequence: seq, intent: intent, summary: summary,
                                created: (try? DateTimeValue(parsing: created))?.instant ?? Date(timeIntervalSince1970: 0),
                                changes: try items.map(decodeChange), isUndone: state == "undone")
        }
    }

    /// `2026-06-10T10:00:00Z`, without a formatter object per call.
    static func utcText(_ date: Date) -> String {
        DateTimeValue.utc(date).description
    }

    private func encode(_ change: JournalEntry.Change) -> JSONValue {
        var object = JSONObject()
        object["entity"] = .string(change.entity.description)
        object["id"] = .string(change.id.uuidString.lowercased())
        object["before"] = change.before.map { .object(store.registry.encode($0)) } ?? .null
        object["after"] = change.after.map { .object(store.registry.encode($0)) } ?? .null
        return .object(object)
    }

    private func decodeChange(_ json: JSONValue) throws -> JournalEntry.Change {
        guard let entityText = json["entity"]?.stringValue, let idText = json["id"]?.stringValue, let id = UUID(uuidString: idText) else {
            throw StoreError(.invalidData, "a journal change is damaged")
        }
        let parts = entityText.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let definition = store.registry.entity(QualifiedName(domain: parts[0], name: parts[1])) else {
            throw StoreError(.invalidData, "the journal refers to '\(entityText)', which the schema no longer has")
        }
        func record(_ value: JSONValue?) throws -> EntityRecord? {
            guard case .object(var object)? = value else { return nil }
            object["id"] = nil
            do {
                return EntityRecord(entity: definition.name, id: id, values: try store.registry.decodeProperties(object, of: definition))
            } catch {
                throw StoreError(.invalidData, "a journal record of \(definition.name.name) no longer fits the schema: \(error)")
            }
        }
        return JournalEntry.Change(entity: definition.name, id: id, before: try record(json["before"]), after: try record(json["after"]))
    }
}
