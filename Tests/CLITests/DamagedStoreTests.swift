import Foundation
import Testing
import CometSchema

/// A store damaged outside CometCal (a bad date in a record, in the journal): every reader says
/// which record it could not read, never shows it as another date, and the daemon's health
/// reads the store and reports it.
@Suite("damaged store")
struct DamagedStoreTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    var store: String { environment["COMETCAL_DB"]! }

    /// Changes the store with the sqlite3 shell, as someone mending it by hand would.
    func damage(_ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", store, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    func id(of title: String) throws -> String {
        try #require(try json(["event", "show", title])["entity"]?["id"]?.stringValue)
    }

    @Test("a record whose date is past the year 9999 in UTC is an error naming the record, in the CLI and in the daemon's health")
    func damagedRecord() throws {
        try run(["event", "add", "Edge", "--start", "2026-06-10 10:00"])
        try run(["event", "add", "Fine", "--start", "2026-06-11 10:00"])
        let edge = try id(of: "Edge")
        try damage("UPDATE calendar__Event SET startDate = '9999-12-31T23:00:00-05:00' WHERE id = '\(edge)'")
        let listed = try run(["event", "list"], expect: 74)
        #expect(listed.stderr.contains("record \(edge)") && listed.stderr.contains("outside the years 1 to 9999"), "\(listed.stderr)")
        #expect(!listed.stdout.contains("1970"))

        let daemon = try DaemonHarness(directory: nil, store: store)
        let health = try daemon.client().call("health")
        #expect(health["status"] == "error", "\(health)")
        #expect(health["problem"]?.stringValue?.contains("record \(edge)") == true, "\(health)")
        #expect(health["records"]?["Event"] == .int(2), "\(health)")
    }

    @Test("health is ok on a sound store, with its records counted")
    func soundStore() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Fine", "--start", "2026-06-11 10:00"])
        let daemon = try DaemonHarness(directory: nil, store: store)
        let health = try daemon.client().call("health")
        #expect(health["status"] == "ok", "\(health)")
        #expect(health["problem"] == nil)
        #expect(health["records"]?["Event"] == .int(1) && health["records"]?["Calendar"] == .int(1), "\(health)")
    }

    @Test("a journal entry whose time is damaged is an error naming the entry, locally and through --connect (not “No changes yet.”)")
    func damagedJournal() throws {
        try run(["event", "add", "Fine", "--start", "2026-06-11 10:00"])
        try damage("UPDATE _journal SET created = 'yesterday-ish'")
        let local = try run(["history"], expect: 74)
        #expect(local.stderr.contains("journal entry 1 is damaged"), "\(local.stderr)")
        let daemon = try DaemonHarness(directory: nil, store: store)
        let remote = try CLIRunner.run(["--connect", daemon.socket, "history"], environment: environment)
        #expect(remote.status == 74, "\(remote.status): \(remote.stdout) \(remote.stderr)")
        #expect(remote.stderr.contains("journal entry 1 is damaged"), "\(remote.stderr)")
        #expect(!remote.stdout.contains("No changes yet"))
    }
}
