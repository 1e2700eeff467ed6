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
}
