import Foundation
import CometSchema
import CSQLite
import CometText

/// A plain SQLite table shaped like an event row (text columns for the structured values, an
/// indexed start key), with as many rows as the store has events, plus an FTS5 table over the
/// searchable text. Same journal mode (WAL) and synchronous level (NORMAL) as the store, in a
/// file next to it, so the comparison is fair.
final class ReferenceDatabase {
    let database: RawDatabase
    let path: String
    /// Row ids and ids of the rows (for picking update and delete targets).
    private(set) var ids: [String] = []
    private var rows: ReferenceRows

    static let columns = "id, title, start, start_key, end, end_key, tz, calendar, location, note, attendees, alarms, recurrence, status"

    init(path: String, rows count: Int, run: BenchRun) throws {
        self.path = path
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        database = try RawDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute("""
            CREATE TABLE ref_event (
                id TEXT PRIMARY KEY NOT NULL, title TEXT, start TEXT, start_key INTEGER, "end" TEXT, end_key INTEGER,
                tz TEXT, calendar TEXT, location TEXT, note TEXT, attendees TEXT, alarms TEXT, recurrence TEXT, status TEXT);
            CREATE INDEX ref_event_start ON ref_event(start_key);
            CREATE VIRTUAL TABLE ref_search USING fts5(title, note, location, attendees, tokenize = 'unicode61 remove_diacritics 2');
            """)
        rows = try ReferenceRows(run: run)
        let insert = try database.prepare("INSERT INTO ref_event (\(ReferenceDatabase.columns.replacingOccurrences(of: "end,", with: "\"end\","))) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let index = try database.prepare("INSERT INTO ref_search (rowid, title, note, location, attendees) VALUES (?, ?, ?, ?, ?)")
        try database.execute("BEGIN")
        for _ in 0..<count {
            let row = try rows.next()
            insert.reset()
            row.bind(to: insert)
            try insert.run()
            let rowid = sqlite3_last_insert_rowid(database.handle)
            index.reset()
            index.bind(1, rowid)
            index.bind(2, row.title)
            index.bind(3, row.note)
            index.bind(4, row.searchLocation)
            index.bind(5, row.searchAttendees)
            try index.run()
            ids.append(row.id)
        }
        try database.execute("COMMIT")
        try database.execute("ANALYZE")
    }

    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func nextRow() throws -> ReferenceRow { try rows.next() }

    func removeID(at index: Int) {
        ids.swapAt(index, ids.count - 1)
        ids.removeLast()
    }

    func addID(_ id: String) { ids.append(id) }
}

/// One row of the reference table: the event's values as the store would write them (RFC 9557
/// date-time text and keys, compact JSON for structured values).
struct ReferenceRow {
    let id: String
    let title: String
    let start: String
    let startKey: Int64
    let end: String?
    let endKey: Int64?
    let timeZone: String?
    let calendar: String
    let location: String?
    let note: String?
    let attendees: String?
    let alarms: String?
    let recurrence: String?
    let status: String?
    /// Text for the FTS table.
    let searchLocation: String?
    let searchAttendees: String?

    func bind(to statement: RawStatement) {
        statement.bind(1, id)
        statement.bind(2, title)
        statement.bind(3, start)
        statement.bind(4, startKey)
        statement.bind(5, end)
        if let endKey { statement.bind(6, endKey) } else { statement.bind(6, nil as String?) }
        statement.bind(7, timeZone)
        statement.bind(8, calendar)
        statement.bind(9, location)
        statement.bind(10, note)
        statement.bind(11, attendees)
        statement.bind(12, alarms)
        statement.bind(13, recurrence)
        statement.bind(14, status)
    }
}

/// Reference rows from the same generator as the events (its own stream), encoded once.
struct ReferenceRows {
    private var generator: EventGenerator
    private let registry: Registry

