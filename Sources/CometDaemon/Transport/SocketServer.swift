import Foundation
import Dispatch
import CometSchema

/// A Unix domain socket server: accepts on its own queue, reads and writes each connection on
/// that connection's queue without blocking, so a slow or silent client never holds up another
/// or the accept loop. It knows frames, not what is in them.
public final class SocketServer: @unchecked Sendable {
    public struct Limits: Sendable {
        public var frame = FrameDecoder.Limits()
        /// A frame begun must be complete within this many seconds.
        public var receiveSeconds: Double = 30
        /// Replies a client has not read yet, at most; past it the client is disconnected.
        public var pendingOutputBytes = 256 * 1024 * 1024
        public var maximumConnections = 1024

        public init() {}
    }

    public struct Handlers: Sendable {
        /// A complete frame's body.
        public var message: @Sendable (Connection, [UInt8]) -> Void
        /// A frame that could not be read; the connection goes on unless it is closed.
        public var problem: @Sendable (Connection, FrameDecoder.Problem) -> Void
        public var closed: @Sendable (Connection) -> Void
        public var log: @Sendable (String, [(String, String)]) -> Void

        public init(message: @escaping @Sendable (Connection, [UInt8]) -> Void, problem: @escaping @Sendable (Connection, FrameDecoder.Problem) -> Void,
                    closed: @escaping @Sendable (Connection) -> Void, log: @escaping @Sendable (String, [(String, String)]) -> Void) {
            self.message = message
            self.problem = problem
            self.closed = closed
            self.log = log
        }
    }

    public let path: String
    let limits: Limits
    let handlers: Handlers
    private let acceptQueue = DispatchQueue(label: "cometcald.accept")
    private var listener: Int32 = -1
    private var acceptSource: DispatchSourceRead?
    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var nextID = 1

    public init(path: String, limits: Limits = Limits(), handlers: Handlers) {
        self.path = path
        self.limits = limits
        self.handlers = handlers
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates the socket (mode 0600, in a folder only the user can enter) and starts accepting.
    public func start() throws(StartError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartError(description: "cannot create the socket's folder \(folder): \(error.localizedDescription)")
        }
        var status = stat()
        guard stat(folder, &status) == 0, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
            throw StartError(description: "the socket's folder \(folder) must belong to you and be closed to others (chmod 700 \(folder))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw StartError(description: "the socket path is \(path.utf8.count) bytes; Unix sockets allow \(capacity - 1): choose a shorter --socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8) + [0])
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket(): \(String(cString: strerror(errno)))") }
        // A socket file left by a daemon that died is removed; the lock file says none runs.
        unlink(path)
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "cannot listen at \(path): \(message)")
        }
        chmod(path, 0o600)
        guard listen(fd, 512) == 0 else {
            close(fd)
            throw StartError(description: "listen(): \(String(cString: strerror(errno)))")
        }
        SocketServer.setNonBlocking(fd)
        listener = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
        source.setEventHandler { [weak self] in self?.acceptAll() }
        acceptSource = source
        source.resume()
    }

    /// Stops taking new connections; those open go on.
    public func stopAccepting() {
        acceptQueue.sync {
            acceptSource?.cancel()
            acceptSource = nil
            if listener >= 0 { close(listener); listener = -1 }
        }
    }

    private let idle = NSCondition()
    private var busy = 0

    func requestBegan() { idle.withLock { busy += 1 } }

    func requestFinished() {
        idle.withLock {
            busy -= 1
            if busy == 0 { idle.broadcast() }
        }
    }

    /// Waits until no request is being worked on and every answer is handed to its connection.
    public func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        idle.lock()
        defer { idle.unlock() }
        while busy > 0 {
            if !idle.wait(until: deadline) { return false }
        }
        return true
    }

    /// Stops accepting, closes every connection (after writing what each was sent) and removes
    /// the socket file.
    public func stop() {
        stopAccepting()
        unlink(path)
        let open = lock.withLock { Array(connections.values) }
        for connection in open { connection.close() }
        // Each close writes what its connection was sent first: wait for them before exiting.
        for connection in open { connection.queue.sync {} }
    }

    public var connectionCount: Int { lock.withLock { connections.count } }

    public func broadcast(_ bytes: [UInt8], to ids: Set<Int>) {
        let targets = lock.withLock { ids.compactMap { connections[$0] } }
        for connection in targets { connection.send(bytes) }
    }

    private func acceptAll() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { handlers.log("accept failed", [("error", String(cString: strerror(errno)))]) }
                return
            }
            SocketServer.setNonBlocking(fd)
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
            let (connection, full) = lock.withLock { () -> (Connection?, Bool) in
                guard connections.count < limits.maximumConnections else { return (nil, true) }
                let id = nextID
                nextID += 1
                let connection = Connection(id: id, fd: fd, limits: limits, server: self)
                connections[id] = connection
                return (connection, false)
            }
            if full {
                handlers.log("connection refused", [("reason", "over \(limits.maximumConnections) connections")])
                close(fd)
                continue
            }
            connection?.start()
        }
    }

    func removed(_ connection: Connection) {
        lock.withLock { _ = connections.removeValue(forKey: connection.id) }
        handlers.closed(connection)
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
}

