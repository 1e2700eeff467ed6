import Testing
import Foundation
import CometSchema
import PostgresTestSupport

/// Two cometcald on one PostgreSQL database under load: 32 clients spread across them write
/// for a bounded time; every acknowledged write is there once, every subscriber (one on each
/// daemon) hears every change once, and an alarm due in the middle is fired once and heard
/// by both subscribers once.
@Suite("Two daemons on one PostgreSQL database")
final class PostgresDaemonsTests {
    let cluster: PostgresCluster
    let database: String

    init() throws {
        cluster = try PostgresCluster.shared.get()
        database = try cluster.newDatabase("daemons" + UUID().uuidString)
    }

    deinit { cluster.dropDatabase(database) }

    private static func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    /// "2026-…T…Z" for a moment, whole seconds.
    private static func instant(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// Something handed to exactly one thread, or guarded by its own lock.
    final class Handed<Value>: @unchecked Sendable {
        let lock = NSLock()
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    /// What one writing client did, as the daemons acknowledged it.
    struct Acknowledged {
        var created: [String: String] = [:]  // id: title
        var updated: Set<String> = []
        var deleted: Set<String> = []
        var writes = 0
        var failures: [String] = []
    }

    /// Creates, renames every second one, deletes every third one, until `until`.
    private static func write(through client: RPCClient, as name: String, until: Date) -> Acknowledged {
        var done = Acknowledged()
        var number = 0
        var start = Date(timeIntervalSince1970: 1_900_000_000)  // 2030, far from any alarm
        while Date() < until {
            number += 1
            start += 3_600
            let title = "\(name) item \(number)"
            do {
                let created = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
                    ("title", .string(title)), ("startDate", .string(instant(start))),
                ]))]))
                guard created["outcome"] == "done", let id = created["entity"]?["id"]?.stringValue else {
                    done.failures.append("create: \(created)")
                    continue
                }
                done.created[id] = title
                done.writes += 1
                if number % 2 == 0 {
                    let renamed = try client.call("intent.perform", object([("intent", "updateEvent"), ("confirmed", true), ("parameters", object([
                        ("event", .string(id)), ("title", .string(title + " (moved)")),
                    ]))]))
                    if renamed["outcome"] == "done" {
                        done.created[id] = title + " (moved)"
                        done.updated.insert(id)
                        done.writes += 1
                    } else {
                        done.failures.append("update: \(renamed)")
                    }
                }
                if number % 3 == 0 {
                    let deleted = try client.call("intent.perform", object([("intent", "deleteEvent"), ("confirmed", true), ("parameters", object([
                        ("event", .string(id)),
                    ]))]))
                    if deleted["outcome"] == "done" {
                        done.deleted.insert(id)
                        done.writes += 1
                    } else {
                        done.failures.append("delete: \(deleted)")
                    }
                }
            } catch {
                done.failures.append("\(error)")
            }
        }
        return done
    }

    /// A subscriber's notifications, read on a thread of its own until told to stop.
    final class Listener: @unchecked Sendable {
        let client: RPCClient
        private let lock = NSLock()
        private var heard: [JSONValue] = []
        private var stopping = false
        private let finished = DispatchSemaphore(value: 0)

        init(_ client: RPCClient) throws {
            self.client = client
            _ = try client.call("subscribe", PostgresDaemonsTests.object([("topics", ["changes", "alarms"])]))
            let thread = Thread { [self] in
                while !lock.withLock({ stopping }) {
                    if let message = try? self.client.notification(timeout: 0.2) { lock.withLock { heard.append(message) } }
                }
                finished.signal()
            }
            thread.start()
        }

        var messages: [JSONValue] { lock.withLock { heard } }
        var changes: [JSONValue] { messages.filter { $0["method"] == "changed" } }
        var alarms: [JSONValue] { messages.filter { $0["method"] == "alarm" } }

        func stop() {
            lock.withLock { stopping = true }
            finished.wait()
        }
    }

    @Test("32 clients on two daemons for 6 s: every acknowledged write is in the store once, each daemon's subscriber hears every write once (journal numbers), and the alarm due meanwhile fires once and reaches both subscribers once")
    func loadAcrossDaemons() throws {
        let address = cluster.address(database: database)
        let daemons = [try DaemonHarness(store: address), try DaemonHarness(store: address)]
        let listeners = try daemons.map { try Listener($0.client()) }

        // An alarm 4 s from now, made through the first daemon: the second must hear it too.
        let setup = try daemons[0].client()
        let alarmStart = Date().addingTimeInterval(5)
        let alarmed = try setup.call("intent.perform", Self.object([("intent", "createEvent"), ("parameters", Self.object([
            ("title", "Shared reminder"), ("startDate", .string(Self.instant(alarmStart))),
            ("alarms", .array([Self.object([("relative", "-PT1S")])])),
        ]))]))
        #expect(alarmed["outcome"] == "done", "\(alarmed)")

        let clientCount = 32
        let until = Date().addingTimeInterval(6)
        let results = Handed<[Acknowledged]>([])
        let group = DispatchGroup()
        for index in 0..<clientCount {
            let client = Handed(try daemons[index % 2].client())
            group.enter()
            let thread = Thread {
                let done = PostgresDaemonsTests.write(through: client.value, as: "client \(index)", until: until)
                results.lock.withLock { results.value.append(done) }
                group.leave()
            }
            thread.start()
        }
        // The daemons' logs are read as they go: a full pipe would stop them.
        let clientsDeadline = Date().addingTimeInterval(120)
        while group.wait(timeout: .now() + 0.2) == .timedOut, Date() < clientsDeadline { for daemon in daemons { daemon.readLog() } }
        #expect(Date() < clientsDeadline, "the clients finished")
        let acknowledged = results.lock.withLock { results.value }
        let writes = acknowledged.map(\.writes).reduce(0, +) + 1  // and the alarmed event
        let failures = acknowledged.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(writes > clientCount * 2, "each client got some writes through (\(writes))")

        // Every subscriber hears every write: wait until both have (or 30 s pass).
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, listeners.contains(where: { $0.changes.count < writes }) { usleep(100_000); for daemon in daemons { daemon.readLog() } }
        // And the alarm (due 4 s after it was made; the writes took 6 s).
        while Date() < deadline, listeners.contains(where: { $0.alarms.isEmpty }) { usleep(100_000); for daemon in daemons { daemon.readLog() } }
        usleep(500_000)  // anything said twice would come now
        for listener in listeners { listener.stop() }

        for (index, listener) in listeners.enumerated() {
            let journals = listener.changes.compactMap { $0["params"]?["journal"] }
            #expect(journals.count == writes, "subscriber \(index) heard \(journals.count) changes of \(writes) writes")
            #expect(Set(journals.map { "\($0)" }).count == journals.count, "subscriber \(index) heard each change once")
            let createdIDs = Set(listener.changes.flatMap { message -> [String] in
                guard case .array(let changes)? = message["params"]?["changes"] else { return [] }
                return changes.filter { $0["change"] == "created" }.compactMap { $0["id"]?.stringValue }
            })
            let missing = acknowledged.flatMap { $0.created.keys }.filter { !createdIDs.contains($0) }
            #expect(missing.isEmpty, "subscriber \(index) did not hear of \(missing.count) creations")
            let alarms = listener.alarms
            #expect(alarms.count == 1, "subscriber \(index) heard the alarm once: \(alarms)")
            #expect(alarms.first?["params"]?["title"] == "Shared reminder")
        }

        // The store: every acknowledged record there once, with its last title; deleted ones gone.
        let reader = try daemons[1].client()
        let all = try reader.call("entity.search", Self.object([("entity", "Event")]))
        guard case .array(let entities)? = all["entities"] else { Issue.record("\(all)"); return }
        var titles: [String: Int] = [:]
        for entity in entities { titles[entity["title"]?.stringValue ?? "", default: 0] += 1 }
        let kept = acknowledged.flatMap { done in done.created.filter { !done.deleted.contains($0.key) } }
        #expect(entities.count == kept.count + 1, "the store holds the kept records and the reminder")
        for (_, title) in kept { #expect(titles[title] == 1, "'\(title)' once") }

        // Fired once: one daemon fired it and ran its bookkeeping, the other relayed it.
        let logs = daemons.map { daemon -> String in
            _ = daemon.stop()
            return daemon.readLog()
        }
        let fired = logs.map { $0.components(separatedBy: "msg=alarm event=").count - 1 }
        let relayed = logs.map { $0.components(separatedBy: "msg=\"alarm fired by another daemon\"").count - 1 }
        #expect(fired.reduce(0, +) == 1, "fired by one daemon: \(fired)")
        #expect(relayed.reduce(0, +) == 1, "relayed to the other: \(relayed)")
        #expect(zip(fired, relayed).allSatisfy { $0 + $1 == 1 }, "each daemon fired it or heard it, once")
    }
}
