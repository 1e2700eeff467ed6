import Testing
import Foundation
import CometSchema

/// The interactive paths, driven in a pseudo-terminal as a person meets them: prompts that
/// ask for a value, the "which one?" picker, confirmations, colours.
@Suite("cometcal at a terminal")
struct InteractiveTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func terminal(_ arguments: [String], columns: UInt16 = 80, extra: [String: String] = [:]) throws -> PseudoTerminal {
        try PseudoTerminal(arguments, environment: environment.merging(extra) { $1 }, columns: columns)
    }

    func weeklyStandup() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Standup", "--start", "2026-06-01 09:00", "--end", "2026-06-01 09:15", "--repeat", "weekly"])
    }

    @Test("the span prompt takes the words it offers", arguments: ["all events", "All of them", "this and future", "only this one", "all", "future"])
    func spanPromptWords(answer: String) throws {
        try weeklyStandup()
        let session = try terminal(["event", "update", "Standup", "--occurrence", "2026-06-15 09:00", "--location", "Room 2"])
        try session.answer(after: "or all events? [this/future/all]", with: answer)
        let (status, output) = try session.finish()
        #expect(status == 0, "\(output)")
        #expect(!output.contains("not a case"), "\(output)")
        let agenda = try run(["agenda", "--from", "2026-06-01", "--to", "2026-06-30"]).stdout
        let june1 = agenda.contains("Monday, June 1, 2026\n  09:00–09:15  Standup ↻  Work · Room 2")
        let june15 = agenda.contains("June 15, 2026\n  09:00–09:15  Standup") && agenda.contains("Room 2")
        #expect(june15, "\(agenda)")
        // "all" reaches back to the first occurrence; "this" and "future" leave it alone.
        #expect(june1 == ["all events", "All of them", "all"].contains(answer), "\(answer): \(agenda)")
    }

    @Test("a word the prompt does not take is refused with the answers it takes, and asked again")
    func spanPromptAsksAgain() throws {
        try weeklyStandup()
        let session = try terminal(["event", "update", "Standup", "--occurrence", "2026-06-15 09:00", "--location", "Room 2"])
        try session.answer(after: "[this/future/all]", with: "most of them")
        try session.wait(for: "'most of them' is not one of: this (only this event), future (this and future events), all (all events)")
        let prompts = PseudoTerminal.plain(session.output).components(separatedBy: "[this/future/all]").count - 1
        #expect(prompts >= 1)
        // Asked again: answer the second prompt.
        let deadline = Date().addingTimeInterval(20)
        while PseudoTerminal.plain(session.output).components(separatedBy: "[this/future/all]").count - 1 < 2, Date() < deadline { usleep(10_000) }
        session.type("this\n")
        let (status, output) = try session.finish()
        #expect(status == 0, "\(output)")
        #expect(PseudoTerminal.plain(output).contains("Standup"), "\(output)")
    }

    func parties(_ count: Int) throws {
        try run(["calendar", "add", "Home"])
        for day in 1...count {
            try run(["event", "add", "Party \(day)", "--start", "2026-06-\(String(format: "%02d", day)) 20:00"])
        }
    }

    @Test("the picker shows ten, says how many more, asks again on a number out of range, and narrows on words")
    func picker() throws {
        try parties(12)
        let session = try terminal(["event", "show", "party"])
        try session.wait(for: "Number, or words to narrow down (Enter to cancel): ")
        var screen = PseudoTerminal.plain(session.output)
        #expect(screen.contains("“party” matches 12 — which one?"), "\(screen)")
        #expect(screen.contains(" 1. Party 1"))
        #expect(screen.contains("10. Party 10"))
        #expect(!screen.contains("11. Party"))
        #expect(screen.contains("…and 2 more: type more of the title to narrow them down."), "\(screen)")
        session.type("14\n")
        try session.wait(for: "Choose a number from 1 to 10.")
        session.type("party 1\n")
        // "party 1" narrows to Party 1, 10, 11 and 12, listed again.
        try session.wait(for: "+ “party 1” matches 4 — which one?")
        session.type("3\n")
        let (status, output) = try session.finish()
        screen = PseudoTerminal.plain(output)
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("Here's “Party 11”."), "\(screen)")
    }

    @Test("Enter in the picker cancels and changes nothing")
    func pickerCancel() throws {
        try parties(2)
        let session = try terminal(["event", "delete", "party", "--yes"])
        try session.answer(after: "(Enter to cancel): ", with: "")
        let (status, output) = try session.finish()
        #expect(status == 0)
        #expect(PseudoTerminal.plain(output).contains("OK, I won't do that."))
        #expect(try json(["event", "list"])["total"] == 2)
    }

    @Test("a title match outranks a note match: the one event titled so is the answer")
    func titleOutranksNote() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Planning", "--start", "2026-06-11 10:00", "--note", "the picnic: who brings what"])
        try run(["event", "add", "Picnic in the park", "--start", "2026-06-13 12:00"])
        let shown = try run(["event", "show", "picnic"])
        #expect(shown.stdout.contains("Picnic in the park"), "\(shown.stdout)\(shown.stderr)")
        try run(["event", "add", "Picnic with Ada", "--start", "2026-06-20 12:00"])
        // Two titles hold the word: asked, titles first, the note's event after them.
        let asked = try run(["event", "show", "picnic"], expect: 65)
        let lines = asked.stderr.split(separator: "\n").filter { $0.hasPrefix("  ") }
        #expect(lines.count == 3 && lines[2].contains("Planning"), "\(asked.stderr)")
    }

    @Test("the import progress bar fits the terminal and redraws in place", arguments: [UInt16(40), 80])
    func progressBar(columns: UInt16) throws {
        try run(["calendar", "add", "Home"])
        let file = scratch.url.appendingPathComponent("a-calendar-file-with-a-really-quite-long-name-exported-from-somewhere.ics")
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        for index in 0..<4_000 {
            text += "BEGIN:VEVENT\r\nUID:bar-\(index)@test\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260601T\(String(format: "%02d", index % 24))0000Z\r\nSUMMARY:Event \(index) with a description long enough to take a while\r\nDESCRIPTION:\(String(repeating: "x", count: 200))\r\nEND:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let session = try terminal(["import", file.path], columns: columns)
        let (status, output) = try session.finish(timeout: 120)
        #expect(status == 0, "\(output)")
        let drawn = output.components(separatedBy: "\r").filter { $0.contains("%") }
        #expect(!drawn.isEmpty, "no progress was drawn: \(output.debugDescription)")
        for line in drawn {
            let visible = PseudoTerminal.plain(line)
            #expect(!visible.contains("\n"), "a redraw wrapped: \(visible.debugDescription)")
            #expect(visible.count < Int(columns), "\(visible.count) columns at \(columns): \(visible)")
            #expect(visible.contains("…"), "the long name is shortened: \(visible)")
        }
        // The bar is erased before the report: the report starts its own clean line.
        #expect(output.contains("\r\u{1B}[KImported into Home: 4000 added"), "\(output.suffix(300).debugDescription)")
    }

    @Test("colours on a terminal, and none with NO_COLOR or --no-color; calendar colours in 24-bit where the terminal says so")
    func colours() throws {
        try run(["calendar", "add", "Home", "--color", "#FF8800"])
        try run(["event", "add", "Picnic", "--start", "2026-06-10 12:00"])
        let coloured = try terminal(["agenda"], extra: ["COLORTERM": "truecolor"])
        let (_, withColour) = try coloured.finish()
        #expect(withColour.contains("\u{1B}[1m"), "bold headings")
        #expect(withColour.contains("\u{1B}[38;2;255;136;0m●"), "the calendar's dot in its colour: \(withColour.debugDescription)")
        let palette = try terminal(["agenda"])
        #expect(try palette.finish().output.contains("\u{1B}[38;5;"), "256 colours with TERM=xterm-256color")
        for extra in [["NO_COLOR": "1"], [:]] {
            let plain = try terminal(extra.isEmpty ? ["agenda", "--no-color"] : ["agenda"], extra: extra)
            let (_, text) = try plain.finish()
            #expect(!text.contains("\u{1B}["), "\(text.debugDescription)")
            #expect(text.contains("Picnic"))
        }
    }
}
