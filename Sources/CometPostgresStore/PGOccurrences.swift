import Foundation
import CometStore
import CometSchema

/// The occurrence tables of one entity for one owner: a row per single event or override, a row
/// per instance of a series inside the window (`OccurrenceWindow`), a row per series. A series'
/// instances go in with one statement (an array of keys), not a statement each.
struct PGOccurrenceIndex {
    let store: PostgresStore
    let layout: PGLayout
    /// A write's range rows are planned once (`PGConnection.plannedOnce`): on the writer's
    /// connection PostgreSQL kept planning them for their values, 0.20 ms of binding per create
    /// in the bench against 0.02 ms planned once, and the run no slower. A read's it left
    /// generic by itself.
    var planRowsOnce = false

    private var connection: PGConnection { store.connection }
    private var table: String { pgQuote(layout.occurrenceTable ?? "") }
    private var seriesTable: String { pgQuote((layout.occurrenceTable ?? "") + "_series") }
    private var owner: PGValue { .text(store.owner) }

    /// The columns the index's statements find rows by (a long write analyzes these).
    static let lookupColumns = ["owner", "entity_id", "start_key", "end_key", "series_uid", "original_key", "is_override", "overridden"]
    static let seriesLookupColumns = ["owner", "entity_id", "first_key", "last_key", "dense"]

    /// The record's rows, made again: the old ones go first, if the record is stored (sent
    /// before the record's own row, so that a new record's check finds none), unless the caller
    /// says it is `new`. Nothing here is waited for (`PGConnection.runLater`).
    func update(_ record: EntityRecord, new: Bool = false) throws {
        guard let temporal = layout.temporal else { return }
        if !new { try remove(record.id, onlyIfStored: true) }
        guard let shape = SeriesShape(record: record, temporal: temporal) else { return }
        let id = PGValue.text(record.id.lowercasedText)
        let uid = shape.uid.map(PGValue.text) ?? .null
        let floating = PGValue.bool(shape.isFloating)
        let insert = """
            INSERT INTO \(table) (owner, entity_id, start_key, end_key, floating, series_uid, original_key, is_override, is_instance)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """
        if let recurrenceID = shape.recurrenceID {
            try connection.runLater(insert, [owner, id, .integer(shape.startKey), .integer(shape.startKey + shape.durationSeconds), floating, uid,
                                        .integer(recurrenceID), .bool(true), .bool(false)])
            // This override stands in for the occurrence it replaces.
            try connection.runLater("UPDATE \(table) SET overridden = true WHERE owner = ? AND series_uid = ? AND NOT is_override AND original_key = ?",
                               [owner, uid, .integer(recurrenceID)])
            return
        }
        if let series = shape.series {
            let (starts, complete) = shape.instanceKeys(series, from: store.window.lowerBound, through: store.window.upperBound,
                                                        reading: OccurrenceWindow.maximumInstancesPerSeries + 1)
            let dense = OccurrenceWindow.isDense(instances: starts.count, complete: complete)
            if !dense, !starts.isEmpty {
                // ON CONFLICT: a rule and an RDATE may name the same instance; it is one occurrence.
                try connection.runLater("""
                    INSERT INTO \(table) (owner, entity_id, start_key, end_key, floating, series_uid, original_key, is_override, is_instance)
                    SELECT ?, ?, k, k + ?, ?, ?, k, false, true FROM unnest(?::bigint[]) AS k ON CONFLICT DO NOTHING
                    """, [owner, id, .integer(shape.durationSeconds), floating, uid, .text("{" + starts.map(String.init).joined(separator: ",") + "}")])
            }
            let last = series.isUnbounded || dense ? PGValue.null : (series.lastOccurrence().map { .integer(shape.key(of: $0)) } ?? .null)
            try connection.runLater("""
                INSERT INTO \(seriesTable) (owner, entity_id, first_key, last_key, dense) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (owner, entity_id) DO UPDATE SET first_key = EXCLUDED.first_key, last_key = EXCLUDED.last_key, dense = EXCLUDED.dense
                """, [owner, id, .integer(shape.startKey), last, .bool(dense)])
        } else {
            try connection.runLater(insert, [owner, id, .integer(shape.startKey), .integer(shape.startKey + shape.durationSeconds), floating, uid,
                                        .integer(shape.startKey), .bool(false), .bool(false)])
        }
        // Overrides already stored stand in for some of these rows. Every row is found by the
        // whole series index: a plan that stays small whatever the statistics say (an import
        // into a new database runs before any: see `remove`).
        if shape.uid != nil {
            try connection.runLater("""
                WITH overrides AS MATERIALIZED (
                    SELECT original_key FROM \(table) WHERE owner = ? AND series_uid = ? AND is_override
                )
                UPDATE \(table) o SET overridden = true FROM overrides
                WHERE o.owner = ? AND o.series_uid = ? AND NOT o.is_override AND o.original_key = overrides.original_key AND o.entity_id = ?
                """, [owner, uid, owner, uid, id])
        }
    }

