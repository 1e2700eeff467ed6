import Foundation
import Testing
import CometHTTP

/// `cometcal user add|remove|list`: the CalDAV server's password file (docs/caldav.md).
@Suite("cometcal user")
struct UserCommandTests {
    /// A fresh config folder: the users file's default place is beside its config file.
    static func withConfigHome(_ body: (URL, [String: String]) throws -> Void) throws {
        let home = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        try body(home, ["XDG_CONFIG_HOME": home.path, "COMETCAL_CONFIG": ""])
    }

    @Test("user add reads one line of standard input and writes NAME:$2b$12$… beside the config file, mode 0600; the password is the one given")
    func addFromStandardInput() throws {
        try Self.withConfigHome { home, environment in
            let result = try CLIRunner.run(["user", "add", "alice"], environment: environment, stdin: "correct horse\n")
            #expect(result.status == 0, "\(result.stderr)")
            let path = home.appendingPathComponent("cometcal/users").path
            #expect(result.stdout == "Added alice to \(path).\n")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("alice:$2b$12$"))
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600)
            let file = try PasswordFile(path: path)
            #expect(try file.verify(user: "alice", password: "correct horse"))
            #expect(try !file.verify(user: "alice", password: "correct horse\n"))
        }
    }

    @Test("user add refuses an empty password, or none, and writes nothing")
    func emptyPasswordRefused() throws {
        try Self.withConfigHome { home, environment in
            for input in ["\n", ""] {
                let result = try CLIRunner.run(["user", "add", "alice"], environment: environment, stdin: input)
                #expect(result.status == 65)
                #expect(result.stderr.hasPrefix("error: "), "\(result.stderr)")
                #expect(result.stderr.hasSuffix("nothing was changed\n"))
            }
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("cometcal/users").path))
        }
    }

    @Test("add, change, list and remove, for people and with --json")
    func lifeCycle() throws {
        try Self.withConfigHome { home, environment in
            let path = home.appendingPathComponent("cometcal/users").path
            #expect(try CLIRunner.run(["user", "add", "bob"], environment: environment, stdin: "one\n").status == 0)
            #expect(try CLIRunner.run(["user", "add", "alice"], environment: environment, stdin: "two\n").status == 0)
            let changed = try CLIRunner.run(["user", "add", "bob", "--json"], environment: environment, stdin: "three\n")
            #expect(changed.stdout == "{\n  \"file\": \"\(path)\",\n  \"user\": \"bob\",\n  \"action\": \"changed\"\n}\n")
            #expect(try CLIRunner.run(["user", "list"], environment: environment).stdout == "bob\nalice\n")
            let listed = try CLIRunner.run(["user", "ls", "--json"], environment: environment)
            #expect(listed.stdout == "{\n  \"file\": \"\(path)\",\n  \"users\": [\n    \"bob\",\n    \"alice\"\n  ]\n}\n")
            #expect(try PasswordFile(path: path).verify(user: "bob", password: "three"))
            let removed = try CLIRunner.run(["user", "remove", "bob"], environment: environment)
            #expect(removed.stdout == "Removed bob from \(path).\n")
            let again = try CLIRunner.run(["user", "rm", "bob"], environment: environment)
            #expect(again.status == 66)
            #expect(again.stderr == "error: \(path): no user 'bob'\n")
            #expect(try CLIRunner.run(["user", "list"], environment: environment).stdout == "alice\n")
        }
    }

    @Test("--users names the file; else the config key users, relative to the config file's folder")
    func choosingTheFile() throws {
        try Self.withConfigHome { home, environment in
            let flagged = home.appendingPathComponent("flagged/users").path
            #expect(try CLIRunner.run(["user", "add", "ann", "--users", flagged], environment: environment, stdin: "pw\n").status == 0)
            #expect(try String(contentsOfFile: flagged, encoding: .utf8).hasPrefix("ann:$2b$"))

            let folder = home.appendingPathComponent("cometcal")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "users = caldav/people\n".write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
            let configured = try CLIRunner.run(["user", "add", "bea"], environment: environment, stdin: "pw\n")
            #expect(configured.stdout == "Added bea to \(folder.path)/caldav/people.\n")
            #expect(try CLIRunner.run(["user", "list", "--users", flagged], environment: environment).stdout == "ann\n")
        }
    }

    @Test("A bad name is a usage error naming the rule; a bad line in the file is named with its file and line")
    func badNameAndBadFile() throws {
        try Self.withConfigHome { home, environment in
            let name = try CLIRunner.run(["user", "add", "al ice"], environment: environment, stdin: "pw\n")
            #expect(name.status == 64)
            #expect(name.stderr == "error: 'al ice' is not a user name: a name is 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'\n")
            let path = home.appendingPathComponent("users").path
            try "alice:plaintext\n".write(toFile: path, atomically: true, encoding: .utf8)
            let bad = try CLIRunner.run(["user", "list", "--users", path], environment: environment)
            #expect(bad.status == 65)
            #expect(bad.stderr.hasPrefix("error: \(path):1: the hash of 'alice' is not bcrypt"), "\(bad.stderr)")
        }
    }

    @Test("On a terminal, user add asks twice without echoing, and refuses two different passwords")
    func addOnTerminal() throws {
        try Self.withConfigHome { home, environment in
            let session = try PseudoTerminal(["user", "add", "alice"], environment: environment)
            try session.answer(after: "Password for alice: ", with: "hidden-one")
            try session.answer(after: "The same again: ", with: "hidden-one")
            let (status, output) = try session.finish()
            #expect(status == 0, "\(output)")
            #expect(!output.contains("hidden-one"))
            let path = home.appendingPathComponent("cometcal/users").path
            #expect(try PasswordFile(path: path).verify(user: "alice", password: "hidden-one"))

            let differing = try PseudoTerminal(["user", "add", "alice"], environment: environment)
            try differing.answer(after: "Password for alice: ", with: "first")
            try differing.answer(after: "The same again: ", with: "second")
            let refused = try differing.finish()
            #expect(refused.status == 65)
            #expect(refused.output.contains("error: the two passwords differ; nothing was changed"))
            #expect(try PasswordFile(path: path).verify(user: "alice", password: "hidden-one"))
        }
    }

    @Test("On a terminal, a password typed (or pasted) before the prompt is kept, not flushed")
    func typedAheadIsKept() throws {
        try Self.withConfigHome { home, environment in
            let session = try PseudoTerminal(["user", "add", "bob"], environment: environment)
            session.type("ahead\nahead\n")
            let (status, output) = try session.finish()
            #expect(status == 0, "\(output)")
            #expect(try PasswordFile(path: home.appendingPathComponent("cometcal/users").path).verify(user: "bob", password: "ahead"))
        }
    }
}
