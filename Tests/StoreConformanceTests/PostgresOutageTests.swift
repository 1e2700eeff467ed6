import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport
import TestThreads

/// The PostgreSQL store across a database restart (docs/postgresql.md, "Failure behaviour"):
/// each test kills a cluster of its own (`pg_ctl stop -m immediate`), never the shared one.
@Suite("PostgreSQL store during a database outage")
final class PostgresOutageTests {
    let cluster: PostgresCluster
    let database: String
    let registry: Registry

    init() throws {
        cluster = try PostgresCluster.makePrivate()
        do {
            database = try cluster.newDatabase("outage")
            registry = try Registry.load(paths: [ConformanceStore.schemas])
        } catch {
            cluster.remove()
            throw error
        }
    }

    deinit { cluster.remove() }

    private var address: String { cluster.address(database: database) }

    private func open() throws -> PostgresStore {
        try PostgresStore(address: address, registry: registry, now: ConformanceStore.now)
    }

    private static func calendar(_ title: String, id: UUID = UUID()) -> EntityRecord {
        EntityRecord(entity: ConformanceStore.calendar, id: id, values: ["title": .string(title)])
    }

    /// The calendars' ids in the database, read by a store opened now.
    private func storedCalendars() throws -> Set<UUID> {
        let store = try open()
        return Set(try store.readTransaction { try $0.fetchAll(ConformanceStore.calendar, matching: [], limit: nil) }.map(\.id))
    }

    private func next(_ watcher: any StoreWatcher) -> [StoreSignal] { nextSignals(watcher) }

    @Test("a watcher says the database was lost once, says it is back once it answers, and hears commits again after; a relay during the outage is store_unavailable")
    func watcherAcrossRestart() throws {
        let store = try open()
        guard let watcher = try PostgresStore.opener.watcher(for: .postgres(address)) else { Issue.record("no watcher"); return }
        try cluster.stop(immediate: true)
        let lost = next(watcher)
        guard case .lost(let reason)? = lost.first, lost.count == 1 else { Issue.record("\(lost)"); return }
        #expect(reason.contains("stopped answering"), "\(reason)")
        // While it is away: nothing more is said, and a relay is refused clearly.
        #expect(watcher.wait(seconds: 0.3) == [])
        let refused = #expect(throws: StoreError.self) { try watcher.relay("hello") }
        #expect(refused?.code == .unavailable)
        try cluster.start()
        #expect(next(watcher) == [.back])
        try store.transaction { try $0.save(PostgresOutageTests.calendar("After the restart")) }
        #expect(next(watcher) == [.changed])
    }

