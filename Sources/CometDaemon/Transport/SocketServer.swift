import Foundation
import Dispatch
import CometSchema

/// A Unix domain socket server. Each connection has a thread that reads it (blocking in
/// `poll`, so a silent client holds up nobody), a queue that writes to it, and a queue its
/// requests are worked on; the accept loop has a thread of its own. No dispatch sources watch
/// the sockets: libdispatch on Linux can keep an epoll registration for a descriptor closed
/// and reused by the next connection, whose read events are then lost (found by the benchmark
/// under connection churn; swift-corelibs-libdispatch #833). It knows frames, not what is in them.
public final class SocketServer: @unchecked Sendable {
    public struct Limits: Sendable {
        public var frame = FrameDecoder.Limits()
        /// A frame begun must be complete within this many seconds.
        public var receiveSeconds: Double = 30
        /// Replies a client has not read yet, at most; past it the client is disconnected.
        public var pendingOutputBytes = 256 * 1024 * 1024
        /// A client that takes none of its replies for this long is disconnected.
        public var sendSeconds: Double = 30
        public var maximumConnections = 1024

        public init() {}
    }

    public struct Handlers: Sendable {
        /// A complete frame's body. The handler answers with `send` and then calls `finished`.
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
    private var listener: Int32 = -1
    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var nextID = 1
    private var accepting = false
    private var acceptThread: Thread?
    private let acceptStopped = DispatchSemaphore(value: 0)

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
        // A folder someone else can write to, or a link someone else placed, would let them
        // swap the socket for their own: refused. (lstat: the link itself, then what it names.)
        var link = stat()
        if lstat(folder, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, link.st_uid != getuid() {
            throw StartError(description: "the socket's folder \(folder) is a symbolic link owned by another user (uid \(link.st_uid)); use a folder of your own")
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
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // A socket file left by a daemon that died is removed; the lock file says none runs.
        unlink(path)
        // No umask change (it is the whole process's, and other threads create files): the
        // folder is the owner's alone, so the socket is out of reach until it is made 0600.
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "cannot listen at \(path): \(message)")
        }
        guard chmod(path, 0o600) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw StartError(description: "cannot make the socket \(path) private (0600): \(message)")
        }
        guard listen(fd, 512) == 0 else {
            close(fd)
            throw StartError(description: "listen(): \(String(cString: strerror(errno)))")
        }
        listener = fd
        accepting = true
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "cometcald.accept"
        acceptThread = thread
        thread.start()
    }

    /// Stops taking new connections; those open go on.
    public func stopAccepting() {
        let wasAccepting = lock.withLock { () -> Bool in
            defer { accepting = false }
            return accepting
        }
        guard wasAccepting else { return }
        acceptStopped.wait()
        if listener >= 0 { close(listener); listener = -1 }
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

    /// Stops accepting, closes every connection (after writing what each was sent), waits for
    /// them to be gone, and removes the socket file.
    public func stop() {
        stopAccepting()
        unlink(path)
        let open = lock.withLock { Array(connections.values) }
        for connection in open { connection.close() }
        let deadline = Date().addingTimeInterval(5)
        while connectionCount > 0, Date() < deadline { usleep(2_000) }
    }

    public var connectionCount: Int { lock.withLock { connections.count } }

    public func broadcast(_ bytes: [UInt8], to ids: Set<Int>) {
        let targets = lock.withLock { ids.compactMap { connections[$0] } }
        for connection in targets { connection.send(bytes) }
    }

    private func acceptLoop() {
        defer { acceptStopped.signal() }
        while lock.withLock({ accepting }) {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            guard ready > 0 else { continue }
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK {
                    handlers.log("accept failed", [("error", String(cString: strerror(errno)))])
                    usleep(10_000)  // out of descriptors, say: do not spin
                }
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let connection = lock.withLock { () -> Connection? in
                guard connections.count < limits.maximumConnections else { return nil }
                let id = nextID
                nextID += 1
                let connection = Connection(id: id, fd: fd, limits: limits, server: self)
                connections[id] = connection
                return connection
            }
            guard let connection else {
                handlers.log("connection refused", [("reason", "over \(limits.maximumConnections) connections")])
                // Said before closing, so the client knows why (a short write to a new socket
                // does not block; if it does not fit, the close says enough).
                let body = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32004,"message":"the daemon serves at most \#(limits.maximumConnections) connections at once; try again when others have closed","data":{"limit":\#(limits.maximumConnections)}}}"#
                let frame = FrameDecoder.frame(Array(body.utf8))
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = frame.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // What the client already sent is read and dropped first: a socket closed with
                // unread data resets the connection, and the client could lose the answer above.
                shutdown(fd, Int32(SHUT_WR))
                var sink = [UInt8](repeating: 0, count: 4096)
                while Glibc.recv(fd, &sink, sink.count, Int32(MSG_DONTWAIT)) > 0 {}
                close(fd)
                continue
            }
            connection.start()
        }
    }

    func removed(_ connection: Connection) {
        lock.withLock { _ = connections.removeValue(forKey: connection.id) }
        handlers.closed(connection)
    }
}

/// One client: a thread reads it, `output` writes to it in order, `work` runs its requests.
public final class Connection: @unchecked Sendable {
    public let id: Int
    private let fd: Int32
    private let limits: SocketServer.Limits
    private weak var server: SocketServer?
    /// Where this client's requests are worked on, one after another, apart from its I/O, so
    /// the connection keeps reading, writing and timing while a request runs. A serial queue of
    /// its own runs on libdispatch's overcommit threads, so a request blocked on the store holds
    /// up no other client's; never target it at `.global()` (BlockedRequestsTests).
    public let work: DispatchQueue
    private let output: DispatchQueue
    private let lock = NSLock()
    private var pendingOutput = 0
    private var readClosed = false
    private var closing = false
    /// Set when what is waiting to be written is dropped (a client that does not read).
    private var aborting = false
    private var descriptorOpen = true
    /// Requests handed out and not yet answered: the connection stays until they are.
    private var inFlight = 0
    /// The reader thread and the output queue each hold the descriptor until they are done.
    private var holders = 2

    init(id: Int, fd: Int32, limits: SocketServer.Limits, server: SocketServer) {
        self.id = id
        self.fd = fd
        self.limits = limits
        self.server = server
        work = DispatchQueue(label: "cometcald.work.\(id)")
        output = DispatchQueue(label: "cometcald.output.\(id)")
    }

    /// The largest request body this connection accepts.
    public var bodyLimit: Int { limits.frame.bodyBytes }

    func start() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "cometcald.read.\(id)"
        thread.start()
    }

    /// The handler answers each message it is handed with `send`, then calls `finished` (the
    /// connection counts the message as in flight before handing it over, so a client that
    /// ends its input right after a request still gets the answer).
    public func finished() {
        let done = lock.withLock { () -> Bool in
            inFlight -= 1
            return readClosed && inFlight == 0
        }
        server?.requestFinished()
        if done { close() }
    }

    /// Queues bytes for the client; never blocks the caller.
    public func send(_ bytes: [UInt8]) {
        let accepted = lock.withLock { () -> Bool? in
            guard !closing else { return nil }
            pendingOutput += bytes.count
            if pendingOutput > limits.pendingOutputBytes { aborting = true }
            return !aborting
        }
        guard let accepted else { return }  // closing: nothing more goes out
        guard accepted else {
            server?.handlers.log("client disconnected", [("connection", String(id)), ("reason", "it does not read its replies")])
            close()
            return
        }
        output.async { [self] in
            defer { lock.withLock { pendingOutput -= bytes.count } }
            // The descriptor is used only while it is this connection's: release closes it on
            // this same queue, and the number may belong to another connection after.
            guard lock.withLock({ descriptorOpen && !aborting }) else { return }
            if !write(bytes) {
                lock.withLock { aborting = true }
                close()
            }
        }
    }

    public func sendFrame(_ body: [UInt8]) { send(FrameDecoder.frame(body)) }

    /// Ends the connection after what it was sent is written (all of it unless it was aborted).
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closing = true }
            return !closing
        }
        guard first else { return }
        output.async { [self] in
            shutdown(fd, Int32(SHUT_RDWR))  // wakes the reader
            release()
        }
    }

    private func release() {
        let last = lock.withLock { () -> Bool in
            holders -= 1
            if holders == 0 { descriptorOpen = false }
            return holders == 0
        }
        guard last else { return }
        Glibc.close(fd)
        server?.removed(self)
    }

    /// Writes all of `bytes`, waiting for a slow reader up to `sendSeconds` at a time.
    private func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        var waitedSince: Date?
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if count > 0 {
                sent += count
                waitedSince = nil
                continue
            }
            if count < 0, errno == EINTR { continue }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return false }
            let since = waitedSince ?? Date()
            waitedSince = since
            if Date().timeIntervalSince(since) > limits.sendSeconds {
                server?.handlers.log("client disconnected", [("connection", String(id)), ("reason", "it took none of its replies for \(Int(limits.sendSeconds)) s")])
                return false
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&descriptor, 1, 1_000)
        }
        return true
    }

    private func readLoop() {
        defer { release() }
        var decoder = FrameDecoder(limits: limits.frame)
        var frameStarted: Date?
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1_000)
            if ready < 0, errno != EINTR { return }
            if ready <= 0 {
                // Nothing came: a frame begun must not wait for ever.
                if let started = frameStarted, Date().timeIntervalSince(started) > limits.receiveSeconds {
                    server?.handlers.log("client disconnected", [("connection", String(id)), ("reason", "a frame was not complete after \(Int(limits.receiveSeconds)) s")])
                    let error = RPCMessage.response(id: .null, error: RPCError(RPCError.requestTimedOut,
                        "the request did not arrive within \(Int(limits.receiveSeconds)) s (\(decoder.pendingBytes) bytes of it came); the connection is closed"))
                    send(FrameDecoder.frame(Array(JSONWriter.compact(error).utf8)))
                    close()
                    return
                }
                if lock.withLock({ closing }) { return }
                continue
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                // The client is done sending (or gone): answer what it asked, then close.
                if count == 0, decoder.isInsideFrame {
                    let error = RPCMessage.response(id: .null, error: RPCError(RPCError.parseError,
                        "the connection ended inside a frame (\(decoder.pendingBytes) bytes of it came); nothing was done with it"))
                    send(FrameDecoder.frame(Array(JSONWriter.compact(error).utf8)))
                }
                let done = lock.withLock { () -> Bool in
                    readClosed = true
                    return inFlight == 0
                }
                if done || count < 0 { close() }
                return
            }
            if !decoder.isInsideFrame { frameStarted = Date() }
            decoder.append(chunk[0..<count])
            while let event = decoder.next() {
                switch event {
                case .message(let body):
                    lock.withLock { inFlight += 1 }
                    server?.requestBegan()
                    server?.handlers.message(self, body)
                case .problem(let problem):
                    server?.handlers.problem(self, problem)
                }
            }
            frameStarted = decoder.isInsideFrame ? (frameStarted ?? Date()) : nil
        }
    }
}
