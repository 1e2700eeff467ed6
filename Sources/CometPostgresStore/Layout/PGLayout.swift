import Foundation
import CometStore
import CometSchema

/// How one property is kept in its table: decided for every store in CometStore.
typealias PGColumnKind = StoredColumnKind
typealias PGColumn = StoredColumn

extension StoredColumn {
    /// Text columns compare and sort by their bytes (COLLATE "C"), whatever the database's
    /// locale: ids sort as their bytes do (the occurrence order needs it), titles as code points.
    var sqlType: String {
        switch kind {
        case .integer: return "bigint"
        case .bool: return "boolean"
        case .real: return "double precision"
        case .text, .reference, .dateTime, .json: return "text COLLATE \"C\""
        }
    }

    /// What the migration compares to see whether a column changed meaning.
    var signature: String { "\(property.type.description)|\(sqlType)" }
}

/// The tables of one indexed entity, derived from its definition: the entity table (with a
/// `__search` tsvector column when properties are `@searchable`) and its occurrence tables (when
/// it maps DTSTART). Every table has an `owner` column, first in each key.
struct PGLayout {
    let entity: EntityDefinition
    let table: String
    let columns: [PGColumn]
    let isSearchable: Bool
    let occurrenceTable: String?
    let temporal: TemporalFields?
    let selectList: String
    let aliasedSelectList: String
    let upsertSQL: String

    static let searchColumn = "__search"
    /// The text search configuration: `simple` (no stemming, no stop words, any language) with
    /// `unaccent` before it, so "cafe" finds "Café".
    static let searchConfiguration = "cometcal_text"

    init(entity: EntityDefinition, registry: Registry) {
        self.entity = entity
        table = StoredColumn.tableName(entity.name)
        columns = StoredColumn.columns(of: entity, registry: registry)
        isSearchable = !entity.searchableProperties.isEmpty
        temporal = entity.temporalFields
        occurrenceTable = temporal == nil ? nil : table + "__occurrences"
        let names = ["id"] + columns.flatMap { [$0.column] + ($0.keyColumn.map { [$0] } ?? []) }
        selectList = names.map(pgQuote).joined(separator: ", ")
        aliasedSelectList = names.map { "r." + pgQuote($0) }.joined(separator: ", ")
        var insertNames = ["owner"] + names
        var placeholders = Array(repeating: "?", count: insertNames.count)
        if isSearchable {
            insertNames.append(PGLayout.searchColumn)
            placeholders.append("to_tsvector('\(PGLayout.searchConfiguration)', ?)")
        }
        let updates = insertNames.dropFirst(2).map { "\(pgQuote($0)) = EXCLUDED.\(pgQuote($0))" }
        // One statement for a new record and a changed one, and its change in the feed.
        upsertSQL = "WITH saved AS (INSERT INTO \(pgQuote(table)) (\(insertNames.map(pgQuote).joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", "))) "
            + "ON CONFLICT (owner, id) DO UPDATE SET \(updates.isEmpty ? "id = EXCLUDED.id" : updates.joined(separator: ", "))) "
            + "INSERT INTO _changes (owner, seq, entity, id, gone) VALUES (?, \(PGSession.changeNumber), ?, ?, NULL) "
            + "ON CONFLICT (owner, entity, id) DO UPDATE SET seq = EXCLUDED.seq, gone = NULL"
    }

    func column(_ property: String) -> PGColumn? { columns.first { $0.property.name == property } }

    /// A column definition for CREATE TABLE and ALTER TABLE … ADD COLUMN (its foreign key apart).
    func columnDefinition(_ column: PGColumn) -> String {
        "\(pgQuote(column.column)) \(column.sqlType)"
    }

    /// The foreign key of a reference: to a record of the same owner, so no owner's record can
    /// point at another's.
    func foreignKey(_ column: PGColumn) -> String? {
        guard case .reference(let target) = column.kind else { return nil }
        return "ALTER TABLE \(pgQuote(table)) ADD CONSTRAINT \(pgQuote(table + "__" + column.column + "__fk")) "
            + "FOREIGN KEY (owner, \(pgQuote(column.column))) REFERENCES \(pgQuote(target)) (owner, id)"
    }

