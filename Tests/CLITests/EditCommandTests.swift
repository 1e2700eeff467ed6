import Testing
import Foundation
import CometSchema

/// `cometcal event edit` with a script as $EDITOR: the form, value state (a removed line
/// clears, an untouched one is left alone even when the event changed meanwhile), errors that
/// send the person back into the editor, and the cancel paths.
@Suite("cometcal event edit")
struct EditCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    /// An editor: a shell script given the form's path as $1; `calls` counts its runs.
    func editor(_ body: String) throws -> [String: String] {
        let script = scratch.url.appendingPathComponent("editor-\(UUID().uuidString).sh")
        try """
            #!/bin/sh
            n=$(cat "\(scratch.url.path)/calls" 2>/dev/null || echo 0)
            n=$((n + 1))
            echo $n > "\(scratch.url.path)/calls"
            cp "$1" "\(scratch.url.path)/form-$n.txt"
            \(body)
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return environment.merging(["EDITOR": script.path, "VISUAL": ""]) { $1 }
    }

    func form(_ number: Int) throws -> String {
        try String(contentsOf: scratch.url.appendingPathComponent("form-\(number).txt"), encoding: .utf8)
    }

    func seed() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00", "--end", "+3h", "--location", "Tempelhofer Feld",
                 "--note", "bring cake\nand blankets", "--alarm", "15m", "--category", "Fun", "--category", "Outdoor"])
    }

    @Test("the form shows every field as its flag takes it, and lists those not set")
    func theForm() throws {
        try seed()
        let result = try CLIRunner.run(["event", "edit", "Picnic"], environment: try editor("true"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Nothing was changed.\n")
        let text = try form(1)
        for line in ["title: Picnic", "start: 2026-06-13 12:00", "end: 2026-06-13 15:00", "all-day: no", "calendar: Home",
                     "note: bring cake\n  and blankets", "location: Tempelhofer Feld", "alarm: 15m before", "category: Fun\ncategory: Outdoor",
                     "# Not set (add a line to set one): repeat, travel-time, url, status, organizer, attendee, visibility"] {
            #expect(text.contains(line), "missing '\(line)' in\n\(text)")
        }
        #expect(text.contains("Times are in Europe/Berlin"))
    }

    @Test("a changed line sets, a removed line clears, an untouched line is unset: a change made meanwhile stays")
    func valueState() throws {
        try seed()
        // While the form is open, someone changes the note; the form's note line is untouched.
        let env = try editor("""
            COMETCAL_DB='\(environment["COMETCAL_DB"]!)' '\(try CLIRunner.binary().path)' event update Picnic --note 'changed meanwhile' >/dev/null
            sed -i 's/^location: .*/location: Lab 3/; /^alarm:/d; /^category: Fun$/d; s/^# Not set.*$/status: tentative/' "$1"
            """)
        let result = try CLIRunner.run(["event", "edit", "Picnic"], environment: env)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let event = try json(["event", "show", "Picnic"])["entity"]
        #expect(event?["location"] == ["text": "Lab 3"], "set")
        #expect(event?["alarms"] == [], "cleared")
        #expect(event?["categories"] == ["Outdoor"], "one of two removed")
        #expect(event?["status"] == "tentative", "added")
        #expect(event?["note"] == "changed meanwhile", "an untouched line is not part of the request: \(String(describing: event?["note"]))")
        // One update, undone at once.
        try run(["undo"])
        let undone = try json(["event", "show", "Picnic"])["entity"]
        #expect(undone?["location"] == ["text": "Tempelhofer Feld"] && undone?["status"] == nil)
    }

    @Test("a form that does not read, or a change refused, opens again with the error on top")
    func backIntoTheEditor() throws {
        try seed()
        let env = try editor("""
            case $n in
            1) sed -i 's/^location:/lokation:/' "$1" ;;
            2) sed -i 's/^lokation:/location:/; s/^end: .*/end: 2026-06-13 11:00/' "$1" ;;
            *) sed -i 's/^end: .*/end: 2026-06-13 16:00/' "$1" ;;
            esac
            """)
        // A person at a terminal is sent back into the editor with the error on top.
        let session = try PseudoTerminal(["event", "edit", "Picnic"], environment: env)
        let (status, output) = try session.finish()
        #expect(status == 0, "\(output)")
        let second = try form(2)
        let third = try form(3)
        #expect(second.hasPrefix("# error: line "), "\(second)")
        #expect(second.contains("'lokation' is not a field. Did you mean 'location'?"))
        #expect(third.contains("# error: --end: the end (Sat Jun 13 2026 11:00) is before the start"), "\(third)")
        #expect(!third.contains("lokation"), "the person's own edits are kept, and the old error is gone")
        #expect(try json(["event", "show", "Picnic"])["entity"]?["endDate"] == "2026-06-13T16:00:00+02:00[Europe/Berlin]")
    }

    @Test("without a terminal, a refused form is not opened again: the error is said and nothing changes")
    func refusedWithoutTerminal() throws {
        try seed()
        let before = try json(["event", "show", "Picnic"])["entity"]
        let result = try CLIRunner.run(["event", "edit", "Picnic"], environment: try editor("sed -i 's/^end: .*/end: 2026-06-13 11:00/' \"$1\""))
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: the edited form was refused: --end: the end (Sat Jun 13 2026 11:00) is before the start"), "\(result.stderr)")
        #expect(result.stderr.contains("without a terminal the editor is not opened again"))
        #expect(try String(contentsOf: scratch.url.appendingPathComponent("calls"), encoding: .utf8) == "1\n", "the editor ran once")
        #expect(try json(["event", "show", "Picnic"])["entity"] == before)
    }

    @Test("in a terminal the editor is in the foreground: it reads the terminal, and Ctrl-C is the editor's, leaving no form behind")
    func editorOwnsTheTerminal() throws {
        try seed()
        let temporary = scratch.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        // A terminal editor reads /dev/tty: in a background process group it would be stopped,
        // without the terminal it could not open it.
        var env = try editor("printf 'new title? ' > /dev/tty; read title < /dev/tty || exit 9; sed -i \"s/^title: .*/title: $title/\" \"$1\"")
        env["TMPDIR"] = temporary.path
        let session = try PseudoTerminal(["event", "edit", "Picnic"], environment: env)
        try session.answer(after: "new title? ", with: "Tea party")
        let (status, output) = try session.finish()
        #expect(status == 0, "\(output)")
        #expect(try json(["event", "show", "Tea party"])["entity"]?["location"] == ["text": "Tempelhofer Feld"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "the form is removed")

        // Ctrl-C while the editor waits: the editor is interrupted, cometcal says so and cleans up.
        let interrupted = try PseudoTerminal(["event", "edit", "Tea party"], environment: env)
        try interrupted.wait(for: "new title? ")
        interrupted.type("\u{03}")
        let (code, said) = try interrupted.finish()
        #expect(code == 74, "\(said)")
        #expect(said.contains("was stopped by signal 2; nothing was changed"), "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "no form is left behind")
        #expect(try json(["event", "show", "Tea party"])["entity"] != nil)
    }

    @Test("an empty form, or an editor that fails, changes nothing")
    func cancel() throws {
        try seed()
        let emptied = try CLIRunner.run(["event", "edit", "Picnic"], environment: try editor(": > \"$1\""))
        #expect(emptied.status == 0)
        #expect(emptied.stdout == "The form is empty: nothing was changed.\n")
        let failed = try CLIRunner.run(["event", "edit", "Picnic"], environment: try editor("exit 3"))
        #expect(failed.status == 74)
        #expect(failed.stderr.contains("exited with status 3; nothing was changed"))
        #expect(try run(["history"]).stdout.components(separatedBy: "\n").filter { $0.contains("Updated") }.isEmpty)
    }

    @Test("with change flags, edit is update; an all-day event's end is its last day")
    func flagsAndAllDay() throws {
        try seed()
        #expect(try json(["event", "edit", "Picnic", "--location", "Park"])["entity"]?["location"] == ["text": "Park"])
        try run(["event", "add", "Trip", "--start", "2026-06-19", "--end", "2026-06-21"])
        let env = try editor("sed -i 's/^end: .*/end: 2026-06-22/' \"$1\"")
        #expect(try CLIRunner.run(["event", "edit", "Trip"], environment: env).status == 0)
        let first = try form(1)
        #expect(first.contains("end: 2026-06-21"), "\(first)")
        #expect(try run(["event", "show", "Trip"]).stdout.contains("Fri Jun 19 – Mon Jun 22 (all day)"))
    }

    @Test("in a terminal, the editor gets the terminal and a series asks its span")
    func inTerminal() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Standup", "--start", "2026-06-01 09:00", "--end", "+15m", "--repeat", "weekly"])
        let env = try editor("[ -t 0 ] && [ -t 1 ] && echo tty > \"\(scratch.url.path)/tty\"; sed -i 's/^title: .*/title: Daily sync/' \"$1\"")
        let session = try PseudoTerminal(["event", "edit", "Standup", "--occurrence", "2026-06-15 09:00"], environment: env)
        try session.answer(after: "[this/future/all]", with: "this and future")
        let (status, output) = try session.finish()
        #expect(status == 0, "\(output)")
        #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("tty").path), "the editor runs on the terminal")
        let agenda = try run(["agenda", "--from", "2026-06-08", "--days", "14"]).stdout
        #expect(agenda.contains("Monday, June 8, 2026\n  09:00–09:15  Standup"), "\(agenda)")
        #expect(agenda.contains("Monday, June 15, 2026\n  09:00–09:15  Daily sync"), "\(agenda)")
    }
}