    @Test("a write whose last round trip (its writes with COMMIT, in one pipeline) finds the server gone leaves the connection able to write after the restart, without being opened again")
    func pipelineAcrossRestart() throws {
        let store = try open()
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Before")) }
        let failed = #expect(throws: StoreError.self) {
            try store.transaction { writer in
                try writer.save(PostgresOutageTests.calendar("Lost"))
                try writer.setMeta("lost", "yes")
                try cluster.stop(immediate: true)
            }
        }
        #expect(failed?.code == .unavailable, "\(String(describing: failed))")
        try cluster.start()
        let after = PostgresOutageTests.calendar("After")
        try store.transaction { try $0.save(after) }
        #expect(try storedCalendars().contains(after.id))
        #expect(try store.readTransaction { try $0.meta("lost") } == nil)
    }

    @Test("a server killed while a pipeline's answers are read fails the write as unavailable, at once, and the same store writes again after the restart", .timeLimit(.minutes(1)))
    func pipelineLostMidway() throws {
        let store = try open()
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Before")) }
        let cluster = self.cluster
        let stopped = DispatchSemaphore(value: 0)
        let killer = Thread {
            usleep(500_000)
            try? cluster.stop(immediate: true)
            stopped.signal()
        }
        killer.start()
        let failed = #expect(throws: StoreError.self) {
            try store.transaction { writer in
                try writer.save(PostgresOutageTests.calendar("Lost"))
                // Sent with the pending save, in one pipeline; the server goes while it sleeps.
                try store.connection.query("SELECT pg_sleep(3)") { _ in }
            }
        }
        #expect(failed?.code == .unavailable, "\(String(describing: failed))")
        stopped.wait()
        try cluster.start()
        let after = PostgresOutageTests.calendar("After")
        try store.transaction { try $0.save(after) }
        #expect(try storedCalendars().contains(after.id))
    }

    @Test("writers on four stores while the database is killed and restarted: every acknowledged write is there exactly once, the outage's errors are store_unavailable naming the database, and each store writes again without being opened again")
    func writesAcrossARestart() throws {
        #expect(try cluster.administer("SHOW synchronous_commit") == "on")
        let writers = 4
        let stores = try (0..<writers).map { _ in try open() }
        let log = WriteLog(writers: writers)
        let threads = WorkerThreads()
        for which in 0..<writers {
            let store = StoreOfOneThread(stores[which])
            threads.start {
                while !log.isFinished {
                    let id = UUID()
                    do {
                        // Each write saves a new calendar and counts it: a write applied twice
                        // would count twice.
                        try store.store.transaction { writer in
                            let count = Int(try writer.meta("written") ?? "0") ?? 0
                            try writer.setMeta("written", String(count + 1))
                            try writer.save(PostgresOutageTests.calendar("Write \(which)", id: id))
                        }
                        log.acknowledged(id, by: which)
                    } catch let error as StoreError {
                        log.failed(id, error, by: which)
                        usleep(20_000)
                    } catch {
                        log.unexpected("\(error)")
                    }
                }
            }
        }
        defer {
            log.finish()
            threads.wait()
        }
        // Every writer writes, then the server is killed under them.
        try log.waitUntilEachWriter(hasAcknowledged: 5, seconds: 20, before: "the kill")
        try cluster.stop(immediate: true)
        let killed = log.acknowledgedCounts
        try log.waitUntilEachWriter(hasFailed: 2, seconds: 10)
        try cluster.start()
        // The same stores, not opened again, write again.
        let resumed = log.acknowledgedCounts
        try log.waitUntilEachWriter(hasAcknowledged: 5, beyond: resumed, seconds: 20, before: "the end, after the restart")
        log.finish()
        threads.wait()

        #expect(log.unexpectedErrors.isEmpty, "\(log.unexpectedErrors)")
        let errors = log.errors
        #expect(!errors.isEmpty)
        for error in errors {
            #expect(error.code == .unavailable, "\(error)")
            #expect(error.message.contains("the database at \(address)"), "\(error.message)")
            let unknown = error.message.contains("may or may not have been kept")
            #expect(unknown || error.message.contains("is the server running? The request was not carried out, and nothing was changed; try again"),
                    "\(error.message)")
        }
        for (which, store) in stores.enumerated() {
            #expect(store.connection.reconnections >= 1, "store \(which) never connected again")
            #expect(log.acknowledgedCounts[which] > killed[which])
        }
        let stored = try storedCalendars()
        let acknowledged = log.acknowledgedIDs
        let uncertain = log.uncertainIDs
        // Every acknowledged write is there; nothing is there that was neither acknowledged nor
        // of unknown outcome (a write that failed before its commit left nothing).
        #expect(acknowledged.subtracting(stored).isEmpty, "lost: \(acknowledged.subtracting(stored).count) of \(acknowledged.count)")
        #expect(stored.subtracting(acknowledged).subtracting(uncertain).isEmpty, "kept although it failed before its commit")
        // Exactly once: the count every write moved equals the calendars kept.
        let written = try open().readTransaction { try $0.meta("written") }
        #expect(written == String(stored.count))
    }

    @Test("a write of 5,000 events killed mid-way is entirely absent after the restart, its error says nothing was changed, and the same store then writes it whole")
    func largeWriteKilledMidway() throws {
        let store = try open()
        let work = PostgresOutageTests.calendar("Work")
        try store.transaction { try $0.save(work) }
        let total = 5_000
        func events() throws -> [EntityRecord] {
            try (0..<total).map { index in
                EntityRecord(entity: ConformanceStore.event, id: UUID(), values: [
                    "title": .string("Event \(index)"), "calendar": .reference(work.id),
                    "startDate": try dateTime("2026-07-01T09:00:00Z"),
                ])
            }
        }
        let first = try events()
        let failed = #expect(throws: StoreError.self) {
            try store.transaction { writer in
                for (index, event) in first.enumerated() {
                    // Half-way through, the server is killed under the write.
                    if index == total / 2 { try self.cluster.stop(immediate: true) }
                    try writer.save(event)
                }
            }
        }
        #expect(failed?.code == .unavailable)
        #expect(failed?.message.contains("nothing was changed") == true, "\(String(describing: failed))")
        // While it is down, the next request fails at once, with the same code.
        let started = Date()
        let down = #expect(throws: StoreError.self) { _ = try store.readTransaction { try $0.count(ConformanceStore.event) } }
        #expect(down?.code == .unavailable)
        #expect(down?.message.contains("cannot reach the database at \(address)") == true, "\(String(describing: down))")
        #expect(Date().timeIntervalSince(started) < Double(PGConnection.connectSeconds))
        try cluster.start()
        #expect(try store.readTransaction { try $0.count(ConformanceStore.event) } == 0)
        let second = try events()
        try store.transaction { writer in for event in second { try writer.save(event) } }
        #expect(try open().readTransaction { try $0.count(ConformanceStore.event) } == total)
    }

    @Test("a write whose connection is lost during its COMMIT fails as store_unavailable saying the change may or may not have been kept, and is not run again; the store's next write succeeds")
    func lostDuringCommit() throws {
        let store = try open()
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Work")) }
        // A deferred trigger runs at COMMIT: for the calendar titled "Doomed", it ends its own
        // connection there, so the COMMIT is sent and its answer never comes.
        try cluster.administer("""
            CREATE FUNCTION end_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.title = 'Doomed' THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF; RETURN NEW; END $$;
            CREATE CONSTRAINT TRIGGER end_at_commit AFTER INSERT ON "calendar__Calendar" DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION end_at_commit();
            """, database: database)
        var runs = 0
        let lost = #expect(throws: StoreError.self) {
            try store.transaction { writer in
                runs += 1
                try writer.save(PostgresOutageTests.calendar("Doomed"))
            }
        }
        #expect(lost?.code == .unavailable)
        #expect(lost?.message.contains("the database at \(address) went away during the commit: the change may or may not have been kept") == true,
                "\(String(describing: lost))")
        #expect(lost?.message.contains("cometcal history") == true)
        #expect(runs == 1)
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Home")) }
        #expect(try storedCalendars().count == 2)
    }

    @Test("after a restart while the store was idle, its next read and write succeed, the session's setup is made again (owner, UTC, read only), and its record cache is emptied, not trusted")
    func idleAcrossARestart() throws {
        let store = try open()
        let work = PostgresOutageTests.calendar("Work")
        try store.transaction { try $0.save(work) }
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        let reading = try PostgresStore(address: cluster.address(database: database, owner: PostgresCluster.superuser), registry: registry,
                                        now: ConformanceStore.now, access: .readOnlyNoMigration)
        #expect(try reading.readTransaction { try $0.count(ConformanceStore.calendar) } == 1)
        try cluster.stop(immediate: true)
        try cluster.start()
        // Behind the store's back, with no change number: only an emptied cache sees it.
        try cluster.administer("UPDATE \"calendar__Calendar\" SET title = 'Office'", database: database)
        #expect(try store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) }?["title"] == .string("Office"))
        #expect(store.connection.reconnections == 1)
        let settings = "SELECT current_setting('cometcal.owner') || ' ' || current_setting('TimeZone') || ' ' || current_setting('default_transaction_read_only')"
        #expect(try store.connection.scalar(settings) == "\(PostgresCluster.superuser) UTC off")
        #expect(try reading.readTransaction { try $0.count(ConformanceStore.calendar) } == 1)
        #expect(reading.connection.reconnections == 1)
        #expect(try reading.connection.scalar(settings) == "\(PostgresCluster.superuser) UTC on")
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Home")) }
        #expect(try storedCalendars().count == 2)
    }

    @Test("after a restart while the store was idle, a write that waits for nothing (its opening would go with its COMMIT) finds the connection closed before sending anything: it connects again and commits once")
    func idleAcrossARestartThenAOneRoundTripWrite() throws {
        let store = try open()
        try store.transaction { try $0.save(PostgresOutageTests.calendar("Work")) }
        try cluster.stop(immediate: true)
        try cluster.start()
        let home = PostgresOutageTests.calendar("Home")
        try store.transaction { try $0.save(home) }
        #expect(store.connection.reconnections == 1)
        let stored = try storedCalendars()
        #expect(stored.count == 2 && stored.contains(home.id))
    }
}

