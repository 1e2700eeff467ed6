import Testing
import Foundation
import CometSchema

/// Runs the built `cometcal` binary the way a user would, capturing both streams.
struct CLIResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CLIRunner {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary next to the test bundle (SwiftPM puts both in the same build folder).
    static func binary(_ name: String = "cometcal") throws -> URL {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            var url = URL(fileURLWithPath: first)
            for _ in 0..<4 {
                url.deleteLastPathComponent()
                candidates.append(url.appendingPathComponent(name))
            }
        }
        candidates.append(repositoryRoot.appendingPathComponent(".build/debug/\(name)"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CLIRunnerError.binaryNotFound(candidates.map(\.path))
        }
        return found
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil, stdin: String? = nil, program: String = "cometcal") throws -> CLIResult {
        let process = Process()
        process.executableURL = try binary(program)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "COMETCAL_SCHEMAS")
        env.removeValue(forKey: "COMETCAL_CONFIG")
        // The developer's own config file must not change what a test sees.
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = currentDirectory ?? repositoryRoot
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read before waiting so a large output cannot fill the pipe and block the child.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus,
                         stdout: String(decoding: stdoutData, as: UTF8.self),
                         stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// What `PRAGMA integrity_check` says of a store, through the sqlite3 shell (not CometCal):
    /// "ok\n" for a sound one.
    static func integrity(of path: String) throws -> String {
        try sqlite3(path, "PRAGMA integrity_check;", errorsToo: true)
    }

    /// What the sqlite3 shell (not CometCal) answers for `sql` on the store at `path`; with
    /// `errorsToo`, its error output follows, untrimmed (a damaged store answers there).
    static func sqlite3(_ path: String, _ sql: String, errorsToo: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, sql]
        let out = Pipe()
        process.standardOutput = out
        if errorsToo { process.standardError = out }
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return errorsToo ? text : text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A suite that runs the CLI against a fresh store of its own, with a fixed clock and zone and no
/// terminal (so confirmations need --yes).
protocol CLISuite {
    var environment: [String: String] { get }
}

extension CLISuite {
    /// A temporary folder for the store (removed with the suite's instance, after its test) and
    /// the environment that points the CLI at it.
    static func freshStore() throws -> (directory: ScratchDirectory, environment: [String: String]) {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        // COMETCAL_DB's folder must exist: only the default location is made with its folders.
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("store"), withIntermediateDirectories: true)
        return (scratch, ["COMETCAL_DB": scratch.url.appendingPathComponent("store/cal.sqlite").path,
                          "COMETCAL_NOW": "2026-06-10T10:00:00Z", "TZ": "Europe/Berlin"])
    }

    @discardableResult
    func run(_ arguments: [String], expect status: Int32 = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try CLIRunner.run(arguments, environment: environment)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    func json(_ arguments: [String], expect status: Int32 = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> JSONValue {
        let result = try run(arguments + ["--json"], expect: status, sourceLocation: sourceLocation)
        return try JSONParser.parse(result.stdout)
    }
}

enum CLIRunnerError: Error, CustomStringConvertible {
    case binaryNotFound([String])

    var description: String {
        switch self {
        case .binaryNotFound(let paths):
            return "cometcal binary not found (build with 'swift build --build-tests'); looked in: " + paths.joined(separator: ", ")
        }
    }
}

/// A temporary folder that is removed when the last reference to it goes.
final class ScratchDirectory: Sendable {
    let url: URL
    init(_ url: URL) { self.url = url }
    deinit { try? FileManager.default.removeItem(at: url) }
}
