import CometStore
import Foundation
import CometSchema

extension Session {
    /// The occurrence query: index rows (and, outside the materialized window, series expanded on
    /// the fly), filtered exactly and ordered from their keys alone, counted, and only then the
    /// records of the requested page read. The total costs no record decoding. The rules that
    /// are not SQL (placing, order, expansion, pages) are `OccurrenceAssembly`'s.
    func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                     text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
        let layout = try store.layout(entity)
        guard let temporal = layout.temporal else {
            throw StoreError(.notFound, "'\(entity.name)' has no start time (no property maps to DTSTART), so it has no occurrences")
        }
        let (fromKey, toKey) = OccurrenceAssembly.keys(from: from, to: to)
        if text != nil { try store.flushSearchChanges() }
        let selection = try RecordSelection(layout: layout, coding: store.coding, filters: filters, text: text)
        guard fromKey < toKey, selection.canMatch else { return OccurrencePage(occurrences: [], total: 0) }
        let within = selection.isEverything ? nil : selection
        let index = store.occurrenceIndex(layout)
        let maximumDuration = try store.maximumDuration(layout)
        let outsideWindow = !store.window.covers(from: fromKey, to: toKey)
        // Dense series are never materialized: they are expanded over this range, in or out of
        // the window. Outside it, every series is.
        let expanded = try index.seriesOverlapping(from: fromKey, to: toKey, within: within, onlyDense: !outsideWindow)

        var records: [UUID: EntityRecord] = [:]
        let placed: [OccurrenceAssembly.Placed]
        let total: Int
        if let limit, !outsideWindow, expanded.isEmpty {
            // A page inside the window: rows with fixed times come from SQLite already in order,
            // only as many as the page can need, and counted there; floating rows (few) are
            // placed here. The page is the first rows of the two merged.
            let fixed = try index.fixedRows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within,
                                            first: max(0, offset) + max(0, limit))
            let floating = OccurrenceAssembly.place(try index.floatingRows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within),
                                                    from: fromKey, to: toKey, zone: zone)
            placed = OccurrenceAssembly.merge(fixed: fixed.rows, floating: floating)
            total = fixed.total + floating.count
        } else {
            var rows = try index.rows(from: fromKey, to: toKey, maximumDuration: maximumDuration, within: within)
            // Series not materialized over this range are expanded over it (which needs their
            // records): the work is bounded by the range asked for, never by the rule.
            // Their rows and the index's never meet: the index holds a series' instances only
            // inside the window and never a dense series', and expansion keeps the others.
            for (id, dense) in expanded {
                // A series' shape and instance keys are kept between queries (not while
                // writing: the record read may be this transaction's own, not committed).
                let kept = dense || store.isWriting ? nil
                    : try store.expansions.series(id) { try fetch(entity, id: id).flatMap { SeriesShape(record: $0, temporal: temporal) } }
                if let kept, let keys = store.expansions.instanceKeys(of: kept, from: fromKey - OccurrenceKey.floatingSlack,
                                                                        through: toKey + OccurrenceKey.floatingSlack) {
                    let overridden = try kept.shape.uid.map { uid in try store.expansions.overriddenKeys(uid: uid) { try index.overriddenKeys(uid: uid) } } ?? []
                    rows += OccurrenceAssembly.rows(of: id, shape: kept.shape, keys: keys, window: store.window, dense: false, overridden: overridden)
                    continue
                }
                guard let record = try fetch(entity, id: id), let shape = SeriesShape(record: record, temporal: temporal), let series = shape.series else { continue }
                records[id] = record
                let overridden = try shape.uid.map { try index.overriddenKeys(uid: $0) } ?? []
                rows += try OccurrenceAssembly.expandedRows(of: id, shape: shape, series: series, from: fromKey, to: toKey,
                                                            window: store.window, dense: dense, overridden: overridden)
            }
            placed = OccurrenceAssembly.place(rows, from: fromKey, to: toKey, zone: zone)
            total = placed.count
        }

        let page = OccurrenceAssembly.page(placed, limit: limit, offset: offset)
        var result: [Occurrence] = []
        result.reserveCapacity(page.count)
        for placedRow in page {
            let row = placedRow.row
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
            result.append(try OccurrenceAssembly.occurrence(of: row, record: record, temporal: temporal))
        }
        return OccurrencePage(occurrences: result, total: total)
    }
}
