import Foundation
import CometSchema

/// One occurrence of an entity with a time: a single event, one instance of a series, or an
/// override standing in for one instance.
public struct Occurrence: Sendable, Hashable {
    public let record: EntityRecord
    public let start: DateTimeValue
    public let end: DateTimeValue
    /// True for instances generated from a recurrence rule (not for overrides or singles).
    public let isRecurrenceInstance: Bool
    /// The start the occurrence has in its series (the RECURRENCE-ID an override would carry).
    public let recurrenceKey: DateTimeValue

    public init(record: EntityRecord, start: DateTimeValue, end: DateTimeValue, isRecurrenceInstance: Bool, recurrenceKey: DateTimeValue) {
        self.record = record
        self.start = start
        self.end = end
        self.isRecurrenceInstance = isRecurrenceInstance
        self.recurrenceKey = recurrenceKey
    }
}

/// Keeps the occurrence table of an entity: one row per single event or override, and one row
/// per instance of a series inside the materialized window. Range queries inside the window are
/// index lookups; outside it, series are expanded on the fly.
struct OccurrenceIndex {
    let connection: Connection
    let layout: TableLayout
    let window: ClosedRange<Int64>

    /// Upper bound on instances materialized per series, so no rule can flood the table. A
    /// series with more in the window (every 20 minutes, FREQ=SECONDLY, COUNT=10^9) is marked
    /// dense instead: none of its instances are stored, and each query expands it over the
    /// query's own range (a month of an hourly series is 744). 10,000 is nine a day over the
    /// three-year window; at 120,000, an import of the RFC 5545 examples (their every-20-minutes
    /// and BYHOUR rules) took 1.3 s instrumented, past the import fuzz target's 1 s.
    static let maximumInstancesPerSeries = 10_000

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
                                                        reading: OccurrenceIndex.maximumInstancesPerSeries + 1)
            let dense = !complete || starts.count > OccurrenceIndex.maximumInstancesPerSeries
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

    /// One row of the index: which record, when (keys), and whether the keys are wall readings.
    struct Row {
        let id: UUID
        let start: Int64
        let end: Int64
        /// The start the occurrence has in its series.
        let original: Int64
        let isInstance: Bool
        let isFloating: Bool
    }

    /// Rows that may overlap [from, to), ordered by start, of the records `selection` selects
    /// (all when nil). Keys of floating rows are wall readings; callers filter them by zone.
    func rows(from: Int64, to: Int64, maximumDuration: Int64, within selection: RecordSelection?) throws -> [Row] {
        let slack = OccurrenceKey.floatingSlack
        return try select("o.start_key >= ? AND o.start_key < ? AND o.overridden = 0 AND o.end_key > ?",
                          [.integer(from - maximumDuration - slack), .integer(to + slack), .integer(from - slack)], within: selection)
    }

    /// For a page: the first `count` rows with fixed times (not floating) that overlap
    /// [from, to) exactly as `Session.occurrences` defines it, in its order (start, then id:
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

/// The time shape of one record: where it starts, how long it lasts, and its series if any.
struct SeriesShape {
    let start: DateTimeValue
    let startKey: Int64
    let durationSeconds: Int64
    let isFloating: Bool
    let isAllDay: Bool
    let uid: String?
    /// The key of the occurrence an override replaces.
    let recurrenceID: Int64?
    let series: RecurrenceSet?
    let zone: TimeZone?

    init?(record: EntityRecord, temporal: TemporalFields) {
        guard case .dateTime(let start)? = record[temporal.start] else { return nil }
        self.start = start
        self.startKey = start.sortKey
        self.isFloating = start.isFloating
        self.zone = start.expansionZone
        if let allDay = temporal.isAllDay, case .bool(true)? = record[allDay] { isAllDay = true } else { isAllDay = false }
        if let end = temporal.end, case .dateTime(let endValue)? = record[end] {
            durationSeconds = max(0, endValue.sortKey - start.sortKey)
        } else {
            durationSeconds = isAllDay ? 86_400 : 0
        }
        if let uidProperty = temporal.uid, case .string(let text)? = record[uidProperty] { uid = text } else { uid = nil }
        if let property = temporal.recurrenceID, case .dateTime(let original)? = record[property] {
            recurrenceID = original.sortKey
        } else {
            recurrenceID = nil
        }
        let rule: RecurrenceRule?
        if let property = temporal.recurrence, case .recurrence(let value)? = record[property] { rule = value } else { rule = nil }
        let additions = SeriesShape.dateTimes(record, temporal.additions)
        let exclusions = SeriesShape.dateTimes(record, temporal.exclusions)
        let extraRules = temporal.extraRules(of: record.values)
        if recurrenceID == nil, rule != nil || !additions.isEmpty || !extraRules.more.isEmpty {
            let zone = self.zone
            series = RecurrenceSet(
                start: start.expansionWallTime, timeZone: zone, rule: rule,
                additions: additions.map { SeriesShape.wall($0, in: zone) },
                exclusions: exclusions.map { SeriesShape.wall($0, in: zone) },
                isAllDay: isAllDay, moreRules: extraRules.more, exclusionRules: extraRules.exclusions
            )
        } else {
            series = nil
        }
    }

    private static func dateTimes(_ record: EntityRecord, _ property: String?) -> [DateTimeValue] {
        guard let property, case .array(let items)? = record[property] else { return [] }
        return items.compactMap { if case .dateTime(let value) = $0 { return value } else { return nil } }
    }

    /// A date-time as a wall reading in the series' zone (EXDATEs may be given in UTC).
    static func wall(_ value: DateTimeValue, in zone: TimeZone?) -> LocalDateTime {
        value.recurrenceWallTime(in: zone)
    }

    /// The key of a wall-clock instance in the series' zone.
    func key(of local: LocalDateTime) -> Int64 {
        local.dateTime(in: zone).sortKey
    }

    /// Keys of instances whose start lies in [from, through].
    func instanceKeys(_ series: RecurrenceSet, from: Int64, through: Int64, limit: Int) -> [Int64] {
        instanceKeys(series, from: from, through: through, reading: limit).keys
    }

    /// The keys, and whether the rule was read to the end of the range: false when `reading`
    /// instances (counted before the exact filter) were not enough.
    func instanceKeys(_ series: RecurrenceSet, from: Int64, through: Int64, reading limit: Int) -> (keys: [Int64], complete: Bool) {
        // Wall times differ from instants by at most the zone offset: widen by a day, then filter exactly.
        let fromWall = LocalDateTime(wallSeconds: from - 86_400 - durationSeconds)
        let throughWall = LocalDateTime(wallSeconds: through + 86_400)
        let read = series.occurrences(from: fromWall, through: throughWall, limit: limit)
        let keys = read.map { key(of: $0) }.filter { $0 + durationSeconds >= from && $0 <= through }
        return (keys, read.count < limit)
    }
}