/// A store handed to one writer thread (a store is used by one thread at a time).
private final class StoreOfOneThread: @unchecked Sendable {
    let store: PostgresStore
    init(_ store: PostgresStore) { self.store = store }
}

/// What the writers saw, by writer: acknowledged ids, failures, and when to stop.
private final class WriteLog: @unchecked Sendable {
    private let lock = NSLock()
    private var acknowledged: [[UUID]]
    private var failures: [[StoreError]]
    private var uncertain: Set<UUID> = []
    private var unexpected: [String] = []
    private var finished = false

    init(writers: Int) {
        acknowledged = Array(repeating: [], count: writers)
        failures = Array(repeating: [], count: writers)
    }

    func acknowledged(_ id: UUID, by writer: Int) { lock.withLock { acknowledged[writer].append(id) } }

    func failed(_ id: UUID, _ error: StoreError, by writer: Int) {
        lock.withLock {
            failures[writer].append(error)
            if error.message.contains("may or may not have been kept") { uncertain.insert(id) }
        }
    }

    func unexpected(_ text: String) { lock.withLock { unexpected.append(text) } }
    func finish() { lock.withLock { finished = true } }
    var isFinished: Bool { lock.withLock { finished } }
    var acknowledgedCounts: [Int] { lock.withLock { acknowledged.map(\.count) } }
    var acknowledgedIDs: Set<UUID> { lock.withLock { Set(acknowledged.joined()) } }
    var uncertainIDs: Set<UUID> { lock.withLock { uncertain } }
    var errors: [StoreError] { lock.withLock { Array(failures.joined()) } }
    var unexpectedErrors: [String] { lock.withLock { unexpected } }

