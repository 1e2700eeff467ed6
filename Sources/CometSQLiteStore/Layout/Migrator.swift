import CometStore
import CometSchema

/// Brings the store's tables in line with the registry. Additive changes (a new entity, a new
/// property, a newly searchable property) are applied; anything that would lose data (a removed
/// property or entity that still holds values, a changed type with values, a new required
/// property without default on a table with rows) is refused with a message saying what to do.
struct Migrator {
    /// Version of CometCal's own tables (journal, metadata); a newer store is refused. 2 adds
    /// `_commits`, which every write that changes records must fill (other connections keep
    /// their cached records by it): a CometCal from before it would write without telling, so
    /// it refuses the store instead. 3 adds `_changes` (the change feed), for the same reason:
    /// a write it missed would never reach a syncing client.
    static let formatVersion = 3

    let connection: Connection
    let layouts: [TableLayout]
    let coding: ValueCoding
    /// Fills a rebuilt occurrence table from the entity's records, inside the migration's
    /// transaction (the tables are derived data: a store from before a change of their shape
    /// gets new ones, whole or not at all).
    var rebuildOccurrences: (TableLayout) throws -> Void = { _ in }

    /// The shape of the occurrence tables, kept in _meta per table: 2 is clustered by start
    /// (WITHOUT ROWID) with the `overridden` and `is_instance` columns.
    static let occurrenceFormat = "3"

    /// The set of CometCal's own tables: 2 adds `_alarms_snoozed`, 3 `_commits`, 4 `_changes`. In the fingerprint, so
    /// a store from before gets the new table at its next open (the tables are added, never changed).
    static let systemTables = "4"

    /// Everything the migration makes the tables match, as one text: the formats, and each
    /// table's columns with their signatures and its searchable columns. Kept in _meta after a
    /// migration, so a store already in line is opened with reads alone: a command that only
    /// reads never takes the write lock, and works on a store it may not write.
    var fingerprint: String {
        var parts = ["format=\(Migrator.formatVersion)", "occurrences=\(Migrator.occurrenceFormat)", "system=\(Migrator.systemTables)"]
        for layout in layouts {
            parts.append(layout.table + "(" + layout.columns.map { "\($0.column)=\($0.signature)" }.joined(separator: ",") + ")"
                         + " search(" + layout.entity.searchableProperties.map(\.name).joined(separator: ",") + ")"
                         + " occ(" + (layout.occurrenceTable ?? "") + ")")
        }
        return parts.joined(separator: ";")
    }

    /// Whether the store already matches, read without a write transaction.
    func isCurrent() throws -> Bool {
        guard case .integer(let version)? = try connection.prepare("PRAGMA user_version").scalar(), version == Int64(Migrator.formatVersion) else { return false }
        guard try connection.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_meta'").scalar() == .integer(1) else { return false }
        guard try connection.prepare("SELECT value FROM _meta WHERE key = 'layout'").scalar() == .text(fingerprint) else { return false }
        // Each derived table's own format mark too (what the migration itself goes by).
        for layout in layouts {
            guard let occurrences = layout.occurrenceTable else { continue }
            let format = try connection.prepare("SELECT value FROM _meta WHERE key = ?").scalar([.text("occurrences:" + occurrences)])
            if format != .text(Migrator.occurrenceFormat) { return false }
        }
        return true
    }

    func migrate() throws {
        try connection.transaction {
            let version = try connection.prepare("PRAGMA user_version").scalar()
            if case .integer(let found)? = version, found > Int64(Migrator.formatVersion) {
                throw StoreError(.newerStore, "this store was written by a newer CometCal (format \(found), this one reads \(Migrator.formatVersion)); upgrade cometcal")
            }
            try createSystemTables()
            // A migration may change records (a new property's default): other connections
            // forget every record they cached.
            try connection.execute("INSERT INTO _commits (journal) VALUES (NULL)")
            let known = try knownColumns()
            var problems: [String] = []
            for layout in layouts {
                if let columns = known[layout.table] {
                    problems += try migrate(layout, known: columns)
                } else {
                    try create(layout)
                }
            }
            let tables = Set(layouts.map(\.table))
            let loadedDomains = Set(layouts.map(\.entity.name.domain))
            var unloadedDomains: [String: [String]] = [:]
            for (table, _) in known.sorted(by: { $0.key < $1.key }) where !tables.contains(table) {
                let rows = try count("SELECT count(*) FROM \(quote(table))")
                let domain = table.components(separatedBy: "__").first ?? table
                if rows > 0, !loadedDomains.contains(domain) {
                    // A whole domain missing is most often schemas given instead of the store's own,
                    // not a deletion: say which, and how to load both.
                    unloadedDomains[domain, default: []].append("\(table): \(rows) row\(rows == 1 ? "" : "s")")
                } else if rows > 0 {
                    problems.append("entity table '\(table)' holds \(rows) row(s) but its entity is no longer in the schema; restore the entity in the schema files, or export the data first")
                } else {
                    try dropEntityTables(table)
                }
            }
            for domain in unloadedDomains.keys.sorted() {
                problems.append("the store holds the '\(domain)' domain (\(unloadedDomains[domain, default: []].joined(separator: ", "))), which the loaded schemas do not declare; "
                                + "load its schemas as well (--schemas is repeatable: --schemas Schemas --schemas DIR), use another store (--db), or export the data first")
            }
            guard problems.isEmpty else {
                throw StoreError(.destructiveMigration, "the schema change would lose data, so nothing was changed:\n  - " + problems.joined(separator: "\n  - "))
            }
            try connection.execute("PRAGMA user_version = \(Migrator.formatVersion)")
            try connection.prepare("INSERT OR REPLACE INTO _meta (key, value) VALUES ('layout', ?)").run([.text(fingerprint)])
        }
    }