    /// One statement: the rows this record's overrides stood in for come back (unless another
    /// override of the same occurrence remains), and its rows and series row go. The parts
    /// touch different rows (an override's row is never one it stands in for). `onlyIfStored`:
    /// nothing is looked at unless the record's row is there (a one-time check on its key).
    ///
    /// The plan must not depend on statistics: an import or a copy into a new database writes
    /// thousands of rows in one transaction, which ANALYZE and autovacuum cannot see until it
    /// commits. Planned as for empty tables, the restore read every row of the owner (found by
    /// `log_min_duration_statement` and auto_explain: a 2,000-event import took 63 s, a second
    /// more per thousand rows). So it starts from this record's own override rows, materialized,
    /// and finds each row they stand in for by the whole series index.
    func remove(_ id: UUID, onlyIfStored: Bool = false) throws {
        let key = PGValue.text(id.lowercasedText)
        let stored = onlyIfStored ? "EXISTS (SELECT 1 FROM \(pgQuote(layout.table)) WHERE owner = ? AND id = ?)" : "true"
        try connection.runLater("""
            WITH present AS MATERIALIZED (
                SELECT \(stored) AS yes
            ), mine AS MATERIALIZED (
                SELECT series_uid, original_key FROM \(table)
                WHERE owner = ? AND entity_id = ? AND is_override AND (SELECT yes FROM present)
            ), restored AS (
                UPDATE \(table) o SET overridden = false FROM mine
                WHERE o.owner = ? AND o.series_uid = mine.series_uid AND NOT o.is_override AND o.original_key = mine.original_key AND o.overridden
                  AND NOT EXISTS (
                    SELECT 1 FROM \(table) other WHERE other.owner = o.owner AND other.series_uid = o.series_uid AND other.is_override
                      AND other.original_key = o.original_key AND other.entity_id <> ?)
            ), series AS (
                DELETE FROM \(seriesTable) WHERE owner = ? AND entity_id = ? AND (SELECT yes FROM present)
            )
            DELETE FROM \(table) WHERE owner = ? AND entity_id = ? AND (SELECT yes FROM present)
            """, (onlyIfStored ? [owner, key] : []) + [owner, key, owner, key, owner, key, owner, key], planOnce: true)
    }

    /// Rows that may overlap [from, to), of the selected records (all of the owner's when nil).
    func rows(from: Int64, to: Int64, maximumDuration: Int64, within selection: PGSelection?, floatingOnly: Bool = false) throws -> [OccurrenceRow] {
        let slack = OccurrenceKey.floatingSlack
        return try select("\(floatingOnly ? "o.floating AND " : "")o.start_key >= ? AND o.start_key < ? AND NOT o.overridden AND o.end_key > ?",
                          [.integer(from - maximumDuration - slack), .integer(to + slack), .integer(from - slack)], within: selection)
    }

