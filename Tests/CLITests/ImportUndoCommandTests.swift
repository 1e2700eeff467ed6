import Testing
import Foundation
import CometSchema

/// `cometcal import` as one journal entry (issue 20, item 2): `history` names it, `undo` takes
/// exactly it back, `redo` does it again; files, standard input and vdir folders alike.
@Suite("cometcal import, undo and redo")
struct ImportUndoCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    private func path(_ name: String) -> String { scratch.url.appendingPathComponent(name).path }

    /// A calendar file of `count` one-hour events on consecutive days of July 2026.
    private func writeCalendar(_ name: String, count: Int) throws -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal tests//EN", "X-WR-CALNAME:Work"]
        for index in 0..<count {
            lines += ["BEGIN:VEVENT", "UID:work-\(index)@test", "DTSTAMP:20260601T000000Z",
                      String(format: "DTSTART:202607%02dT090000Z", 1 + index % 28), "DURATION:PT1H", "SUMMARY:Work item \(index)", "END:VEVENT"]
        }
        lines.append("END:VCALENDAR")
        try (lines.joined(separator: "\r\n") + "\r\n").write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    @Test("history lists “Imported 1,250 events from work.ics”; undo restores the export byte for byte and leaves the older change; redo brings the import back")
    func importUndoRedo() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Older", "--start", "2026-06-16 09:00", "--calendar", "Work"])
        let before = try run(["export"]).stdout
        let file = try writeCalendar("work.ics", count: 1_250)
        let imported = try json(["import", file])
        guard case .int(let sequence)? = imported["journal"] else { Issue.record("no journal entry in \(imported)"); return }
        let afterImport = try run(["export"]).stdout
        #expect(try run(["history", "--limit", "1"]).stdout.contains(String(format: "%4d  ", sequence) + "2026-06-10 12:00  Imported 1,250 events from work.ics"))

        let undone = try run(["undo"])
        #expect(undone.stdout == "Undone: imported 1,250 events from work.ics.\n")
        #expect(try run(["export"]).stdout == before)
        #expect(try run(["event", "show", "Older"]).status == 0)
        #expect(try run(["history", "--limit", "1"]).stdout.contains("Imported 1,250 events from work.ics (undone)"))

        #expect(try run(["redo"]).stdout == "Redone: imported 1,250 events from work.ics.\n")
        #expect(try run(["export"]).stdout == afterImport)
        // The same file again changes nothing: no entry, so undo still reaches the import.
        #expect(try json(["import", file])["journal"] == .null)
    }

    @Test("an edit beside the journal after an import makes undo refuse with 65, naming the event, and change nothing")
    func undoRefusesAfterAnEdit() throws {
        _ = try run(["import", try writeCalendar("work.ics", count: 3)])
        // Another store handle changes one imported event without the journal: `sqlite3` here.
        let edit = Process()
        edit.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        edit.arguments = ["sqlite3", try #require(environment["COMETCAL_DB"]), "UPDATE calendar__Event SET note = 'changed elsewhere' WHERE title = 'Work item 1';"]
        try edit.run()
        edit.waitUntilExit()
        #expect(edit.terminationStatus == 0)
        let before = try run(["export"]).stdout
        let refused = try run(["undo"], expect: 65)
        #expect(refused.stderr.contains("cannot undo “Imported 3 events from work.ics”: “Work item 1” has changed since; nothing was changed"), "\(refused.stderr)")
        #expect(try run(["export"]).stdout == before)
    }

    @Test("an import from standard input is “from standard input”; a vdir folder is “from the folder NAME”, and undo takes it back")
    func stdinAndFolder() throws {
        let text = try String(contentsOfFile: try writeCalendar("in.ics", count: 2), encoding: .utf8)
        let piped = try CLIRunner.run(["import", "-"], environment: environment, stdin: text)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try run(["history", "--limit", "1"]).stdout.contains("Imported 2 events from standard input"))
        try run(["export", "--vdir", path("cals")])
        let other = environment.merging(["COMETCAL_DB": path("store/other.sqlite")]) { $1 }
        let folder = try CLIRunner.run(["import", path("cals")], environment: other)
        #expect(folder.status == 0, "\(folder.stderr)")
        let history = try CLIRunner.run(["history", "--limit", "1"], environment: other)
        #expect(history.stdout.contains("Imported 2 events from the folder cals"), "\(history.stdout)")
        let undone = try CLIRunner.run(["undo"], environment: other)
        #expect(undone.stdout == "Undone: imported 2 events from the folder cals.\n", "\(undone.stdout)\(undone.stderr)")
        let empty = try CLIRunner.run(["export"], environment: other)
        #expect(!empty.stdout.contains("BEGIN:VEVENT"))
    }

    /// What `sqlite3` answers for one query on the test's store.
    private func sql(_ query: String) throws -> String {
        try CLIRunner.sqlite3(try #require(environment["COMETCAL_DB"]), query)
    }

    @Test("the journal holds an import's records once: not while they are in the store, in full once undo takes them out (for redo)")
    func importedRecordsAreNotCopiedIntoTheJournal() throws {
        _ = try run(["import", try writeCalendar("work.ics", count: 50)])
        let newest = "SELECT instr(changes, 'Work item 7') > 0, json_array_length(changes) FROM _journal ORDER BY seq DESC LIMIT 1"
        #expect(try sql(newest) == "0|51", "the 50 events and their calendar, by digest")
        try run(["undo"])
        #expect(try sql(newest) == "1|51")
        try run(["redo"])
        #expect(try sql(newest) == "0|51")
    }

    @Test("history counts an entry's changes without reading them: an entry whose records no longer fit the schema is still listed")
    func historyDoesNotDecodeChanges() throws {
        _ = try run(["import", try writeCalendar("work.ics", count: 2)])
        #expect(try sql("UPDATE _journal SET changes = '[{\"entity\": \"gone.Thing\", \"id\": \"00000000-0000-0000-0000-000000000001\"}]'") == "")
        let listed = try json(["history"])
        guard case .array(let entries) = listed else { Issue.record("\(listed)"); return }
        #expect(entries.first?["summary"] == "Imported 2 events from work.ics")
        #expect(entries.first?["changes"] == .int(1))
        let refused = try run(["undo"], expect: 65)
        #expect(refused.stderr.contains("the journal refers to 'gone.Thing', which the schema no longer has"), "\(refused.stderr)")
    }
}