    /// The search vector comes right after the key: a search for an owner who holds most rows
    /// is a scan matching every row's vector (the planner costs it below the GIN index, whose
    /// heap reads touch nearly every page anyway), and PostgreSQL takes a row apart column by
    /// column up to the one it needs. Last of 40 columns, the page query took 11.2–11.6 ms in
    /// psql; third, 8.2–8.3 ms; the bench's search 11.3–11.8 ms against 6.7–9.0 ms
    /// (docs/PERFORMANCE.md). Columns added later go last, as ALTER TABLE puts them; a table
    /// made before keeps its order.
    var createStatement: String {
        var definitions = ["owner text COLLATE \"C\" NOT NULL", "id text COLLATE \"C\" NOT NULL"]
        if isSearchable { definitions.append("\(pgQuote(PGLayout.searchColumn)) tsvector") }
        for column in columns {
            definitions.append(columnDefinition(column))
            if let key = column.keyColumn { definitions.append("\(pgQuote(key)) bigint") }
        }
        definitions.append("PRIMARY KEY (owner, id)")
        return "CREATE TABLE \(pgQuote(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// The columns statements find rows by: the key, and every column an index starts from
    /// after the owner (`indexStatements`; the search vector and the title's expression aside).
    var lookupColumns: [String] {
        var names = ["owner", "id"]
        for column in columns {
            if case .reference = column.kind { names.append(column.column) }
            if let key = column.keyColumn { names.append(key) }
        }
        if let uid = uidProperty { names.append(uid) }
        return names
    }

    /// The property holding the iCalendar UID, if any (how imports find what they imported).
    private var uidProperty: String? {
        entity.properties.first(where: { $0.icalName == "UID" && $0.icalParameter == nil })?.name
    }

    /// Indexes: references (filters, and the foreign keys' checks on delete), DateTime keys, the
    /// iCalendar UID (how imports find what they imported), the search vector (GIN).
    var indexStatements: [String] {
        var statements: [String] = []
        for column in columns {
            if case .reference = column.kind {
                statements.append("CREATE INDEX IF NOT EXISTS \(pgQuote(table + "__" + column.column)) ON \(pgQuote(table)) (owner, \(pgQuote(column.column)))")
            }
            if let key = column.keyColumn {
                statements.append("CREATE INDEX IF NOT EXISTS \(pgQuote(table + "__" + key)) ON \(pgQuote(table)) (owner, \(pgQuote(key)))")
            }
        }
        if let uid = uidProperty {
            statements.append("CREATE INDEX IF NOT EXISTS \(pgQuote(table + "__uid")) ON \(pgQuote(table)) (owner, \(pgQuote(uid)))")
        }
        // A list in title order (`fetchAll` without text: a page of the calendar list, the
        // daemon's health) reads its first rows from here instead of sorting every record.
        if let title = entity.titleProperty, let column = columns.first(where: { $0.property.name == title.name }) {
            statements.append("CREATE INDEX IF NOT EXISTS \(pgQuote(table + "__title")) ON \(pgQuote(table)) (owner, lower(\(pgQuote(column.column))), id)")
        }
        // The search vector's index starts with the owner (btree_gin): a search reads its own
        // owner's matches, where an index of the vector alone found every owner's and the heap
        // was read for all of them (six owners of 10,000 events each: 8.9 ms a search against
        // 5.6 ms, psql, docs/PERFORMANCE.md). Generation 3 replaces the older index.
        if isSearchable {
            statements.append("DROP INDEX IF EXISTS \(pgQuote(table + "__search"))")
            statements.append("CREATE INDEX IF NOT EXISTS \(pgQuote(table + "__owner_search")) ON \(pgQuote(table)) USING gin (owner, \(pgQuote(PGLayout.searchColumn)))")
        }
        return statements
    }

    /// The words a record offers to search: its searchable properties' texts, joined.
    func searchText(of record: EntityRecord) -> String {
        entity.searchableProperties.compactMap { record[$0.name]?.searchWords }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The user's words as a tsquery: every word must match, as a prefix ("lun" finds "Lunar");
    /// the words hold letters and digits only, so nothing in the input is an operator.
    static func tsQuery(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
        guard !words.isEmpty else { return nil }
        return words.map { "'\($0)':*" }.joined(separator: " & ")
    }
}

/// Typed values as column values and back: the neutral coding (`StoredValueCoding`), with
/// PostgreSQL's answers read from their text.
struct PGCoding {
    let registry: Registry
    private let stored: StoredValueCoding

    init(registry: Registry) {
        self.registry = registry
        stored = StoredValueCoding(registry: registry)
    }

    func values(_ value: Value?, for column: PGColumn) -> [PGValue] {
        var values: [PGValue] = []
        append(value, for: column, to: &values)
        return values
    }

    func append(_ value: Value?, for column: PGColumn, to values: inout [PGValue]) {
        stored.append(value, for: column, to: &values, as: PGCoding.pgValue)
    }

    static func pgValue(_ scalar: StoredScalar) -> PGValue {
        switch scalar {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .bool(let flag): return .bool(flag)
        case .text(let text): return .text(text)
        }
    }

    /// A column read back; data that no longer fits its type is an error naming the column.
    func value(from row: PGRow, at index: Int, for column: PGColumn, table: String) throws -> Value? {
        guard let text = row.text(index) else { return nil }
        let scalar: StoredScalar
        switch column.kind {
        case .bool: scalar = .bool(text == "t")
        case .integer:
            guard let number = Int64(text) else { throw PGCoding.misfit(table, column, "'\(text)' is not an integer") }
            scalar = .integer(number)
        case .real:
            guard let number = Double(text) else { throw PGCoding.misfit(table, column, "'\(text)' is not a number") }
            scalar = .real(number)
        case .text, .dateTime, .json, .reference: scalar = .text(text)
        }
        return try stored.value(from: scalar, for: column, table: table)
    }

    private static func misfit(_ table: String, _ column: PGColumn, _ reason: String) -> StoreError {
        StoreError(.invalidData, "stored value of \(table).\(column.column) does not fit type '\(column.property.type)': \(reason)")
    }

    /// A row selected with the layout's select list (from `offset`) as a record.
    func record(from row: PGRow, layout: PGLayout, offset: Int = 0) throws -> EntityRecord {
        guard let idText = row.text(offset), let id = UUID(parsing: idText) else {
            throw StoreError(.invalidData, "a row of \(layout.table) has no valid id")
        }
        var values: [String: Value] = [:]
        var index = offset + 1
        for column in layout.columns {
            do {
                if let value = try value(from: row, at: index, for: column, table: layout.table) { values[column.property.name] = value }
            } catch let error as StoreError {
                throw StoreError(error.code, "record \(idText) (\(layout.entity.name.name)): \(error.message)")
            }
            index += column.keyColumn == nil ? 1 : 2
        }
        return EntityRecord(entity: layout.entity.name, id: id, values: values)
    }

    /// The values of an upsert: owner, the select list's columns, and the search text.
    func upsertValues(of record: EntityRecord, layout: PGLayout, owner: String) -> [PGValue] {
        var values: [PGValue] = [.text(owner), .text(record.id.lowercasedText)]
        values.reserveCapacity(3 + layout.columns.count * 2)
        for column in layout.columns { append(record.values[column.property.name], for: column, to: &values) }
        if layout.isSearchable { values.append(.text(layout.searchText(of: record))) }
        return values
    }
}

/// The records a query means: the owner's, every filter holding and, with text, the search
/// matching. Listing, counting and the occurrence query share it, so they agree on what matched.
struct PGSelection {
    let from: String
    let whereClause: String
    /// The WHERE clause's values.
    let values: [PGValue]
    /// The ORDER BY's values (the query again, for its rank).
    let orderValues: [PGValue]
    /// Best match first (ts_rank) for text, else by title, case folded as ASCII; the id makes
    /// the order total.
    let orderBy: String
    let canMatch: Bool
    let isEverything: Bool

    init(layout: PGLayout, coding: PGCoding, owner: String, filters: [RecordFilter], text: String?) throws {
        var conditions = ["r.owner = ?"]
        var values: [PGValue] = [.text(owner)]
        var canMatch = true
        var orderBy = "ORDER BY " + (layout.entity.titleProperty.map { "lower(r.\(pgQuote($0.name))), " } ?? "") + "r.id"
        var isEverything = true
        var orderValues: [PGValue] = []
        if let text {
            isEverything = false
            if layout.isSearchable, let query = PGLayout.tsQuery(text) {
                let vector = "r.\(pgQuote(PGLayout.searchColumn))"
                conditions.append("\(vector) @@ to_tsquery('\(PGLayout.searchConfiguration)', ?)")
                values.append(.text(query))
                orderBy = "ORDER BY ts_rank(\(vector), to_tsquery('\(PGLayout.searchConfiguration)', ?)) DESC, r.id"
                orderValues = [.text(query)]
            } else {
                canMatch = false
            }
        }
        for filter in filters {
            isEverything = false
            if filter.property == "id" {
                guard case .uuid(let id)? = filter.value else { continue }
                conditions.append("r.id = ?")
                values.append(.text(id.lowercasedText))
                continue
            }
            guard let column = layout.column(filter.property) else {
                throw StoreError(.notFound, "'\(filter.property)' is not a property of \(layout.entity.name.name)")
            }
            if let value = filter.value, let encoded = coding.values(value, for: column).first {
                conditions.append("r.\(pgQuote(column.column)) = ?")
                values.append(encoded)
            } else {
                conditions.append("r.\(pgQuote(column.column)) IS NULL")
            }
        }
        from = "FROM \(pgQuote(layout.table)) r"
        whereClause = "WHERE " + conditions.joined(separator: " AND ")
        self.values = values
        self.orderValues = orderValues
        self.orderBy = orderBy
        self.canMatch = canMatch
        self.isEverything = isEverything && canMatch
    }

    static let pageClause = "LIMIT ? OFFSET ?"

    /// NULL is no limit.
    static func pageValues(limit: Int?, offset: Int) -> [PGValue] {
        [limit.map { .integer(Int64(max(0, $0))) } ?? .null, .integer(Int64(max(0, offset)))]
    }
}

/// Quotes an SQL identifier (schema names hold [A-Za-z0-9_] only; doubled quotes for safety).
func pgQuote(_ identifier: String) -> String {
    guard identifier.utf8.contains(0x22) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
