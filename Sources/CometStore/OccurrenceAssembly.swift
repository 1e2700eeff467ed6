import Foundation
import CometSchema
import CometText

/// Occurrence keys are seconds since 1970 of the start (`DateTimeValue.sortKey`). Range queries
/// widen their range by `floatingSlack` for floating times, whose keys are wall readings taken
/// as UTC, and then place them exactly in the viewer's zone.
public enum OccurrenceKey {
    public static let floatingSlack: Int64 = 14 * 3600

    public static func key(of dateTime: DateTimeValue) -> Int64 { dateTime.sortKey }
}

/// One occurrence as a store finds it, before its record is read: which record, when (keys),
/// and whether the keys are wall readings.
public struct OccurrenceRow: Sendable, Hashable {
    public let id: UUID
    public let start: Int64
    public let end: Int64
    /// The start the occurrence has in its series.
    public let original: Int64
    public let isInstance: Bool
    public let isFloating: Bool

    public init(id: UUID, start: Int64, end: Int64, original: Int64, isInstance: Bool, isFloating: Bool) {
        self.id = id
        self.start = start
        self.end = end
        self.original = original
        self.isInstance = isInstance
        self.isFloating = isFloating
    }
}

/// The rules of an occurrence query that do not depend on where rows come from: which rows
/// overlap a range, their total order (instant, then record id, so pages neither overlap nor
/// leave gaps), floating rows placed in the viewer's zone, series expanded over a range, pages
/// and their totals, and the occurrence made from a row and its record.
public enum OccurrenceAssembly {
    /// The most instances of one series a query reads (a week of FREQ=SECONDLY, with the margin
    /// read around the range): past it, the query fails and says to ask for less.
    public static let maximumExpandedPerSeries = 1_000_000

    /// A row placed on the time line: the instant it starts at in the viewer's zone.
    public struct Placed: Sendable {
        public let row: OccurrenceRow
        public let instant: Int64

        public init(row: OccurrenceRow, instant: Int64) {
            self.row = row
            self.instant = instant
        }
    }

    /// The keys of a query's range: [from, to) widened to whole seconds.
    public static func keys(from: Date, to: Date) -> (from: Int64, to: Int64) {
        (Int64(from.timeIntervalSince1970.rounded(.down)), Int64(to.timeIntervalSince1970.rounded(.up)))
    }

    /// The rows that overlap [from, to) once floating ones are read in `zone` (an instant with
    /// no length overlaps when it lies in the range), in the total order.
    public static func place(_ rows: [OccurrenceRow], from: Int64, to: Int64, zone: TimeZone) -> [Placed] {
        ordered(rows.compactMap { row in
            let startInstant = row.isFloating ? instant(wall: row.start, in: zone) : row.start
            let endInstant = row.isFloating ? instant(wall: row.end, in: zone) : row.end
            let overlaps = startInstant < to && (endInstant > from || (endInstant == startInstant && startInstant >= from))
            return overlaps ? Placed(row: row, instant: startInstant) : nil
        })
    }

    /// Rows with fixed times (already known to overlap) merged with placed floating ones.
    public static func merge(fixed: [OccurrenceRow], floating: [Placed]) -> [Placed] {
        ordered(fixed.map { Placed(row: $0, instant: $0.start) } + floating)
    }

    /// Instant, then record id.
    public static func ordered(_ placed: [Placed]) -> [Placed] {
        placed.sorted {
            let left = $0.row.id.orderingKey, right = $1.row.id.orderingKey
            return ($0.instant, left.0, left.1) < ($1.instant, right.0, right.1)
        }
    }

    /// `limit` rows (all when nil) after skipping `offset`; negative values count as 0.
    public static func page(_ placed: [Placed], limit: Int?, offset: Int) -> ArraySlice<Placed> {
        placed.dropFirst(max(0, offset)).prefix(limit.map { max(0, $0) } ?? placed.count)
    }

    /// The instances of a series starting in [from, to) (widened for floating times) that a
    /// store did not materialize: all of them for a dense series, else those outside `window`;
    /// never those an override stands in for (`overridden`, by original key).
    public static func expandedRows(of id: UUID, shape: SeriesShape, series: RecurrenceSet, from: Int64, to: Int64,
                                    window: OccurrenceWindow, dense: Bool, overridden: Set<Int64>) throws -> [OccurrenceRow] {
        let slack = OccurrenceKey.floatingSlack
        let (keys, complete) = shape.instanceKeys(series, from: from - slack, through: to + slack, reading: maximumExpandedPerSeries)
        if !complete {
            throw StoreError(.tooManyOccurrences, "one repeating event has more than \(NumberText.grouped(maximumExpandedPerSeries)) occurrences in this range; ask for a shorter range")
        }
        return rows(of: id, shape: shape, keys: keys, window: window, dense: dense, overridden: overridden)
    }

    /// The rows of a series' instance `keys` (in order) that a store did not materialize (see
    /// `expandedRows`), each instant once: two wall times can name one instant (one in a
    /// spring-forward gap and the hour after it), and that is one occurrence.
    public static func rows(of id: UUID, shape: SeriesShape, keys: [Int64], window: OccurrenceWindow, dense: Bool,
                            overridden: Set<Int64>) -> [OccurrenceRow] {
        var rows: [OccurrenceRow] = []
        var previous: Int64?
        for key in keys where key != previous {
            previous = key
            guard dense || !window.contains(key), !overridden.contains(key) else { continue }
            rows.append(OccurrenceRow(id: id, start: key, end: key + shape.durationSeconds, original: key, isInstance: true, isFloating: shape.isFloating))
        }
        return rows
    }

    /// The occurrence of `row`, whose record is `record`: its times of the same kind (and zone)
    /// as the record's start.
    public static func occurrence(of row: OccurrenceRow, record: EntityRecord, temporal: TemporalFields) throws -> Occurrence {
        guard case .dateTime(let first)? = record[temporal.start] else {
            throw StoreError(.invalidData, "\(record.entity.name) \(row.id.lowercasedText) is in the occurrence index but has no start")
        }
        return Occurrence(record: record, start: dateTime(key: row.start, like: first), end: dateTime(key: row.end, like: first),
                          isRecurrenceInstance: row.isInstance, recurrenceKey: dateTime(key: row.original, like: first))
    }

    /// A key read back as a DateTime of the same kind (and zone) as the series' start.
    public static func dateTime(key: Int64, like template: DateTimeValue) -> DateTimeValue {
        switch template.kind {
        case .floating: return .floating(LocalDateTime(wallSeconds: key))
        case .utc: return DateTimeValue(kind: .utc(epochSeconds: key))
        case .zoned(_, let zone): return DateTimeValue(kind: .zoned(epochSeconds: key, timeZone: zone))
        }
    }

    /// The instant a floating wall reading happens at in `zone`.
    public static func instant(wall key: Int64, in zone: TimeZone) -> Int64 {
        LocalDateTime(wallSeconds: key).dateTime(in: zone).sortKey
    }
}
