import Foundation
import CometArguments
import CometSchema
import CometStore
import CometSQLiteStore
import CometPostgresStore
import CometDaemon
import CometText
import CometHTTP
import CometCalDAV

/// `cometcald`: serves one store over JSON-RPC 2.0 on a Unix socket (docs/daemon.md).

/// The daemon's composition root for storage: a file (or `:memory:`) opens as SQLite, a
/// `postgresql://` address as PostgreSQL (docs/postgresql.md).
let storeOpener = StoreOpener.byKind(embedded: SQLiteStore.opener, server: PostgresStore.opener)

// Two malloc arenas, not glibc's eight per core: every connection has threads of its own, and
// each thread's arena kept the memory it once needed, so RSS grew with the number of clients
// rather than with the data (a 32-client soak: 290 → 329 MiB with the default, 116 → 129 MiB
// with two). MALLOC_ARENA_MAX in the environment still wins.
// (mallopt is in <malloc.h>, which Swift's Glibc module leaves out: found by name. M_ARENA_MAX is -8.)
if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
    typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    _ = unsafeBitCast(symbol, to: MallOpt.self)(-8, 2)
}

let root = CommandSpec(
    name: "cometcald", abstract: "Serve a CometCal store over JSON-RPC 2.0 on a Unix socket.",
    discussion: "Keeps the registry and the store open and serves the engine and the conversation layer to local clients: Content-Length framing as in the Language Server Protocol, one daemon per store (a lock file beside it). SIGTERM or SIGINT stops it after the requests in flight; SIGHUP reloads the schemas (with errors, the old ones stay). Methods and framing: docs/daemon.md.",
    options: [
        .value("socket", valueName: "path", help: "The socket to listen on. Default: $XDG_RUNTIME_DIR/cometcal/cometcald.sock, else beside the default store."),
        .value("db", valueName: "path", help: "The store: a file, or a postgresql:// address that several daemons may serve at once (docs/postgresql.md). Default: $COMETCAL_DB, else $XDG_DATA_HOME/cometcal/cometcal.sqlite."),
        .value("schemas", valueName: "dir", repeatable: true, help: "Schema directory to load (repeatable). Default: $COMETCAL_SCHEMAS, else ./Schemas."),
        .value("max-request", valueName: "bytes", help: "The largest request accepted (default 67108864, 64 MiB)."),
        .value("request-seconds", valueName: "seconds", help: "How long one request may work on the store before it is stopped and rolled back (default 30)."),
        .value("stop-seconds", valueName: "seconds", help: "How long SIGTERM waits for the requests in flight to finish and be answered before stopping anyway (default 10)."),
        .value("notify", valueName: "command", help: "Run COMMAND (with /bin/sh -c) for each alarm as it fires, with the event in COMETCAL_* variables and as JSON on standard input. Default: the config file's notify."),
        .value("notify-seconds", valueName: "seconds", help: "How long the notify command may run before it is killed with its process group (default: the config's notify_seconds, else 30)."),
        .value("caldav", valueName: "address", help: "Also serve CalDAV on ADDRESS (127.0.0.1:5232; [::1]:5232), for phones and desktop calendars. Default: the config file's caldav, else none. docs/caldav.md."),
        .value("users", valueName: "file", help: "The CalDAV password file (written by cometcal user add). Default: the config file's users, else users beside the config file."),
        .value("caldav-owner", valueName: "name", help: "The CalDAV user whose calendars are this daemon's store; other users get stores of their own beside it (on PostgreSQL, their own rows in the same database). Default: the config's caldav_owner, else the login name."),
        .flag("caldav-no-auth", help: "Serve CalDAV without passwords, as the owner (allowed only on a loopback address)."),
        .flag("verbose", short: "v", help: "Log every request and connection."),
        .flag("version", help: "Print the version and exit."),
    ],
    examples: ["cometcald", "cometcald --db ~/cal.sqlite --socket /tmp/cometcal.sock --verbose",
               "cometcald --notify 'notify-send \"$COMETCAL_TITLE\" \"$COMETCAL_START\"'",
               "cometcald --db 'postgresql:///cometcal?host=/run/postgresql' --socket /run/cometcal/a.sock"]
)

let arguments = Array(CommandLine.arguments.dropFirst())
let parsed: ParsedCommand
do {
    parsed = try ArgumentParser.parse(arguments, root: root)
} catch {
    FileHandle.standardError.write(Data((error.rendered + "\n").utf8))
    exit(64)
}
if parsed.isHelpRequested {
    print(HelpFormatter.render(command: root, path: []))
    exit(0)
}
if parsed.flag("version") {
    print("cometcald \(DaemonService.version) (\(storeOpener.engineDescription))")
    exit(0)
}
signal(SIGPIPE, SIG_IGN)
let environment = ProcessInfo.processInfo.environment
// The daemon's composition root for storage: it serves stores of the database it is built with.
let store = StoreLocation.resolve(given: parsed.value("db"), environment: environment).location
if let refusal = store.unsupported {
    FileHandle.standardError.write(Data("error: cannot use the store at \(store): \(refusal.message)\n".utf8))
    exit(64)
}
var options = Daemon.Options(
    socketPath: parsed.value("socket") ?? DaemonPaths.defaultSocket(),
    service: DaemonService.Configuration(
        store: store, opener: storeOpener,
        schemaPaths: SchemaLocator.directories(flag: parsed.values("schemas")),
        timeZone: environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? .current))
