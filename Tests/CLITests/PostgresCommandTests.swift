import Testing
import Foundation
import CometSchema
import PostgresTestSupport

/// The command line on a PostgreSQL store: `--db postgresql:///DB?host=SOCKETFOLDER` against the
/// test process's private cluster (`PostgresCluster`), a database of its own per test.
@Suite("PostgreSQL through the command line")
final class PostgresCommandTests {
    let cluster: PostgresCluster
    let database: String
    let scratch: ScratchDirectory

    init() throws {
        cluster = try PostgresCluster.shared.get()
        database = try cluster.newDatabase("cli" + UUID().uuidString)
        scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
    }

    deinit { cluster.dropDatabase(database) }

    private func cometcal(_ arguments: [String], owner: String? = nil) throws -> CLIResult {
        try CLIRunner.run(["--db", cluster.address(database: database, owner: owner)] + arguments,
                          environment: ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"], currentDirectory: scratch.url)
    }

    @Test("an event added through --db postgresql:///DB?host=… is there for the next command: search finds it and undo takes it back")
    func addFindUndo() throws {
        let added = try cometcal(["event", "add", "Picnic in the park", "--start", "2026-06-13T12:00"])
        #expect(added.status == 0, "\(added.stderr)")
        // The first use makes the tables; the server's notices about it are not the user's to read.
        #expect(!added.stderr.contains("NOTICE"), "\(added.stderr)")
        let found = try cometcal(["search", "picnic"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("Picnic in the park"), "\(found.stdout)")
        // Accents are ignored by the search (unaccent): "pícnic" finds "Picnic"; every word
        // must match, as a prefix.
        #expect(try cometcal(["search", "pícnic"]).stdout.contains("Picnic in the park"))
        #expect(try cometcal(["search", "pic par"]).stdout.contains("Picnic in the park"))
        #expect(!(try cometcal(["search", "picnic zoo"]).stdout.contains("Picnic in the park")))
        let undone = try cometcal(["undo"])
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(!(try cometcal(["search", "picnic"]).stdout.contains("Picnic in the park")))
        // Nothing was written beside the command: the store is the database.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test("migrate copies a store file into an empty PostgreSQL database and back: the same export bytes each way, the undo history with it, redo working on the copy; a database that already holds a store is refused")
    func migrateBothWays() throws {
        let file = scratch.url.appendingPathComponent("source.sqlite").path
        func local(_ arguments: [String], _ path: String = file) throws -> CLIResult {
            try CLIRunner.run(["--db", path] + arguments, environment: ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"], currentDirectory: scratch.url)
        }
        #expect(try local(["calendar", "add", "Work"]).status == 0)
        #expect(try local(["event", "add", "Standup", "--start", "2026-06-01T09:00", "--repeat", "FREQ=WEEKLY;BYDAY=MO", "--calendar", "Work"]).status == 0)
        #expect(try local(["event", "add", "Café with Zoë", "--start", "2026-06-12T15:00", "--note", "bring the \"map\""]).status == 0)
        #expect(try local(["event", "add", "Dentist", "--start", "2026-06-10T10:00"]).status == 0)
        #expect(try local(["undo"]).status == 0)
        let address = cluster.address(database: database, owner: nil)
        let there = try local(["migrate", "--to", address])
        #expect(there.status == 0, "\(there.stderr)")
        #expect(there.stdout.contains("Checked: both stores export the same"), "\(there.stdout)")
        let original = try local(["export"]).stdout
        #expect(try cometcal(["export"]).stdout == original)
        #expect(try cometcal(["history"]).stdout.contains("(undone)"))
        let back = scratch.url.appendingPathComponent("back.sqlite").path
        let returned = try cometcal(["migrate", "--to", back])
        #expect(returned.status == 0, "\(returned.stderr)")
        #expect(try local(["export"], back).stdout == original)
        #expect(try cometcal(["redo"]).stdout.contains("Dentist"))
        // Into a database that holds a store already: refused, and nothing in it changes.
        let again = try local(["migrate", "--to", address])
        #expect(again.status == 65, "\(again.stderr)")
        #expect(again.stderr.contains("the destination is not empty"), "\(again.stderr)")
        #expect(try cometcal(["search", "Dentist"]).stdout.contains("Dentist"))
    }

    @Test("a command that only reads, on a database with no store yet, says so (66) and creates no table; a write then makes the store")
    func readsCreateNothing() throws {
        let agenda = try cometcal(["agenda"])
        #expect(agenda.status == 66, "\(agenda.stderr)")
        #expect(agenda.stderr.contains("there is no CometCal store in the database at"), "\(agenda.stderr)")
        #expect(try cluster.administer("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: database) == "0")
        #expect(try cometcal(["calendar", "add", "Work"]).status == 0)
        #expect(try cometcal(["agenda"]).status == 0)
    }

    @Test("two owners named by cometcal_user in one database each see only their own events")
    func ownersApart() throws {
        #expect(try cometcal(["event", "add", "Alice's dentist", "--start", "2026-06-13T09:00"], owner: "alice").status == 0)
        #expect(try cometcal(["event", "add", "Bob's football", "--start", "2026-06-13T18:00"], owner: "bob").status == 0)
        let alice = try cometcal(["search", "dentist"], owner: "alice").stdout
        #expect(alice.contains("Alice's dentist"))
        #expect(!(try cometcal(["search", "dentist"], owner: "bob").stdout.contains("Alice's dentist")))
        #expect(!(try cometcal(["search", "football"], owner: "alice").stdout.contains("Bob's football")))
        #expect(try cometcal(["search", "football"], owner: "bob").stdout.contains("Bob's football"))
    }

    @Test("backup and restore of a PostgreSQL store are refused, pointing at pg_dump and pg_restore, and write no file")
    func backupRefused() throws {
        #expect(try cometcal(["calendar", "add", "Work"]).status == 0)
        let target = scratch.url.appendingPathComponent("copy.sqlite").path
        let backup = try cometcal(["backup", target])
        #expect(backup.status == 74, "\(backup.stderr)")
        #expect(backup.stderr.contains("pg_dump"), "\(backup.stderr)")
        let restore = try cometcal(["restore", target, "--yes"])
        #expect(restore.status != 0)
        #expect(restore.stderr.contains("pg_restore"), "\(restore.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("cometcald on a database serves CalDAV users from it: the owner's calendars are the daemon's rows, another user's are that user's rows in the same database, and no users/ folder is made")
    func caldavUsersInOneDatabase() throws {
        let users = scratch.url.appendingPathComponent("users-file").path
        for name in ["alice", "bob"] {
            let added = try CLIRunner.run(["user", "add", name, "--users", users], stdin: "pw-\(name)\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        let daemon = try DaemonHarness(arguments: ["--caldav", "127.0.0.1:0", "--users", users, "--caldav-owner", "alice"],
                                       store: cluster.address(database: database, owner: "alice"))
        let bound = try CalDAVRequest.port(of: daemon)
        func request(_ method: String, _ path: String, _ user: String) throws -> Int { try CalDAVRequest.status(bound, method, path, user) }
        #expect(try request("MKCALENDAR", "/dav/calendars/alice/Work/", "alice") == 201)
        #expect(try request("MKCALENDAR", "/dav/calendars/bob/Garden/", "bob") == 201)
        #expect(try request("PROPFIND", "/dav/calendars/alice/", "bob") == 403)
        let alices = try cometcal(["calendar", "list"], owner: "alice").stdout
        #expect(alices.contains("Work") && !alices.contains("Garden"), "\(alices)")
        let bobs = try cometcal(["calendar", "list"], owner: "bob").stdout
        #expect(bobs.contains("Garden") && !bobs.contains("Work"), "\(bobs)")
        #expect(!FileManager.default.fileExists(atPath: daemon.directory.appendingPathComponent("users").path))
        #expect(daemon.stop() == 0)
    }

    @Test("an import whose commit gets no answer (the database goes away during it) says written: null, that it may or may not have been kept, and exits 74; text output points at history")
    func importOutcomeUnknown() throws {
        #expect(try cometcal(["event", "add", "Picnic", "--start", "2026-06-13T12:00"]).status == 0)
        // A deferred trigger runs at COMMIT: for a calendar titled "Doomed", it ends its own
        // connection there, so the COMMIT is sent and its answer never comes.
        try cluster.administer("""
            CREATE FUNCTION end_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.title = 'Doomed' THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF; RETURN NEW; END $$;
            CREATE CONSTRAINT TRIGGER end_at_commit AFTER INSERT ON "calendar__Calendar" DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION end_at_commit();
            """, database: database)
        let file = scratch.url.appendingPathComponent("doomed.ics")
        try ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Doomed\r\nBEGIN:VEVENT\r\nUID:doomed@example.com\r\n"
             + "DTSTAMP:20260601T000000Z\r\nDTSTART:20260613T190000Z\r\nSUMMARY:Launch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").write(to: file, atomically: true, encoding: .utf8)
        let json = try cometcal(["import", "--json", file.path])
        #expect(json.status == 74, "\(json.stdout)\n\(json.stderr)")
        let report = try JSONParser.parse(json.stdout)
        #expect(report["written"] == .null, "\(report)")
        guard case .array(let problems)? = report["problems"] else { Issue.record("\(report)"); return }
        #expect(problems.first?["message"]?.stringValue?.contains("went away during the commit: the change may or may not have been kept") == true, "\(problems)")
        let text = try cometcal(["import", file.path])
        #expect(text.status == 74)
        #expect(text.stdout.contains("The import may or may not have been kept") && text.stdout.contains("cometcal history"), "\(text.stdout)")
    }

    @Test("two cometcald on one database serve the same calendar: an import through one is found, listed and undone through the other")
    func twoDaemons() throws {
        let address = cluster.address(database: database)
        let first = try DaemonHarness(store: address)
        let second = try DaemonHarness(store: address)
        let picnic = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:picnic-pg@example.com\r\n"
            + "DTSTAMP:20260601T000000Z\r\nDTSTART:20260613T190000Z\r\nDTEND:20260613T210000Z\r\nSUMMARY:Picnic\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let imported = try first.client().call("ical.import", .object(JSONObject([("content", .string(picnic))])))
        #expect(imported["added"] == .int(1), "\(imported)\n\(first.readLog())")
        let other = try second.client()
        let found = try other.call("entity.search", .object(JSONObject([("entity", "Event"), ("text", "picnic")])))
        guard case .array(let entities)? = found["entities"] else { Issue.record("\(found)"); return }
        #expect(entities.count == 1)
        let agenda = try other.call("agenda", .object(JSONObject([("from", "2026-06-13T00:00:00Z"), ("to", "2026-06-14T00:00:00Z")])))
        guard case .array(let occurrences)? = agenda["occurrences"] else { Issue.record("\(agenda)"); return }
        #expect(occurrences.count == 1)
        #expect(try other.call("undo")["outcome"] == "done")
        let gone = try first.client().call("entity.search", .object(JSONObject([("entity", "Event"), ("text", "picnic")])))
        #expect(gone["entities"] == .array([]), "\(gone)")
        #expect(first.stop() == 0)
        #expect(second.stop() == 0)
    }
}
