import Foundation
import Testing
import CometSchema

/// A real `cometcald` on a temporary store and socket, stopped (SIGTERM) when the test is done.
final class DaemonHarness: @unchecked Sendable {
    let directory: URL
    let socket: String
    let store: String
    let process = Process()
    let log = Pipe()
    private(set) var logText = ""

    init(schemas: String? = nil, arguments: [String] = [], environment: [String: String] = [:], directory existing: URL? = nil, store existingStore: String? = nil) throws {
        directory = try existing ?? CLIRunner.temporaryDirectory()
        socket = directory.appendingPathComponent("run/d.sock").path
        store = existingStore ?? directory.appendingPathComponent("cal.sqlite").path
        process.executableURL = try CLIRunner.binary("cometcald")
        process.arguments = ["--db", store, "--socket", socket, "--schemas", schemas ?? CLIRunner.repositoryRoot.appendingPathComponent("Schemas").path, "--verbose"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "America/Los_Angeles"
        // The developer's own config file (its notify command) must not change what a test sees.
        env.removeValue(forKey: "COMETCAL_CONFIG")
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Ready when it answers: a socket file left by a killed daemon is no sign of life.
        let deadline = Date().addingTimeInterval(20)
        while (try? RPCClient(path: socket)) == nil {
            guard process.isRunning, Date() < deadline else { throw HarnessError.notStarted(readLog()) }
            usleep(20_000)
        }
    }

    enum HarnessError: Error { case notStarted(String), timeout(String), closed }

    /// Everything logged so far (reading stops the daemon writing into a full pipe).
    @discardableResult
    func readLog() -> String {
        let handle = log.fileHandleForReading
        let flags = fcntl(handle.fileDescriptor, F_GETFL)
        _ = fcntl(handle.fileDescriptor, F_SETFL, flags | O_NONBLOCK)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(handle.fileDescriptor, &chunk, chunk.count)
            if count <= 0 { break }
            logText += String(decoding: chunk[0..<count], as: UTF8.self)
        }
        return logText
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Stops it the way a service manager does and waits; the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            signal(SIGTERM)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { signal(SIGKILL); process.waitUntilExit() }
        }
        readLog()
        return process.terminationStatus
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func client() throws -> RPCClient { try RPCClient(path: socket) }
}

/// A JSON-RPC client over the socket: frames out, frames in, notifications kept apart.
final class RPCClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// Notifications received while waiting for answers, in order.
    var notifications: [JSONValue] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // No close here: a class whose init throws is deinitialized, and deinit closes it (closing
        // twice would close a number another thread may have been given meanwhile).
        guard status == 0 else { throw DaemonHarness.HarnessError.notStarted("connect: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func sendRaw(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    func sendFrame(_ json: JSONValue) {
        let body = Array(JSONWriter.compact(json).utf8)
        sendRaw(Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    /// Calls a method and waits for its answer: the result, or the error object.
    func call(_ method: String, _ params: JSONValue? = nil, timeout: Double = 20) throws -> JSONValue {
        let id = nextID
        nextID += 1
        var request = JSONObject([("jsonrpc", .string("2.0")), ("id", .int(id)), ("method", .string(method))])
        if let params { request["params"] = params }
        sendFrame(.object(request))
        while true {
            let message = try receive(timeout: timeout)
            if message["id"] == .int(id) { return message["result"] ?? message["error"] ?? .null }
            // An error for no request in particular (a connection refused, a frame unread) is this call's answer.
            if message["id"] == .null, let error = message["error"] { return error }
            if message["method"] != nil { notifications.append(message) }
        }
    }

    /// The next frame, whatever it is.
    func receive(timeout: Double = 20) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let message = try takeFrame() { return message }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard remaining > 0 else { throw DaemonHarness.HarnessError.timeout("no frame within \(timeout) s") }
            guard poll(&descriptor, 1, remaining) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0, errno == EINTR { continue }  // a signal (SIGCHLD of another test's daemon)
            if count <= 0 { throw DaemonHarness.HarnessError.closed }
            buffer += chunk[0..<count]
        }
    }

    /// The next notification, from those kept or from the socket.
    func notification(timeout: Double = 20) throws -> JSONValue {
        if !notifications.isEmpty { return notifications.removeFirst() }
        while true {
            let message = try receive(timeout: timeout)
            if message["method"] != nil { return message }
        }
    }

    private func takeFrame() throws -> JSONValue? {
        guard let end = (0..<max(0, buffer.count - 3)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) else { return nil }
        let header = String(decoding: buffer[0..<end], as: UTF8.self)
        guard let length = header.split(separator: "\r\n").compactMap({ line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }).first else { return nil }
        guard buffer.count >= end + 4 + length else { return nil }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return try JSONParser.parse(bytes: body)
    }
}
