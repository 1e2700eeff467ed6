import Testing
import Foundation
import CometSchema

/// `cometcal migrate --to`: the store copied into a new one, checked by export, with its undo
/// history; refusals leave everything as it was. PostgreSQL destinations are covered where that
/// store is (docs/postgresql.md); these run store file to store file.
@Suite("migrate")
struct MigrateCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    var storePath: String { environment["COMETCAL_DB"]! }

    @Test("a store with a calendar, a series and an undone change copies into a new file: the same export, the same agenda, and redo on the copy brings back what was undone")
    func copiesAndChecks() throws {
        _ = try run(["calendar", "add", "Work"])
        _ = try run(["event", "add", "Standup", "--start", "2026-06-01T09:00", "--repeat", "FREQ=WEEKLY;BYDAY=MO", "--calendar", "Work"])
        _ = try run(["event", "add", "Dentist", "--start", "2026-06-10T10:00"])
        _ = try run(["undo"])
        let copy = scratch.url.appendingPathComponent("copy.sqlite").path
        let report = try json(["migrate", "--to", copy])
        #expect(report["exportsIdentical"] == .bool(true))
        #expect(report["journalEntries"] == .int(3))
        #expect(report["undoneEntries"] == .int(1))
        #expect(report["changeFeedCopied"] == .bool(false))
        #expect(try run(["export"]).stdout == run(["--db", copy, "export"]).stdout)
        #expect(try run(["agenda", "--from", "2026-06-01", "--to", "2026-06-30"]).stdout == run(["--db", copy, "agenda", "--from", "2026-06-01", "--to", "2026-06-30"]).stdout)
        let redone = try run(["--db", copy, "redo"])
        #expect(redone.stdout.contains("Dentist"))
        let text = try run(["migrate", "--to", scratch.url.appendingPathComponent("copy2.sqlite").path]).stdout
        #expect(text.contains("Checked: both stores export the same"))
    }

    @Test("refused, with the reason and nothing written: no --to, --to the store itself, an existing file, a folder that does not exist")
    func refusals() throws {
        _ = try run(["calendar", "add", "Work"])
        let existing = scratch.url.appendingPathComponent("there.sqlite").path
        #expect(FileManager.default.createFile(atPath: existing, contents: Data("keep me".utf8)))
        #expect(try run(["migrate"], expect: 64).stderr.contains("give the store to copy into"))
        #expect(try run(["migrate", "--to", storePath], expect: 64).stderr.contains("names the store being copied"))
        #expect(try run(["migrate", "--to", existing], expect: 64).stderr.contains("exists; migrate writes a new store"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let missing = scratch.url.appendingPathComponent("nowhere/copy.sqlite").path
        #expect(try run(["migrate", "--to", missing], expect: 74).stderr.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
