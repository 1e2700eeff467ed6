import Foundation
import Testing
import CometSchema

/// A `cometcal` beside a running daemon on one store: SQLite keeps the store's write-ahead log
/// while any connection uses it, through POSIX locks that a process loses on a file as soon as
/// it closes any descriptor of that file. The daemon opens five connections; when opening one
/// read the file's first bytes through a descriptor of its own, closing it dropped the locks of
/// those already open, and the next `cometcal` to finish took the log for unused and deleted it,
/// with every write the daemon made after that.
@Suite("cometcal beside cometcald", .serialized)
struct DaemonStoreSharingTests {
    @Test("a cometcal command beside the daemon leaves it its log: a write the daemon makes afterwards is kept")
    func writeAfterACommandIsKept() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let store = directory.appendingPathComponent("cal.sqlite").path
        let environment = ["COMETCAL_DB": store, "TZ": "Europe/Berlin"]
        #expect(try CLIRunner.run(["calendar", "add", "Before"], environment: environment).status == 0)
        let daemon = try DaemonHarness(directory: directory, store: store)
        #expect(try CLIRunner.run(["calendar", "list"], environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: store + "-wal"), "the daemon's log is still there")
        let client = try daemon.client()
        let created = try client.call("intent.perform", .object(JSONObject([("intent", "createCalendar"),
                                                                           ("parameters", .object(JSONObject([("title", "After")])))])))
        #expect(created["outcome"] == "done", "\(created)")
        daemon.stop()
        let listed = try CLIRunner.run(["calendar", "list"], environment: environment)
        #expect(listed.stdout.contains("After"), "\(listed.stdout)")
    }
}
