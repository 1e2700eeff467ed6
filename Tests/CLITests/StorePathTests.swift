import Testing
import Foundation
import CometSchema

/// A mistyped store path must not become a new, empty calendar. Only the default location is
/// made, folders and all, on first use; a path someone gave needs its folder to exist; a
/// folder or a file that is not a store is an I/O error (74) that leaves it as it was.
@Suite("Store paths")
struct StorePathTests {
    private func cometcal(_ arguments: [String], _ environment: [String: String]) throws -> CLIResult {
        try CLIRunner.run(arguments, environment: ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"].merging(environment) { $1 })
    }

    @Test("--db or COMETCAL_DB in a folder that does not exist is refused, and nothing is created")
    func missingFolder() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let typo = scratch.url.appendingPathComponent("calender/cal.sqlite").path
        for (arguments, environment) in [(["--db", typo, "event", "add", "Picnic", "--start", "2026-06-13T12:00"], [String: String]()),
                                         (["calendar", "add", "Work"], ["COMETCAL_DB": typo])] {
            let result = try cometcal(arguments, environment)
            #expect(result.status == 74, "\(arguments) → \(result.status)\n\(result.stderr)")
            #expect(result.stderr.contains("the folder '\(scratch.url.appendingPathComponent("calender").path)' does not exist"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("calender").path))
    }

    @Test("a postgresql:// or postgres:// address with no server behind it is refused by cometcal and cometcald, naming the address and what to check (74), and nothing is created", arguments: [
        "postgresql:///calendar", "postgres://someone@/cal",
    ])
    func postgresUnreachable(_ base: String) throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        // A socket folder with no server in it: libpq fails at once, without the network.
        let address = base + "?host=" + scratch.url.appendingPathComponent("no-server").path
        for (arguments, environment) in [(["--db", address, "calendar", "add", "Work"], [String: String]()),
                                         (["agenda"], ["COMETCAL_DB": address]),
                                         (["--db", address, "understand", "lunch tomorrow"], [:])] {
            let result = try CLIRunner.run(arguments, environment: ["COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"].merging(environment) { $1 },
                                           currentDirectory: scratch.url)
            #expect(result.status == 74, "\(arguments) → \(result.status)\n\(result.stderr)")
            #expect(result.stderr.contains("cannot connect to PostgreSQL at \(address)"), "\(result.stderr)")
            #expect(result.stderr.contains("check that the server runs"), "\(result.stderr)")
        }
        // Run in the scratch folder: the daemon's lock file is for store files only (several
        // daemons share a database), so it must not make one named after the address there.
        let daemon = try CLIRunner.run(["--db", address, "--socket", scratch.url.appendingPathComponent("d.sock").path],
                                       currentDirectory: scratch.url, program: "cometcald")
        #expect(daemon.status != 0, "cometcald → \(daemon.status)\n\(daemon.stderr)")
        #expect(daemon.stderr.contains("cannot connect to PostgreSQL at \(address)"), "\(daemon.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test("a command that only reads, on a store that does not exist, says so (66) and creates nothing", arguments: [
        ["agenda"], ["search", "picnic"], ["export"], ["history"], ["event", "show", "Picnic"], ["calendar", "list"],
    ])
    func readsCreateNothing(_ command: [String]) throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let missing = scratch.url.appendingPathComponent("cal.sqlite").path
        let given = try cometcal(["--db", missing] + command, [:])
        #expect(given.status == 66, "\(command) → \(given.status)\n\(given.stderr)")
        #expect(given.stderr.contains("there is no store at '\(missing)' yet, and reading creates none"), "\(given.stderr)")
        #expect(!given.stdout.contains("Nothing scheduled"))
        let data = scratch.url.appendingPathComponent("data")
        let byDefault = try cometcal(command, ["XDG_DATA_HOME": data.path, "COMETCAL_DB": ""])
        #expect(byDefault.status == 66, "\(command) → \(byDefault.status)\n\(byDefault.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
    }

    @Test("the default location is made with its folders on first use")
    func defaultLocation() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let result = try cometcal(["calendar", "add", "Work"], ["XDG_DATA_HOME": scratch.url.appendingPathComponent("data").path, "COMETCAL_DB": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("data/cometcal/cometcal.sqlite").path))
        // Private to its owner: the folder cometcal made, and the file.
        let folderMode = try FileManager.default.attributesOfItem(atPath: scratch.url.appendingPathComponent("data/cometcal").path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: scratch.url.appendingPathComponent("data/cometcal/cometcal.sqlite").path)[.posixPermissions] as? Int
        #expect(folderMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test("a folder, or a file that is not a store, is an I/O error and is left as it was")
    func notAStore() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let notes = scratch.url.appendingPathComponent("notes.txt")
        let text = String(repeating: "Remember the milk.\n", count: 400)
        try Data(text.utf8).write(to: notes)
        let file = try cometcal(["--db", notes.path, "agenda"], [:])
        #expect(file.status == 74, "\(file.stderr)")
        #expect(file.stderr.contains("cannot use the store at \(notes.path)"), "\(file.stderr)")
        #expect(try Data(contentsOf: notes) == Data(text.utf8))
        #expect(!FileManager.default.fileExists(atPath: notes.path + "-wal"))
        let folder = try cometcal(["--db", scratch.url.path, "agenda"], [:])
        #expect(folder.status == 74, "\(folder.stderr)")
        #expect(folder.stderr.contains("is a folder, not a store"), "\(folder.stderr)")
    }
}
