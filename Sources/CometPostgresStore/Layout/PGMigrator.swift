import Foundation
import CometStore
import CometSchema

/// Brings a database's tables in line with the registry, in one transaction (PostgreSQL's DDL is
/// transactional: a migration lands whole or not at all). Additive changes are applied; anything
/// that would lose data is refused, saying what to do. Two processes opening a new database at
/// once take turns on an advisory lock.
///
/// The shape is the database's, shared by every owner: `_cometcal_schema` (the format and the
/// fingerprint of what was migrated) and `_columns` have no owner column. Every other table
/// holds owners' rows, with row-level security on. A migration reads every owner's rows (to
/// know whether a change would lose any), so it runs with row security off: a role that neither
/// is a superuser nor has BYPASSRLS cannot migrate, and is told so; it can open a database
/// already migrated.
struct PGMigrator {
    /// 1: the first PostgreSQL layout.
    static let formatVersion = 1
    /// The shape of the occurrence tables.
    static let occurrenceFormat = "1"
    /// The indexes' generation: a database migrated before a new index runs the migration again
    /// (every index is made IF NOT EXISTS). 2: the dense series' and the title order's. 3: the
    /// search vector's index with the owner first (`PGLayout.indexStatements`).
    static let indexGeneration = 3
    /// Any number, the same in every CometCal: the advisory lock migrations take turns on.
    static let lockKey: Int64 = 0x436f_6d65_7443_616c

    let connection: PGConnection
    let layouts: [PGLayout]
    let coding: PGCoding

    /// The tables holding owners' rows besides the entities' own.
    static let ownedSystemTables = ["_meta", "_counters", "_journal", "_alarms_fired", "_alarms_snoozed", "_changes"]

    var fingerprint: String {
        var parts = ["format=\(PGMigrator.formatVersion)", "occurrences=\(PGMigrator.occurrenceFormat)", "indexes=\(PGMigrator.indexGeneration)"]
        for layout in layouts {
            parts.append(layout.table + "(" + layout.columns.map { "\($0.column)=\($0.signature)" }.joined(separator: ",") + ")"
                         + " search(" + layout.entity.searchableProperties.map(\.name).joined(separator: ",") + ")"
                         + " occ(" + (layout.occurrenceTable ?? "") + ")")
        }
        return parts.joined(separator: ";")
    }

    /// Whether the database holds a CometCal store at all (reads only).
    func hasStore() throws -> Bool {
        try connection.scalar("SELECT to_regclass('public._cometcal_schema')::text") != nil
    }

    /// Whether the database already matches (reads only).
    func isCurrent() throws -> Bool {
        guard try connection.scalar("SELECT to_regclass('public._cometcal_schema')::text") != nil else { return false }
        return try connection.scalar("SELECT value FROM _cometcal_schema WHERE key = 'layout'") == fingerprint
    }

