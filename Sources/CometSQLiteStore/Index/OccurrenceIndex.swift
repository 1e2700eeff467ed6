import CometStore
import Foundation
import CometSchema

/// Keeps the occurrence table of an entity: one row per single event or override, and one row
/// per instance of a series inside the materialized window. Range queries inside the window are
/// index lookups; outside it, series are expanded on the fly.
struct OccurrenceIndex {
    let connection: Connection
    let layout: TableLayout
    /// Where series are materialized, and the dense rule (`OccurrenceWindow`).
    let window: OccurrenceWindow

    private var table: String { layout.occurrenceTable ?? "" }

    /// Recomputes the rows of one record (`isNew`: it has none yet), and the `overridden` flags
    /// its rows set or receive.
    func update(_ record: EntityRecord, isNew: Bool = false) throws {
        guard let temporal = layout.temporal else { return }
        if !isNew { try remove(record.id) }
        guard let shape = SeriesShape(record: record, temporal: temporal) else { return }
        // OR IGNORE: a rule and an RDATE may name the same instance; it is one occurrence.
        let insert = try connection.prepare("INSERT OR IGNORE INTO \(quote(table)) (entity_id, start_key, end_key, floating, series_uid, original_key, is_override, is_instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let id = SQLValue.text(record.id.lowercasedText)
        let uid = shape.uid.map(SQLValue.text) ?? .null
        let floating = SQLValue.integer(shape.isFloating ? 1 : 0)
        if let recurrenceID = shape.recurrenceID {
            try insert.run([id, .integer(shape.startKey), .integer(shape.startKey + shape.durationSeconds), floating, uid, .integer(recurrenceID), .integer(1), .integer(0)])
            // This override stands in for the occurrence it replaces.
            try connection.prepare("UPDATE \(quote(table)) SET overridden = 1 WHERE series_uid = ? AND is_override = 0 AND original_key = ?")
                .run([uid, .integer(recurrenceID)])
            return
        }
        if let series = shape.series {
            let (starts, complete) = shape.instanceKeys(series, from: window.lowerBound, through: window.upperBound,
                                                        reading: OccurrenceWindow.maximumInstancesPerSeries + 1)
            let dense = OccurrenceWindow.isDense(instances: starts.count, complete: complete)
            if !dense {
                for key in starts {
                    try insert.run([id, .integer(key), .integer(key + shape.durationSeconds), floating, uid, .integer(key), .integer(0), .integer(1)])
                }
            }
            // A COUNT that large is as good as no end: its last instance is not worked out.
            let last = series.isUnbounded || dense ? SQLValue.null : (series.lastOccurrence().map { .integer(shape.key(of: $0)) } ?? .null)
            try connection.prepare("INSERT OR REPLACE INTO \(quote(table + "_series")) (entity_id, first_key, last_key, dense) VALUES (?, ?, ?, ?)")
                .run([id, .integer(shape.startKey), last, .integer(dense ? 1 : 0)])
        } else {
            try insert.run([id, .integer(shape.startKey), .integer(shape.startKey + shape.durationSeconds), floating, uid, .integer(shape.startKey), .integer(0), .integer(0)])
        }
        // Overrides already stored (earlier in a file, or before) stand in for some of these rows.
        if shape.uid != nil {
            try connection.prepare("""
                UPDATE \(quote(table)) SET overridden = 1 WHERE entity_id = ? AND is_override = 0
                  AND original_key IN (SELECT original_key FROM \(quote(table)) WHERE series_uid = ? AND is_override = 1)
                """).run([id, uid])
        }
    }

    func remove(_ id: UUID) throws {
        let key = SQLValue.text(id.lowercasedText)
        // The rows this record's overrides stood in for come back, unless another override of
        // the same occurrence remains.
        try connection.prepare("""
            UPDATE \(quote(table)) SET overridden = 0
            WHERE is_override = 0
              AND (series_uid, original_key) IN (SELECT series_uid, original_key FROM \(quote(table)) WHERE entity_id = ?1 AND is_override = 1)
              AND NOT EXISTS (
                SELECT 1 FROM \(quote(table)) other WHERE other.series_uid = \(quote(table)).series_uid AND other.is_override = 1
                  AND other.original_key = \(quote(table)).original_key AND other.entity_id != ?1)
            """).run([key])
        try connection.prepare("DELETE FROM \(quote(table)) WHERE entity_id = ?").run([key])
        try connection.prepare("DELETE FROM \(quote(table + "_series")) WHERE entity_id = ?").run([key])
    }

    /// One row of the index (the store-neutral row an occurrence query assembles).
    typealias Row = OccurrenceRow

    /// Rows that may overlap [from, to), ordered by start, of the records `selection` selects
    /// (all when nil). Keys of floating rows are wall readings; callers filter them by zone.
    func rows(from: Int64, to: Int64, maximumDuration: Int64, within selection: RecordSelection?) throws -> [Row] {
        let slack = OccurrenceKey.floatingSlack
        return try select("o.start_key >= ? AND o.start_key < ? AND o.overridden = 0 AND o.end_key > ?",
                          [.integer(from - maximumDuration - slack), .integer(to + slack), .integer(from - slack)], within: selection)
    }

    /// For a page: the first `count` rows with fixed times (not floating) that overlap
    /// [from, to) exactly as `OccurrenceAssembly.place` defines it, in its order (start, then id:
    /// ids are stored as lower-case text, which sorts as their bytes do), and how many there are.
    /// SQLite stops reading after the page, and counts the rest without making rows of them.
    func fixedRows(from: Int64, to: Int64, maximumDuration: Int64, within selection: RecordSelection?, first count: Int) throws -> (rows: [Row], total: Int) {
        let condition = """
            o.floating = 0 AND o.start_key >= ? AND o.start_key < ? AND o.overridden = 0
              AND (o.end_key > ? OR (o.end_key = o.start_key AND o.start_key >= ?))
            """
        let values: [SQLValue] = [.integer(from - maximumDuration), .integer(to), .integer(from), .integer(from)]
        let rows = try select(condition, values, within: selection, orderByID: true, limit: count)
        var total = 0
        let counting = "SELECT count(*) FROM \(quote(table)) o WHERE \(condition) \(OccurrenceIndex.restriction(selection))"
        if case .integer(let number)? = try connection.prepare(counting).scalar(values + (selection?.values ?? [])) { total = Int(number) }
        return (rows, total)
    }

    /// The floating rows that may overlap [from, to) in some zone (callers place them).
    func floatingRows(from: Int64, to: Int64, maximumDuration: Int64, within selection: RecordSelection?) throws -> [Row] {
        let slack = OccurrenceKey.floatingSlack
        return try select("o.floating = 1 AND o.start_key >= ? AND o.start_key < ? AND o.overridden = 0 AND o.end_key > ?",
                          [.integer(from - maximumDuration - slack), .integer(to + slack), .integer(from - slack)], within: selection)
    }

    /// Rows read from the table alone (clustered by start; overridden rows are flagged on write).
    private func select(_ condition: String, _ values: [SQLValue], within selection: RecordSelection?, orderByID: Bool = false, limit: Int? = nil) throws -> [Row] {
        var result: [Row] = []
        let sql = """
            SELECT o.entity_id, o.start_key, o.end_key, o.original_key, o.is_instance, o.floating
            FROM \(quote(table)) o
            WHERE \(condition) \(OccurrenceIndex.restriction(selection))
            ORDER BY o.start_key\(orderByID ? ", o.entity_id" : "")\(limit == nil ? "" : " LIMIT ?")
            """
        let bound = values + (selection?.values ?? []) + (limit.map { [.integer(Int64($0))] } ?? [])
        try connection.prepare(sql).query(bound) { row in
            guard let text = row.text(0), let id = UUID(parsing: text),
                  let start = row.integer(1), let end = row.integer(2), let original = row.integer(3) else { return }
            result.append(Row(id: id, start: start, end: end, original: original, isInstance: row.integer(4) == 1, isFloating: row.integer(5) == 1))
        }
        return result
    }

    /// Series of the selected records whose instances may fall in [from, to) but were not
    /// materialized there.
    /// With `onlyDense`, only the dense series (whose instances are never materialized); the
    /// flag says which each one is.
    func seriesOverlapping(from: Int64, to: Int64, within selection: RecordSelection?, onlyDense: Bool = false) throws -> [(id: UUID, dense: Bool)] {
        var found: [(id: UUID, dense: Bool)] = []
        let sql = "SELECT o.entity_id, o.dense FROM \(quote(table + "_series")) o WHERE o.first_key < ? AND (o.last_key IS NULL OR o.last_key >= ?) "
            + (onlyDense ? "AND o.dense = 1 " : "") + OccurrenceIndex.restriction(selection)
        try connection.prepare(sql)
            .query([.integer(to + OccurrenceKey.floatingSlack), .integer(from - OccurrenceKey.floatingSlack)] + (selection?.values ?? [])) { row in
                if let text = row.text(0), let id = UUID(parsing: text) { found.append((id, row.integer(1) == 1)) }
            }
        return found
    }

    /// `AND o.entity_id IN (…)`: only rows of the selected records.
    private static func restriction(_ selection: RecordSelection?) -> String {
        guard let selection else { return "" }
        return "AND o.entity_id IN (SELECT r.id \(selection.from) \(selection.whereClause))"
    }

    /// Original keys of the overrides of a series (to leave those instances out when expanding).
    func overriddenKeys(uid: String) throws -> Set<Int64> {
        var keys = Set<Int64>()
        try connection.prepare("SELECT original_key FROM \(quote(table)) WHERE series_uid = ? AND is_override = 1").query([.text(uid)]) { row in
            if let key = row.integer(0) { keys.insert(key) }
        }
        return keys
    }
}
