import Testing
import Foundation
import CSQLite
import CLibical
import CLibPQ

/// The system libraries the bootstrap installs are present, linkable and working.
@Suite("System libraries")
struct SystemLibraryTests {
    @Test("SQLite is linked and has FTS5")
    func sqliteHasFTS5() throws {
        #expect(sqlite3_libversion_number() >= 3_035_000)
        var db: OpaquePointer?
        #expect(sqlite3_open(":memory:", &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        let rc = sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(body)", nil, nil, nil)
        #expect(rc == SQLITE_OK)
    }

    @Test("libical parses a VEVENT and resolves an IANA zone from tzdata")
    func libicalParsesWithZones() throws {
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;TZID=Europe/Berlin:20260615T080000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let component = try #require(icalparser_parse_string(text))
        defer { icalcomponent_free(component) }
        #expect(icalcomponent_count_errors(component) == 0)
        let zone = icaltimezone_get_builtin_timezone("Europe/Berlin")
        #expect(zone != nil, "tzdata is missing: install the 'tzdata' package")
    }

    @Test("libpq is linked and is 13 or newer; a connection to no server fails with its reason, not a crash")
    func libpqLinked() throws {
        #expect(PQlibVersion() >= 130_000)
        let connection = PQconnectdb("host=/nonexistent-cometcal-socket-folder dbname=none connect_timeout=1")
        defer { PQfinish(connection) }
        #expect(PQstatus(connection) == CONNECTION_BAD)
        #expect(String(cString: PQerrorMessage(connection)).contains("/nonexistent-cometcal-socket-folder"))
    }
}
