import Foundation
import CometArguments
import CometHTTP
import CometSchema

/// `cometcal user add|remove|list`: the users of the CalDAV server, in its password file of
/// bcrypt hashes (`PasswordFile`). Needs no store and no schema.
struct UserCommands {
    let parsed: ParsedCommand
    let terminal: Terminal

    static let spec = CommandSpec(
        name: "user", abstract: "Add, remove and list the users of the CalDAV server (a password file of bcrypt hashes).",
        subcommands: [
            CommandSpec(
                name: "add", abstract: "Add a user, or give one a new password.",
                discussion: "Asks for the password twice on a terminal, without showing it; without a terminal it reads one line from standard input. An empty password, or one over 72 bytes (bcrypt reads no further), is refused. The file holds one NAME:HASH line per user (bcrypt, cost 12) and is written whole to a temporary file and renamed over the old one, private to you (0600). A running cometcald sees the change at its next request.",
                options: [usersOption],
                positionals: [PositionalSpec("name", help: "The user's name: \(PasswordFile.nameRule).")],
                examples: ["cometcal user add alice", "printf '%s\\n' \"$PASSWORD\" | cometcal user add alice --users /etc/cometcal/users"]
            ),
            CommandSpec(
                name: "remove", abstract: "Remove a user.",
                options: [usersOption],
                positionals: [PositionalSpec("name", help: "The user's name.")],
                examples: ["cometcal user remove alice"], aliases: ["rm"]
            ),
            CommandSpec(
                name: "list", abstract: "List the users, in the file's order.",
                options: [usersOption],
                examples: ["cometcal user list", "cometcal user list --json"], aliases: ["ls"]
            ),
        ]
    )

    static let usersOption = OptionSpec.value("users", valueName: "file",
                                              help: "The password file. Default: the config file's users, else users beside the config file ($XDG_CONFIG_HOME/cometcal/users).")

    func run() -> ExitCode {
        do {
            let config = try AppContext.loadConfig()
            let path = SettingsFile.usersFilePath(flag: parsed.value("users"), configured: config.users, configPath: config.path)
            let file = try PasswordFile(path: path, allowMissing: true)
            switch parsed.path {
            case ["user", "add"]: return try add(file)
            case ["user", "remove"]: return try remove(file)
            default: return try list(file)
            }
        } catch let failure as CommandFailure {
            terminal.err(failure.message)
            return failure.code
        } catch let error as PasswordFileError {
            terminal.err("error: " + error.message.replacingOccurrences(of: ": error: ", with: ": "))
            return Self.exitCode(error.code)
        } catch {
            terminal.err("cometcal: internal error: \(error)")
            return .internalError
        }
    }

    static func exitCode(_ code: PasswordFileError.Code) -> ExitCode {
        switch code {
        case .badName: return .usage
        case .noSuchUser: return .noInput
        case .badLine, .badPassword: return .dataError
        case .missingFile, .unreadable, .hashFailed, .writeFailed: return .ioError
        case .badCost: return .internalError
        }
    }

    private func add(_ file: PasswordFile) throws -> ExitCode {
        let name = parsed.positional("name") ?? ""
        if let problem = PasswordFile.nameProblem(name) { throw CommandFailure(code: .usage, message: "error: \(problem)") }
        let password = try readPassword(for: name)
        let replaced = try file.setPassword(password, for: name)
        if parsed.flag("json") {
            print(["file": .string(file.path), "user": .string(name), "action": .string(replaced ? "changed" : "added")])
        } else {
            terminal.out(replaced ? "Changed the password of \(name) in \(file.path)." : "Added \(name) to \(file.path).")
        }
        return .success
    }

    private func remove(_ file: PasswordFile) throws -> ExitCode {
        let name = parsed.positional("name") ?? ""
        try file.remove(user: name)
        if parsed.flag("json") {
            print(["file": .string(file.path), "user": .string(name), "action": .string("removed")])
        } else {
            terminal.out("Removed \(name) from \(file.path).")
        }
        return .success
    }

    private func list(_ file: PasswordFile) throws -> ExitCode {
        let users = try file.users()
        if parsed.flag("json") {
            print(["file": .string(file.path), "users": .array(users.map { .string($0) })])
        } else if users.isEmpty {
            let missing = !FileManager.default.fileExists(atPath: file.path)
            terminal.out("No users in \(file.path)\(missing ? " (there is no such file yet)" : ""); add one with: cometcal user add NAME")
        } else {
            for user in users { terminal.out(user) }
        }
        return .success
    }

    private func print(_ fields: KeyValuePairs<String, JSONValue>) {
        terminal.out(JSONWriter.pretty(.object(JSONObject(fields.map { ($0.key, $0.value) }))))
    }

    /// Twice with echo off on a terminal; one line of standard input otherwise.
    private func readPassword(for name: String) throws -> String {
        let password: String
        if isatty(STDIN_FILENO) == 1 {
            let first = try Self.readHidden(prompt: "Password for \(name): ")
            let second = try Self.readHidden(prompt: "The same again: ")
            guard first == second else { throw CommandFailure(code: .dataError, message: "error: the two passwords differ; nothing was changed") }
            password = first
        } else {
            guard let line = readLine(strippingNewline: true) else {
                throw CommandFailure(code: .dataError, message: "error: no password on standard input (one line); nothing was changed")
            }
            password = line.hasSuffix("\r") ? String(line.dropLast()) : line
        }
        if let problem = PasswordFile.passwordProblem(password) {
            throw CommandFailure(code: .dataError, message: "error: \(problem); nothing was changed")
        }
        return password
    }

    /// One line from the terminal with echo off, restored afterwards. Echo goes off before the
    /// prompt is shown, so that nothing typed after the prompt is echoed, and without flushing,
    /// so that what was typed (or pasted) ahead is kept.
    private static func readHidden(prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CommandFailure(code: .ioError, message: "error: cannot turn off the terminal's echo to read the password")
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        FileHandle.standardError.write(Data(prompt.utf8))
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
        guard let line else { throw CommandFailure(code: .dataError, message: "error: no password given; nothing was changed") }
        return line
    }
}
