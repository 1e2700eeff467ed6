import Testing
import Foundation
import CSQLite
import CometSchema
import CometStore
import CometIntents

/// The materialization threshold (`OccurrenceWindow.maximumInstancesPerSeries`, docs/engine.md): a
/// series with up to 10,000 instances in the window has a row per instance; one with more is
/// marked dense, has none, and is expanded over each query's range instead. Both answer the same.
@Suite("Dense series")
struct DenseSeriesTests {
    static func hourly(uid: String, count: Int) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T000000Z\r\n"
            + "DTSTART:20260610T000000Z\r\nDTEND:20260610T001000Z\r\nSUMMARY:\(uid)\r\nRRULE:FREQ=HOURLY;COUNT=\(count)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    /// (occurrence rows, dense flag) of the series with this title, read from the store file.
    static func rows(_ session: Corpus.Session, title: String) throws -> (rows: Int, dense: Int) {
        var database: OpaquePointer?
        let path = session.directory.appendingPathComponent("store.sqlite").path
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw Failure(message: "cannot open \(path)") }
        defer { sqlite3_close(database) }
        func integer(_ sql: String) throws -> Int {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { throw Failure(message: String(cString: sqlite3_errmsg(database))) }
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(message: "no row: \(sql)") }
            return Int(sqlite3_column_int64(statement, 0))
        }
        let id = "(SELECT id FROM \"calendar__Event\" WHERE title = '\(title)')"
        return (try integer("SELECT count(*) FROM \"calendar__Event__occurrences\" WHERE entity_id = \(id)"),
                try integer("SELECT dense FROM \"calendar__Event__occurrences_series\" WHERE entity_id = \(id)"))
    }

    struct Failure: Error { let message: String }

    @Test("10,000 instances in the window are materialized; 10,001 make the series dense, and both list the same June")
    func threshold() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        #expect(session.importText(Self.hourly(uid: "at-limit", count: 10_000), name: "a.ics").added == 1)
        #expect(session.importText(Self.hourly(uid: "past-limit", count: 10_001), name: "b.ics").added == 1)
        let atLimit = try Self.rows(session, title: "at-limit")
        let pastLimit = try Self.rows(session, title: "past-limit")
        #expect(atLimit.rows == 10_000 && atLimit.dense == 0, "\(atLimit)")
        #expect(pastLimit.rows == 0 && pastLimit.dense == 1, "\(pastLimit)")
        let june = try OverriddenOccurrenceTests.june(session.engine)
        let starts = { (title: String) in june.filter { $0.hasSuffix(" " + title) }.map { $0.split(separator: " ")[0] } }
        #expect(starts("at-limit").count == 20 * 24 + 22, "June 10 00:00 to June 30 22:00 UTC (July 1 in Berlin): \(starts("at-limit").count)")
        #expect(starts("past-limit") == starts("at-limit"), "a dense series lists the instances a materialized one does")
    }
}

/// The two inputs the import fuzz target timed out on (Tests/Fixtures/fuzz): imported into a
/// store, their rules with tens of thousands of instances are dense, so the import stores a
/// bounded number of rows.
@Suite("Import timeout findings")
struct ImportTimeoutFindingTests {
    @Test("each import-timeout finding imports with every series under the threshold materialized and the rest dense",
          arguments: ["import-timeout-rfc-examples.ics", "import-timeout-materialization.ics"])
    func imports(name: String) throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let data = try Data(contentsOf: FuzzFindingTests.fixtures.appendingPathComponent(name))
        let started = Date()
        let report = session.engine.importCalendars([ImportSource(name: name, text: String(decoding: data, as: UTF8.self), registry: Corpus.registry)],
                                                    options: ImportOptions(skipInvalid: true))
        // A hang guard, not a speed test (scripts/bench measures speed): before the threshold was
        // lowered, these materialized hundreds of thousands of rows.
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(report.written && report.added > 0, "\(report.problems)")
        var database: OpaquePointer?
        #expect(sqlite3_open_v2(session.directory.appendingPathComponent("store.sqlite").path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close(database) }
        func integer(_ sql: String) -> Int {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { return -1 }
            defer { sqlite3_finalize(statement) }
            return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : -1
        }
        let largest = integer("SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM \"calendar__Event__occurrences\" GROUP BY entity_id)")
        #expect(largest >= 0 && largest <= 10_000, "the most rows one record has: \(largest) (added \(report.added), \(report.warnings.count) warnings)")
        #expect(integer("SELECT count(*) FROM \"calendar__Event__occurrences_series\" WHERE dense = 1") >= 1, "a series past the threshold is dense")
    }
}