    /// The series to expand over [from, to) (`seriesCondition`), with what expanding them
    /// needs: each one's record and the original starts of its overrides, selected by the
    /// series' own condition; with `withRows`, the range's rows too (`rows`). All in one round
    /// trip (`PGConnection.queries`), where asking series by series cost two each. A record in
    /// the cache is not decoded again (`decode` returns it).
    struct SeriesToExpand {
        /// The rows of each span asked for, in order.
        var rows: [[OccurrenceRow]] = []
        var series: [(id: UUID, dense: Bool)] = []
        var records: [UUID: EntityRecord] = [:]
        var overridden: [UUID: Set<Int64>] = [:]
    }

    /// The series are those of [from, to); `rowSpans` (each inside it) are the spans whose rows
    /// come too.
    func seriesToExpand(from: Int64, to: Int64, maximumDuration: Int64, within selection: PGSelection?, onlyDense: Bool, rowSpans: [(from: Int64, to: Int64)],
                        decode: @escaping (PGRow) throws -> EntityRecord) throws -> SeriesToExpand {
        var found = SeriesToExpand()
        let (condition, conditionValues) = seriesCondition(from: from, to: to, within: selection, onlyDense: onlyDense)
        var statements = [
            PGConnection.PipelinedStatement(sql: "SELECT o.entity_id, o.dense \(condition) ORDER BY o.entity_id", values: conditionValues) { row in
                if let id = row.text(0).flatMap(UUID.init(parsing:)) { found.series.append((id, row.bool(1) == true)) }
            },
            PGConnection.PipelinedStatement(sql: "SELECT \(layout.selectList) FROM \(entityTable) WHERE owner = ? AND id IN (SELECT o.entity_id \(condition))",
                                            values: [owner] + conditionValues) { row in
                let record = try decode(row)
                found.records[record.id] = record
            },
        ]
        if let uid = uidColumn {
            statements.append(PGConnection.PipelinedStatement(sql: """
                SELECT e.id, x.original_key FROM \(entityTable) e
                JOIN \(table) x ON x.owner = e.owner AND x.series_uid = e.\(pgQuote(uid)) AND x.is_override
                WHERE e.owner = ? AND e.id IN (SELECT o.entity_id \(condition))
                """, values: [owner] + conditionValues) { row in
                if let id = row.text(0).flatMap(UUID.init(parsing:)), let key = row.integer(1) { found.overridden[id, default: []].insert(key) }
            })
        }
        let slack = OccurrenceKey.floatingSlack
        let rows = RowLists(count: rowSpans.count)
        for (number, span) in rowSpans.enumerated() {
            let (sql, values) = selectStatement("o.start_key >= ? AND o.start_key < ? AND NOT o.overridden AND o.end_key > ?",
                                                [.integer(span.from - maximumDuration - slack), .integer(span.to + slack), .integer(span.from - slack)],
                                                within: selection)
            statements.append(PGConnection.PipelinedStatement(sql: sql, values: values, planOnce: planRowsOnce) { row in
                if let occurrence = PGOccurrenceIndex.occurrenceRow(row) { rows.lists[number].append(occurrence) }
            })
        }
        try connection.queries(statements)
        found.rows = rows.lists
        return found
    }

    /// The rows' lists, filled by the statements' row readers.
    private final class RowLists {
        var lists: [[OccurrenceRow]]
        init(count: Int) { lists = Array(repeating: [], count: count) }
    }

    /// The entity table's column holding the iCalendar UID, which an override's `series_uid` names.
    private var uidColumn: String? {
        guard let uid = layout.temporal?.uid else { return nil }
        return layout.columns.first { $0.property.name == uid }?.column
    }

    private var entityTable: String { pgQuote(layout.table) }

