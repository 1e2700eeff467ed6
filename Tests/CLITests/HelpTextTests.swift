import Testing
import Foundation
import CometSchema

/// Help that says something: every screen fits 80 columns, names no internal identifiers,
/// offers only flags the command has, and the main ones match their golden transcripts (set
/// COMETCAL_UPDATE_GOLDEN=1 to write them again after a deliberate change).
@Suite("cometcal help texts")
struct HelpTextTests {
    /// Every command there is, by path.
    static let commands: [[String]] = [
        [], ["calendar"], ["calendar", "list"], ["calendar", "add"], ["calendar", "update"], ["calendar", "delete"],
        ["event"], ["event", "add"], ["event", "update"], ["event", "edit"], ["event", "delete"], ["event", "list"], ["event", "show"],
        ["agenda"], ["today"], ["search"], ["import"], ["export"], ["undo"], ["redo"], ["history"],
        ["intent"], ["intent", "run"], ["intent", "list"], ["when"], ["add"], ["chat"], ["listen"], ["understand"], ["converse"],
        ["schema"], ["schema", "check"], ["schema", "show"], ["schema", "dump"], ["completions"],
    ]

    func help(_ path: [String]) throws -> String {
        let result = try CLIRunner.run(path + ["--help"])
        #expect(result.status == 0, "\(path): \(result.stderr)")
        return result.stdout
    }

    @Test("every help screen fits 80 columns", arguments: commands)
    func width(path: [String]) throws {
        for line in try help(path).split(separator: "\n") {
            #expect(line.count <= 80, "cometcal \(path.joined(separator: " ")) --help: \(line.count) columns: \(line)")
        }
    }

