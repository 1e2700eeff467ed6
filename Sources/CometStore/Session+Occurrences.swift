import Foundation
import CometSchema
import CometText

extension Session {
    /// The most instances of one series a query reads (a week of FREQ=SECONDLY, with the margin
    /// read around the range): past it, the query fails and says to ask for less.
    static let maximumExpandedPerSeries = 1_000_000

    /// The occurrence query: index rows (and, outside the materialized window, series expanded on
    /// the fly), filtered exactly and ordered from their keys alone, counted, and only then the
    /// records of the requested page read. The total costs no record decoding.
    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        let layout = try store.layout(entity)
        guard let temporal = layout.temporal else {
            throw StoreError(.notFound, "'\(entity.name)' has no start time (no property maps to DTSTART), so it has no occurrences")
        }
        let fromKey = Int64(from.timeIntervalSince1970.rounded(.down))
        let toKey = Int64(to.timeIntervalSince1970.rounded(.up))
        if text != nil { try store.flushSearchChanges() }
        let selection = try RecordSelection(layout: layout, coding: store.coding, filters: filters, text: text)
        guard fromKey < toKey, selection.canMatch else { return OccurrencePage(occurrences: [], total: 0) }
        let within = selection.isEverything ? nil : selection
        let index = store.occurrenceIndex(layout)
        let maximumDuration = try store.maximumDuration(layout)
        let outsideWindow = fromKey < store.window.lowerBound || toKey > store.window.upperBound
        // Dense series are never materialized: they are expanded over this range, in or out of
        // the window. Outside it, every series is.
        let expanded = try index.seriesOverlapping(from: fromKey, to: toKey, within: within, onlyDense: !outsideWindow)

        // Floating times happen at their wall reading in the viewer's zone; the order is total
        // (instant, then record id), so pages neither overlap nor leave gaps.
        func place(_ rows: [OccurrenceIndex.Row]) -> [(row: OccurrenceIndex.Row, instant: Int64, id: (UInt64, UInt64))] {
            rows.compactMap { row in
                let startInstant = row.isFloating ? Session.instant(wall: row.start, in: zone) : row.start
                let endInstant = row.isFloating ? Session.instant(wall: row.end, in: zone) : row.end
                let overlaps = startInstant < toKey && (endInstant > fromKey || (endInstant == startInstant && startInstant >= fromKey))
                return overlaps ? (row, startInstant, row.id.orderingKey) : nil
            }.sorted { ($0.instant, $0.id.0, $0.id.1) < ($1.instant, $1.id.0, $1.id.1) }
        }
        var records: [UUID: EntityRecord] = [:]
        let placed: [(row: OccurrenceIndex.Row, instant: Int64, id: (UInt64, UInt64))]
        let total: Int
        if let limit, !outsideWindow, expanded.isEmpty {
            // A page inside the window: rows with fixed times come from SQLite already in order,
            // only as many as the page can need, and counted there; floating rows (few) are
            // placed here. The page is the first rows of the two merged.
            let fixed = try index.fixedRows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within,
                                            first: max(0, offset) + max(0, limit))
            let floating = place(try index.floatingRows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within))
            placed = (fixed.rows.map { (row: $0, instant: $0.start, id: $0.id.orderingKey) } + floating)
                .sorted { ($0.instant, $0.id.0, $0.id.1) < ($1.instant, $1.id.0, $1.id.1) }
            total = fixed.total + floating.count
        } else {
            var rows = try index.rows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within)
            // Series not materialized over this range are expanded over it (which needs their
            // records): the work is bounded by the range asked for, never by the rule.
            if !expanded.isEmpty {
                var seen = Set(rows.map { "\($0.id)|\($0.start)" })
                for (id, dense) in expanded {
                    guard let record = try fetch(entity, id: id), let shape = SeriesShape(record: record, temporal: temporal), let series = shape.series else { continue }
                    records[id] = record
                    let overridden = try shape.uid.map { try index.overriddenKeys(uid: $0) } ?? []
                    let slack = OccurrenceKey.floatingSlack
                    let (keys, complete) = shape.instanceKeys(series, from: fromKey - slack, through: toKey + slack, reading: Session.maximumExpandedPerSeries)
                    if !complete {
                        throw StoreError(.invalidData, "one repeating event has more than \(NumberText.grouped(Session.maximumExpandedPerSeries)) occurrences in this range; ask for a shorter range")
                    }
                    for key in keys where (dense || !(key >= store.window.lowerBound && key <= store.window.upperBound)) && !overridden.contains(key) {
                        if seen.insert("\(id)|\(key)").inserted {
                            rows.append(OccurrenceIndex.Row(id: id, start: key, end: key + shape.durationSeconds, original: key, isInstance: true, isFloating: shape.isFloating))
                        }
                    }
                }
            }
            placed = place(rows)
            total = placed.count
        }

        let page = placed.dropFirst(max(0, offset)).prefix(limit.map { max(0, $0) } ?? placed.count)
        var result: [Occurrence] = []
        result.reserveCapacity(page.count)
        for (row, _, _) in page {
            let record: EntityRecord
            if let known = records[row.id] {
                record = known
            } else {
                // The index and the records change in the same transactions: a row without its
                // record is damage, and leaving it out would make the total wrong.
                guard let fetched = try fetch(entity, id: row.id) else {
                    throw StoreError(.invalidData, "the occurrence index of \(entity.name) refers to a missing record \(row.id.lowercasedText)")
                }
                records[row.id] = fetched
                record = fetched
            }
            guard case .dateTime(let first)? = record[temporal.start] else {
                throw StoreError(.invalidData, "\(entity.name) \(row.id.lowercasedText) is in the occurrence index but has no start")
            }
            result.append(Occurrence(record: record, start: Session.dateTime(key: row.start, like: first), end: Session.dateTime(key: row.end, like: first),
                                     isRecurrenceInstance: row.isInstance, recurrenceKey: Session.dateTime(key: row.original, like: first)))
        }
        return OccurrencePage(occurrences: result, total: total)
    }

    /// A key read back as a DateTime of the same kind (and zone) as the series' start.
    private static func dateTime(key: Int64, like template: DateTimeValue) -> DateTimeValue {
        switch template.kind {
        case .floating: return .floating(LocalDateTime(wallSeconds: key))
        case .utc: return DateTimeValue(kind: .utc(epochSeconds: key))
        case .zoned(_, let zone): return DateTimeValue(kind: .zoned(epochSeconds: key, timeZone: zone))
        }
    }

    /// The instant a floating wall reading happens at in `zone`.
    private static func instant(wall key: Int64, in zone: TimeZone) -> Int64 {
        LocalDateTime(wallSeconds: key).dateTime(in: zone).sortKey
    }
}
