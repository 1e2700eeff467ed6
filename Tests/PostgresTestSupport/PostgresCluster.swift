import Foundation
import CLibPQ

/// A private PostgreSQL cluster for the tests: `initdb` in a new temporary folder, listening on
/// a Unix socket in that folder only (no TCP), fsync off, started once per test process and
/// shared by its tests, each of which makes a database of its own (`newDatabase`).
///
/// It stops by itself: `pg_ctl stop -m fast` when the process exits, and a watchdog (a shell
/// loop outside the process's session) that stops it with `-m immediate` once the process is
/// gone, so a test that crashes leaves nothing running.
///
/// initdb refuses to run as root, and the tests here do: as root, initdb, pg_ctl and the server
/// run as `nobody` (setpriv), in a folder given to it; as anyone else, directly.
public final class PostgresCluster: Sendable {
    /// The folder holding the data, the log and the socket.
    public let folder: String
    /// The superuser role initdb made.
    public static let superuser = "postgres"
    /// The server's programs (initdb, pg_ctl, postgres), of the newest version installed.
    public let programs: String
    let dataFolder: String
    /// The server's settings (`pg_ctl -o`), the same at every start.
    let serverOptions: String

    /// The cluster of this test process, started on first use.
    public static let shared: Result<PostgresCluster, PostgresClusterError> = {
        do throws(PostgresClusterError) { return .success(try PostgresCluster(durableCommits: false)) } catch { return .failure(error) }
    }()

    /// A cluster of one test's own, which it may stop and start (`stop(immediate:)`,
    /// `start()`) without disturbing the tests on the shared one. Its commits are durable
    /// (`synchronous_commit=on`: a COMMIT is answered once its record is written, so an
    /// immediate stop loses no acknowledged commit; fsync stays off, as the machine does not
    /// crash in a test). The test removes it (`remove()`); the watchdog does if the test
    /// process dies first.
    public static func makePrivate() throws(PostgresClusterError) -> PostgresCluster {
        try PostgresCluster(durableCommits: true)
    }

    /// Where Debian installs the server's versions.
    static let versions = "/usr/lib/postgresql"