    init(run: BenchRun) throws {
        registry = run.registry
        let calendars = (0..<3).map { UUID(uuid: (UInt8($0), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        generator = EventGenerator(frame: run.frame, calendars: calendars, recurringPercent: run.options.recurringPercent,
                                   random: SplitMix64(seed: run.options.seed, stream: "reference-rows"))
    }

    mutating func next() throws -> ReferenceRow {
        let event = try generator.next()
        let parameters = event.parameters
        func value(_ name: String) -> Value? { parameters[name].value }
        func json(_ name: String) -> String? { value(name).map { JSONWriter.compact(registry.encode($0)) } }
        guard case .dateTime(let start)? = value("startDate"), case .string(let title)? = value("title"),
              case .reference(let calendar)? = value("calendar") else {
            throw BenchError("generated event without title, start or calendar")
        }
        var end: DateTimeValue?
        if case .dateTime(let found)? = value("endDate") { end = found }
        var note: String?
        if case .string(let text)? = value("note") { note = text }
        var searchLocation: String?
        if case .union(_, let payload)? = value("location") {
            switch payload {
            case .string(let text): searchLocation = text
            case .place(let place): searchLocation = place.displayText
            default: break
            }
        }
        var searchAttendees: String?
        if case .array(let items)? = value("attendees") {
            searchAttendees = items.compactMap { item -> String? in
                if case .object(let properties) = item, case .person(let person)? = properties["person"] { return person.displayText }
                return nil
            }.joined(separator: " ")
        }
        var status: String?
        if case .enumCase(let name)? = value("status") { status = name }
        return ReferenceRow(
            id: UUID().uuidString.lowercased(), title: title, start: start.description, startKey: start.sortKey,
            end: end?.description, endKey: end?.sortKey, timeZone: start.timeZoneIdentifier, calendar: calendar.uuidString.lowercased(),
            location: json("location"), note: note, attendees: json("attendees"), alarms: json("alarms"),
            recurrence: value("recurrence").map { if case .recurrence(let rule) = $0 { return rule.description } else { return "" } },
            status: status, searchLocation: searchLocation, searchAttendees: searchAttendees)
    }
}

/// The raw SQLite references: what the store's work costs at the least.
enum SQLiteReferences {
    static let all: [Reference] = [insert, update, delete, month, search]

    static let insert = Reference(
        name: "sqlite-insert", label: "raw SQLite insert+commit",
        summary: "BEGIN IMMEDIATE; prepared INSERT of one event-like row (14 columns, PK + start index); COMMIT"
    ) { run in
        let reference = try run.references()
        let database = reference.database
        let statement = try database.prepare("INSERT INTO ref_event (\(ReferenceDatabase.columns.replacingOccurrences(of: "end,", with: "\"end\","))) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        let begin = try database.prepare("BEGIN IMMEDIATE")
        let commit = try database.prepare("COMMIT")
        return { measurement in
            let row = try reference.nextRow()
            let (_, timing) = try Stopwatch.time {
                try begin.run()
                statement.reset()
                row.bind(to: statement)
                try statement.run()
                try commit.run()
            }
            reference.addID(row.id)
            measurement.add(timing)
        }
    }

    static let update = Reference(
        name: "sqlite-update", label: "raw SQLite update+commit",
        summary: "BEGIN IMMEDIATE; UPDATE title and location of a random row by primary key; COMMIT"
    ) { run in
        let reference = try run.references()
        let database = reference.database
        let statement = try database.prepare("UPDATE ref_event SET title = ?, location = ? WHERE id = ?")
        let begin = try database.prepare("BEGIN IMMEDIATE")
        let commit = try database.prepare("COMMIT")
        var random = SplitMix64(seed: run.options.seed, stream: "sqlite-update")
        return { measurement in
            let id = reference.ids[random.int(0...(reference.ids.count - 1))]
            let title = random.pick(EventGenerator.titles) + " (moved)"
            let location = "{\"text\":\"\(random.pick(EventGenerator.textLocations))\"}"
            let (_, timing) = try Stopwatch.time {
                try begin.run()
                statement.reset()
                statement.bind(1, title)
                statement.bind(2, location)
                statement.bind(3, id)
                try statement.run()
                try commit.run()
            }
            measurement.add(timing)
        }
    }

    static let delete = Reference(
        name: "sqlite-delete", label: "raw SQLite delete+commit",
        summary: "BEGIN IMMEDIATE; DELETE a random row by primary key; COMMIT"
    ) { run in
        let reference = try run.references()
        let database = reference.database
        let statement = try database.prepare("DELETE FROM ref_event WHERE id = ?")
        let begin = try database.prepare("BEGIN IMMEDIATE")
        let commit = try database.prepare("COMMIT")
        var random = SplitMix64(seed: run.options.seed, stream: "sqlite-delete")
        return { measurement in
            let index = random.int(0...(reference.ids.count - 1))
            let id = reference.ids[index]
            let (_, timing) = try Stopwatch.time {
                try begin.run()
                statement.reset()
                statement.bind(1, id)
                try statement.run()
                try commit.run()
            }
            reference.removeID(at: index)
            measurement.add(timing)
        }
    }

    static let month = Reference(
        name: "sqlite-month", label: "raw SQLite month range select",
        summary: "SELECT every column of the rows starting in one month (indexed start key), read into Swift values"
    ) { run in
        let reference = try run.references()
        let statement = try reference.database.prepare("SELECT \(ReferenceDatabase.columns.replacingOccurrences(of: "end,", with: "\"end\",")) FROM ref_event WHERE start_key >= ? AND start_key < ? ORDER BY start_key")
        var months = SplitMix64(seed: run.options.seed, stream: "agenda-months")
        let columns = statement.columnCount
        return { measurement in
            let bounds = try run.frame.monthBounds(months.pick(run.frame.months))
            var rows = 0
            let (_, timing) = try Stopwatch.time {
                statement.reset()
                statement.bind(1, bounds.from.sortKey)
                statement.bind(2, bounds.to.sortKey)
                var texts: [String?] = []
                while try statement.step() {
                    texts.removeAll(keepingCapacity: true)
                    for column in 0..<columns where column != 3 && column != 5 { texts.append(statement.text(column)) }
                    _ = statement.int64(3)
                    rows += 1
                }
                withExtendedLifetime(texts) {}
            }
            measurement.add(timing, rows: rows)
        }
    }

    static let search = Reference(
        name: "sqlite-fts", label: "raw SQLite FTS5 search",
        summary: "FTS5 MATCH '\"lunch\"*' ORDER BY bm25 LIMIT 200, then each row by rowid, read into Swift values"
    ) { run in
        let reference = try run.references()
        let database = reference.database
        let match = try database.prepare("SELECT rowid FROM ref_search WHERE ref_search MATCH ? ORDER BY bm25(ref_search) LIMIT 200")
        let row = try database.prepare("SELECT \(ReferenceDatabase.columns.replacingOccurrences(of: "end,", with: "\"end\",")) FROM ref_event WHERE rowid = ?")
        let columns = row.columnCount
        return { measurement in
            var rows = 0
            let (_, timing) = try Stopwatch.time {
                match.reset()
                match.bind(1, "\"lunch\"*")
                var rowids: [Int64] = []
                while try match.step() { rowids.append(match.int64(0)) }
                var texts: [String?] = []
                for rowid in rowids {
                    row.reset()
                    row.bind(1, rowid)
                    if try row.step() {
                        texts.removeAll(keepingCapacity: true)
                        for column in 0..<columns { texts.append(row.text(column)) }
                        rows += 1
                    }
                }
                withExtendedLifetime(texts) {}
            }
            measurement.add(timing, rows: rows)
        }
    }
}
