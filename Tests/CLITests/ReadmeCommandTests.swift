import Foundation
import Testing

/// A command of the README: its line number and text.
private struct ReadmeCommand {
    let line: Int
    let text: String
}

/// The README's commands, as the test reads them: every line of a ```sh block whose first word
/// is `cometcal` or `cometcald` (not `cometcal-client`, `scripts/…` or the `swift build` lines),
/// in order.
private func readmeCommands(_ readme: String) -> [ReadmeCommand] {
    var commands: [ReadmeCommand] = []
    var inShellBlock = false
    for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if line.hasPrefix("```") {
            inShellBlock = !inShellBlock && line == "```sh"
            continue
        }
        guard inShellBlock, let first = line.split(separator: " ").first, first == "cometcal" || first == "cometcald" else { continue }
        commands.append(ReadmeCommand(line: index + 1, text: String(line)))
    }
    return commands
}

/// README commands a test cannot run, each with why. Every entry must still name a README line.
private let notRunInTests: [(command: String, reason: String)] = [
    ("cometcal event edit Picnic", "opens $EDITOR on a terminal (EditCommandTests drive the form with a scripted editor)"),
    ("cometcald --verbose &", "starts a daemon that runs until stopped (DaemonTests start and stop their own)"),
    ("cometcal listen move-picnic.wav", "names recordings of the reader's own voice (ListenCommandTests speak theirs with espeak-ng)"),
    ("cometcal chat --voice", "records from the reader's microphone (VoiceChatTests record from a private PulseAudio server)"),
]

/// README commands that ask on a terminal: run on a pseudo-terminal, answered as a person would.
private let answeredOnATerminal: [(command: String, prompt: String, answer: String)] = [
    ("cometcal event delete Picnic", "[y/N] ", "y"),
]

@Suite("The README's commands")
struct ReadmeCommandTests {
    @Test("every cometcal command of the README runs, in order, on a fresh store, and exits 0")
    func everyCommandRuns() throws {
        let readme = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = readmeCommands(readme)
        // The rule must find the examples, or the test would pass by running nothing.
        #expect(commands.count >= 25, "only \(commands.count) commands found in README.md")
        for asked in answeredOnATerminal {
            #expect(commands.contains { $0.text.hasPrefix(asked.command) }, "'\(asked.command)' is answered on a terminal but no longer in README.md")
            #expect(!asked.command.contains("\"") && !asked.command.contains("'"))
        }
        for excluded in notRunInTests {
            #expect(commands.contains { $0.text.hasPrefix(excluded.command) }, "'\(excluded.command)' is excluded but no longer in README.md")
        }

        // A home of its own: `~/calendars`, `backup.ics` and the store are written there, never in
        // the repository; the schemas and examples the commands name are copies of the repository's
        // (copies: the schema loader does not follow a linked folder).
        let home = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let files = FileManager.default
        for name in ["Schemas", "Examples"] {
            try files.copyItem(at: CLIRunner.repositoryRoot.appendingPathComponent(name), to: home.url.appendingPathComponent(name))
        }
        // `import --skip-invalid invites/*.ics` names the reader's own invitations: one valid, one not.
        let invites = home.url.appendingPathComponent("invites")
        try files.createDirectory(at: invites, withIntermediateDirectories: true)
        try Self.invitation(uid: "tea@example.com", summary: "Tea", start: "DTSTART:20260612T150000Z")
            .write(to: invites.appendingPathComponent("tea.ics"), atomically: true, encoding: .utf8)
        try Self.invitation(uid: "broken@example.com", summary: "Broken", start: "DTSTART:2026-06-12")
            .write(to: invites.appendingPathComponent("broken.ics"), atomically: true, encoding: .utf8)
        try files.createDirectory(at: home.url.appendingPathComponent("store"), withIntermediateDirectories: true)

        let binaries = try CLIRunner.binary().deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = home.url.path
        environment["COMETCAL_DB"] = home.url.appendingPathComponent("store/cal.sqlite").path
        environment["COMETCAL_NOW"] = "2026-06-10T10:00:00Z"
        environment["TZ"] = "Europe/Berlin"
        environment["NO_COLOR"] = "1"
        environment["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        environment["XDG_DATA_HOME"] = home.url.appendingPathComponent("data").path
        environment.removeValue(forKey: "COMETCAL_SCHEMAS")
        environment.removeValue(forKey: "COMETCAL_CONFIG")
        environment.removeValue(forKey: "EDITOR")
        environment.removeValue(forKey: "VISUAL")

        var ran = 0
        for command in commands where !notRunInTests.contains(where: { command.text.hasPrefix($0.command) }) {
            let result: CLIResult
            if let asked = answeredOnATerminal.first(where: { command.text.hasPrefix($0.command) }) {
                // Plain words after `cometcal` (checked: no quotes), so no shell is needed.
                let words = asked.command.split(separator: " ").dropFirst().map(String.init)
                let session = try PseudoTerminal(words, environment: environment, currentDirectory: home.url)
                try session.answer(after: asked.prompt, with: asked.answer)
                let finished = try session.finish()
                result = CLIResult(status: finished.status, stdout: finished.output, stderr: finished.output)
            } else {
                result = try Self.shell(command.text, environment: environment, in: home.url)
            }
            ran += 1
            // Both outputs: `converse` reports a failed script on standard output.
            #expect(result.status == 0, "README.md:\(command.line): `\(command.text)` exited \(result.status)\n\(result.stderr)\n\(result.stdout.suffix(4000))")
        }
        #expect(ran == commands.count - notRunInTests.count)
    }

    @Test("intent run with a parameter written as a flag (--span all) says to write span=VALUE")
    func intentRunFlagHint() throws {
        let result = try CLIRunner.run(["intent", "run", "updateEvent", "event=Standup", "--span", "all"],
                                       environment: ["COMETCAL_DB": "/nonexistent/cometcal-readme/cal.sqlite"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("(intent run takes the intent's parameters as NAME=VALUE: write span=VALUE, not --span VALUE)"), "\(result.stderr)")
    }

    private static func invitation(uid: String, summary: String, start: String) -> String {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal tests//EN", "METHOD:REQUEST", "BEGIN:VEVENT", "UID:\(uid)",
         "DTSTAMP:20260601T000000Z", start, "DURATION:PT1H", "SUMMARY:\(summary)", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
    }

    /// Runs one line with /bin/sh, as a reader pasting it would (globs, `~`, quotes, comments).
    private static func shell(_ line: String, environment: [String: String], in directory: URL) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        process.environment = environment
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                         stderr: String(decoding: stderrData, as: UTF8.self))
    }
}
