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

/// Which store serves each CalDAV user, through a real cometcald (docs/caldav.md, "Users and stores").
@Suite("cometcald --caldav: users and stores", .serialized)
struct DaemonCalDAVStoresTests {
    @Test("the owner's calendars are the daemon's own store; another user's go to users/NAME.sqlite beside it, and neither sees the other's")
    func storesPerUser() throws {
        let scratch = ScratchDirectory(try CLIRunner.temporaryDirectory())
        let users = scratch.url.appendingPathComponent("users").path
        for name in ["alice", "bob"] {
            let added = try CLIRunner.run(["user", "add", name, "--users", users], stdin: "pw-\(name)\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        let daemon = try DaemonHarness(arguments: ["--caldav", "127.0.0.1:0", "--users", users, "--caldav-owner", "alice"])
        let bound = try CalDAVRequest.port(of: daemon)
        // The calendar resources are read ahead once, in the background, and that is logged.
        let deadline = Date().addingTimeInterval(20)
        var warmed = false
        while !warmed, Date() < deadline {
            warmed = daemon.readLog().contains("calendar resources ready")
            if !warmed { usleep(20_000) }
        }
        #expect(warmed, "\(daemon.readLog())")
        func request(_ method: String, _ path: String, _ user: String) throws -> Int { try CalDAVRequest.status(bound, method, path, user) }
        #expect(try request("MKCALENDAR", "/dav/calendars/alice/Work/", "alice") == 201)
        #expect(try request("MKCALENDAR", "/dav/calendars/bob/Garden/", "bob") == 201)
        #expect(try request("PROPFIND", "/dav/calendars/alice/", "bob") == 403)
        let bobStore = daemon.directory.appendingPathComponent("users/bob.sqlite").path
        #expect(FileManager.default.fileExists(atPath: bobStore))
        func titles(_ store: String) throws -> String {
            try CLIRunner.run(["--db", store, "--schemas", CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path, "calendar", "list"]).stdout
        }
        let own = try titles(daemon.store)
        #expect(own.contains("Work") && !own.contains("Garden"), "\(own)")
        let bobs = try titles(bobStore)
        #expect(bobs.contains("Garden") && !bobs.contains("Work"), "\(bobs)")
    }
}
