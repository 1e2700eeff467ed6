import CMicroHTTPD
import Foundation
import Synchronization

/// How a server reads requests and how much it takes.
public struct HTTPServerOptions: Sendable {
    /// The largest request body read; a longer one is answered 413 and never reaches the handler.
    public var maximumBodyBytes = 10 * 1024 * 1024
    /// libmicrohttpd's worker threads; handlers run on them, one request per thread at a time.
    public var threadCount = 4
    /// Connections open at once; libmicrohttpd closes one more as soon as it is accepted.
    public var connectionLimit = 64
    /// An idle connection (nothing received or sent for this long) is closed.
    public var connectionTimeoutSeconds = 30
    /// Per connection, for the request line and headers: a request whose headers do not fit is
    /// answered by libmicrohttpd (431 or 414).
    public var connectionMemoryBytes = 64 * 1024
    /// How long `stop()` waits for requests already being handled to be answered.
    public var stopGraceSeconds = 10.0
    /// Where libmicrohttpd's own messages go (one line each); nil drops them.
    public var log: (@Sendable (String) -> Void)?

    public init() {}

    func validated() throws(HTTPServerError) -> HTTPServerOptions {
        func check(_ value: Int, _ range: ClosedRange<Int>, _ name: String) throws(HTTPServerError) {
            guard range.contains(value) else {
                throw HTTPServerError(.badOption, "\(name) is \(value); it must be \(range.lowerBound) to \(range.upperBound)")
            }
        }
        try check(maximumBodyBytes, 0...(1 << 30), "the body limit")
        try check(threadCount, 1...64, "the thread count")
        try check(connectionLimit, 1...65536, "the connection limit")
        try check(connectionTimeoutSeconds, 1...86400, "the connection timeout")
        try check(connectionMemoryBytes, 4096...(16 << 20), "the connection memory")
        guard stopGraceSeconds >= 0, stopGraceSeconds.isFinite else {
            throw HTTPServerError(.badOption, "the stop grace is \(stopGraceSeconds) seconds; it must be 0 or more")
        }
        return self
    }
}

/// An HTTP/1.1 server on libmicrohttpd with its own thread pool. Each request is read whole
/// (bounded by `HTTPServerOptions.maximumBodyBytes`), authenticated as `HTTPAuthentication`
/// says, then given to one handler, synchronously, on libmicrohttpd's thread. Malformed HTTP is
/// answered by libmicrohttpd itself (400) and never reaches the handler.
public final class HTTPServer: Sendable {
    /// The address asked for, with the port the system chose when 0 was asked for.
    public let address: HTTPListenAddress
    /// The bound port.
    public var port: UInt16 { address.port }

    private let core: ServerCore
    private let running: Mutex<RunningDaemon?>

    /// Starts listening; the server runs until `stop()` (or until it is released).
    /// Unauthenticated access (`.none`) is refused unless the address is loopback.
    public static func start(listeningOn address: HTTPListenAddress, authentication: HTTPAuthentication,
                             options: HTTPServerOptions = HTTPServerOptions(),
                             handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) -> HTTPServer {
        if case .none(let flag) = authentication, !address.isLoopback {
            throw HTTPServerError(.unauthenticatedNotLoopback,
                                  "\(flag) (no authentication) is allowed only on a loopback address (127.0.0.1 or [::1]); \(address) is not one: listen on 127.0.0.1, or leave out \(flag) and use a password file")
        }
        let core = ServerCore(handler: handler, authentication: authentication, options: try options.validated())
        let daemon = try RunningDaemon.start(core: core, address: address)
        let bound = HTTPListenAddress(host: address.host, port: daemon.boundPort, isIPv6: address.isIPv6)
        return HTTPServer(address: bound, core: core, daemon: daemon)
    }

