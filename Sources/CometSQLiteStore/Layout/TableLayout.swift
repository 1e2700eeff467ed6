import CometStore
import CometSchema

/// How one property is kept in its table: decided for every store in CometStore.
typealias ColumnKind = StoredColumnKind
typealias ColumnLayout = StoredColumn

extension StoredColumn {
    var sqlType: String {
        switch kind {
        case .integer, .bool: return "INTEGER"
        case .real: return "REAL"
        case .text, .reference, .dateTime, .json: return "TEXT"
        }
    }

    /// What the migrator compares to see whether a column changed meaning.
    var signature: String { "\(property.type.description)|\(sqlType)" }
}

/// The tables of one indexed entity, derived from its definition: the entity table, its
/// full-text table (when properties are `@searchable`) and its occurrence table (when it maps
/// DTSTART). Names come from schema identifiers, which the lexer limits to [A-Za-z0-9_].
struct TableLayout {
    let entity: EntityDefinition
    let table: String
    let columns: [ColumnLayout]
    let searchTable: String?
    let occurrenceTable: String?
    let temporal: TemporalFields?
    /// Built once: every fetch and save uses them.
    let selectList: String
    /// The same columns of the table aliased `r` (see `RecordSelection`).
    let aliasedSelectList: String
    let insertSQL: String
    let updateSQL: String

    init(entity: EntityDefinition, registry: Registry) {
        self.entity = entity
        self.table = StoredColumn.tableName(entity.name)
        self.columns = StoredColumn.columns(of: entity, registry: registry)
        self.searchTable = entity.searchableProperties.isEmpty ? nil : table + "__search"
        self.temporal = entity.temporalFields
        self.occurrenceTable = temporal == nil ? nil : table + "__occurrences"
        let names = ["id"] + columns.flatMap { [$0.column] + ($0.keyColumn.map { [$0] } ?? []) }
        self.selectList = names.map(quote).joined(separator: ", ")
        self.aliasedSelectList = names.map { "r." + quote($0) }.joined(separator: ", ")
        self.insertSQL = "INSERT INTO \(quote(table)) (\(selectList)) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
        self.updateSQL = "UPDATE \(quote(table)) SET \(names.dropFirst().map { "\(quote($0)) = ?" }.joined(separator: ", ")) WHERE rowid = ?"
    }

    func column(_ property: String) -> ColumnLayout? { columns.first { $0.property.name == property } }


    var createStatement: String {
        var definitions = ["\"id\" TEXT PRIMARY KEY NOT NULL"]
        for column in columns {
            definitions.append(columnDefinition(column))
            if let key = column.keyColumn { definitions.append("\(quote(key)) INTEGER") }
        }
        return "CREATE TABLE \(quote(table)) (\(definitions.joined(separator: ", ")))"
    }

    /// A column definition usable in CREATE TABLE and ALTER TABLE … ADD COLUMN.
    func columnDefinition(_ column: ColumnLayout) -> String {
        var text = "\(quote(column.column)) \(column.sqlType)"
        if case .reference(let target) = column.kind {
            // Deleting what is referenced is the engine's job (it journals what it removes);
            // the key only guarantees no row points at nothing.
            text += " REFERENCES \(quote(target))(\"id\")"
        }
        return text
    }

    /// Indexes: references (for cascades and filters), DateTime keys (for ordering), UID.
    var indexStatements: [String] {
        var statements: [String] = []
        for column in columns {
            if case .reference = column.kind {
                statements.append("CREATE INDEX IF NOT EXISTS \(quote(table + "__" + column.column)) ON \(quote(table))(\(quote(column.column)))")
            }
            if let key = column.keyColumn {
                statements.append("CREATE INDEX IF NOT EXISTS \(quote(table + "__" + key)) ON \(quote(table))(\(quote(key)))")
            }
        }
        // The iCalendar UID: how imports find what they imported before.
        if let uid = entity.properties.first(where: { $0.icalName == "UID" && $0.icalParameter == nil })?.name {
            statements.append("CREATE INDEX IF NOT EXISTS \(quote(table + "__uid")) ON \(quote(table))(\(quote(uid)))")
        }
        return statements
    }
}

/// Quotes an SQL identifier.
func quote(_ identifier: String) -> String {
    // SQL is built for every statement: the names schemas give have no quote to double, and
    // Foundation's replacing showed in import profiles.
    guard identifier.utf8.contains(0x22) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