    func waitUntilEachWriter(hasAcknowledged count: Int, beyond start: [Int]? = nil, seconds: Double, before moment: String) throws {
        try wait(seconds: seconds, for: "each writer to have \(count) more writes acknowledged before \(moment)") {
            zip(acknowledged, start ?? Array(repeating: 0, count: acknowledged.count)).allSatisfy { $0.count - $1 >= count }
        }
    }

    func waitUntilEachWriter(hasFailed count: Int, seconds: Double) throws {
        try wait(seconds: seconds, for: "each writer to have failed \(count) times") { failures.allSatisfy { $0.count >= count } }
    }

    /// Waits until `done`; past `seconds` the error says what each writer had done by then
    /// (acknowledged, failed, and the last errors), which is what tells a slow writer from a
    /// stuck one.
    private func wait(seconds: Double, for what: String, _ done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !lock.withLock(done) {
            guard Date() < deadline else {
                let state = lock.withLock {
                    "acknowledged \(acknowledged.map(\.count)), failed \(failures.map(\.count)), unexpected \(unexpected.suffix(3)), "
                        + "last errors \(failures.joined().suffix(4).map { "\($0.message) [\($0.detail ?? "")]" })"
                }
                throw OutageTestTimeout(description: "waited \(seconds) s for \(what): \(state)")
            }
            usleep(10_000)
        }
    }
}

private struct OutageTestTimeout: Error, CustomStringConvertible {
    let description: String
}
