import Testing
import Foundation

/// scripts/private-postgres, which scripts/bench and scripts/soak source for --store postgresql:
/// a cluster of its own, on a Unix socket in a new temporary folder, gone when the script ends.
@Suite("scripts/private-postgres")
struct PrivatePostgresScriptTests {
    /// Runs a bash script from the repository's root; its output goes through files, not pipes,
    /// so that nothing the script starts can hold the test's pipes open. SIGINT is set back to
    /// its default and unblocked first (through python3's exec): the test runner starts its
    /// children with it blocked, where no trap sees it, and a terminal's ctrl-C finds neither.
    private func bash(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let scratch = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let err = scratch.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil), FileManager.default.createFile(atPath: err.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); os.execv('/bin/bash', ['bash', '-c', sys.argv[1]])", script]
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    @Test("it starts a cluster listening on a Unix socket in a new temporary folder only, synchronous_commit off and fsync on, makes the database, and removes it all when the script exits")
    func startsAndRemoves() throws {
        let result = try bash("""
            set -euo pipefail
            . scripts/private-postgres
            private_postgres_start cometcal_probe
            echo "$private_postgres_folder"
            "$private_postgres_bin/psql" "$PRIVATE_POSTGRES_ADDRESS" -At -c "SHOW listen_addresses" -c "SHOW synchronous_commit" -c "SHOW fsync" -c "SELECT current_database()"
            """)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 5, "\(result.stdout)")
        guard lines.count >= 5 else { return }
        let folder = lines[0]
        #expect(folder.hasPrefix("/tmp/cometcal-pg-"))
        #expect(Array(lines[1...4]) == ["", "off", "on", "cometcal_probe"])
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is still there")
        #expect(result.stderr.contains("stopped and removed \(folder)"), "\(result.stderr)")
    }

    @Test("an interrupted script (SIGINT, as ctrl-C sends) stops the cluster and removes its folder too, and exits 130")
    func interrupted() throws {
        let result = try bash("""
            set -euo pipefail
            . scripts/private-postgres
            private_postgres_start cometcal_probe
            echo "$private_postgres_folder"
            kill -INT $$
            sleep 20
            """)
        #expect(result.status == 130, "\(result.stderr)")
        let folder = String(result.stdout.split(separator: "\n").first ?? "")
        #expect(folder.hasPrefix("/tmp/cometcal-pg-"), "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) is still there")
    }
}
