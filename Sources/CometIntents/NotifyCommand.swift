import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CometSchema

/// Runs the person's notify command (`--notify`, the config's `notify`) for each alarm that
/// fires: through `/bin/sh -c`, with the notice in the environment and as one JSON object on
/// standard input. Each run has a thread of its own, so a command that hangs holds up neither
/// the caller nor another alarm; at most `concurrency` run at once and the others wait their
/// turn in order (and the log says so). A command still running after `timeLimit` is killed
/// with its whole process group (it runs in a group of its own) and reaped.
public final class NotifyCommand: @unchecked Sendable {
    public static let defaultTimeLimit: Double = 30
    public static let defaultConcurrency = 4

    public let command: String
    public let timeLimit: Double
    public let concurrency: Int
    /// Log lines: a message and its fields.
    private let log: @Sendable (String, [(String, String)]) -> Void
    private let lock = NSLock()
    private let idle = NSCondition()
    private var waiting: [AlarmNotice] = []
    private var running = 0
    /// Set when the daemon stops: running commands are killed, waiting ones not started.
    private var stopping = false

    public init(command: String, timeLimit: Double = NotifyCommand.defaultTimeLimit, concurrency: Int = NotifyCommand.defaultConcurrency,
                log: @escaping @Sendable (String, [(String, String)]) -> Void) {
        self.command = command
        self.timeLimit = timeLimit
        self.concurrency = max(1, concurrency)
        self.log = log
    }

    /// Starts the command for one notice and returns at once.
    public func run(_ notice: AlarmNotice) {
        let startNow: Bool? = idle.withLock {
            if stopping { return nil }
            if running < concurrency {
                running += 1
                return true
            }
            waiting.append(notice)
            return false
        }
        guard let startNow else {
            log("notify command not run: the daemon is stopping", [("event", notice.alarm.title)])
            return
        }
        if startNow {
            startThread(notice)
        } else {
            log("notify command waits: others are still running", [("event", notice.alarm.title), ("running", String(concurrency))])
        }
    }

    /// The daemon stops: commands waiting their turn are not started (each said in the log),
    /// and running ones are killed with their process group, so none outlives the daemon;
    /// returns once they are reaped, or after `seconds`.
    public func stop(seconds: Double = 5) {
        let dropped: [AlarmNotice] = idle.withLock {
            stopping = true
            defer { waiting = [] }
            return waiting
        }
        for notice in dropped { log("notify command not run: the daemon is stopping", [("event", notice.alarm.title)]) }
        waitUntilIdle(seconds: seconds)
    }

    /// Waits until no command runs or waits, for at most `seconds`; whether that happened.
    @discardableResult
    public func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        idle.lock()
        defer { idle.unlock() }
        while running > 0 || !waiting.isEmpty {
            if !idle.wait(until: deadline) { return false }
        }
        return true
    }

    private func startThread(_ notice: AlarmNotice) {
        let thread = Thread { [self] in
            var next: AlarmNotice? = notice
            while let current = next {
                execute(current)
                next = idle.withLock {
                    if waiting.isEmpty {
                        running -= 1
                        idle.broadcast()
                        return nil
                    }
                    return waiting.removeFirst()
                }
            }
        }
        thread.name = "cometcal.notify"
        thread.start()
    }

    /// Spawns, feeds, watches and reaps one run, on the calling (notify) thread.
    private func execute(_ notice: AlarmNotice) {
        let title = notice.alarm.title
        let started = Date()
        // Standard input is a socket, not a pipe: the notice is sent with MSG_NOSIGNAL, so a
        // command that exits without reading it cannot kill this process with SIGPIPE.
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &input) == 0 else { return failedToStart(title, errno) }
        guard pipe(&output) == 0 else {
            close(input[0]); close(input[1])
            return failedToStart(title, errno)
        }
        // Not inherited by a command another notify thread starts meanwhile (dup2 clears the
        // flag on the copies this command gets as 0, 1 and 2).
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in notice.environment { environment[key] = value }
        let pid: pid_t
        do {
            pid = try spawn(stdin: input[0], output: output[1], environment: environment)
        } catch {
            close(input[0]); close(input[1]); close(output[0]); close(output[1])
            return failedToStart(title, error.code)
        }
        close(input[0])
        close(output[1])
        // The notice is small (well under a socket's buffer), so this send does not wait for the
        // command to read; a command that exits without reading makes it fail, which is fine.
        let body = Array((JSONWriter.compact(notice.json) + "\n").utf8)
        _ = fcntl(input[1], F_SETFL, fcntl(input[1], F_GETFL) | O_NONBLOCK)
        _ = body.withUnsafeBytes { send(input[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(input[1], Int32(SHUT_WR))
        close(input[1])

        // Collects what it prints (kept for the log, up to 4 KiB) while waiting for it to end.
        var printed: [UInt8] = []
        var outputOpen = true
        var status: Int32 = 0
        var ended = false
        var killed = false
        var stoppedByDaemon = false
        let deadline = started.addingTimeInterval(timeLimit)
        while !ended {
            if outputOpen {
                var descriptor = pollfd(fd: output[0], events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 100) > 0 {
                    var chunk = [UInt8](repeating: 0, count: 4096)
                    let count = read(output[0], &chunk, chunk.count)
                    if count > 0 {
                        if printed.count < 4096 { printed += chunk[0..<min(count, 4096 - printed.count)] }
                    } else if count == 0 || errno != EINTR {
                        outputOpen = false
                    }
                }
            } else {
                usleep(50_000)
            }
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) {
                ended = true
            } else if !killed, Date() >= deadline || idle.withLock({ stopping }) {
                // The group: a shell's children (a pipeline, a sleep) go with it.
                kill(-pid, SIGKILL)
                killed = true
                stoppedByDaemon = Date() < deadline
            }
        }
        close(output[0])
        let seconds = String(format: "%.1f", Date().timeIntervalSince(started))
        let text = String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if stoppedByDaemon {
            log("notify command killed: the daemon is stopping", [("event", title), ("seconds", seconds), ("output", text)])
        } else if killed {
            log("notify command killed: it ran past its time limit", [("event", title), ("limit", String(format: "%g", timeLimit)), ("output", text)])
        } else if exited(status), exitCode(status) == 0 {
            log("notify command ran", [("event", title), ("seconds", seconds)])
        } else if exited(status) {
            log("notify command failed", [("event", title), ("status", String(exitCode(status))), ("seconds", seconds), ("output", text)])
        } else {
            log("notify command failed", [("event", title), ("signal", String(status & 0x7F)), ("seconds", seconds), ("output", text)])
        }
    }

    private func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }
    private func exitCode(_ status: Int32) -> Int32 { (status >> 8) & 0xFF }

    private func failedToStart(_ title: String, _ code: Int32) {
        log("notify command could not be started", [("event", title), ("error", String(cString: strerror(code)))])
    }

    struct SpawnError: Error { let code: Int32 }

    /// /bin/sh -c COMMAND in a process group of its own, standard input from `stdin`, standard
    /// output and error to `output`, signals as a fresh process has them (the daemon ignores
    /// SIGPIPE, and an ignored signal would be inherited).
    private func spawn(stdin: Int32, output: Int32, environment: [String: String]) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Nothing else of this process (the daemon's sockets, the store) goes with it. glibc has
        // had addclosefrom_np since 2.34, but its header hides it from Swift: found by name.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)

        let arguments = ["/bin/sh", "-c", command]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp)
        guard result == 0 else { throw SpawnError(code: result) }
        return pid
    }
}