    /// `start(listeningOn:…)` with the address as text (`127.0.0.1:5232`, `[::1]:0`).
    public static func start(listeningOn address: String, authentication: HTTPAuthentication,
                             options: HTTPServerOptions = HTTPServerOptions(),
                             handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws(HTTPServerError) -> HTTPServer {
        try start(listeningOn: HTTPListenAddress(address), authentication: authentication, options: options, handler: handler)
    }

    private init(address: HTTPListenAddress, core: ServerCore, daemon: RunningDaemon) {
        self.address = address
        self.core = core
        self.running = Mutex(daemon)
    }

    /// Stops accepting connections, waits (up to the options' stop grace) for the requests being
    /// handled to be answered, then closes every connection and joins the threads. A connection
    /// made during the wait is never served. Safe to call more than once, from any thread: every
    /// call returns once the server has stopped.
    public func stop() {
        // Held for the whole stop, so that a second caller returns only once it is done.
        running.withLock { daemon in
            daemon?.stop(core: core)
            daemon = nil
        }
    }

    deinit { stop() }

    /// Requests whose state is held (between the request line and the end of the answer), for
    /// tests that check none is leaked.
    var heldRequestStates: Int { core.heldRequestStates }
}

/// The libmicrohttpd daemon and what its callbacks point to, owned by one `HTTPServer`.
private struct RunningDaemon: @unchecked Sendable {
    // The pointers are only handed to libmicrohttpd and freed after MHD_stop_daemon returns,
    // when no callback can run any more.
    let daemon: OpaquePointer
    let logger: UnsafeMutablePointer<cometcal_mhd_logger>
    let coreReference: Unmanaged<ServerCore>
    let boundPort: UInt16

    static func start(core: ServerCore, address: HTTPListenAddress) throws(HTTPServerError) -> RunningDaemon {
        var storage = sockaddr_storage()
        guard cometcal_mhd_make_address(address.host, address.port, &storage) != 0 else {
            throw HTTPServerError(.badAddress, "'\(address.host)' is not a numeric address")
        }
        let reference = Unmanaged.passRetained(core)
        let logger = UnsafeMutablePointer<cometcal_mhd_logger>.allocate(capacity: 1)
        logger.initialize(to: cometcal_mhd_logger(sink: logSink, context: reference.toOpaque()))
        var flags = MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let options = core.options
        let started = cometcal_mhd_start(
            flags, address.port, &storage,
            UInt32(options.threadCount), UInt32(options.connectionLimit),
            UInt32(options.connectionTimeoutSeconds), options.connectionMemoryBytes,
            accessHandler, reference.toOpaque(),
            requestCompleted, reference.toOpaque(),
            requestBegan, reference.toOpaque(),
            logger)
        guard let started else {
            let messages = core.takeStartMessages()
            logger.deinitialize(count: 1)
            logger.deallocate()
            reference.release()
            let why = messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
            throw HTTPServerError(.startFailed, "cannot listen on \(address)\(why)")
        }
        core.startMessagesDone()
        let port = cometcal_mhd_bound_port(started)
        return RunningDaemon(daemon: started, logger: logger, coreReference: reference, boundPort: port == 0 ? address.port : port)
    }

    func stop(core: ServerCore) {
        let listening = MHD_quiesce_daemon(daemon)
        let deadline = Date().addingTimeInterval(core.options.stopGraceSeconds)
        while core.requestsBeingHandled > 0, Date() < deadline {
            usleep(5_000)
        }
        let unanswered = core.requestsBeingHandled
        if unanswered > 0 {
            core.log("stopping with \(unanswered) request(s) not answered after \(core.options.stopGraceSeconds) s: their connections are closed")
        }
        MHD_stop_daemon(daemon)
        if listening >= 0 { close(listening) }
        logger.deinitialize(count: 1)
        logger.deallocate()
        coreReference.release()
    }
}

// The callbacks libmicrohttpd calls, each with the `ServerCore` as its closure argument.

private let logSink: cometcal_mhd_log_sink = { context, message in
    guard let context, let message else { return }
    Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().log(String(cString: message))
}

private let requestBegan: cometcal_mhd_uri_callback = { cls, uri, _ in
    guard let cls else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.makeRequestState(rawTarget: uri.map { String(cString: $0) } ?? "")
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, context, _ in
    guard let cls, let context, let pointer = context.pointee else { return }
    context.pointee = nil
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().releaseRequestState(pointer)
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, context in
    guard let cls, let connection, let context, let uploadDataSize else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    return core.access(connection: connection, url: url, method: method, version: version,
                       uploadData: uploadData, uploadDataSize: uploadDataSize, context: context)
}
