import Foundation
import Testing
import TestThreads

/// litmus 0.13 (Debian's `litmus`, installed by scripts/bootstrap), the WebDAV conformance
/// suite, against the server: its `basic`, `http` and `props` groups.
@Suite("litmus, the WebDAV conformance suite", .serialized)
struct LitmusTests {
    /// The failures docs/caldav.md explains (section "litmus"), as GROUP/TEST: each stores a body
    /// that is not iCalendar, or a collection inside a calendar, which a CalDAV server refuses.
    static let expectedFailures: Set<String> = ["basic/mkcol", "basic/put_get", "basic/put_get_utf8_segment", "basic/delete_fragment",
                                                "props/propinit", "props/propmanyns"]

    static let groups = ["basic", "http", "props"]

    /// One litmus run: each group's tests as GROUP/TEST with their outcome (pass, FAIL, ...).
    struct Run {
        var outcomes: [String: String] = [:]
        var summarized: Set<String> = []
        let output: String

        init(output: String) {
            self.output = output
            var group: String?
            // litmus repaints each line on a terminal; in a pipe a test's name comes twice
            // ("1. begin....  1. begin.... FAIL (why)"): the last name before the outcome counts.
            let test = /(\d+)\. ([A-Za-z0-9_]+)\.+ (pass|FAIL|SKIPPED|WARNING)/
            for line in output.split(separator: "\n") {
                if let running = line.firstMatch(of: /-> running `([a-z]+)'/) {
                    group = String(running.1)
                } else if let summary = line.firstMatch(of: /<- summary for `([a-z]+)'/) {
                    summarized.insert(String(summary.1))
                } else if let group, let match = line.matches(of: test).last {
                    outcomes["\(group)/\(match.2)"] = String(match.3)
                }
            }
        }

        var failures: Set<String> { Set(outcomes.filter { $0.value == "FAIL" }.keys) }
    }

    /// Where Debian's litmus keeps a group's program and the files it PUTs (the `litmus` script
    /// runs these one after another; run directly, a group stopped at its limit leaves nothing).
    static let programs = "/usr/libexec/litmus"
    static let documents = "/usr/share/litmus/htdocs"

    /// Whether a group was killed at its limit (its own exit status cannot say: litmus's
    /// programs catch signals and exit as if they had finished).
    final class Stopped: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        func stop(_ process: Process) {
            lock.withLock {
                guard process.isRunning else { return }
                stopped = true
                kill(process.processIdentifier, SIGKILL)
            }
        }
        var value: Bool { lock.withLock { stopped } }
    }

    /// Runs each group's program in a folder of its own (it writes debug.log and child.log where
    /// it runs), whatever the group before did; a group still running after `limit` seconds is
    /// killed and the test fails.
    static func litmus(_ url: String, limit: TimeInterval = 60) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("litmus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = ""
        for group in groups {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "\(programs)/\(group)")
            process.arguments = ["--htdocs", documents, url, "alice", "secret"]
            process.currentDirectoryURL = folder
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let stopped = Stopped()
            // The deadline on a thread of its own: a timer on Dispatch's global queues can be
            // late by minutes while other tests compute there (WorkerThreads).
            let ended = DispatchSemaphore(value: 0)
            let stopper = WorkerThreads()
            stopper.start { if ended.wait(timeout: .now() + limit) == .timedOut { stopped.stop(process) } }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            ended.signal()
            stopper.wait()
            if stopped.value {
                throw LiveServer.Failure(description: "litmus \(group) did not finish within \(limit) seconds: \(String(decoding: data.suffix(3000), as: UTF8.self))")
            }
            text += String(decoding: data, as: UTF8.self)
        }
        return Run(output: text)
    }

    @Test("litmus basic, http and props against a calendar: every group runs, and what fails is exactly the documented expected failures")
    func conformance() throws {
        for group in Self.groups {
            try #require(FileManager.default.isExecutableFile(atPath: "\(Self.programs)/\(group)"), "litmus is not installed: run scripts/bootstrap")
        }
        let server = try LiveServer()
        // litmus makes its collection `litmus/` in the calendar home: a calendar.
        let run = try Self.litmus("http://127.0.0.1:\(server.server.port)/dav/calendars/alice/")
        #expect(run.summarized == Set(Self.groups), "\(run.output)")
        for group in Self.groups {
            #expect(run.outcomes["\(group)/init"] == "pass", "\(group): \(run.output)")
        }
        // The figures docs/caldav.md gives: tests passed per group (a warning is a pass, as litmus counts it).
        for (group, passed) in [("basic", 8), ("http", 4), ("props", 9)] {
            #expect(run.outcomes.filter { $0.key.hasPrefix(group + "/") && ($0.value == "pass" || $0.value == "WARNING") }.count == passed, "\(group): \(run.output)")
        }
        let unexpected = run.failures.subtracting(Self.expectedFailures)
        #expect(unexpected.isEmpty, "failures not in docs/caldav.md's list: \(unexpected.sorted())\n\(run.output)")
        // One that passes now leaves the list (and the docs), so neither says more than is true.
        let fixed = Self.expectedFailures.subtracting(run.failures)
        #expect(fixed.isEmpty, "expected failures that pass now: \(fixed.sorted())")
    }

    @Test("the litmus output reader: the group of each test, the last name before the outcome, and the groups that finished")
    func reader() {
        let output = """
            -> running `basic':
             0. init..................  0. init.................. pass
             1. begin.................  1. begin................. FAIL (Could not create new collection)
            <- summary for `basic': of 2 tests run: 1 passed, 1 failed. 50.0%
            -> running `props':
             0. init.................. pass
            """
        let run = Run(output: output)
        #expect(run.outcomes == ["basic/init": "pass", "basic/begin": "FAIL", "props/init": "pass"])
        #expect(run.failures == ["basic/begin"])
        #expect(run.summarized == ["basic"])
    }
}