    /// Runs inside the caller's transaction.
    func migrate() throws {
        try connection.run("SELECT pg_advisory_xact_lock(?)", [.integer(PGMigrator.lockKey)])
        // Another process may have migrated while this one waited for the lock.
        if try isCurrent() { return }
        try connection.execute("SET LOCAL row_security = off")
        if try connection.scalar("SELECT to_regclass('public._cometcal_schema')::text") != nil,
           let found = try connection.scalarInteger("SELECT value::bigint FROM _cometcal_schema WHERE key = 'format'"), found > Int64(PGMigrator.formatVersion) {
            throw StoreError(.newerStore, "this database was written by a newer CometCal (format \(found), this one reads \(PGMigrator.formatVersion)); upgrade cometcal")
        }
        try createSearchConfiguration()
        try createSystemTables()
        var known: [String: [String: String]] = [:]
        try connection.query("SELECT tbl, col, signature FROM _columns") { row in
            if let table = row.text(0), let column = row.text(1), let signature = row.text(2) { known[table, default: [:]][column] = signature }
        }
        var problems: [String] = []
        for layout in layouts {
            if let columns = known[layout.table] {
                problems += try migrate(layout, known: columns)
            } else {
                try create(layout)
            }
        }
        let tables = Set(layouts.map(\.table))
        for table in known.keys.sorted() where !tables.contains(table) {
            let rows = try connection.scalarInteger("SELECT count(*) FROM \(pgQuote(table))") ?? 0
            if rows > 0 {
                problems.append("entity table '\(table)' holds \(rows) row(s) but its entity is not in the loaded schemas; load its schemas as well (--schemas is repeatable), or export the data first")
            } else {
                try connection.execute("DROP TABLE IF EXISTS \(pgQuote(table + "__occurrences")), \(pgQuote(table + "__occurrences_series")), \(pgQuote(table)) CASCADE")
                try connection.run("DELETE FROM _columns WHERE tbl = ?", [.text(table)])
            }
        }
        guard problems.isEmpty else {
            throw StoreError(.destructiveMigration, "the schema change would lose data, so nothing was changed:\n  - " + problems.joined(separator: "\n  - "))
        }
        try connection.run("INSERT INTO _cometcal_schema (key, value) VALUES ('format', ?), ('layout', ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                           [.text(String(PGMigrator.formatVersion)), .text(fingerprint)])
    }

    /// `simple` with `unaccent` before it, and `btree_gin` (the owner in the search vector's
    /// GIN index). Both are trusted extensions (PostgreSQL 13 on): a database owner may create
    /// them; they ship in the server package (postgresql-15).
    private func createSearchConfiguration() throws {
        try connection.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        try connection.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
        guard try connection.scalar("SELECT 1 FROM pg_ts_config WHERE cfgname = '\(PGLayout.searchConfiguration)'") == nil else { return }
        try connection.execute("""
            CREATE TEXT SEARCH CONFIGURATION \(PGLayout.searchConfiguration) (COPY = simple);
            ALTER TEXT SEARCH CONFIGURATION \(PGLayout.searchConfiguration)
                ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple;
            """)
    }

    private func createSystemTables() throws {
        let owner = "owner text COLLATE \"C\" NOT NULL"
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS _cometcal_schema (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);
            CREATE TABLE IF NOT EXISTS _columns (tbl text COLLATE "C" NOT NULL, col text COLLATE "C" NOT NULL, signature text NOT NULL, PRIMARY KEY (tbl, col));
            CREATE TABLE IF NOT EXISTS _meta (\(owner), key text COLLATE "C" NOT NULL, value text NOT NULL, PRIMARY KEY (owner, key));
            -- Per owner: the change feed's head, and how many write transactions committed (othersVersion).
            CREATE TABLE IF NOT EXISTS _counters (\(owner), name text COLLATE "C" NOT NULL, value bigint NOT NULL, PRIMARY KEY (owner, name));
            CREATE TABLE IF NOT EXISTS _journal (
                \(owner),
                seq bigint GENERATED ALWAYS AS IDENTITY,
                state text NOT NULL CHECK (state IN ('done', 'undone')),
                intent text NOT NULL,
                summary text NOT NULL,
                created text NOT NULL,
                changes text NOT NULL,
                change_count integer NOT NULL,
                PRIMARY KEY (owner, seq)
            );
            CREATE INDEX IF NOT EXISTS _journal_undone ON _journal (owner, seq) WHERE state = 'undone';
            CREATE TABLE IF NOT EXISTS _alarms_fired (
                \(owner),
                record text COLLATE "C" NOT NULL,
                occurrence bigint NOT NULL,
                trigger_at bigint NOT NULL,
                fired_at bigint NOT NULL,
                late boolean NOT NULL,
                PRIMARY KEY (owner, record, occurrence, trigger_at)
            );
            CREATE TABLE IF NOT EXISTS _alarms_snoozed (
                \(owner),
                record text COLLATE "C" NOT NULL,
                occurrence bigint NOT NULL,
                trigger_at bigint NOT NULL,
                occurrence_text text NOT NULL,
                PRIMARY KEY (owner, record, occurrence, trigger_at)
            );
            CREATE TABLE IF NOT EXISTS _changes (
                \(owner),
                seq bigint NOT NULL,
                entity text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                gone text,
                PRIMARY KEY (owner, entity, id)
            );
            CREATE INDEX IF NOT EXISTS _changes_seq ON _changes (owner, seq);
            CREATE INDEX IF NOT EXISTS _changes_gone ON _changes (owner, seq) WHERE gone IS NOT NULL;
            """)
        for table in PGMigrator.ownedSystemTables { try secure(table) }
    }

    /// Row-level security, the second line behind every query's own `owner = …`: ENABLE and
    /// FORCE (the tables' owner is held to it too; superusers and BYPASSRLS roles are not).
    private func secure(_ table: String) throws {
        let policy = "owner = current_setting('\(PostgresStore.ownerSetting)', true)"
        try connection.execute("""
            ALTER TABLE \(pgQuote(table)) ENABLE ROW LEVEL SECURITY;
            ALTER TABLE \(pgQuote(table)) FORCE ROW LEVEL SECURITY;
            DROP POLICY IF EXISTS cometcal_owner ON \(pgQuote(table));
            CREATE POLICY cometcal_owner ON \(pgQuote(table)) USING (\(policy)) WITH CHECK (\(policy));
            """)
    }

    private func create(_ layout: PGLayout) throws {
        try connection.execute(layout.createStatement)
        for column in layout.columns {
            if let key = layout.foreignKey(column) { try connection.execute(key) }
            try note(column, of: layout)
        }
        for statement in layout.indexStatements { try connection.execute(statement) }
        try secure(layout.table)
        try createOccurrenceTables(layout)
    }

    private func note(_ column: PGColumn, of layout: PGLayout) throws {
        try connection.run("INSERT INTO _columns (tbl, col, signature) VALUES (?, ?, ?) ON CONFLICT (tbl, col) DO UPDATE SET signature = EXCLUDED.signature",
                           [.text(layout.table), .text(column.column), .text(column.signature)])
    }

    private func migrate(_ layout: PGLayout, known: [String: String]) throws -> [String] {
        var problems: [String] = []
        let table = pgQuote(layout.table)
        let rows = try connection.scalarInteger("SELECT count(*) FROM \(table)") ?? 0
        let entityName = layout.entity.name.description
        for column in layout.columns {
            let targets = [column.column] + (column.keyColumn.map { [$0] } ?? [])
            guard let signature = known[column.column] else {
                if column.property.isRequired, column.property.defaultValue == nil, rows > 0 {
                    problems.append("new required property '\(entityName).\(column.column)' has no default, and \(rows) existing row(s) would have no value; give it a default ('= …') or make it optional ('?')")
                    continue
                }
                try connection.execute("ALTER TABLE \(table) ADD COLUMN \(layout.columnDefinition(column))")
                if let key = column.keyColumn { try connection.execute("ALTER TABLE \(table) ADD COLUMN \(pgQuote(key)) bigint") }
                if let foreignKey = layout.foreignKey(column) { try connection.execute(foreignKey) }
                if let defaultValue = column.property.defaultValue, rows > 0 {
                    try connection.run("UPDATE \(table) SET \(targets.map { "\(pgQuote($0)) = ?" }.joined(separator: ", "))", coding.values(defaultValue, for: column))
                }
                try note(column, of: layout)
                continue
            }
            if signature == column.signature { continue }
            let filled = try connection.scalarInteger("SELECT count(*) FROM \(table) WHERE \(pgQuote(column.column)) IS NOT NULL") ?? 0
            let oldType = signature.split(separator: "|").first.map(String.init) ?? signature
            let sameBase = oldType.replacingOccurrences(of: "?", with: "") == column.property.type.description.replacingOccurrences(of: "?", with: "")
            if sameBase {
                if column.property.isRequired, rows > filled {
                    guard let defaultValue = column.property.defaultValue else {
                        problems.append("'\(entityName).\(column.column)' became required, but \(rows - filled) row(s) have no value; give it a default or keep it optional")
                        continue
                    }
                    try connection.run("UPDATE \(table) SET \(targets.map { "\(pgQuote($0)) = ?" }.joined(separator: ", ")) WHERE \(pgQuote(column.column)) IS NULL",
                                       coding.values(defaultValue, for: column))
                }
                try note(column, of: layout)
            } else if filled > 0 {
                problems.append("'\(entityName).\(column.column)' changed type from '\(oldType)' to '\(column.property.type)', and \(filled) row(s) hold values; keep the old type, or add a new property and move the data")
            } else {
                try connection.execute("ALTER TABLE \(table) " + targets.map { "DROP COLUMN IF EXISTS \(pgQuote($0)) CASCADE" }.joined(separator: ", "))
                try connection.execute("ALTER TABLE \(table) ADD COLUMN \(layout.columnDefinition(column))")
                if let key = column.keyColumn { try connection.execute("ALTER TABLE \(table) ADD COLUMN \(pgQuote(key)) bigint") }
                if let foreignKey = layout.foreignKey(column) { try connection.execute(foreignKey) }
                try note(column, of: layout)
            }
        }
        let wanted = Set(layout.columns.map(\.column))
        for (column, _) in known where !wanted.contains(column) {
            let filled = try connection.scalarInteger("SELECT count(*) FROM \(table) WHERE \(pgQuote(column)) IS NOT NULL") ?? 0
            if filled > 0 {
                problems.append("property '\(entityName).\(column)' was removed from the schema, but \(filled) row(s) hold values; restore it, or export the data first")
            } else {
                try connection.execute("ALTER TABLE \(table) DROP COLUMN IF EXISTS \(pgQuote(column)) CASCADE, DROP COLUMN IF EXISTS \(pgQuote(column + "__key")) CASCADE")
                try connection.run("DELETE FROM _columns WHERE tbl = ? AND col = ?", [.text(layout.table), .text(column)])
            }
        }
        try refreshSearch(layout)
        for statement in layout.indexStatements { try connection.execute(statement) }
        try createOccurrenceTables(layout)
        return problems
    }

    /// The search vectors are derived data: computed again for every row when the searchable
    /// properties change (or the entity becomes searchable), dropped when none is left.
    private func refreshSearch(_ layout: PGLayout) throws {
        let key = "search:" + layout.table
        let wanted = layout.entity.searchableProperties.map(\.name).joined(separator: ",")
        let current = try connection.scalar("SELECT value FROM _cometcal_schema WHERE key = ?", [.text(key)])
        let column = pgQuote(PGLayout.searchColumn)
        if current == wanted, layout.isSearchable == (try hasColumn(PGLayout.searchColumn, layout.table)) { return }
        try connection.execute("ALTER TABLE \(pgQuote(layout.table)) DROP COLUMN IF EXISTS \(column)")
        if layout.isSearchable {
            try connection.execute("ALTER TABLE \(pgQuote(layout.table)) ADD COLUMN \(column) tsvector")
            var records: [(String, EntityRecord)] = []
            try connection.query("SELECT owner, \(layout.selectList) FROM \(pgQuote(layout.table))") { row in
                records.append((row.text(0) ?? "", try coding.record(from: row, layout: layout, offset: 1)))
            }
            for (owner, record) in records {
                try connection.run("UPDATE \(pgQuote(layout.table)) SET \(column) = to_tsvector('\(PGLayout.searchConfiguration)', ?) WHERE owner = ? AND id = ?",
                                   [.text(layout.searchText(of: record)), .text(owner), .text(record.id.lowercasedText)])
            }
        }
        try connection.run("INSERT INTO _cometcal_schema (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                           [.text(key), .text(wanted)])
    }

    private func hasColumn(_ column: String, _ table: String) throws -> Bool {
        try connection.scalar("SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? AND column_name = ?",
                              [.text(table), .text(column)]) != nil
    }

    private func createOccurrenceTables(_ layout: PGLayout) throws {
        let key = "search:" + layout.table
        try connection.run("INSERT INTO _cometcal_schema (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                           [.text(key), .text(layout.entity.searchableProperties.map(\.name).joined(separator: ","))])
        guard let occurrences = layout.occurrenceTable else { return }
        let owner = "owner text COLLATE \"C\" NOT NULL"
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(pgQuote(occurrences)) (
                \(owner),
                entity_id text COLLATE "C" NOT NULL,
                start_key bigint NOT NULL,
                end_key bigint NOT NULL,
                floating boolean NOT NULL,
                series_uid text COLLATE "C",
                original_key bigint NOT NULL,
                is_override boolean NOT NULL,
                -- An instance generated from the series' rule (not a single event or an override).
                is_instance boolean NOT NULL,
                -- True when an override stands in for this row: kept up to date on every write.
                overridden boolean NOT NULL DEFAULT false,
                PRIMARY KEY (owner, start_key, entity_id, original_key)
            );
            CREATE INDEX IF NOT EXISTS \(pgQuote(occurrences + "__entity")) ON \(pgQuote(occurrences)) (owner, entity_id);
            CREATE INDEX IF NOT EXISTS \(pgQuote(occurrences + "__series")) ON \(pgQuote(occurrences)) (owner, series_uid, is_override, original_key);
            -- The longest occurrence (how far back a range query looks) is read from its end.
            CREATE INDEX IF NOT EXISTS \(pgQuote(occurrences + "__length")) ON \(pgQuote(occurrences)) (owner, (end_key - start_key));
            CREATE TABLE IF NOT EXISTS \(pgQuote(occurrences + "_series")) (
                \(owner),
                entity_id text COLLATE "C" NOT NULL,
                first_key bigint NOT NULL,
                last_key bigint,
                -- A series with more instances in the window than are materialized: none stored.
                dense boolean NOT NULL DEFAULT false,
                PRIMARY KEY (owner, entity_id)
            );
            -- Inside the window only dense series are expanded: every range query asks for them.
            CREATE INDEX IF NOT EXISTS \(pgQuote(occurrences + "_series__dense")) ON \(pgQuote(occurrences + "_series")) (owner, first_key) WHERE dense;
            """)
        try secure(occurrences)
        try secure(occurrences + "_series")
        try connection.run("INSERT INTO _cometcal_schema (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                           [.text("occurrences:" + occurrences), .text(PGMigrator.occurrenceFormat)])
    }
}
