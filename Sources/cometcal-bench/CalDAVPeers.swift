import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Radicale and Xandikos, the CalDAV servers CometCal is measured beside: each started from
/// PyPI's package (installed by scripts/bootstrap) as a child process on a loopback port, over
/// storage written straight to disk in a scratch folder (putting 50,000 events through PUT would
/// take the peers hours), and stopped when the bench is done with it, or when the bench dies.
final class CalDAVPeer {
    enum Kind: String, CaseIterable {
        case radicale = "Radicale"
        case xandikos = "Xandikos"

        /// The version the issue's figures were measured with, which scripts/bootstrap pins.
        var pinnedVersion: String { self == .radicale ? "3.9.0" : "0.4.10" }
        var module: String { rawValue.lowercased() }
    }

    let kind: Kind
    let port: UInt16
    /// The calendar's URL path.
    let collectionPath: String
    /// The user in Basic authentication (Radicale's rights give a user the collections under
    /// their name; it checks no password with `auth type = none`). Xandikos takes none.
    let user: String?
    let version: String
    private let process: Process
    private let folder: String
    private let log: String

    var name: String { "\(kind.rawValue) \(version)" }

    /// Starts a child python with the parent-death signal set, so a peer never outlives a bench
    /// that crashed or was killed; then it runs the server's module.
    private static let launcher = """
        from ctypes import CDLL; import os, signal, sys
        CDLL(None).prctl(1, signal.SIGKILL)
        if os.getppid() != int(sys.argv[1]): sys.exit(70)
        os.execv(sys.executable, [sys.executable, "-m"] + sys.argv[2:])
        """

    /// The installed versions of both peers' packages, or what is missing.
    static func installedVersions() throws -> [Kind: String] {
        let script = "import importlib.metadata as m\nfor name in ('radicale', 'xandikos'):\n    print(m.version(name))"
        let output = try runTool(["python3", "-c", script], in: nil)
        let versions = output.split(separator: "\n").map(String.init)
        guard versions.count == 2 else { throw BenchError("cannot read the versions of radicale and xandikos: \(output.prefix(300))") }
        return [.radicale: versions[0], .xandikos: versions[1]]
    }

    /// Writes `items` (file name, iCalendar text) as the peer's one calendar in `folder`, starts
    /// the server on a free loopback port and waits until it accepts connections.
    init(kind: Kind, version: String, folder: String, items: [(name: String, text: [UInt8])], progress: (String) -> Void) throws {
        self.kind = kind
        self.version = version
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        log = (folder as NSString).appendingPathComponent("server.log")
        let storage = (folder as NSString).appendingPathComponent("storage")
        var arguments: [String]
        port = try Self.freePort()
        switch kind {
        case .radicale:
            // Radicale's multifilesystem storage: a folder per collection under collection-root,
            // its properties in .Radicale.props, one file per item.
            user = "bench"
            collectionPath = "/bench/calendar/"
            let collection = (storage as NSString).appendingPathComponent("collection-root/bench/calendar")
            try FileManager.default.createDirectory(atPath: collection, withIntermediateDirectories: true)
            let props = #"{"C:supported-calendar-component-set": "VEVENT", "D:displayname": "Bench", "tag": "VCALENDAR"}"#
            try Self.write(Array(props.utf8), to: (collection as NSString).appendingPathComponent(".Radicale.props"))
            for item in items { try Self.write(item.text, to: (collection as NSString).appendingPathComponent(item.name)) }
            arguments = ["radicale", "--storage-filesystem-folder", storage, "--server-hosts", "127.0.0.1:\(port)",
                         "--auth-type", "none", "--logging-level", "warning",
                         // Radicale refuses a REPORT answering more than 10,000 events by default
                         // (anti-DoS); the whole calendar at 50,000 events needs more.
                         "--reporting-max-expand-occurrence", "10000000"]
        case .xandikos:
            // Xandikos keeps a collection as a git repository with a work tree: made by its own
            // create-collection, then the items committed in one commit.
            user = nil
            collectionPath = "/user/calendars/calendar/"
            let calendars = (storage as NSString).appendingPathComponent("user/calendars")
            try FileManager.default.createDirectory(atPath: calendars, withIntermediateDirectories: true)
            _ = try Self.runTool(["python3", "-m", "xandikos", "create-collection", "-d", storage, "--type", "calendar",
                                  "--name", "user/calendars/calendar", "--displayname", "Bench"], in: nil)
            let collection = (calendars as NSString).appendingPathComponent("calendar")
            for item in items { try Self.write(item.text, to: (collection as NSString).appendingPathComponent(item.name)) }
            progress("xandikos: committing \(items.count) items to its git collection")
            _ = try Self.runTool(["git", "-C", collection, "add", "-A"], in: nil)
            _ = try Self.runTool(["git", "-C", collection, "-c", "user.name=cometcal-bench", "-c", "user.email=bench@localhost",
                                  "commit", "-q", "-m", "\(items.count) events written by cometcal-bench"], in: nil)
            arguments = ["xandikos", "serve", "-d", storage, "-l", "127.0.0.1", "-p", String(port), "--current-user-principal", "/user/"]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.launcher, String(getpid())] + arguments
        guard FileManager.default.createFile(atPath: log, contents: nil), let logHandle = FileHandle(forWritingAtPath: log) else {
            throw BenchError("cannot write \(log)")
        }
        process.standardOutput = logHandle
        process.standardError = logHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntilListening()
    }

    deinit { stop() }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its folder. Safe to call twice.
    func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The end of the server's log, for an error message.
    var logTail: String {
        guard let data = FileManager.default.contents(atPath: log) else { return "" }
        return String(decoding: data.suffix(2_000), as: UTF8.self)
    }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else {
                throw BenchError("\(kind.rawValue) exited (status \(process.terminationStatus)) before it listened: \(logTail)")
            }
            let client = BenchHTTPClient(port: port, user: user)
            if let answer = try? client.send("OPTIONS", collectionPath), answer.status < 500 { return }
            usleep(100_000)
        }
        throw BenchError("\(kind.rawValue) did not answer on 127.0.0.1:\(port) within 60 s: \(logTail)")
    }

    /// A port nobody listens on now (bound once and let go; the server binds it next).
    private static func freePort() throws -> UInt16 {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { throw BenchError("cannot make a socket") }
        defer { close(probe) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(probe, pointer, length) == 0 else { return -1 }
                return getsockname(probe, pointer, &length)
            }
        }
        guard bound == 0 else { throw BenchError("cannot find a free loopback port: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw BenchError("cannot write \(path)") }
    }

    /// Runs a tool to its end; its standard output, or an error with what it printed.
    @discardableResult
    static func runTool(_ arguments: [String], in directory: String?) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw BenchError("cannot run \(arguments.joined(separator: " ")): \(error)") }
        // Read both pipes while it runs, so a chatty tool cannot fill one and block.
        final class Box: @unchecked Sendable { var data = Data() }
        let errorBox = Box()
        let reader = Thread { errorBox.data = errors.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1_000) }
        guard process.terminationStatus == 0 else {
            throw BenchError("\(arguments.prefix(4).joined(separator: " ")) exited \(process.terminationStatus): "
                             + String(decoding: (errorBox.data + data).suffix(1_500), as: UTF8.self)
                             + (arguments.first == "python3" ? " (scripts/bootstrap installs radicale 3.9.0 and xandikos 0.4.10)" : ""))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
