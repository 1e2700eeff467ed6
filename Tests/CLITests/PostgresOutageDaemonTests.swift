import Foundation
import Testing
import CometSchema
import PostgresTestSupport
import TestThreads

/// A real cometcald on a PostgreSQL cluster of the test's own, which the test kills
/// (`pg_ctl stop -m immediate`) while clients write and a large import runs, then starts again
/// (docs/postgresql.md, "Failure behaviour"; docs/daemon.md, -32005).
@Suite("cometcald during a PostgreSQL outage")
final class PostgresOutageDaemonTests {
    let cluster: PostgresCluster
    let database: String

    init() throws {
        cluster = try PostgresCluster.makePrivate()
        do {
            database = try cluster.newDatabase("daemonoutage")
        } catch {
            cluster.remove()
            throw error
        }
    }

    deinit { cluster.remove() }

    static func calendarText(_ uids: [String]) -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        for (index, uid) in uids.enumerated() {
            let day = 1 + index % 28
            text += "BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:202607\(day < 10 ? "0" : "")\(day)T090000Z\r\n"
                + "DTEND:202607\(day < 10 ? "0" : "")\(day)T100000Z\r\nSUMMARY:Event \(uid)\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    static func importing(_ uids: [String]) -> JSONValue { .object(JSONObject([("content", .string(calendarText(uids)))])) }

    /// The UIDs of the events in the database whose UID starts with `prefix`.
    private func storedUIDs(_ prefix: String) throws -> Set<String> {
        let list = try cluster.administer("SELECT coalesce(string_agg(uid, ','), '') FROM \"calendar__Event\" WHERE uid LIKE '\(prefix)%'",
                                          database: database) ?? ""
        return Set(list.split(separator: ",").map(String.init))
    }

    @Test("cometcald while its database is killed under writes and a 3,000-event import, then started again: outage requests fail with -32005 saying what to do, the import is entirely absent, every acknowledged write is there, the outage is logged once, and the same daemon answers health ok and writes again")
    func daemonAcrossARestart() throws {
        let daemon = try DaemonHarness(store: cluster.address(database: database))
        let pid = daemon.process.processIdentifier
        // The daemon logs every request (--verbose): its log is read as it comes, or the full
        // pipe would stop it.
        let drain = LogDrain(daemon)
        let writes = ClientWrites(clients: 2)
        let threads = WorkerThreads()
        for client in 0..<2 {
            threads.start {
                guard let connection = try? daemon.client() else { return writes.note(client, "no connection") }
                var index = 0
                while !writes.isFinished {
                    index += 1
                    let uid = "write-\(client)-\(index)"
                    guard let report = try? connection.call("ical.import", PostgresOutageDaemonTests.importing([uid]), timeout: 20) else {
                        return writes.note(client, "no answer to \(uid)")
                    }
                    if report["written"] == .bool(true), report["added"] == .int(1) {
                        writes.acknowledged(uid, by: client)
                    } else {
                        writes.note(client, "\(report["problems"] ?? report)")
                        usleep(50_000)
                    }
                }
            }
        }
        defer { writes.finish(); threads.wait(); drain.stop() }
        try writes.waitUntilEach(hasAcknowledged: 3, seconds: 20)
        let probe = try daemon.client()
        let healthBefore = try probe.call("health")
        #expect(healthBefore["status"] == .string("ok"), "\(healthBefore)")

        // A large import in flight when the server is killed.
        let bulk = (0..<3_000).map { "bulk-\($0)" }
        let bulkAnswer = Answer()
        threads.start {
            bulkAnswer.set(Result { try daemon.client().call("ical.import", PostgresOutageDaemonTests.importing(bulk), timeout: 60) })
        }
        let deadline = Date().addingTimeInterval(60)
        // In flight: a transaction of the database that wrote (has an id) and has run a while
        // (a single event's import takes milliseconds).
        while try cluster.administer("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND backend_xid IS NOT NULL AND now() - xact_start > interval '300 milliseconds'
            """) == "0" {
            try #require(bulkAnswer.value == nil, "the import ended before it could be interrupted: \(String(describing: bulkAnswer.value))")
            if Date() >= deadline {
                let sessions = try? cluster.administer("""
                    SELECT string_agg(coalesce(backend_xid::text, '-') || ' ' || coalesce(state, '') || ' ' || coalesce((now() - xact_start)::text, '') || ' ' || left(query, 50), ' | ')
                    FROM pg_stat_activity WHERE datname = '\(database)'
                    """)
                Issue.record("the import was never seen in flight; writes acknowledged \(writes.acknowledgedCounts); sessions: \(sessions ?? "?")")
                return
            }
            usleep(5_000)
        }
        try cluster.stop(immediate: true)
        let killedAt = writes.acknowledgedCounts

        // During the outage: the request's own code, and what to do.
        let history = try probe.call("history")
        #expect(history["code"] == .int(-32005), "\(history)")
        let message = history["message"]?.stringValue ?? ""
        #expect(message.contains("the database at \(cluster.address(database: database))"), "\(message)")
        #expect(message.contains("is the server running? The request was not carried out, and nothing was changed; try again"), "\(message)")
        // An intent is answered with its outcome, failed as storage, with the store's message.
        let intent = try probe.call("intent.perform", .object(JSONObject([
            ("intent", .string("createCalendar")), ("parameters", .object(JSONObject([("title", .string("Outage"))]))),
        ])))
        #expect(intent["outcome"] == .string("failed"), "\(intent)")
        #expect(intent["error"]?["code"] == .string("storage"), "\(intent)")
        #expect(intent["error"]?["message"]?.stringValue?.contains("is the server running?") == true, "\(intent)")
        let outageHealth = try probe.call("health")
        #expect(outageHealth["status"] == .string("error"))
        #expect(outageHealth["problem"]?.stringValue?.contains("is the server running?") == true, "\(outageHealth)")
        let refused = try probe.call("ical.import", PostgresOutageDaemonTests.importing(["during-outage"]))
        #expect(refused["written"] == .bool(false))
        #expect("\(refused["problems"] ?? .null)".contains("is the server running?"), "\(refused)")
        // Long enough for the alarm timer (twice a second) and the journal poll (every second)
        // to look several times.
        usleep(2_000_000)
        let interrupted = try bulkAnswer.wait(seconds: 30).get()
        #expect(interrupted["written"] == .bool(false), "\(interrupted)")
        #expect("\(interrupted["problems"] ?? .null)".contains("nothing was changed"), "\(interrupted)")

        try cluster.start()
        let healthDeadline = Date().addingTimeInterval(15)
        var health = try probe.call("health")
        while health["status"] != .string("ok"), Date() < healthDeadline {
            usleep(100_000)
            health = try probe.call("health")
        }
        #expect(health["status"] == .string("ok"), "\(health)")
        #expect(daemon.process.isRunning)
        #expect(daemon.process.processIdentifier == pid)
        try writes.waitUntilEach(hasAcknowledged: 3, beyond: killedAt, seconds: 20)
        writes.finish()
        threads.wait()
        #expect(writes.notes.filter { $0.contains("no answer") || $0.contains("no connection") }.isEmpty, "\(writes.notes)")

        // Never half an import: none of it, and then all of it.
        #expect(try storedUIDs("bulk-").isEmpty)
        let again = try probe.call("ical.import", PostgresOutageDaemonTests.importing(bulk), timeout: 60)
        #expect(again["written"] == .bool(true) && again["added"] == .int(bulk.count), "\(again)")
        #expect(try storedUIDs("bulk-").count == bulk.count)
        // Every acknowledged write is there.
        let acknowledged = writes.acknowledgedUIDs
        #expect(acknowledged.subtracting(try storedUIDs("write-")).isEmpty)

        drain.stop()
        #expect(daemon.stop() == 0)
        let log = daemon.logText
        #expect(log.components(separatedBy: "the database is unavailable").count - 1 == 1, "\(log.suffix(3_000))")
        #expect(log.components(separatedBy: "the database answers again").count - 1 == 1, "\(log.suffix(3_000))")
        #expect(!log.contains("alarms could not be read"), "\(log.suffix(3_000))")
    }
}

extension PostgresOutageDaemonTests {
    @Test("cometcald's CalDAV front end during a database outage answers 503, and serves again once the database is back")
    func caldavAcrossARestart() throws {
        let folder = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = folder.appendingPathComponent("users-file").path
        let added = try CLIRunner.run(["user", "add", "alice", "--users", users], stdin: "pw-alice\n")
        #expect(added.status == 0, "\(added.stderr)")
        let daemon = try DaemonHarness(arguments: ["--caldav", "127.0.0.1:0", "--users", users, "--caldav-owner", "alice"],
                                       store: cluster.address(database: database, owner: "alice"))
        let port = try CalDAVRequest.port(of: daemon)
        #expect(try CalDAVRequest.status(port, "MKCALENDAR", "/dav/calendars/alice/Work/", "alice") == 201)
        #expect(try CalDAVRequest.status(port, "PROPFIND", "/dav/calendars/alice/Work/", "alice") == 207)
        try cluster.stop(immediate: true)
        let during = try CalDAVRequest.status(port, "PROPFIND", "/dav/calendars/alice/Work/", "alice")
        #expect(during == 503, "\(daemon.readLog().suffix(2_000))")
        try cluster.start()
        #expect(try CalDAVRequest.status(port, "PROPFIND", "/dav/calendars/alice/Work/", "alice") == 207)
        #expect(daemon.stop() == 0)
    }
}

/// What the writing clients saw: their acknowledged UIDs, other answers, and when to stop.
private final class ClientWrites: @unchecked Sendable {
    private let lock = NSLock()
    private var acknowledged: [[String]]
    private var noted: [String] = []
    private var finished = false

    init(clients: Int) { acknowledged = Array(repeating: [], count: clients) }

    func acknowledged(_ uid: String, by client: Int) { lock.withLock { acknowledged[client].append(uid) } }
    func note(_ client: Int, _ text: String) { lock.withLock { noted.append("client \(client): \(text)") } }
    func finish() { lock.withLock { finished = true } }
    var isFinished: Bool { lock.withLock { finished } }
    var acknowledgedCounts: [Int] { lock.withLock { acknowledged.map(\.count) } }
    var acknowledgedUIDs: Set<String> { lock.withLock { Set(acknowledged.joined()) } }
    var notes: [String] { lock.withLock { noted } }

    func waitUntilEach(hasAcknowledged count: Int, beyond start: [Int]? = nil, seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !lock.withLock({ zip(acknowledged, start ?? Array(repeating: 0, count: acknowledged.count)).allSatisfy { $0.count - $1 >= count } }) {
            guard Date() < deadline else {
                throw DaemonHarness.HarnessError.timeout("each client did not get \(count) more writes acknowledged in \(seconds) s (acknowledged \(acknowledgedCounts)): \(notes.suffix(5))")
            }
            usleep(20_000)
        }
    }
}

/// One answer, set by the thread that waited for it.
private final class Answer: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<JSONValue, any Error>?

    func set(_ value: Result<JSONValue, any Error>) {
        condition.lock()
        result = value
        condition.broadcast()
        condition.unlock()
    }

    var value: Result<JSONValue, any Error>? {
        condition.lock()
        defer { condition.unlock() }
        return result
    }

    func wait(seconds: Double) throws -> Result<JSONValue, any Error> {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(seconds)
        while result == nil {
            guard condition.wait(until: deadline) else { throw DaemonHarness.HarnessError.timeout("no answer in \(seconds) s") }
        }
        return result!
    }
}

/// Reads a daemon's log on a thread of its own until stopped, so that the daemon never waits
/// on a full pipe; the log is whole in `DaemonHarness.logText` once stopped.
private final class LogDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    init(_ daemon: DaemonHarness) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopping }) {
                daemon.readLog()
                usleep(20_000)
            }
            done.signal()
        }
    }

    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopping = true }
            return !stopping
        }
        if first { done.wait() }
    }
}
