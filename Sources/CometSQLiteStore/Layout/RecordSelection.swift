import CometStore
import CometSchema

/// The records a query means, as SQL: every filter holds and, when text is given, the full-text
/// index matches it. Listing, counting and the occurrence query all build on this one selection,
/// so a page, its total and the occurrences agree on what matched.
struct RecordSelection {
    /// `FROM …`, with the entity table as `r` (joined to its full-text table when there is text).
    let from: String
    /// `WHERE …`, or empty when everything is selected.
    let whereClause: String
    let values: [SQLValue]
    /// Best match first for text (bm25), by title otherwise; the id or rowid makes the order total,
    /// so consecutive pages neither overlap nor leave gaps.
    let orderBy: String
    /// False when nothing can match (text without words, or an entity with nothing searchable):
    /// the caller answers empty without asking SQLite.
    let canMatch: Bool
    /// True when no filter and no text narrow the selection.
    let isEverything: Bool

    init(layout: TableLayout, coding: ValueCoding, filters: [RecordFilter], text: String?) throws {
        var conditions: [String] = []
        var values: [SQLValue] = []
        var canMatch = true
        var from = "FROM \(quote(layout.table)) r"
        var orderBy = "ORDER BY " + (layout.entity.titleProperty.map { "r.\(quote($0.name)) COLLATE NOCASE, " } ?? "") + "r.id"
        if let text {
            if let search = layout.searchTable, let query = SearchIndex.ftsQuery(text) {
                from = "FROM \(quote(search)) JOIN \(quote(layout.table)) r ON r.rowid = \(quote(search)).rowid"
                conditions.append("\(quote(search)) MATCH ?")
                values.append(.text(query))
                orderBy = "ORDER BY bm25(\(quote(search))), r.rowid"
            } else {
                canMatch = false
            }
        }
        for filter in filters {
            if filter.property == "id" {
                guard case .uuid(let id)? = filter.value else { continue }
                conditions.append("r.id = ?")
                values.append(.text(id.lowercasedText))
                continue
            }
            guard let column = layout.column(filter.property) else {
                throw StoreError(.notFound, "'\(filter.property)' is not a property of \(layout.entity.name.name)")
            }
            if let value = filter.value, let encoded = coding.sqlValues(value, for: column).first {
                conditions.append("r.\(quote(column.column)) = ?")
                values.append(encoded)
            } else {
                conditions.append("r.\(quote(column.column)) IS NULL")
            }
        }
        self.from = from
        self.whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        self.values = values
        self.orderBy = orderBy
        self.canMatch = canMatch
        self.isEverything = conditions.isEmpty && canMatch
    }

    /// A page as bound values for `LIMIT ? OFFSET ?` (-1: no limit), so every page shares one
    /// prepared statement.
    static let pageClause = "LIMIT ? OFFSET ?"

    static func pageValues(limit: Int?, offset: Int) -> [SQLValue] {
        [.integer(Int64(limit.map { max(0, $0) } ?? -1)), .integer(Int64(max(0, offset)))]
    }
}
