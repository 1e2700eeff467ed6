import Testing
import Foundation
import CometSchema

/// Shell completions: what `cometcal __complete` answers (from the same specs as --help, with
/// titles from the store), and each shell's script loaded and run in that shell.
@Suite("cometcal completions")
struct CompletionTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func complete(_ words: [String]) throws -> [String] {
        let result = try CLIRunner.run(["__complete", "bash", "--"] + words, environment: environment)
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func seed() throws {
        try run(["calendar", "add", "Lunar Orbit Log"])
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Zero Gravity Yoga", "--start", "2026-06-15 08:00"])
        try run(["event", "add", "Picnic", "--start", "2026-06-13 12:00"])
    }

    @Test("commands, aliases, flags and enum values come from the command specs")
    func fromSpecs() throws {
        #expect(try complete(["ev"]) == ["event"])
        #expect(try complete(["event", ""]) == ["add", "update", "edit", "delete", "rm", "del", "list", "ls", "show"])
        #expect(try complete(["event", "update", "--sp"]) == ["--span"])
        #expect(try complete(["event", "update", "X", "--span", ""]) == ["this", "future", "all"])
        #expect(try complete(["event", "add", "X", "--status", "t"]) == ["tentative"])
        #expect(try complete(["--js"]) == ["--json"])
        #expect(try complete(["completions", ""]) == ["bash", "zsh", "fish"])
        #expect(try complete(["import", ""]) == ["__files__"])
        // Every subcommand --help lists is offered, so the two cannot drift.
        let help = try CLIRunner.run(["--help"]).stdout
        let listed = help.components(separatedBy: "SUBCOMMANDS:\n")[1].split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first else { return nil }
            return String(word)
        }.filter { $0 != "See" }
        let offered = try complete([""])
        for command in listed { #expect(offered.contains(command), "\(command) is in --help but not completed") }
    }

    @Test("event and calendar titles complete from the store, by prefix, ignoring case")
    func titles() throws {
        try seed()
        #expect(try complete(["event", "show", ""]) == ["Picnic", "Zero Gravity Yoga"])
        #expect(try complete(["event", "update", "ze"]) == ["Zero Gravity Yoga"])
        #expect(try complete(["event", "add", "X", "--calendar", "l"]) == ["Lunar Orbit Log"])
        #expect(try complete(["agenda", "--calendar", ""]) == ["Lunar Orbit Log", "Work"])
    }

    /// Runs the sqlite3 shell (not CometCal) on the store.
    private func sqlite(_ sql: String) throws -> String {
        try CLIRunner.sqlite3(try #require(environment["COMETCAL_DB"]), sql)
    }

    @Test("completion never migrates: on a store of an older format it offers no titles and leaves the store's bytes as they were")
    func neverMigrates() throws {
        try seed()
        let path = try #require(environment["COMETCAL_DB"])
        let version = try #require(Int(try sqlite("PRAGMA user_version;")))
        _ = try sqlite("PRAGMA user_version = \(version - 1);")
        let folder = (path as NSString).deletingLastPathComponent
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let bytesBefore = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try complete(["event", "show", ""]) == [])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytesBefore, "completion changed the store")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == filesBefore)
        #expect(try sqlite("PRAGMA user_version;") == String(version - 1))
        // The next real command migrates it, and the titles come back.
        try run(["calendar", "list"])
        #expect(try complete(["event", "show", ""]) == ["Picnic", "Zero Gravity Yoga"])
    }

    @Test("bash: the script completes a title with spaces, escaped, and files for import")
    func bash() throws {
        try seed()
        let script = try run(["completions", "bash"]).stdout
        let binary = try CLIRunner.binary().deletingLastPathComponent().path
        let driver = """
            export PATH='\(binary)':"$PATH"
            \(script)
            COMP_WORDS=(cometcal event show Zer); COMP_CWORD=3; _cometcal; printf '%s\\n' "${COMPREPLY[@]}"
            COMP_WORDS=(cometcal event update Picnic --span f); COMP_CWORD=5; _cometcal; printf '%s\\n' "${COMPREPLY[@]}"
            cd '\(scratch.url.path)'; touch holidays.ics
            COMP_WORDS=(cometcal import hol); COMP_CWORD=2; _cometcal; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let output = try shell("/bin/bash", ["-c", driver])
        #expect(output == "Zero\\ Gravity\\ Yoga\nfuture\nholidays.ics\n", "\(output.debugDescription)")
    }

    @Test("zsh: the script loads, and offers what __complete says")
    func zsh() throws {
        try seed()
        let script = try run(["completions", "zsh"]).stdout
        let binary = try CLIRunner.binary().deletingLastPathComponent().path
        // compadd only works inside a completion widget: a stand-in prints what it is given.
        let driver = """
            export PATH='\(binary)':"$PATH"
            compadd() { [[ "$1" == "--" ]] && shift; print -l -- "$@"; }
            \(script)
            words=(cometcal event show Zer); CURRENT=4; _cometcal
            words=(cometcal agenda --calendar ""); CURRENT=4; _cometcal
            """
        let output = try shell("/usr/bin/zsh", ["-f", "-c", driver])
        #expect(output == "Zero Gravity Yoga\nLunar Orbit Log\nWork\n", "\(output.debugDescription)")
    }

    @Test("fish: complete -C runs the script")
    func fish() throws {
        try seed()
        let script = scratch.url.appendingPathComponent("cometcal.fish")
        try run(["completions", "fish"]).stdout.write(to: script, atomically: true, encoding: .utf8)
        let binary = try CLIRunner.binary().deletingLastPathComponent().path
        let driver = "set -x PATH '\(binary)' $PATH; source '\(script.path)'; complete -C 'cometcal event show Pic'; complete -C 'cometcal event update X --span '"
        let output = try shell("/usr/bin/fish", ["--no-config", "-c", driver])
        #expect(output == "Picnic\nall\nfuture\nthis\n", "fish sorts what it offers: \(output.debugDescription)")
    }

    @Test("an unknown shell is a usage error naming the three")
    func unknownShell() throws {
        let result = try run(["completions", "tcsh"], expect: 64)
        #expect(result.stderr.contains("choose bash, zsh or fish"))
    }

    private func shell(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        env.removeValue(forKey: "COMETCAL_SCHEMAS")
        process.environment = env
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
