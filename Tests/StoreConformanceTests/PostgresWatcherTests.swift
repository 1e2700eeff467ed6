import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport

/// LISTEN/NOTIFY between processes on one database: a commit is heard by every watcher of its
/// owner, only once it commits, and not by another owner's; relayed messages reach every
/// watcher of the owner, their sender's too.
@Suite("PostgreSQL watchers")
struct PostgresWatcherTests {
    private func address(_ fixture: ConformanceStore, owner: String) throws -> String {
        guard case .postgres(let address) = fixture.location else { throw StoreError(.invalidData, "not a PostgreSQL fixture") }
        return address + "&cometcal_user=\(owner)"
    }

    private func next(_ watcher: any StoreWatcher) -> [StoreSignal] { nextSignals(watcher) }

    /// Everything said until it is quiet for `quiet` seconds (up to 10 s).
    private func drain(_ watcher: any StoreWatcher, quiet: Double = 0.3) -> [StoreSignal] {
        var heard: [StoreSignal] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let signals = watcher.wait(seconds: quiet)
            if signals.isEmpty { break }
            heard += signals
        }
        return heard
    }

    @Test("a commit of alice's is heard by alice's watchers (on other connections) as word of a change, not by bob's; a rolled-back write is heard by none")
    func commitsHeard() throws {
        let fixture = try ConformanceStore(.postgresql)
        let alice = try PostgresStore.opener.open(.postgres(try address(fixture, owner: "alice")), registry: fixture.registry, now: ConformanceStore.now)
        guard let aliceWatcher = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "alice"))),
              let bobWatcher = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "bob"))) else {
            Issue.record("a PostgreSQL store has watchers")
            return
        }
        // Three commits before the watcher looks: word of changes, nothing else.
        for name in ["Work", "Home", "Club"] { try alice.transaction { try $0.save(fixture.calendar(name)) } }
        let heard = drain(aliceWatcher)
        #expect(!heard.isEmpty && heard.allSatisfy { $0 == .changed }, "\(heard)")
        #expect(bobWatcher.wait(seconds: 0.3) == [])
        // A write that fails is rolled back, and its NOTIFY with it.
        struct Refused: Error {}
        #expect(throws: Refused.self) { try alice.transaction { writer in try writer.save(fixture.calendar("Gone")); throw Refused() } }
        #expect(aliceWatcher.wait(seconds: 0.3) == [])
        // A read says nothing.
        _ = try alice.readTransaction { try $0.count(ConformanceStore.calendar) }
        #expect(aliceWatcher.wait(seconds: 0.3) == [])
    }

    @Test("a watcher told to hear only other processes skips this process's commits, also after its connection was made again, and still hears another process's; relayed messages come as before")
    func onlyOtherProcesses() throws {
        let fixture = try ConformanceStore(.postgresql)
        let cluster = try PostgresCluster.shared.get()
        let alice = try PostgresStore.opener.open(.postgres(try address(fixture, owner: "alice")), registry: fixture.registry, now: ConformanceStore.now)
        guard let watcher = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "alice"))) else {
            Issue.record("a PostgreSQL store has watchers")
            return
        }
        watcher.hearOnlyOtherProcesses()
        try alice.transaction { try $0.save(fixture.calendar("Work")) }
        #expect(drain(watcher) == [], "this process's commit")
        // A connection none of this process's stores made (as another process's would be) sends
        // word of a change of alice's.
        guard case .postgres(let location) = fixture.location else { return }
        let database = String(location.split(separator: "?")[0].split(separator: "/").last ?? "")
        _ = try cluster.administer("SELECT pg_notify('\(PGWatcher.changesChannel)', 'alice')", database: database)
        #expect(next(watcher) == [.changed])
        // The store's connection made again has a new backend, still this process's.
        let store = try #require(alice as? PostgresStore)
        _ = try cluster.administer("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'", database: database)
        do { _ = try alice.readTransaction { try $0.count(ConformanceStore.calendar) } } catch {}
        try alice.transaction { try $0.save(fixture.calendar("Home")) }
        #expect(store.connection.reconnections >= 1)
        #expect(drain(watcher).filter { $0 == .changed } == [], "this process's commit on the new connection")
        try watcher.relay("hello")
        #expect(next(watcher) == [.relayed("hello")])
    }

    @Test("a relayed message reaches every watcher of the owner, its sender's too, with the text intact; another owner's watchers hear nothing")
    func relays() throws {
        let fixture = try ConformanceStore(.postgresql)
        guard let first = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "alice"))),
              let second = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "alice"))),
              let bob = try PostgresStore.opener.watcher(for: .postgres(try address(fixture, owner: "bob"))) else {
            Issue.record("a PostgreSQL store has watchers")
            return
        }
        let message = "{\"alarm\":{\"title\":\"Zahnarzt – née, 12\\n\"},\"from\":\"x\"}"
        try first.relay(message)
        #expect(next(second) == [.relayed(message)])
        #expect(next(first) == [.relayed(message)])
        #expect(bob.wait(seconds: 0.3) == [])
    }
}

/// What `watcher` says first, or nothing when `seconds` pass in silence.
func nextSignals(_ watcher: any StoreWatcher, within seconds: Double = 15) -> [StoreSignal] {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let signals = watcher.wait(seconds: 0.2)
        if !signals.isEmpty { return signals }
    }
    return []
}
