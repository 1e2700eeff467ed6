import Foundation
import Glibc

/// Runs the real `cometcal` on a pseudo-terminal of a given width, as a person at a terminal
/// would: standard input, output and error are the terminal, so `isatty` is true, prompts are
/// asked, and what the program draws (a progress bar, colours) arrives as the terminal gets it.
/// The test answers prompts with `answer(after:with:)`, expect-style.
final class PseudoTerminal: @unchecked Sendable {
    private let master: Int32
    private let process = Process()
    private let lock = NSLock()
    private var received = Data()
    private var finishedReading = false
    private let reader = DispatchGroup()

    init(_ arguments: [String], environment: [String: String], columns: UInt16 = 80, rows: UInt16 = 24,
         currentDirectory: URL? = nil) throws {
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw PseudoTerminalError.cannotOpen("/dev/ptmx: \(String(cString: strerror(errno)))") }
        // TIOCSPTLCK (unlock the slave) and TIOCGPTN (its number): Swift cannot see these macros.
        var unlock: Int32 = 0
        var number: UInt32 = 0
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0,
              ioctl(master, UInt(TIOCSWINSZ), &size) == 0 else {
            close(master)
            throw PseudoTerminalError.cannotOpen("ioctl on /dev/ptmx failed")
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw PseudoTerminalError.cannotOpen("/dev/pts/\(number)")
        }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        // As a terminal emulator starts a shell: the program leads a session of its own whose
        // controlling terminal is this one (util-linux's setsid --ctty; --wait passes the exit
        // status back), so /dev/tty, job control and the foreground process group are real.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait", try CLIRunner.binary().path] + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        env.removeValue(forKey: "COMETCAL_SCHEMAS")
        env.removeValue(forKey: "COLUMNS")
        env.removeValue(forKey: "COMETCAL_CONFIG")
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        env["TERM"] = "xterm-256color"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = currentDirectory ?? CLIRunner.repositoryRoot
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            close(slave)
            close(master)
            throw error
        }
        close(slave)
        reader.enter()
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }  // EIO once the program has exited and closed the terminal
                lock.lock()
                received.append(contentsOf: buffer[0..<count])
                lock.unlock()
            }
            lock.lock()
            finishedReading = true
            lock.unlock()
            reader.leave()
        }
    }

    /// Everything the terminal has shown so far, escape sequences included.
    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits until the output contains `text`.
    @discardableResult
    func wait(for text: String, timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let now = output
            if now.contains(text) { return now }
            lock.lock()
            let done = finishedReading
            lock.unlock()
            if done { break }
            usleep(10_000)
        }
        throw PseudoTerminalError.timedOut(waitingFor: text, output: output)
    }

    /// Types a line once `prompt` has appeared.
    func answer(after prompt: String, with line: String) throws {
        try wait(for: prompt)
        type(line + "\n")
    }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { _ = write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the program to exit and returns its status and everything it showed.
    func finish(timeout: TimeInterval = 60) throws -> (status: Int32, output: String) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            throw PseudoTerminalError.timedOut(waitingFor: "exit", output: output)
        }
        _ = reader.wait(timeout: .now() + 5)
        close(master)
        return (process.terminationStatus, output)
    }

    /// The output with colour and cursor sequences removed and CR LF made LF: what a person
    /// reads once the screen settles, minus redraws.
    static func plain(_ text: String) -> String {
        var result = ""
        var iterator = text.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            if scalar == "\u{1B}" {
                guard let next = iterator.next() else { break }
                if next == "[" {
                    while let final = iterator.next(), !(0x40...0x7E).contains(final.value) {}
                }
                continue
            }
            if scalar == "\r" { continue }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}

enum PseudoTerminalError: Error, CustomStringConvertible {
    case cannotOpen(String)
    case timedOut(waitingFor: String, output: String)

    var description: String {
        switch self {
        case .cannotOpen(let what): return "cannot open a pseudo-terminal: \(what)"
        case .timedOut(let text, let output): return "timed out waiting for \(text.debugDescription); the terminal showed:\n\(output)"
        }
    }
}