    /// For a page: the first `count` rows with fixed times that overlap [from, to) exactly as
    /// `OccurrenceAssembly.place` defines it, in its order, and how many there are.
    func fixedRows(from: Int64, to: Int64, maximumDuration: Int64, within selection: PGSelection?, first count: Int) throws -> (rows: [OccurrenceRow], total: Int) {
        let condition = """
            NOT o.floating AND o.start_key >= ? AND o.start_key < ? AND NOT o.overridden
              AND (o.end_key > ? OR (o.end_key = o.start_key AND o.start_key >= ?))
            """
        let values: [PGValue] = [.integer(from - maximumDuration), .integer(to), .integer(from), .integer(from)]
        // The total comes with the rows (a window count, taken before the LIMIT); only a page
        // past the end, which has no row to carry it, asks for it apart.
        var total: Int?
        let rows = try select(condition, values, within: selection, orderByID: true, limit: count) { total = $0 }
        if let total { return (rows, total) }
        let counted = try connection.scalarInteger("SELECT count(*) FROM \(table) o WHERE o.owner = ? AND \(condition) \(PGOccurrenceIndex.restriction(selection))",
                                                   [owner] + values + (selection?.values ?? [])) ?? 0
        return (rows, Int(counted))
    }

    private func select(_ condition: String, _ values: [PGValue], within selection: PGSelection?, orderByID: Bool = false, limit: Int? = nil,
                        total: ((Int) -> Void)? = nil) throws -> [OccurrenceRow] {
        var result: [OccurrenceRow] = []
        let (sql, bound) = selectStatement(condition, values, within: selection, orderByID: orderByID, limit: limit, counting: total != nil)
        try connection.query(sql, bound) { row in
            guard let found = PGOccurrenceIndex.occurrenceRow(row) else { return }
            result.append(found)
            if let total, let count = row.integer(6) { total(Int(count)) }
        }
        return result
    }

    private func selectStatement(_ condition: String, _ values: [PGValue], within selection: PGSelection?, orderByID: Bool = false, limit: Int? = nil,
                                 counting: Bool = false) -> (String, [PGValue]) {
        let sql = """
            SELECT o.entity_id, o.start_key, o.end_key, o.original_key, o.is_instance, o.floating\(counting ? ", count(*) OVER ()" : "")
            FROM \(table) o
            WHERE o.owner = ? AND \(condition) \(PGOccurrenceIndex.restriction(selection))
            ORDER BY o.start_key\(orderByID ? ", o.entity_id" : "")\(limit == nil ? "" : " LIMIT ?")
            """
        return (sql, [owner] + values + (selection?.values ?? []) + (limit.map { [.integer(Int64($0))] } ?? []))
    }

    private static func occurrenceRow(_ row: PGRow) -> OccurrenceRow? {
        guard let id = row.text(0).flatMap(UUID.init(parsing:)), let start = row.integer(1), let end = row.integer(2),
              let original = row.integer(3) else { return nil }
        return OccurrenceRow(id: id, start: start, end: end, original: original, isInstance: row.bool(4) == true, isFloating: row.bool(5) == true)
    }

    /// The FROM and WHERE of the series of the selected records whose instances may fall in
    /// [from, to) but were not materialized there (with `onlyDense`, only the dense ones).
    private func seriesCondition(from: Int64, to: Int64, within selection: PGSelection?, onlyDense: Bool) -> (String, [PGValue]) {
        let sql = "FROM \(seriesTable) o WHERE o.owner = ? AND o.first_key < ? AND (o.last_key IS NULL OR o.last_key >= ?) "
            + (onlyDense ? "AND o.dense " : "") + PGOccurrenceIndex.restriction(selection)
        return (sql, [owner, .integer(to + OccurrenceKey.floatingSlack), .integer(from - OccurrenceKey.floatingSlack)] + (selection?.values ?? []))
    }

    private static func restriction(_ selection: PGSelection?) -> String {
        guard let selection else { return "" }
        return "AND o.entity_id IN (SELECT r.id \(selection.from) \(selection.whereClause))"
    }

    /// The longest occurrence the owner has of this entity (how far back a range query looks).
    func maximumDuration() throws -> Int64 {
        try connection.scalarInteger("SELECT max(end_key - start_key) FROM \(table) WHERE owner = ?", [owner]) ?? 0
    }
}