    private init(durableCommits: Bool) throws(PostgresClusterError) {
        let manager = FileManager.default
        let installed = ((try? manager.contentsOfDirectory(atPath: PostgresCluster.versions)) ?? []).compactMap(Int.init).sorted()
        guard let newest = installed.last else {
            throw PostgresClusterError("no PostgreSQL server under \(PostgresCluster.versions); run scripts/bootstrap (it installs postgresql-15)")
        }
        programs = "\(PostgresCluster.versions)/\(newest)/bin"
        var template = Array("/tmp/cometcal-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresClusterError("cannot make a temporary folder for the cluster") }
        folder = String(cString: made)
        dataFolder = folder + "/data"
        if geteuid() == 0 {
            try PostgresCluster.run("/bin/chown", ["nobody:nogroup", folder])
        }
        serverOptions = "-c listen_addresses='' -c unix_socket_directories='\(folder)' -c fsync=off -c synchronous_commit=\(durableCommits ? "on" : "off") "
            + "-c full_page_writes=off -c max_connections=200"
        try runAsServerUser("\(programs)/initdb", ["-D", dataFolder, "-U", PostgresCluster.superuser, "--auth=trust", "--encoding=UTF8",
                                                 "--locale=C", "--no-sync", "--no-instructions"])
        try start()
        startWatchdog()
        guard !durableCommits else { return }
        PostgresCluster.stopAtExit = asServerUser("\(programs)/pg_ctl", ["-D", dataFolder, "-m", "fast", "-w", "stop"])
        atexit {
            guard let (program, arguments) = PostgresCluster.stopAtExit else { return }
            try? PostgresCluster.run(program, arguments)
        }
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws(PostgresClusterError) {
        try runAsServerUser("\(programs)/pg_ctl", ["-D", dataFolder, "-l", folder + "/server.log", "-o", serverOptions, "-w", "start"])
    }

    /// Stops the server and waits until it is gone: `immediate` is `pg_ctl stop -m immediate`,
    /// the server killed with no shutdown (it recovers from its log at the next start), else a
    /// fast, clean stop.
    public func stop(immediate: Bool) throws(PostgresClusterError) {
        try runAsServerUser("\(programs)/pg_ctl", ["-D", dataFolder, "-m", immediate ? "immediate" : "fast", "-w", "stop"])
    }

    /// Stops a private cluster, if it runs, and deletes its folder.
    public func remove() {
        _ = try? stop(immediate: true)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// What `atexit` runs (a C function pointer cannot hold the cluster).
    nonisolated(unsafe) private static var stopAtExit: (String, [String])?

    /// The program as the server's user: itself, or through setpriv as nobody when root.
    private func asServerUser(_ program: String, _ arguments: [String]) -> (String, [String]) {
        guard geteuid() == 0 else { return (program, arguments) }
        return ("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", program] + arguments)
    }

    private func runAsServerUser(_ program: String, _ arguments: [String]) throws(PostgresClusterError) {
        let (command, all) = asServerUser(program, arguments)
        try PostgresCluster.run(command, all)
    }

    /// Has a spawned program close every descriptor above standard error. glibc (2.34 on) has
    /// `posix_spawn_file_actions_addclosefrom_np`, but its header shows it only to C code built
    /// with _GNU_SOURCE, so it is found by name. Without it, a pipe another test had just made
    /// for its own child was inherited by the server or the watchdog, which live on: that test
    /// never read to the pipe's end and hung (seen once in four runs).
    static func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// Waits for the test process to go, then stops the cluster at once. In a session of its
    /// own (setsid), so a signal to the test's process group does not take it too; it runs as
    /// the test's user, since only that user may watch the test process (kill -0).
    private func startWatchdog() {
        let (command, arguments) = asServerUser("\(programs)/pg_ctl", ["-D", dataFolder, "-m", "immediate", "stop"])
        let stop = ([command] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(folder)'"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0) }
        // Nothing else of this process's: another test's pipe held open by the watchdog would
        // never reach its end, and that test would wait for ever.
        PostgresCluster.closeOthers(&actions)
        let words: [String] = ["/usr/bin/setsid", "/bin/sh", "-c", script]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // Not waited for: it outlives this process by design (init reaps it).
        _ = posix_spawn(&pid, "/usr/bin/setsid", &actions, nil, argv, environ)
    }

    /// Runs a program to its end (posix_spawn and waitpid: Foundation's Process left pg_ctl
    /// unreaped when run from the tests' threads). Its output goes to a file, not a pipe: the
    /// server pg_ctl starts would hold a pipe open.
    private static func run(_ program: String, _ arguments: [String]) throws(PostgresClusterError) {
        let outputPath = NSTemporaryDirectory() + "cometcal-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's: the server pg_ctl starts lives on, and a pipe of another
        // test's child it held open would never reach its end (that test hung reading it).
        PostgresCluster.closeOthers(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else { throw PostgresClusterError("cannot run \(program): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exited = (status & 0x7f) == 0
        guard exited, (status >> 8) & 0xff == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw PostgresClusterError("\(([program] + arguments).joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }

    /// An address of a database of this cluster, as `--db` takes it.
    public func address(database: String, user: String = PostgresCluster.superuser, owner: String? = nil) -> String {
        "postgresql:///\(database)?host=\(folder)&user=\(user)" + (owner.map { "&cometcal_user=\($0)" } ?? "")
    }

    /// Runs statements on a database of the cluster (as the superuser unless `user` says),
    /// each of `before` first; the first column of the last statement's first row, if any.
    @discardableResult
    public func administer(_ sql: String, database: String = "postgres", user: String = PostgresCluster.superuser,
                           before: [String] = []) throws(PostgresClusterError) -> String? {
        guard let connection = PQconnectdb("host=\(folder) user=\(user) dbname=\(database)") else {
            throw PostgresClusterError("libpq could not allocate a connection")
        }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresClusterError("cannot connect to the test cluster: \(String(cString: PQerrorMessage(connection)))")
        }
        var value: String?
        for statement in before + [sql] {
            let result = PQexec(connection, statement)
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                throw PostgresClusterError("\(statement): \(String(cString: PQerrorMessage(connection)))")
            }
            value = PQntuples(result) > 0 && PQgetisnull(result, 0, 0) == 0 ? String(cString: PQgetvalue(result, 0, 0)) : nil
        }
        return value
    }

    /// A new, empty database; its name is made from `hint` (letters and digits kept).
    public func newDatabase(_ hint: String) throws(PostgresClusterError) -> String {
        let name = "cometcal_" + String(hint.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) && $0.isASCII }.map(Character.init)).prefix(40)
        try administer("CREATE DATABASE \(name)")
        return name
    }

    /// Drops a database, ending any connection still on it.
    public func dropDatabase(_ name: String) {
        _ = try? administer("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

public struct PostgresClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