/// One client. Everything about it runs on its own serial queue.
public final class Connection: @unchecked Sendable {
    public let id: Int
    private let fd: Int32
    private let limits: SocketServer.Limits
    private weak var server: SocketServer?
    let queue: DispatchQueue
    /// Where this client's requests are worked on, one after another, apart from its I/O, so
    /// the connection keeps reading, writing and timing while a request runs.
    public let work: DispatchQueue
    private var decoder: FrameDecoder
    private var output: [UInt8] = []
    private var outputStart = 0
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var writeSourceActive = false
    private var timer: DispatchSourceTimer?
    private var frameStarted: DispatchTime?
    private var readClosed = false
    private var closed = false
    /// Requests handed out and not yet answered: the connection stays until they are.
    private var inFlight = 0

    init(id: Int, fd: Int32, limits: SocketServer.Limits, server: SocketServer) {
        self.id = id
        self.fd = fd
        self.limits = limits
        self.server = server
        queue = DispatchQueue(label: "cometcald.connection.\(id)")
        work = DispatchQueue(label: "cometcald.work.\(id)")
        decoder = FrameDecoder(limits: limits.frame)
    }

    func start() {
        queue.async { [self] in
            let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            read.setEventHandler { [weak self] in self?.readAvailable() }
            readSource = read
            read.resume()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in self?.checkTimeout() }
            self.timer = timer
            timer.resume()
        }
    }

    /// The largest request body this connection accepts.
    public var bodyLimit: Int { limits.frame.bodyBytes }

    /// The handler answers each message it is handed with `send`, then calls `finished` (the
    /// connection counts the message as in flight before handing it over, so a client that
    /// ends its input right after a request still gets the answer).

    public func finished() {
        queue.async {
            self.inFlight -= 1
            self.closeIfDone()
            self.server?.requestFinished()
        }
    }

    /// Queues bytes for the client; never blocks.
    public func send(_ bytes: [UInt8]) {
        queue.async { [self] in
            guard !closed else { return }
            if outputStart > 0, outputStart >= output.count / 2 {
                output.removeFirst(outputStart)
                outputStart = 0
            }
            output.append(contentsOf: bytes)
            if output.count - outputStart > limits.pendingOutputBytes {
                server?.handlers.log("client disconnected", [("connection", String(id)), ("reason", "it does not read its replies")])
                close()
                return
            }
            flush()
        }
    }

    public func sendFrame(_ body: [UInt8]) { send(FrameDecoder.frame(body)) }

    public func close() {
        queue.async { [self] in
            guard !closed else { return }
            // What was sent is written first, as far as the client takes it now.
            if outputStart < output.count { flushBlocking() }
            closed = true
            readSource?.cancel()
            timer?.cancel()
            if let writeSource {
                if !writeSourceActive { writeSource.resume() }
                writeSource.cancel()
            }
            Glibc.close(fd)
            server?.removed(self)
        }
    }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !closed {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                if !decoder.isInsideFrame { frameStarted = .now() }
                decoder.append(chunk[0..<count])
                drainDecoder()
                continue
            }
            if count == 0 {
                // The client is done sending; answer what it asked, then close.
                if decoder.isInsideFrame {
                    let error = RPCMessage.response(id: .null, error: RPCError(RPCError.parseError,
                        "the connection ended inside a frame (\(decoder.pendingBytes) bytes of it came); nothing was done with it"))
                    send(FrameDecoder.frame(Array(JSONWriter.compact(error).utf8)))
                }
                readClosed = true
                readSource?.cancel()
                closeIfDone()
                return
            }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK { close() }
            return
        }
    }

    private func drainDecoder() {
        while let event = decoder.next() {
            switch event {
            case .message(let body):
                inFlight += 1
                server?.requestBegan()
                server?.handlers.message(self, body)
            case .problem(let problem): server?.handlers.problem(self, problem)
            }
        }
        frameStarted = decoder.isInsideFrame ? (frameStarted ?? .now()) : nil
    }

    private func checkTimeout() {
        guard let started = frameStarted, !closed else { return }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        guard waited > limits.receiveSeconds else { return }
        server?.handlers.log("client disconnected", [("connection", String(id)), ("reason", "a frame was not complete after \(Int(limits.receiveSeconds)) s")])
        let error = RPCMessage.response(id: .null, error: RPCError(RPCError.requestTimedOut,
            "the request did not arrive within \(Int(limits.receiveSeconds)) s (\(decoder.pendingBytes) bytes of it came); the connection is closed"))
        frameStarted = nil
        send(FrameDecoder.frame(Array(JSONWriter.compact(error).utf8)))
        queue.async { self.close() }
    }

    private func flush() {
        while outputStart < output.count {
            let written = output[outputStart...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                outputStart += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                waitForWritable()
                return
            }
            close()
            return
        }
        output.removeAll(keepingCapacity: output.count < 1 << 20)
        outputStart = 0
        if writeSourceActive { writeSource?.suspend(); writeSourceActive = false }
        closeIfDone()
    }

    /// On close: the rest of the output, waiting up to a second for a slow reader.
    private func flushBlocking() {
        let deadline = Date().addingTimeInterval(1)
        while outputStart < output.count, Date() < deadline {
            let written = output[outputStart...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { outputStart += written; continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { usleep(1000); continue }
            return
        }
    }

    private func waitForWritable() {
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in self?.flush() }
            writeSource = source
        }
        if !writeSourceActive { writeSource?.resume(); writeSourceActive = true }
    }

    private func closeIfDone() {
        if readClosed, inFlight == 0, outputStart >= output.count { close() }
    }
}
