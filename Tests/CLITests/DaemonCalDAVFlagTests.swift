import Foundation
import Testing

/// cometcald's CalDAV flags, as a person gets them wrong.
@Suite("cometcald --caldav")
struct DaemonCalDAVFlagTests {
    @Test("--caldav without a password file stops before serving (78) and says how to add a user")
    func noPasswordFile() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let result = try CLIRunner.run(["--db", scratch.url.appendingPathComponent("s.sqlite").path, "--socket", scratch.url.appendingPathComponent("d.sock").path,
                                        "--caldav", "127.0.0.1:0", "--users", scratch.url.appendingPathComponent("users").path],
                                       environment: ["XDG_CONFIG_HOME": scratch.url.path], program: "cometcald")
        #expect(result.status == 78, "\(result.status)\n\(result.stderr)")
        #expect(result.stderr.contains("cometcal user add NAME"), "\(result.stderr)")
    }

    @Test("--caldav-no-auth on an address that is not loopback is a usage error (64) naming the flag, before anything starts")
    func noAuthOnlyOnLoopback() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let sockets = scratch.url.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let result = try CLIRunner.run(["--db", scratch.url.appendingPathComponent("s.sqlite").path, "--socket", sockets.appendingPathComponent("d.sock").path,
                                        "--caldav", "0.0.0.0:0", "--caldav-no-auth"],
                                       environment: ["XDG_CONFIG_HOME": scratch.url.path], program: "cometcald")
        #expect(result.status == 64, "\(result.status)\n\(result.stderr)")
        #expect(result.stderr.contains("--caldav-no-auth (no passwords) is allowed only on a loopback address"), "\(result.stderr)")
        // Nothing started: no store was made.
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("s.sqlite").path))
    }

    @Test("a --caldav address that is not numeric with a port is a usage error (64) that says what to write")
    func badAddress() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let result = try CLIRunner.run(["--db", scratch.url.appendingPathComponent("s.sqlite").path, "--caldav", "localhost:5232", "--caldav-no-auth"],
                                       environment: ["XDG_CONFIG_HOME": scratch.url.path], program: "cometcald")
        #expect(result.status == 64, "\(result.status)\n\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: --caldav: "), "\(result.stderr)")
    }
}