extension PGSession {
    /// The occurrence query: index rows (and series expanded over the range where they are not
    /// materialized), placed, ordered and paged by `OccurrenceAssembly`; only the page's records
    /// are read.
    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        let query = try OccurrenceQuery(session: self, entity: entity, filters: filters, text: text)
        let (fromKey, toKey) = OccurrenceAssembly.keys(from: from, to: to)
        guard fromKey < toKey, query.selection.canMatch else { return OccurrencePage(occurrences: [], total: 0) }
        let index = query.index
        let outsideWindow = !store.window.covers(from: fromKey, to: toKey)
        // The series with their records and overrides, and without a page the rows too: one
        // round trip.
        let (found, maximumDuration) = try query.lookingBack { maximumDuration in
            try index.seriesToExpand(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: query.within, onlyDense: !outsideWindow,
                                     rowSpans: limit == nil ? [(fromKey, toKey)] : [], decode: query.decode)
        }
        let placed: [OccurrenceAssembly.Placed]
        let total: Int
        if let limit, !outsideWindow, found.series.isEmpty {
            let fixed = try index.fixedRows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: query.within, first: max(0, offset) + max(0, limit))
            let floating = OccurrenceAssembly.place(try index.rows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: query.within, floatingOnly: true),
                                                    from: fromKey, to: toKey, zone: zone)
            placed = OccurrenceAssembly.merge(fixed: fixed.rows, floating: floating)
            total = fixed.total + floating.count
        } else {
            let rows = try found.rows.first ?? index.rows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: query.within)
            placed = try query.place(rows, expanding: found, from: fromKey, to: toKey, zone: zone)
            total = placed.count
        }
        let page = OccurrenceAssembly.page(placed, limit: limit, offset: offset)
        var records = found.records
        return OccurrencePage(occurrences: try query.occurrences(of: [Array(page)], records: &records)[0], total: total)
    }

    /// Several spans' unpaged occurrences in two round trips: the series over the spans' hull
    /// with their records and overrides, and each span's rows, in one; the records of the rows
    /// not in the cache in the other.
    func occurrences(_ entity: QualifiedName, spans: [DateInterval], zone: TimeZone, matching filters: [RecordFilter]) throws -> [[Occurrence]] {
        guard spans.count > 1 else {
            return try spans.map { try occurrences(entity, from: $0.start, to: $0.end, zone: zone, matching: filters, text: nil, limit: nil, offset: 0).occurrences }
        }
        let query = try OccurrenceQuery(session: self, entity: entity, filters: filters, text: nil)
        let keys = spans.map { OccurrenceAssembly.keys(from: $0.start, to: $0.end) }
        let asked = keys.indices.filter { keys[$0].from < keys[$0].to }
        guard query.selection.canMatch, let low = asked.map({ keys[$0].from }).min(), let high = asked.map({ keys[$0].to }).max() else {
            return spans.map { _ in [] }
        }
        // The series of the hull are those of every span in it; each is expanded span by span.
        let (found, _) = try query.lookingBack { maximumDuration in
            try query.index.seriesToExpand(from: low, to: high, maximumDuration: maximumDuration, within: query.within,
                                           onlyDense: store.window.covers(from: low, to: high), rowSpans: asked.map { keys[$0] }, decode: query.decode)
        }
        var placed: [[OccurrenceAssembly.Placed]] = Array(repeating: [], count: spans.count)
        for (number, span) in asked.enumerated() {
            placed[span] = try query.place(found.rows[number], expanding: found, from: keys[span].from, to: keys[span].to, zone: zone)
        }
        var records = found.records
        return try query.occurrences(of: placed, records: &records)
    }
}

/// What one occurrence query of an entity shares between its steps.
private struct OccurrenceQuery {
    let session: PGSession
    let entity: QualifiedName
    let layout: PGLayout
    let temporal: TemporalFields
    let selection: PGSelection
    let index: PGOccurrenceIndex

    init(session: PGSession, entity: QualifiedName, filters: [RecordFilter], text: String?) throws {
        self.session = session
        self.entity = entity
        layout = try session.store.layout(entity)
        guard let temporal = layout.temporal else {
            throw StoreError(.notFound, "'\(entity.name)' has no start time (no property maps to DTSTART), so it has no occurrences")
        }
        self.temporal = temporal
        selection = try session.selection(layout, filters, text)
        index = PGOccurrenceIndex(store: session.store, layout: layout, planRowsOnce: session.writing)
    }