options.verbose = parsed.flag("verbose")
// COMETCAL_NOW fixes the engines' clock (an ISO 8601 instant), as for the CLI: for reproducible
// demos and tests. Alarms always run on the real clock.
if let fixed = environment["COMETCAL_NOW"], let instant = (try? DateTimeValue(parsing: fixed))?.instant {
    options.service.clock = { instant }
}
if let text = parsed.value("max-request") {
    guard let bytes = Int(text), bytes >= 1024 else {
        FileHandle.standardError.write(Data("error: --max-request takes a number of bytes, 1024 or more, not '\(text)'\n".utf8))
        exit(64)
    }
    options.limits.frame.bodyBytes = bytes
}
if let text = parsed.value("request-seconds") {
    guard let seconds = Double(text), seconds > 0 else {
        FileHandle.standardError.write(Data("error: --request-seconds takes a number of seconds above 0, not '\(text)'\n".utf8))
        exit(64)
    }
    options.service.requestSeconds = seconds
}
if let text = parsed.value("stop-seconds") {
    guard let seconds = Double(text), seconds >= 0 else {
        FileHandle.standardError.write(Data("error: --stop-seconds takes a number of seconds, 0 or more, not '\(text)'\n".utf8))
        exit(64)
    }
    options.stopSeconds = seconds
}
// The notify command and its limit: the flags, else the config file (which must be right:
// a mistake there is said, as the CLI says it, exit 78).
let settings: SettingsFile?
do {
    settings = try SettingsFile.load(environment: environment)
} catch {
    FileHandle.standardError.write(Data("cometcald: \(error.message)\n".utf8))
    exit(78)
}
// Replies, cards and prompts of conversations and intents write times as the CLI does.
if let line = settings?.value("time_format") {
    if let problem = TimeFormat.problem(in: line.value) {
        FileHandle.standardError.write(Data("cometcald: \(line.place):\(line.valueColumn): error: time_format: \(problem)\n".utf8))
        exit(78)
    }
    options.service.timeFormat = TimeFormat(line.value)
}
options.notifyCommand = parsed.value("notify") ?? settings?.value("notify")?.value
if let text = parsed.value("notify-seconds") {
    guard let seconds = Double(text), seconds > 0 else {
        FileHandle.standardError.write(Data("error: --notify-seconds takes a number of seconds above 0, not '\(text)'\n".utf8))
        exit(64)
    }
    options.notifySeconds = seconds
} else if let line = settings?.value("notify_seconds") {
    guard let seconds = Double(line.value), seconds > 0 else {
        FileHandle.standardError.write(Data("cometcald: \(line.place):\(line.valueColumn): error: notify_seconds: '\(line.value)' is not a number of seconds above 0\n".utf8))
        exit(78)
    }
    options.notifySeconds = seconds
}
let caldavAddress = parsed.value("caldav") ?? settings?.value("caldav")?.value
let caldavOwner = parsed.value("caldav-owner") ?? settings?.value("caldav_owner")?.value ?? (environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? NSUserName())
// The address is read before anything starts: a mistake there is a usage error (64).
var caldavListen: HTTPListenAddress?
if let caldavAddress {
    do {
        caldavListen = try HTTPListenAddress(caldavAddress)
    } catch {
        FileHandle.standardError.write(Data("error: --caldav: \(error.message)\n".utf8))
        exit(64)
    }
    if parsed.flag("caldav-no-auth"), caldavListen?.isLoopback == false {
        FileHandle.standardError.write(Data("error: --caldav-no-auth (no passwords) is allowed only on a loopback address (127.0.0.1 or [::1]), not \(caldavAddress); listen on 127.0.0.1, or add users with cometcal user add NAME\n".utf8))
        exit(64)
    }
}
var authentication = HTTPAuthentication.none(flag: "--caldav-no-auth")
if caldavAddress != nil, !parsed.flag("caldav-no-auth") {
    let path = SettingsFile.usersFilePath(flag: parsed.value("users"), configured: settings?.value("users")?.value, configPath: settings?.path, environment: environment)
    do {
        authentication = .passwordFile(try PasswordFile(path: path))
    } catch {
        FileHandle.standardError.write(Data("cometcald: the CalDAV password file: \(error.message); add a user with: cometcal user add NAME (or serve without passwords on loopback: --caldav-no-auth)\n".utf8))
        exit(78)
    }
}
do {
    let daemon = try Daemon(options: options)
    var caldav: HTTPServer?
    try daemon.run(listening: { () throws(Daemon.StartError) in
        guard let caldavListen else { return }
        let accounts = CalDAVAccounts(owner: caldavOwner, service: daemon.service, ownerStore: store, opener: storeOpener, timeZone: options.service.timeZone)
        let service = CalDAVService(configuration: CalDAVService.Configuration(
            serve: { user, writes, body in try accounts.serve(user, writes: writes, body) }, anonymousUser: caldavOwner))
        do {
            let verbose = options.verbose
            caldav = try HTTPServer.start(listeningOn: caldavListen, authentication: authentication, handler: { request in
                let response = service.handle(request)
                if verbose {
                    let line = "time=\(DateTimeValue.utc(Date()).description) level=info msg=caldav method=\(request.method) path=\(request.rawPath) status=\(response.status) user=\(request.user ?? "-")\(response.status >= 400 ? " answer=\(String(decoding: response.body.prefix(300), as: UTF8.self).debugDescription)" : "")\n"
                    FileHandle.standardError.write(Data(line.utf8))
                }
                return response
            })
        } catch {
            throw Daemon.StartError(description: "cannot serve CalDAV: \(error)")
        }
        FileHandle.standardError.write(Data("cometcald: CalDAV on http://\(caldav!.address)/dav/ (owner \(caldavOwner))\n".utf8))
        daemon.service.warmCalendarResources()
    })
    caldav?.stop()
    exit(0)
} catch {
    FileHandle.standardError.write(Data("cometcald: \(error.description)\n".utf8))
    exit(error.description.contains("another cometcald") ? 75 : 74)
}