    private func createSystemTables() throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS _columns (tbl TEXT NOT NULL, col TEXT NOT NULL, signature TEXT NOT NULL, PRIMARY KEY (tbl, col));
            CREATE TABLE IF NOT EXISTS _search_columns (tbl TEXT PRIMARY KEY NOT NULL, cols TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS _meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS _journal (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                state TEXT NOT NULL CHECK (state IN ('done', 'undone')),
                intent TEXT NOT NULL,
                summary TEXT NOT NULL,
                created TEXT NOT NULL,
                changes TEXT NOT NULL
            );
            -- Undoable intents forget what was undone; without this index that is a scan of the whole journal.
            CREATE INDEX IF NOT EXISTS _journal_undone ON _journal(seq) WHERE state = 'undone';
            -- Alarms the daemon fired (times in seconds since 1970), so that a restart never fires one twice.
            CREATE TABLE IF NOT EXISTS _alarms_fired (
                record TEXT NOT NULL,
                occurrence INTEGER NOT NULL,
                trigger_at INTEGER NOT NULL,
                fired_at INTEGER NOT NULL,
                late INTEGER NOT NULL,
                PRIMARY KEY (record, occurrence, trigger_at)
            ) WITHOUT ROWID;
            -- One row per journal entry that a committed write made or changed (undo, redo), so that
            -- other connections forget just the records it names; NULL when the journal cannot say
            -- (a write without an entry, a migration, a restore): they forget every record.
            CREATE TABLE IF NOT EXISTS _commits (seq INTEGER PRIMARY KEY AUTOINCREMENT, journal INTEGER);
            -- The change feed (ChangeFeed): each record's newest save or delete, numbered; a deleted
            -- record keeps what it was (as a journal change), so a syncing client hears it went.
            CREATE TABLE IF NOT EXISTS _changes (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                entity TEXT NOT NULL,
                id TEXT NOT NULL,
                gone TEXT,
                UNIQUE (entity, id)
            );
            CREATE INDEX IF NOT EXISTS _changes_gone ON _changes(seq) WHERE gone IS NOT NULL;
            -- One-shot alarms put off to a moment (snoozed), kept across restarts until they fire.
            CREATE TABLE IF NOT EXISTS _alarms_snoozed (
                record TEXT NOT NULL,
                occurrence INTEGER NOT NULL,
                trigger_at INTEGER NOT NULL,
                occurrence_text TEXT NOT NULL,
                PRIMARY KEY (record, occurrence, trigger_at)
            ) WITHOUT ROWID;
            """)
    }

    private func knownColumns() throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        try connection.prepare("SELECT tbl, col, signature FROM _columns").query { row in
            guard let table = row.text(0), let column = row.text(1), let signature = row.text(2) else { return }
            result[table, default: [:]][column] = signature
        }
        return result
    }

    private func create(_ layout: TableLayout) throws {
        try connection.execute(layout.createStatement)
        for statement in layout.indexStatements { try connection.execute(statement) }
        for column in layout.columns { try record(column, of: layout) }
        try createSearchTable(layout)
        try createOccurrenceTables(layout)
    }

    private func record(_ column: ColumnLayout, of layout: TableLayout) throws {
        try connection.prepare("INSERT OR REPLACE INTO _columns (tbl, col, signature) VALUES (?, ?, ?)")
            .run([.text(layout.table), .text(column.column), .text(column.signature)])
    }

    private func migrate(_ layout: TableLayout, known: [String: String]) throws -> [String] {
        var problems: [String] = []
        let rows = try count("SELECT count(*) FROM \(quote(layout.table))")
        let entityName = layout.entity.name.description
        for column in layout.columns {
            guard let signature = known[column.column] else {
                // A new property: add it, filling existing rows with the default where there is one.
                if column.property.isRequired, column.property.defaultValue == nil, rows > 0 {
                    problems.append("new required property '\(entityName).\(column.column)' has no default, and \(rows) existing row(s) would have no value; give it a default ('= …') or make it optional ('?')")
                    continue
                }
                try connection.execute("ALTER TABLE \(quote(layout.table)) ADD COLUMN \(layout.columnDefinition(column))")
                if let key = column.keyColumn {
                    try connection.execute("ALTER TABLE \(quote(layout.table)) ADD COLUMN \(quote(key)) INTEGER")
                }
                if let defaultValue = column.property.defaultValue, rows > 0 {
                    let values = coding.sqlValues(defaultValue, for: column)
                    let targets = [column.column] + (column.keyColumn.map { [$0] } ?? [])
                    let assignments = targets.map { "\(quote($0)) = ?" }.joined(separator: ", ")
                    try connection.prepare("UPDATE \(quote(layout.table)) SET \(assignments)").run(values)
                }
                try record(column, of: layout)
                continue
            }
            if signature == column.signature { continue }
            let filled = try count("SELECT count(*) FROM \(quote(layout.table)) WHERE \(quote(column.column)) IS NOT NULL")
            let oldType = signature.split(separator: "|").first.map(String.init) ?? signature
            let sameBase = oldType.replacingOccurrences(of: "?", with: "") == column.property.type.description.replacingOccurrences(of: "?", with: "")
            if sameBase {
                // Only optionality changed. Making a property required needs every row to have it.
                if column.property.isRequired, column.property.defaultValue == nil, rows > filled {
                    problems.append("'\(entityName).\(column.column)' became required, but \(rows - filled) row(s) have no value; give it a default or keep it optional")
                    continue
                }
                if column.property.isRequired, let defaultValue = column.property.defaultValue, rows > filled {
                    let values = coding.sqlValues(defaultValue, for: column)
                    let targets = [column.column] + (column.keyColumn.map { [$0] } ?? [])
                    try connection.prepare("UPDATE \(quote(layout.table)) SET \(targets.map { "\(quote($0)) = ?" }.joined(separator: ", ")) WHERE \(quote(column.column)) IS NULL").run(values)
                }
                try record(column, of: layout)
            } else if filled > 0 {
                problems.append("'\(entityName).\(column.column)' changed type from '\(oldType)' to '\(column.property.type)', and \(filled) row(s) hold values; keep the old type, or add a new property and move the data")
            } else {
                try dropColumn(column.column, keyColumn: column.keyColumn, of: layout.table)
                try connection.execute("ALTER TABLE \(quote(layout.table)) ADD COLUMN \(layout.columnDefinition(column))")
                if let key = column.keyColumn { try connection.execute("ALTER TABLE \(quote(layout.table)) ADD COLUMN \(quote(key)) INTEGER") }
                try record(column, of: layout)
            }
        }
        let current = Set(layout.columns.map(\.column))
        for (column, signature) in known where !current.contains(column) {
            let filled = try count("SELECT count(*) FROM \(quote(layout.table)) WHERE \(quote(column)) IS NOT NULL")
            if filled > 0 {
                problems.append("property '\(entityName).\(column)' was removed from the schema but holds values in \(filled) row(s); restore it in the schema files (export the data first if you mean to drop it)")
            } else {
                let wasDateTime = signature.hasPrefix("DateTime")
                try dropColumn(column, keyColumn: wasDateTime ? column + "__key" : nil, of: layout.table)
                try connection.prepare("DELETE FROM _columns WHERE tbl = ? AND col = ?").run([.text(layout.table), .text(column)])
            }
        }
        for statement in layout.indexStatements { try connection.execute(statement) }
        try createSearchTable(layout)
        try createOccurrenceTables(layout)
        return problems
    }

    private func dropColumn(_ column: String, keyColumn: String?, of table: String) throws {
        // Indexes on a column must go before the column can.
        for name in [column, keyColumn].compactMap({ $0 }) {
            try connection.execute("DROP INDEX IF EXISTS \(quote(table + "__" + name))")
            if try columnExists(name, in: table) {
                try connection.execute("ALTER TABLE \(quote(table)) DROP COLUMN \(quote(name))")
            }
        }
    }

    private func columnExists(_ column: String, in table: String) throws -> Bool {
        var found = false
        try connection.prepare("SELECT name FROM pragma_table_info(?)").query([.text(table)]) { row in
            if row.text(0) == column { found = true }
        }
        return found
    }

    /// The search table is derived data: (re)built whenever the searchable set changes.
    private func createSearchTable(_ layout: TableLayout) throws {
        let wanted = layout.entity.searchableProperties.map(\.name).joined(separator: ",")
        let current = try connection.prepare("SELECT cols FROM _search_columns WHERE tbl = ?").scalar([.text(layout.table)])
        if case .text(let existing)? = current, existing == wanted { return }
        try connection.execute("DROP TABLE IF EXISTS \(quote(layout.table + "__search"))")
        try connection.prepare("DELETE FROM _search_columns WHERE tbl = ?").run([.text(layout.table)])
        guard let search = layout.searchTable else { return }
        let columns = layout.entity.searchableProperties.map { quote($0.name) }.joined(separator: ", ")
        // unicode61 with remove_diacritics 2: "cafe" finds "Café"; case-insensitive by default.
        try connection.execute("CREATE VIRTUAL TABLE \(quote(search)) USING fts5(\(columns), tokenize = 'unicode61 remove_diacritics 2')")
        try connection.prepare("INSERT INTO _search_columns (tbl, cols) VALUES (?, ?)").run([.text(layout.table), .text(wanted)])
        try SearchIndex(connection: connection, layout: layout, coding: coding).rebuild()
    }

    private func createOccurrenceTables(_ layout: TableLayout) throws {
        guard let occurrences = layout.occurrenceTable else { return }
        let formatKey = SQLValue.text("occurrences:" + occurrences)
        let format = try connection.prepare("SELECT value FROM _meta WHERE key = ?").scalar([formatKey])
        let exists = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").scalar([.text(occurrences)]) != .integer(0)
        if format == .text(Migrator.occurrenceFormat), exists { return }
        try connection.execute("DROP TABLE IF EXISTS \(quote(occurrences)); DROP TABLE IF EXISTS \(quote(occurrences + "_series"))")
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(quote(occurrences)) (
                -- No foreign key: records leave only through Session.delete, which removes their
                -- rows first, and checking the parent cost a lookup for every instance written.
                entity_id TEXT NOT NULL,
                start_key INTEGER NOT NULL,
                end_key INTEGER NOT NULL,
                floating INTEGER NOT NULL,
                series_uid TEXT,
                original_key INTEGER NOT NULL,
                is_override INTEGER NOT NULL,
                -- An instance generated from the series' rule (not a single event or an override).
                is_instance INTEGER NOT NULL,
                -- 1 when an override stands in for this row (same series UID and original start):
                -- kept up to date on every write, so a range query needs no lookup per row.
                overridden INTEGER NOT NULL DEFAULT 0,
                -- Clustered by start: a range query reads consecutive rows of this table alone.
                PRIMARY KEY (start_key, entity_id, original_key)
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS \(quote(occurrences + "__entity")) ON \(quote(occurrences))(entity_id);
            CREATE INDEX IF NOT EXISTS \(quote(occurrences + "__series")) ON \(quote(occurrences))(series_uid, is_override, original_key);
            CREATE TABLE IF NOT EXISTS \(quote(occurrences + "_series")) (
                entity_id TEXT PRIMARY KEY NOT NULL REFERENCES \(quote(layout.table))("id") ON DELETE CASCADE,
                first_key INTEGER NOT NULL,
                last_key INTEGER,
                -- 1 for a series with more instances in the window than are materialized
                -- (FREQ=SECONDLY): none are stored, and every query expands it over its range.
                dense INTEGER NOT NULL DEFAULT 0
            );
            """)
        try connection.prepare("INSERT OR REPLACE INTO _meta (key, value) VALUES (?, ?)").run([formatKey, .text(Migrator.occurrenceFormat)])
        if exists { try rebuildOccurrences(layout) }
    }

    private func dropEntityTables(_ table: String) throws {
        for suffix in ["__occurrences", "__occurrences_series", "__search"] {
            try connection.execute("DROP TABLE IF EXISTS \(quote(table + suffix))")
        }
        try connection.execute("DROP TABLE IF EXISTS \(quote(table))")
        try connection.prepare("DELETE FROM _columns WHERE tbl = ?").run([.text(table)])
        try connection.prepare("DELETE FROM _search_columns WHERE tbl = ?").run([.text(table)])
    }

    private func count(_ sql: String) throws -> Int {
        if case .integer(let number)? = try connection.prepare(sql).scalar() { return Int(number) }
        return 0
    }
}
