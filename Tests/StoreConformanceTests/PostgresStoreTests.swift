import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport
import TestThreads

/// What the PostgreSQL store adds to the conformance suite: owners kept apart by the queries and
/// by row-level security, one owner's writes taking turns, alarms claimed once, conflicts retried.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    private func fixture() throws -> ConformanceStore { try ConformanceStore(.postgresql) }

    private func open(_ fixture: ConformanceStore, owner: String? = nil, user: String = PostgresCluster.superuser) throws -> any OpenedStore {
        guard case .postgres(let address) = fixture.location else { throw StoreError(.invalidData, "not a PostgreSQL fixture") }
        var text = address.replacingOccurrences(of: "user=\(PostgresCluster.superuser)", with: "user=\(user)")
        if let owner { text += "&cometcal_user=\(owner)" }
        return try PostgresStore.opener.open(.postgres(text), registry: fixture.registry, now: ConformanceStore.now)
    }

    private func database(_ fixture: ConformanceStore) -> String {
        guard case .postgres(let address) = fixture.location else { return "" }
        return String(address.split(separator: "?")[0].split(separator: "/").last ?? "")
    }

    @Test("the owner is cometcal_user, else the login role; owners in one database see none of each other's records, journal or change feed")
    func ownersApart() throws {
        let fixture = try fixture()
        #expect((fixture.store as? PostgresStore)?.owner == PostgresCluster.superuser)
        let alice = try open(fixture, owner: "alice")
        let bob = try open(fixture, owner: "bob")
        #expect((alice as? PostgresStore)?.owner == "alice")
        let work = fixture.calendar("Work")
        try alice.transaction { writer in
            try writer.save(work)
            _ = try writer.appendJournal(JournalEntry(intent: "calendar.createCalendar", summary: "Work", created: ConformanceStore.now,
                                                      changes: [JournalEntry.Change(entity: work.entity, id: work.id, before: nil, after: work)]))
        }
        #expect(try alice.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        try bob.readTransaction { (reader: any StoreReader) throws in
            #expect(try reader.fetch(ConformanceStore.calendar, id: work.id) == nil)
            #expect(try reader.count(ConformanceStore.calendar) == 0)
            #expect(try reader.journal(limit: 10).isEmpty)
            #expect(try reader.changeHead() == 0)
        }
        // The same id saved by bob is bob's own record, and alice's stays as it was.
        var bobs = work
        bobs["title"] = .string("Bob's")
        try bob.transaction { try $0.save(bobs) }
        #expect(try alice.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        #expect(try bob.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == bobs)
    }

    @Test("row-level security holds for a role that is not a superuser: a query without the owner's condition still sees only the owner's rows")
    func rowLevelSecurity() throws {
        let fixture = try fixture()
        let alice = try open(fixture, owner: "alice")
        let bob = try open(fixture, owner: "bob")
        try alice.transaction { try $0.save(fixture.calendar("Alice's")) }
        try bob.transaction { try $0.save(fixture.calendar("Bob's")) }
        let cluster = try PostgresCluster.shared.get()
        let role = "app_" + database(fixture)
        try cluster.administer("CREATE ROLE \(role) LOGIN NOSUPERUSER NOBYPASSRLS")
        defer {
            _ = try? cluster.administer("DROP OWNED BY \(role)", database: database(fixture))
            _ = try? cluster.administer("DROP ROLE IF EXISTS \(role)")
        }
        try cluster.administer("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role)", database: database(fixture))
        // The superuser sees both (it bypasses row security)…
        #expect(try cluster.administer("SELECT count(*) FROM \"calendar__Calendar\"", database: database(fixture)) == "2")
        // …the application's role, set to alice, only hers, with no WHERE of its own.
        #expect(try cluster.administer("SELECT string_agg(title, ',') FROM \"calendar__Calendar\"", database: database(fixture), user: role,
                                       before: ["SET cometcal.owner = 'alice'"]) == "Alice's")
        // With no owner set, nothing.
        #expect(try cluster.administer("SELECT count(*) FROM \"calendar__Calendar\"", database: database(fixture), user: role) == "0")
        // Writing a row for another owner is refused by the policy's check.
        #expect(throws: PostgresClusterError.self) {
            try cluster.administer("INSERT INTO \"calendar__Calendar\" (owner, id, title) VALUES ('bob', 'x', 'Planted')", database: database(fixture),
                                   user: role, before: ["SET cometcal.owner = 'alice'"])
        }
        // And the store itself works as that role, for the owner its address names.
        let asRole = try open(fixture, owner: "alice", user: role)
        #expect(try asRole.readTransaction { try $0.fetchAll(ConformanceStore.calendar, matching: [], limit: nil) }.map(fixture.title) == ["Alice's"])
    }

    @Test("one owner's writes from two stores at once take turns: 2 × 40 read-then-increment writes lose no increment")
    func writesTakeTurns() throws {
        let fixture = try fixture()
        // Each store is used by one thread only.
        let stores = OneStorePerThread([try fixture.openAgain(), try fixture.openAgain()])
        let rounds = 40
        let failures = Failures()
        let before = try stores.stores[0].othersVersion()
        WorkerThreads.run(2) { which in
            for _ in 0..<rounds {
                do {
                    try stores.stores[which].transaction { writer in
                        let current = Int(try writer.meta("counter") ?? "0") ?? 0
                        try writer.setMeta("counter", String(current + 1))
                    }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(try fixture.store.readTransaction { try $0.meta("counter") } == String(2 * rounds))
        // Each store's othersVersion moved by the other's 40 commits, not by its own.
        #expect(try stores.stores[0].othersVersion() - before == Int64(rounds))
    }

    @Test("another owner's write does not wait for an owner's open write")
    func ownersWriteInParallel() throws {
        let fixture = try fixture()
        let stores = OneStorePerThread([try open(fixture, owner: "alice"), try open(fixture, owner: "bob")])
        let aliceWriting = DispatchSemaphore(value: 0)
        let bobDone = DispatchSemaphore(value: 0)
        let waited = Claims()
        let alice = Thread {
            _ = try? stores.stores[0].transaction { writer in
                try writer.setMeta("writing", "yes")
                aliceWriting.signal()
                // Still inside alice's write: bob's must be able to finish meanwhile.
                waited.add(bobDone.wait(timeout: .now() + 5) == .success)
            }
        }
        alice.start()
        aliceWriting.wait()
        try stores.stores[1].transaction { try $0.setMeta("writing", "too") }
        bobDone.signal()
        while !alice.isFinished { usleep(10_000) }
        #expect(waited.count == 1)
    }

    @Test("an alarm raced by two stores at once is claimed by exactly one")
    func alarmClaimedOnce() throws {
        let fixture = try fixture()
        // Each store is used by one thread only.
        let stores = OneStorePerThread([try fixture.openAgain(), try fixture.openAgain()])
        for round in 0..<20 {
            let key = AlarmKey(record: UUID(), occurrence: 1_781_100_000 + Int64(round), trigger: 1_781_099_100)
            let claims = Claims()
            WorkerThreads.run(2) { which in
                let claimed = (try? stores.stores[which].transaction { try $0.recordAlarm(key, firedAt: ConformanceStore.now, late: false) }) ?? false
                claims.add(claimed)
            }
            #expect(claims.count == 1, "round \(round)")
        }
    }

    @Test("a write conflict is run again and then succeeds; past the attempts it is given up as busy with PostgreSQL's SQLSTATE")
    func conflictsRetried() throws {
        var runs = 0
        let result = try PostgresStore.retryingConflicts { () throws -> String in
            runs += 1
            if runs < 3 { throw StoreError(.busy, "conflict", detail: runs == 1 ? "SQLSTATE 40001: could not serialize access" : "SQLSTATE 40P01: deadlock detected") }
            return "done"
        }
        #expect(result == "done")
        #expect(runs == 3)
        runs = 0
        let given = #expect(throws: StoreError.self) {
            try PostgresStore.retryingConflicts { () throws -> Void in
                runs += 1
                throw StoreError(.busy, "conflict", detail: "SQLSTATE 40001: could not serialize access")
            }
        }
        #expect(runs == PostgresStore.writeAttempts)
        #expect(given?.code == .busy)
        #expect(given?.message.contains("\(PostgresStore.writeAttempts) times") == true)
        #expect(given?.detail == "SQLSTATE 40001: could not serialize access")
        // Any other failure is not run again.
        runs = 0
        #expect(throws: StoreError.self) {
            try PostgresStore.retryingConflicts { () throws -> Void in
                runs += 1
                throw StoreError(.constraint, "no", detail: "SQLSTATE 23503: foreign key")
            }
        }
        #expect(runs == 1)
    }

    @Test("a failure says PostgreSQL's message and SQLSTATE; a write whose body swallowed a failed statement fails, never commits in part")
    func errors() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        try fixture.save(picnic)
        let refused = #expect(throws: StoreError.self) { try fixture.store.transaction { try $0.delete(ConformanceStore.calendar, id: work.id) } }
        #expect(refused?.code == .constraint)
        #expect(refused?.detail?.hasPrefix("SQLSTATE 23503: ") == true, "\(String(describing: refused?.detail))")
        // A body that swallows a failed statement: PostgreSQL rolls the whole write back, and
        // the store says so instead of reporting a commit.
        let orphan = try fixture.event("Orphan", in: fixture.calendar("Missing"), start: "2026-06-13T12:00:00Z")
        let swallowed = #expect(throws: StoreError.self) {
            try fixture.store.transaction { (writer: any StoreWriter) throws in
                try writer.setMeta("before", "failure")
                try? writer.save(orphan)
            }
        }
        #expect(swallowed?.message.contains("nothing of it was kept") == true, "\(String(describing: swallowed))")
        #expect(try fixture.store.readTransaction { try $0.meta("before") } == nil)
    }

    @Test("a long write's full batches of writes go without waiting for their answers: 500 events commit whole; a failure in a batch sent ahead is thrown in the caller's words when a later batch goes, the write keeps nothing, and the connection serves the next write")
    func batchesSentAhead() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func events(_ prefix: String, missingCalendarAt bad: Int? = nil) throws -> [EntityRecord] {
            let ghost = fixture.calendar("Never saved")
            return try (0..<500).map { index in
                try fixture.event("\(prefix) \(index)", in: index == bad ? ghost : work, start: "2026-07-\(10 + index % 20)T\(10 + index % 8):00:00Z")
            }
        }
        let before = store.connection.batchesSentAhead
        try store.transaction { writer in for event in try events("Kept") { try writer.saveNew(event) } }
        #expect(store.connection.batchesSentAhead > before, "the batches after the first (which carries the opening and prepares) went ahead")
        #expect(try store.readTransaction { try $0.count(ConformanceStore.event) } == 500)

        // The 150th event's calendar does not exist: its batch went ahead, and its failure is
        // read when the next batch goes, inside a later save.
        let failed = #expect(throws: StoreError.self) {
            try store.transaction { writer in for event in try events("Lost", missingCalendarAt: 150) { try writer.saveNew(event) } }
        }
        #expect(failed?.code == .constraint, "\(String(describing: failed))")
        #expect(failed?.message.contains("refers to something that does not exist") == true, "\(String(describing: failed))")
        #expect(try store.readTransaction { try $0.count(ConformanceStore.event) } == 500, "nothing of the failed write was kept")
        try store.transaction { try $0.save(try fixture.event("After", in: work, start: "2026-07-01T09:00:00Z")) }
        #expect(try store.readTransaction { try $0.count(ConformanceStore.event) } == 501)
    }

    @Test("queries sent in one round trip each get their own rows in order; a failed one is thrown after every answer is read, the ones after it are skipped, and the connection serves the next statement")
    func pipelinedQueries() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let connection = store.connection
        var first: [Int64] = []
        var second: [String] = []
        try connection.execute("BEGIN")
        try connection.queries([
            PGConnection.PipelinedStatement(sql: "SELECT generate_series(1, ?::int)", values: [.integer(3)]) { row in first.append(row.integer(0) ?? -1) },
            PGConnection.PipelinedStatement(sql: "SELECT ?::text || 'b'", values: [.text("a")]) { row in second.append(row.text(0) ?? "") },
        ])
        try connection.execute("COMMIT")
        #expect(first == [1, 2, 3])
        #expect(second == ["ab"])

        var after: [String] = []
        try connection.execute("BEGIN")
        let failed = #expect(throws: StoreError.self) {
            try connection.queries([
                PGConnection.PipelinedStatement(sql: "SELECT 1 / ?::int", values: [.integer(0)]) { _ in },
                PGConnection.PipelinedStatement(sql: "SELECT 'after'", values: []) { row in after.append(row.text(0) ?? "") },
            ])
        }
        #expect(failed?.detail?.hasPrefix("SQLSTATE 22012: ") == true, "\(String(describing: failed))")
        #expect(after.isEmpty)
        try connection.execute("ROLLBACK")
        #expect(try connection.scalar("SELECT 'next'") == "next")
    }

    @Test("a write waits for the server only where it reads: warm, saving events (a series too) is one round trip, BEGIN with the owner's lock, the writes and COMMIT; deleting a record the store knows is one too")
    func writeRoundTrips() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func weekly(_ uid: String) throws -> [String: Value] { ["uid": .string(uid), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY"))] }
        // Each statement is prepared on its first use (a round trip of its own, once).
        let warm = [try fixture.event("Warm", in: work, start: "2026-06-01T09:00:00Z"),
                    try fixture.event("Warm series", in: work, start: "2026-06-01T10:00:00Z", try weekly("warm"))]
        try fixture.save(warm[0], warm[1])
        for record in warm { try fixture.store.transaction { try $0.delete(ConformanceStore.event, id: record.id) } }

        var before = store.roundTrips
        try fixture.save(try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z"),
                         try fixture.event("Standup", in: work, start: "2026-06-15T09:00:00Z", try weekly("standup")))
        #expect(store.roundTrips - before == 1)
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        try fixture.save(lunch)
        before = store.roundTrips
        try fixture.store.transaction { try $0.delete(ConformanceStore.event, id: lunch.id) }
        #expect(store.roundTrips - before == 1)
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event) } == 2)
    }

    @Test("a journaled write is one round trip too: its entry's number was drawn under the store's last write's lock and the entry goes with the COMMIT; numbers rise with the writes, a second entry in one write asks for its own, and a write without an entry leaves a gap")
    func journalRoundTrips() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func entry(_ record: EntityRecord) -> JournalEntry {
            JournalEntry(intent: "calendar.createEvent", summary: "made \(fixture.title(record))", created: ConformanceStore.now,
                         changes: [JournalEntry.Change(entity: record.entity, id: record.id, before: nil, after: record)])
        }
        func saveJournaled(_ records: [EntityRecord]) throws -> (trips: Int, numbers: [Int64]) {
            let before = store.roundTrips
            let numbers = try store.transaction { writer in
                try records.map { record -> Int64 in
                    try writer.save(record)
                    return try writer.appendJournal(entry(record))
                }
            }
            return (store.roundTrips - before, numbers)
        }
        // Warm: each statement is prepared on its first use.
        _ = try saveJournaled([try fixture.event("Warm", in: work, start: "2026-06-01T09:00:00Z")])
        _ = try saveJournaled([try fixture.event("Warm 2", in: work, start: "2026-06-01T09:00:00Z"), try fixture.event("Warm 3", in: work, start: "2026-06-01T09:00:00Z")])

        let picnic = try saveJournaled([try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")])
        #expect(picnic.trips == 1, "BEGIN, the lock, the head check, the writes, the entry and COMMIT")
        try fixture.save(try fixture.event("Unjournaled", in: work, start: "2026-06-14T12:00:00Z"))
        let two = try saveJournaled([try fixture.event("Lunch", in: work, start: "2026-06-15T12:00:00Z"),
                                     try fixture.event("Dinner", in: work, start: "2026-06-15T19:00:00Z")])
        #expect(two.trips == 2, "the second entry asks for its number")
        let numbers = picnic.numbers + two.numbers
        #expect(numbers == numbers.sorted() && Set(numbers).count == 3)
        #expect(two.numbers[0] > picnic.numbers[0] + 1, "the write without an entry used a number")
        let heads = try store.readTransaction { try $0.journalHeads(limit: 3) }
        #expect(heads.map(\.sequence) == numbers.reversed())
        for number in numbers {
            #expect(try store.readTransaction { try $0.journalEntry(sequence: number) }?.summary.hasPrefix("made ") == true)
        }
        let undone = try store.readTransaction { try $0.journalEntry(toUndo: true) }
        #expect(undone?.sequence == two.numbers[1])
    }

    @Test("a database migrated before the title order's, the dense series' and the owner's search indexes gets them when a store opens it, with its data, and loses the search index without the owner")
    func newIndexesOnOpen() throws {
        let fixture = try fixture()
        let cluster = try PostgresCluster.shared.get()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let indexes = """
            SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes
            WHERE indexname LIKE '%\\_\\_title' OR indexname LIKE '%\\_\\_dense' OR indexname LIKE '%search'
            """
        let made = "calendar__Calendar__owner_search,calendar__Calendar__title,calendar__Event__occurrences_series__dense,calendar__Event__owner_search,calendar__Event__title"
        #expect(try cluster.administer(indexes, database: database(fixture)) == made)
        // As a database of the first index generation looks: no such index, the search
        // vector's index without the owner, the older fingerprint.
        try cluster.administer("""
            DROP INDEX "calendar__Calendar__title", "calendar__Event__title", "calendar__Event__occurrences_series__dense";
            DROP INDEX "calendar__Calendar__owner_search", "calendar__Event__owner_search";
            CREATE INDEX "calendar__Calendar__search" ON "calendar__Calendar" USING gin (__search);
            CREATE INDEX "calendar__Event__search" ON "calendar__Event" USING gin (__search);
            UPDATE _cometcal_schema SET value = replace(value, ';indexes=\(PGMigrator.indexGeneration)', '') WHERE key = 'layout'
            """, database: database(fixture))
        let reopened = try open(fixture)
        #expect(try cluster.administer(indexes, database: database(fixture)) == made)
        #expect(try reopened.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
    }

    @Test("a new table has its search vector right after its key, where a scan matching every row's vector reaches it first; a table made before keeps its order")
    func searchVectorFirst() throws {
        let fixture = try fixture()
        try fixture.save(fixture.calendar("Work"))
        let cluster = try PostgresCluster.shared.get()
        let order = """
            SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
            WHERE table_name = 'calendar__Event' AND ordinal_position <= 3
            """
        #expect(try cluster.administer(order, database: database(fixture)) == "owner,id,__search")
        // A table made before, its vector last, keeps that order when a store opens it, and
        // its searches work as before.
        try cluster.administer("""
            ALTER TABLE "calendar__Event" DROP COLUMN __search;
            ALTER TABLE "calendar__Event" ADD COLUMN __search tsvector
            """, database: database(fixture))
        let reopened = try open(fixture)
        let work = try #require(try reopened.readTransaction { try $0.fetchAll(ConformanceStore.calendar, matching: [], text: nil, limit: nil, offset: 0) }.first)
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-15T12:00:00Z")
        try reopened.transaction { try $0.save(lunch) }
        let last = "SELECT column_name FROM information_schema.columns WHERE table_name = 'calendar__Event' ORDER BY ordinal_position DESC LIMIT 1"
        #expect(try cluster.administer(last, database: database(fixture)) == "__search")
        #expect(try reopened.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 0) }.records == [lunch])
    }

    @Test("an occurrence query expanding series costs the same round trips for one series as for three: their records and overrides come with the rows, in one round trip with BEGIN")
    func occurrenceRoundTrips() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        // Weekly series with one instance moved, read in 2031: past the window, so every series
        // in the range is expanded from its rule, with its overrides left out.
        func series(_ number: Int) throws -> [EntityRecord] {
            let uid = "weekly-\(number)"
            return [try fixture.event("Series \(number)", in: work, start: "2026-06-01T0\(number):00:00Z", end: "2026-06-01T0\(number):30:00Z",
                                      ["uid": .string(uid), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY"))]),
                    try fixture.event("Moved \(number)", in: work, start: "2031-06-17T1\(number):00:00Z", end: "2031-06-17T1\(number):30:00Z",
                                      ["uid": .string(uid), "recurrenceId": try dateTime("2031-06-16T0\(number):00:00Z")])]
        }
        func week() throws -> (trips: Int, titles: [String]) {
            // The first read after a write brings the record cache to the new head; the second
            // is what is counted.
            _ = try fixture.occurrences(from: "2031-06-15T00:00:00Z", to: "2031-06-29T00:00:00Z")
            let before = store.roundTrips
            let page = try fixture.occurrences(from: "2031-06-15T00:00:00Z", to: "2031-06-29T00:00:00Z")
            return (store.roundTrips - before, page.occurrences.map { fixture.title($0.record) })
        }
        for record in try series(1) { try fixture.save(record) }
        let one = try week()
        #expect(one.titles == ["Moved 1", "Series 1"])
        for record in try series(2) + series(3) { try fixture.save(record) }
        let three = try week()
        #expect(three.titles == ["Moved 1", "Moved 2", "Moved 3", "Series 1", "Series 2", "Series 3"])
        #expect(one.trips == three.trips)
        #expect(three.trips == 1, "BEGIN and the change head with the series, their records and overrides and the rows")

        // Several spans at once (an overlap check of a series): the same one round trip for
        // all of them, their records in the cache.
        let mondays = try (0..<8).map { week in
            let start = try #require(try DateTimeValue(parsing: "2031-06-02T00:00:00Z").instant).addingTimeInterval(Double(week) * 7 * 86_400)
            return DateInterval(start: start, duration: 86_400)
        }
        func mondaysRead() throws -> [[Occurrence]] {
            try store.readTransaction { try $0.occurrences(ConformanceStore.event, spans: mondays, zone: ConformanceStore.berlin, matching: []) }
        }
        _ = try mondaysRead()
        let before = store.roundTrips
        let found = try mondaysRead()
        #expect(store.roundTrips - before == 1)
        // Each Monday has the three series' instances, but the 16th, whose were moved.
        #expect(found.map(\.count) == [3, 3, 0, 3, 3, 3, 3, 3])
    }

    @Test("a search's page counts its matches in the same query: one round trip, with BEGIN, for the ids and the total, the records from the cache")
    func searchPageRoundTrips() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            for number in 0..<12 { try writer.save(try fixture.event("Lunch \(number)", in: work, start: "2026-06-15T12:00:00Z")) }
        }
        func page() throws -> (trips: Int, page: RecordPage) {
            // The first read brings the record cache to the head; the second is what is counted.
            _ = try store.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 5) }
            let before = store.roundTrips
            let page = try store.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 5) }
            return (store.roundTrips - before, page)
        }
        let read = try page()
        #expect(read.page.total == 12)
        #expect(read.page.records.count == 5)
        #expect(read.trips == 1, "BEGIN and the change head with the ids and the total")
    }

    @Test("a read's BEGIN and change head go with its first question: a record not in the cache is one round trip, one in the cache the opening alone, and a read that asks nothing sends nothing")
    func readOpening() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        let home = fixture.calendar("Home")
        try fixture.save(work, home)
        // Warm: each statement is prepared on its first use, and the first read brings the
        // cache to the head.
        _ = try store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) }
        _ = try store.readTransaction { try $0.count(ConformanceStore.calendar) }
        func trips<T>(_ body: (any StoreReader) throws -> T) throws -> (Int, T) {
            let before = store.roundTrips
            let result = try store.readTransaction(body)
            return (store.roundTrips - before, result)
        }
        let uncached = try trips { try $0.fetch(ConformanceStore.calendar, id: home.id) }
        #expect(uncached.0 == 1 && uncached.1 == home)
        let cached = try trips { try $0.fetch(ConformanceStore.calendar, id: home.id) }
        #expect(cached.0 == 1 && cached.1 == home, "the cache answers once the read knows its snapshot's head")
        let nothing = try trips { _ in 7 }
        #expect(nothing.0 == 0 && nothing.1 == 7)
        let counted = try trips { try $0.count(ConformanceStore.calendar) }
        #expect(counted.0 == 1 && counted.1 == 2)
        // A read that failed before its first question, and one whose question failed, leave
        // the connection as it was.
        struct Refused: Error {}
        #expect(throws: Refused.self) { try store.readTransaction { _ in throw Refused() } }
        #expect(throws: StoreError.self) { try store.readTransaction { try $0.fetch(QualifiedName(domain: "calendar", name: "Nothing"), id: work.id) } }
        #expect(try store.readTransaction { try $0.count(ConformanceStore.calendar) } == 2)
    }

    @Test("a read's first round trip, sent before it knows its change head, still sees another process's changes: a renamed record read from the cache, found by a search and by an agenda, and an event longer than any before that starts before the range")
    func readOpeningSeesOthersChanges() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-15T12:00:00Z", end: "2026-06-15T13:00:00Z")
        try fixture.save(work, lunch)
        func day() throws -> [String] {
            try fixture.occurrences(from: "2026-06-15T00:00:00+02:00[Europe/Berlin]", to: "2026-06-16T00:00:00+02:00[Europe/Berlin]").occurrences.map { fixture.title($0.record) }
        }
        // This store's cache holds the lunch and knows the longest event: an hour.
        #expect(try day() == ["Lunch"])
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == lunch)
        #expect(try store.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 0) }.records == [lunch])

        let other = try fixture.openAgain()
        var renamed = lunch
        renamed["title"] = .string("Team lunch")
        let retreat = try fixture.event("Retreat", in: work, start: "2026-06-10T09:00:00Z", end: "2026-06-20T17:00:00Z")
        try other.transaction { writer in
            try writer.save(renamed)
            try writer.save(retreat)
        }
        #expect(try day() == ["Retreat", "Team lunch"])
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == renamed)
        #expect(try store.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 0) }.records == [renamed])

        renamed["title"] = .string("Long lunch")
        try other.transaction { try $0.save(renamed) }
        #expect(try store.readTransaction { try $0.page(ConformanceStore.event, matching: [], text: "lunch", limit: 5, offset: 0) }.records == [renamed])
        renamed["title"] = .string("Late lunch")
        try other.transaction { try $0.save(renamed) }
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: lunch.id) } == renamed)
        renamed["title"] = .string("Last lunch")
        try other.transaction { try $0.save(renamed) }
        #expect(try store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [], text: nil, limit: nil, offset: 0) }.map(fixture.title).sorted() == ["Last lunch", "Retreat"])
    }

    @Test("a write reads the records it saved from itself, not the server: saving an event and reading its day is two round trips (the lock with the writes and the day's rows, then COMMIT) once what an earlier write saved is in the cache after its commit, and a record it deleted is gone")
    func writeReadsWhatItSaved() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func saveAndReadDay(_ title: String) throws -> (trips: Int, titles: [String]) {
            let lunch = try fixture.event(title, in: work, start: "2026-06-16T12:00:00Z", end: "2026-06-16T13:00:00Z")
            let before = store.roundTrips
            let titles = try store.transaction { writer in
                try writer.save(lunch)
                let day = try writer.occurrences(ConformanceStore.event, from: try #require(try DateTimeValue(parsing: "2026-06-16T00:00:00Z").instant),
                                                 to: try #require(try DateTimeValue(parsing: "2026-06-17T00:00:00Z").instant),
                                                 zone: ConformanceStore.berlin, matching: [], text: nil, limit: nil, offset: 0)
                return day.occurrences.map { fixture.title($0.record) }
            }
            return (store.roundTrips - before, titles)
        }
        _ = try saveAndReadDay("Warm")
        let read = try saveAndReadDay("Lunch")
        #expect(read.titles.sorted() == ["Lunch", "Warm"])
        #expect(read.trips == 2)
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        try store.transaction { writer in
            try writer.save(picnic)
            try writer.delete(ConformanceStore.event, id: picnic.id)
            #expect(try writer.fetch(ConformanceStore.event, id: picnic.id) == nil)
        }
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == nil)
    }

    @Test("a write keeps in the record cache what it read and did not change, never what it changed: a failed write's change is not read back, and a record it only read costs a later read no query")
    func writeReadsAndTheCache() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        try fixture.save(work, picnic)
        struct Refused: Error {}
        var renamed = picnic
        renamed["title"] = .string("Renamed")
        #expect(throws: Refused.self) {
            try fixture.store.transaction { writer in
                try writer.save(renamed)
                #expect(try writer.fetch(ConformanceStore.event, id: picnic.id)?["title"] == .string("Renamed"))
                throw Refused()
            }
        }
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) }?["title"] == .string("Picnic"))
        try fixture.store.transaction { writer in _ = try writer.fetch(ConformanceStore.calendar, id: work.id) }
        let before = store.roundTrips
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        // The read's BEGIN with its change head, and nothing more.
        #expect(store.roundTrips - before == 1)
    }

    @Test("a write of many records analyzes the columns it finds rows by, inside its transaction: planned from statistics that count its own rows, before it commits")
    func longWriteAnalyzes() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func estimate() throws -> Double {
            Double(try store.connection.scalar("SELECT reltuples FROM pg_class WHERE relname = 'calendar__Event'") ?? "") ?? -1
        }
        func analyzedColumns() throws -> Set<String> {
            var names = Set<String>()
            try store.connection.query("SELECT attname FROM pg_stats WHERE tablename = 'calendar__Event'") { row in
                if let name = row.text(0) { names.insert(name) }
            }
            return names
        }
        let settings = "SELECT current_setting('plan_cache_mode') || ' ' || current_setting('default_statistics_target')"
        let (before, during, columns, settled, bounds) = try fixture.store.transaction { writer -> (Double, Double, Set<String>, String?, String?) in
            let before = try estimate()
            for index in 0..<PGSession.firstAnalyze {
                try writer.save(try fixture.event("Event \(index)", in: work, start: String(format: "2026-06-13T%02d:%02d:00Z", index / 60, index % 60)))
            }
            // The write's own statistics, at the lower target: at most 11 bounds for 200 keys.
            let bounds = try store.connection.scalar("""
                SELECT array_length(histogram_bounds::text::bigint[], 1) FROM pg_stats WHERE tablename = 'calendar__Event' AND attname = 'startDate__key'
                """)
            return (before, try estimate(), try analyzedColumns(), try store.connection.scalar(settings), bounds)
        }
        #expect(before < 1)
        #expect(during >= Double(PGSession.firstAnalyze))
        // From its first ANALYZE on, the write plans its statements once and samples less; the
        // settings end with it.
        #expect(settled == "force_generic_plan 10")
        #expect(try store.connection.scalar(settings) == "auto 100")
        #expect((bounds.flatMap { Int($0) } ?? 0) > 1 && (bounds.flatMap { Int($0) } ?? 99) <= 11, "\(String(describing: bounds))")
        // Only the columns rows are found by: the search vector and the texts are left to
        // autovacuum after the commit.
        #expect(columns.isSuperset(of: ["owner", "id", "uid", "calendar", "startDate__key"]), "\(columns.sorted())")
        #expect(!columns.contains("__search") && !columns.contains("title"), "\(columns.sorted())")
    }

    @Test("a migration that would lose data is refused and changes nothing: the store opens again with its schemas")
    func destructiveMigrationRefused() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        // A new required property without a default, on a table with rows.
        let schemas = fixture.scratch.appendingPathComponent("schemas")
        try FileManager.default.copyItem(atPath: ConformanceStore.schemas, toPath: schemas.path)
        let calendarFile = schemas.appendingPathComponent("calendar/calendar.cal")
        let text = try String(contentsOf: calendarFile, encoding: .utf8)
        #expect(text.contains("    isDefault: Bool = false\n"))
        try text.replacingOccurrences(of: "    isDefault: Bool = false\n", with: "    isDefault: Bool = false\n    conformanceRequired: String\n")
            .write(to: calendarFile, atomically: true, encoding: .utf8)
        let changed = try Registry.load(paths: [schemas.path])
        let refused = #expect(throws: StoreError.self) {
            _ = try fixture.factory.opener.open(fixture.location, registry: changed, now: ConformanceStore.now)
        }
        #expect(refused?.code == .destructiveMigration)
        #expect(refused?.message.contains("conformanceRequired") == true, "\(String(describing: refused?.message))")
        let again = try fixture.openAgain()
        #expect(try again.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        let column = try PostgresCluster.shared.get().administer(
            "SELECT count(*) FROM information_schema.columns WHERE column_name = 'conformanceRequired'", database: database(fixture))
        #expect(column == "0")
    }

    @Test("NUL is kept in the tables as U+0001 \"0\" and U+0001 as U+0001 \"1\"; text with neither is stored as it is")
    func escapes() throws {
        let fixture = try fixture()
        try fixture.save(fixture.calendar("a\u{0}b\u{1}c"), fixture.calendar("plain"))
        let stored = try PostgresCluster.shared.get().administer(
            "SELECT string_agg(replace(title, chr(1), '<1>'), ',' ORDER BY title) FROM \"calendar__Calendar\"", database: database(fixture))
        #expect(stored == "a<1>0b<1>1c,plain")
    }

    @Test("the test cluster listens on its Unix socket only, with fsync off")
    func privateCluster() throws {
        let cluster = try PostgresCluster.shared.get()
        #expect(try cluster.administer("SHOW listen_addresses") == "")
        #expect(try cluster.administer("SHOW unix_socket_directories") == cluster.folder)
        #expect(try cluster.administer("SHOW fsync") == "off")
    }

    @Test("a store whose cached records are older than what the change feed still remembers forgets them all")
    func cacheForgetsAllPastTheFeed() throws {
        let fixture = try fixture()
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let reader = try fixture.openAgain()
        #expect(try reader.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        // Behind the store's back: the record changes, and the feed moves past what it remembers
        // (as after more than ChangeFeed.goneKept deletions), with no row naming the record.
        let owner = PostgresCluster.superuser
        try PostgresCluster.shared.get().administer("""
            UPDATE "calendar__Calendar" SET title = 'Office' WHERE id = '\(work.id.lowercasedText)';
            UPDATE _counters SET value = value + 20000 WHERE owner = '\(owner)' AND name = 'changes';
            INSERT INTO _meta (owner, key, value) SELECT '\(owner)', 'changes.forgotten', (value - 10) FROM _counters WHERE owner = '\(owner)' AND name = 'changes'
            """, database: database(fixture))
        #expect(try reader.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) }?["title"] == .string("Office"))
    }

    @Test("withTimeLimit stops a statement that runs past it: the write is rolled back, the error is timedOut, and the next write (without a limit) succeeds")
    func timeLimit() throws {
        let fixture = try fixture()
        guard let store = fixture.store as? PostgresStore else { Issue.record("not a PostgreSQL store"); return }
        let slow = fixture.calendar("Slow")
        let stopped = #expect(throws: StoreError.self) {
            try store.withTimeLimit(seconds: 0.2) {
                try store.transaction { writer in
                    try writer.save(slow)
                    _ = try store.connection.scalar("SELECT pg_sleep(5)::text")
                }
            }
        }
        #expect(stopped?.code == .timedOut, "\(String(describing: stopped))")
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: slow.id) } == nil)
        let after = fixture.calendar("After")
        try store.transaction { writer in
            try writer.save(after)
            _ = try store.connection.scalar("SELECT pg_sleep(0.3)::text")
        }
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: after.id) } == after)
    }

    @Test("a connection refused names the address and what to check")
    func refused() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-pg-none-\(UUID().uuidString)")
        let address = "postgresql:///nothing?host=\(scratch.path)&user=someone:secret"
        let refused = #expect(throws: StoreError.self) {
            _ = try PostgresStore.opener.open(.postgres(address), registry: try Registry.load(paths: [ConformanceStore.schemas]))
        }
        #expect(refused?.code == .cannotOpen)
        #expect(refused?.message.contains("cannot connect to PostgreSQL at \(address)") == true, "\(String(describing: refused?.message))")
        #expect(refused?.message.contains("check that the server runs") == true)
    }
}

final class OneStorePerThread: @unchecked Sendable {
    let stores: [any OpenedStore]
    init(_ stores: [any OpenedStore]) { self.stores = stores }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

private final class Claims: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = 0
    func add(_ flag: Bool) { lock.lock(); if flag { claimed += 1 }; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return claimed }
}
