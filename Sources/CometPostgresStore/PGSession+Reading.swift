import Foundation
import CometStore
import CometSchema

/// What a transaction reads (`PGSession`): records by id, selections, ranked search pages and
/// counts. A record the transaction may take from the cache (`cached`) is not asked for.
extension PGSession {
    func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        let layout = try store.layout(entity)
        let key = RecordCache.Key(entity: entity, id: id)
        // A record the cache may hold is worth the opening alone: the cache answers once the
        // read knows its head. Else the opening goes with the query.
        if !knowsHead, !writing, store.cache[key] != nil { try connection.sendOpening() }
        if let cached = cached(key) { return cached }
        var result: EntityRecord?
        try connection.query("SELECT \(layout.selectList) FROM \(pgQuote(layout.table)) WHERE owner = ? AND id = ?", [owner, .text(id.lowercasedText)]) { row in
            result = try record(from: row, layout: layout)
        }
        return result
    }

    func selection(_ layout: PGLayout, _ filters: [RecordFilter], _ text: String?) throws -> PGSelection {
        try PGSelection(layout: layout, coding: store.coding, owner: store.owner, filters: filters, text: text)
    }

    func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
        let layout = try store.layout(entity)
        let selection = try selection(layout, filters, text)
        guard selection.canMatch else { return [] }
        if text != nil { return try rankedPage(layout, selection, limit: limit, offset: offset).records }
        let sql = "SELECT \(layout.aliasedSelectList) \(selection.from) \(selection.whereClause) \(selection.orderBy) \(PGSelection.pageClause)"
        var records: [EntityRecord] = []
        try connection.query(sql, selection.values + selection.orderValues + PGSelection.pageValues(limit: limit, offset: offset)) { row in
            records.append(try record(from: row, layout: layout))
        }
        return records
    }

    /// A search's page counts its matches in the same query (`count(*) OVER ()`, taken before
    /// the limit): matching is a pass over every row's tsvector, and a second query to count
    /// was a second pass (in a profile of the search scenario, half of the server's time). An
    /// empty page past the last match (or of no rows) has no row to carry the count, so that one
    /// is counted apart.
    func page(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> RecordPage {
        guard text != nil else { return try pageThenCount(entity, matching: filters, text: text, limit: limit, offset: offset) }
        let layout = try store.layout(entity)
        let selection = try selection(layout, filters, text)
        guard selection.canMatch else { return RecordPage(records: [], total: 0) }
        let (records, counted) = try rankedPage(layout, selection, limit: limit, offset: offset, counting: true)
        if let counted { return RecordPage(records: records, total: counted) }
        let matchedNothing = offset == 0 && limit != 0
        return RecordPage(records: records, total: matchedNothing ? 0 : try count(entity, matching: filters, text: text))
    }

    /// A text search's page: the ids first, best match first (the server sorts ids and ranks,
    /// not whole rows: in a profile of the search scenario, sorting and sending the 200 whole
    /// rows was about half of the query's time), then the records from the cache, and those it
    /// lacks in one more query. Both read the same snapshot (a read), or rows only this write
    /// changes (a write holds the owner's lock). `counting` adds the number of matches, nil when
    /// the page is empty.
    private func rankedPage(_ layout: PGLayout, _ selection: PGSelection, limit: Int?, offset: Int,
                            counting: Bool = false) throws -> (records: [EntityRecord], total: Int?) {
        var ids: [UUID] = []
        var total: Int?
        try connection.query("SELECT r.id\(counting ? ", count(*) OVER ()" : "") \(selection.from) \(selection.whereClause) \(selection.orderBy) \(PGSelection.pageClause)",
                             selection.values + selection.orderValues + PGSelection.pageValues(limit: limit, offset: offset)) { row in
            guard let id = row.text(0).flatMap(UUID.init(parsing:)) else {
                throw StoreError(.invalidData, "\(layout.entity.name.name) has a row whose id '\(row.text(0) ?? "")' is not a UUID")
            }
            ids.append(id)
            if counting, total == nil { total = row.text(1).flatMap { Int($0) } }
        }
        var found: [UUID: EntityRecord] = [:]
        var missing: [String] = []
        for id in ids {
            if let cached = cached(RecordCache.Key(entity: layout.entity.name, id: id)) { found[id] = cached } else { missing.append(id.lowercasedText) }
        }
        if !missing.isEmpty {
            try connection.query("SELECT \(layout.selectList) FROM \(pgQuote(layout.table)) WHERE owner = ? AND id = ANY(?::text[])",
                                 [owner, .text("{" + missing.joined(separator: ",") + "}")]) { row in
                let record = try record(from: row, layout: layout)
                found[record.id] = record
            }
        }
        let records = try ids.map { id in
            guard let record = found[id] else {
                throw StoreError(.invalidData, "\(layout.entity.name.name) \(id.lowercasedText) was found by the search and then not read")
            }
            return record
        }
        return (records, total)
    }

    func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
        let layout = try store.layout(entity)
        let selection = try selection(layout, filters, text)
        guard selection.canMatch else { return 0 }
        return Int(try connection.scalarInteger("SELECT count(*) \(selection.from) \(selection.whereClause)", selection.values) ?? 0)
    }

    func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] {
        try records(referringTo: entity, id: id, through: store.layouts.values.sorted { $0.table < $1.table }.map { ($0.entity.name, $0.columns) })
    }
}