    /// The selection as a restriction of the index; nil when it selects every record.
    var within: PGSelection? { selection.isEverything ? nil : selection }

    var decode: (PGRow) throws -> EntityRecord {
        { [session, layout] row in try session.record(from: row, layout: layout) }
    }

    /// How far back a range query looks: the longest occurrence, read once and cached.
    func maximumDuration() throws -> Int64 {
        if let known = session.store.cache.maximumDurations[entity] { return known }
        // Kept in a write too: at worst it counts the write's own longer records, and if the
        // write does not commit, range queries look back further than they need, finding the
        // same rows (`widenMaximumDurations`).
        let found = try index.maximumDuration()
        session.store.cache.maximumDurations[entity] = found
        return found
    }

    /// Runs `read` (a range query's first round trip) looking back by the longest occurrence,
    /// and again when that turned out longer once the read knew its change head: a read's
    /// first round trip goes before it (`PGSession.open`), looking back as far as the cache
    /// knew, and another process may since have saved a longer one (`widenMaximumDurations`).
    /// The second run is rare: only after another process's change made the longest longer.
    func lookingBack<T>(_ read: (Int64) throws -> T) throws -> (T, maximumDuration: Int64) {
        let assumed = try maximumDuration()
        let result = try read(assumed)
        let known = try maximumDuration()
        return known == assumed ? (result, known) : (try read(known), known)
    }

    /// A span's rows with the found series' instances in it that were not materialized, placed.
    func place(_ rows: [OccurrenceRow], expanding found: PGOccurrenceIndex.SeriesToExpand, from: Int64, to: Int64,
               zone: TimeZone) throws -> [OccurrenceAssembly.Placed] {
        var rows = rows
        for (id, dense) in found.series {
            guard let record = found.records[id], let shape = SeriesShape(record: record, temporal: temporal), let series = shape.series else { continue }
            rows += try OccurrenceAssembly.expandedRows(of: id, shape: shape, series: series, from: from, to: to,
                                                        window: session.store.window, dense: dense, overridden: found.overridden[id] ?? [])
        }
        return OccurrenceAssembly.place(rows, from: from, to: to, zone: zone)
    }

    /// The occurrences of each list of placed rows, their records from `records`, the cache,
    /// or one query for all that are in neither.
    func occurrences(of lists: [[OccurrenceAssembly.Placed]], records: inout [UUID: EntityRecord]) throws -> [[Occurrence]] {
        let ids = Set(lists.joined().map(\.row.id))
        for id in ids where records[id] == nil {
            if let cached = session.cached(RecordCache.Key(entity: entity, id: id)) { records[id] = cached }
        }
        let missing = Array(ids.subtracting(records.keys))
        if !missing.isEmpty {
            var read: [UUID: EntityRecord] = [:]
            try session.connection.query("SELECT \(layout.selectList) FROM \(pgQuote(layout.table)) WHERE owner = ? AND id = ANY(?::text[])",
                                         [session.owner, .text("{" + missing.map(\.lowercasedText).joined(separator: ",") + "}")]) { row in
                let record = try session.record(from: row, layout: layout)
                read[record.id] = record
            }
            records.merge(read) { old, _ in old }
        }
        var result: [[Occurrence]] = []
        result.reserveCapacity(lists.count)
        for list in lists {
            var occurrences: [Occurrence] = []
            occurrences.reserveCapacity(list.count)
            for placedRow in list {
                guard let record = records[placedRow.row.id] else {
                    throw StoreError(.invalidData, "the occurrence index of \(entity.name) refers to a missing record \(placedRow.row.id.lowercasedText)")
                }
                occurrences.append(try OccurrenceAssembly.occurrence(of: placedRow.row, record: record, temporal: temporal))
            }
            result.append(occurrences)
        }
        return result
    }
}
