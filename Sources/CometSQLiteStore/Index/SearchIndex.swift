import CometStore
import CometSchema

/// The full-text index of one entity's `@searchable` properties (SQLite FTS5). Rows share the
/// entity table's rowid, so a hit joins back without a lookup by id.
struct SearchIndex {
    let connection: Connection
    let layout: TableLayout
    let coding: ValueCoding

    private var table: String? { layout.searchTable }
    private var properties: [PropertyDefinition] { layout.entity.searchableProperties }

    func rebuild() throws {
        guard let table else { return }
        try connection.execute("DELETE FROM \(quote(table))")
        var rows: [(Int64, EntityRecord)] = []
        let reader = RecordReader(layout: layout, coding: coding)
        try connection.prepare("SELECT rowid, \(layout.selectList) FROM \(quote(layout.table))").query { row in
            guard let rowid = row.integer(0) else { return }
            rows.append((rowid, try reader.record(from: row, offset: 1)))
        }
        for (rowid, record) in rows { try insert(rowid: rowid, texts: texts(of: record)) }
    }

    func remove(rowid: Int64) throws {
        guard let table else { return }
        try connection.prepare("DELETE FROM \(quote(table)) WHERE rowid = ?").run([.integer(rowid)])
    }

    /// What the index holds of a record: the text of each searchable property.
    func texts(of record: EntityRecord) -> [SQLValue] {
        properties.map { property in record[property.name].map { .text($0.searchWords) } ?? .null }
    }

    func insert(rowid: Int64, texts: [SQLValue]) throws {
        guard let table else { return }
        let columns = (["rowid"] + properties.map { quote($0.name) }).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: properties.count + 1).joined(separator: ", ")
        try connection.prepare("INSERT INTO \(quote(table)) (\(columns)) VALUES (\(placeholders))").run([.integer(rowid)] + texts)
    }

    /// The user's words as an FTS5 query of quoted prefix terms: every word must match, as a
    /// prefix ("lun" finds "Lunar"), case and diacritics ignored by the tokenizer; no operator in
    /// the input can change the query's meaning.
    static func ftsQuery(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber) }.map(String.init)
        guard !words.isEmpty else { return nil }
        return words.map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\"*" }.joined(separator: " ")
    }
}