    @Test("no help screen leaks an internal name or repeats a field's name as its help", arguments: commands)
    func noInternalNames(path: [String]) throws {
        let text = try help(path)
        // `intent run` takes parameters by their names (startDate=…): there they are the interface.
        let names = path == ["intent", "run"] ? [] : ["isAllDay", "isFavorite", "showsAsBusy", "startDate", "endDate"]
        for leak in ["<eventStatus>", "<editSpan>", "<visibility>", "Sets is", "--categorie ", "Is all day.", "Start date.", "End date.",
                     "  Title.", "  Span.", "Recurrence.", "Virtual location."] + names {
            #expect(!text.contains(leak), "cometcal \(path.joined(separator: " ")) --help says '\(leak)'")
        }
        // An option whose help is only its own name, capitalised ("Note.", "Status.").
        for line in text.split(separator: "\n") where line.hasPrefix("  --") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, let flag = parts.first?.dropFirst(2) else { continue }
            let rest = parts.dropFirst().filter { !$0.hasPrefix("<") && $0 != "..." }.joined(separator: " ")
            #expect(rest.lowercased() != flag.replacingOccurrences(of: "-", with: " ") + ".", "\(path): '\(line)'")
        }
    }

    @Test("examples use only flags their command has", arguments: commands)
    func examplesUseRealFlags(path: [String]) throws {
        let text = try help(path)
        guard let examples = text.components(separatedBy: "EXAMPLES:\n").dropFirst().first else { return }
        let block = examples.components(separatedBy: "\n\n").first ?? ""
        let flags = Set(text.split(separator: "\n").flatMap { line in
            line.split(separator: " ").filter { $0.hasPrefix("--") || ($0.hasPrefix("-") && $0.count == 3 && $0.hasSuffix(",")) }.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
        })
        for word in block.split(whereSeparator: { $0 == " " || $0 == "\n" }) where word.hasPrefix("--") {
            let flag = String(word.split(separator: "=").first ?? word)
            #expect(flags.contains(flag), "cometcal \(path.joined(separator: " ")) shows \(flag) in an example, but has no such flag")
        }
    }

    @Test("enum flags list their values; --clear is offered only where something can be cleared")
    func enumValuesAndClear() throws {
        let update = try help(["event", "update"])
        #expect(update.contains("--span <this|future|all>"))
        #expect(update.contains("--status <confirmed|tentative|cancelled>"))
        #expect(update.contains("--category <text> ..."))
        #expect(update.contains("--clear <field> ..."))
        #expect(update.contains("Fields: title, start, end, all-day"), "the span and occurrence are not fields\n\(update)")
        for path in [["event", "add"], ["calendar", "add"], ["event", "show"], ["search"], ["event", "delete"], ["calendar", "list"]] {
            #expect(try !help(path).contains("--clear"), "\(path) offers --clear")
        }
        let add = try help(["event", "add"])
        #expect(add.contains("--no-all-day            The opposite of --all-day."))
        #expect(add.contains("--alarm <alarm> ...     Reminders: 15m or \"1h before\" (before the start)"), "\(add)")
    }

    @Test("the main help screens match their golden transcripts", arguments: [[], ["event", "add"], ["event", "update"], ["agenda"]])
    func golden(path: [String]) throws {
        let name = path.isEmpty ? "cometcal" : path.joined(separator: "-")
        let file = CLIRunner.repositoryRoot.appendingPathComponent("Tests/CLITests/Golden/help/\(name).txt")
        let text = try help(path)
        if ProcessInfo.processInfo.environment["COMETCAL_UPDATE_GOLDEN"] == "1" {
            try text.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "cometcal \(path.joined(separator: " ")) --help changed; if on purpose, run with COMETCAL_UPDATE_GOLDEN=1")
    }

    @Test("--version names the version and SQLite; the man page is the help's, current, and formats without a warning")
    func versionAndManPage() throws {
        let version = try CLIRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("cometcal 0."), "\(version.stdout)")
        #expect(version.stdout.contains("SQLite 3."))
        // One version, from one place: the daemon says the same, and so does its health.
        let number = try #require(version.stdout.split(separator: " ").dropFirst().first)
        let daemonVersion = try CLIRunner.run(["--version"], program: "cometcald")
        #expect(daemonVersion.status == 0 && daemonVersion.stdout.hasPrefix("cometcald \(number) (SQLite 3."), "\(daemonVersion.stdout)\(daemonVersion.stderr)")
        let daemon = try DaemonHarness()
        #expect(try daemon.client().call("health")["version"] == .string(String(number)))
        let page = try CLIRunner.run(["__man"], environment: ["COMETCAL_SCHEMAS": "Schemas"])
        let committed = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("docs/man/cometcal.1"), encoding: .utf8)
        #expect(page.stdout == committed, "docs/man/cometcal.1 is out of date: run scripts/manpage")
        #expect(page.stdout.contains(".SS \"cometcal event edit\""))
        #expect(page.stdout.contains("week_start"))
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        groff.arguments = ["groff", "-man", "-Tutf8", "-ww", "-z", CLIRunner.repositoryRoot.appendingPathComponent("docs/man/cometcal.1").path]
        let errors = Pipe()
        groff.standardError = errors
        try groff.run()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        #expect(groff.terminationStatus == 0)
        #expect(warnings.isEmpty, "groff: \(warnings)")
    }

    @Test("aliases people type: rm, del, ls, edit; and event list")
    func aliases() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("s"), withIntermediateDirectories: true)
        let environment = ["COMETCAL_DB": scratch.url.appendingPathComponent("s/cal.sqlite").path, "COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"]
        func run(_ arguments: [String]) throws -> CLIResult { try CLIRunner.run(arguments, environment: environment) }
        #expect(try run(["calendar", "add", "Home"]).status == 0)
        #expect(try run(["calendar", "edit", "Home", "--description", "Ours"]).status == 0)
        #expect(try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00"]).status == 0)
        #expect(try run(["event", "add", "Party", "--start", "2026-06-14 20:00"]).status == 0)
        let listed = try run(["event", "ls"])
        #expect(listed.stdout.contains("Picnic") && listed.stdout.contains("Party"), "\(listed.stdout)")
        #expect(try run(["event", "list", "picnic"]).stdout.contains("Party") == false)
        #expect(try run(["event", "rm", "Picnic", "--yes"]).status == 0)
        #expect(try run(["event", "del", "Party", "--yes"]).status == 0)
        #expect(try run(["event", "ls"]).stdout.contains("didn't find"))
        #expect(try run(["calendar", "ls"]).stdout.contains("Home"))
        #expect(try run(["calendar", "rm", "Home", "--yes"]).status == 0)
        #expect(try run(["event", "--help"]).stdout.contains("(Also: rm, del.)"))
    }
}
