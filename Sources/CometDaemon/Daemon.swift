import Foundation
import Dispatch
import CometSchema
import CometIntents

/// `cometcald`: the socket server, the service behind it, the lock that makes it the only
/// daemon of its store, and the signals that stop it cleanly or reload its schemas.
public final class Daemon: @unchecked Sendable {
    public struct Options: Sendable {
        public var socketPath: String
        public var service: DaemonService.Configuration
        public var limits = SocketServer.Limits()
        public var verbose = false
        /// How long a stop waits for the requests in flight (`--stop-seconds`).
        public var stopSeconds: Double = 10
        /// The command run for each alarm as it fires (`--notify`), and how long it may run.
        public var notifyCommand: String?
        public var notifySeconds: Double = NotifyCommand.defaultTimeLimit

        public init(socketPath: String, service: DaemonService.Configuration) {
            self.socketPath = socketPath
            self.service = service
        }
    }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    let options: Options
    public let service: DaemonService
    private var server: SocketServer!
    /// One daemon per store file; none for a server database, which several daemons share.
    private let lockFile: LockFile?
    let logger: Logger
    private var signals: [DispatchSourceSignal] = []
    private var alarms: AlarmScheduler?
    private var notify: NotifyCommand?
    private var journalTimer: DispatchSourceTimer?
    private var watch: StoreWatch?
    private let stopped = DispatchSemaphore(value: 0)

    public init(options: Options) throws(StartError) {
        self.options = options
        logger = Logger(verbose: options.verbose)
        do {
            if let path = options.service.store.filePath {
                lockFile = try LockFile.acquire(path: path + ".lock", socket: options.socketPath)
            } else {
                lockFile = nil
            }
        } catch {
            throw StartError(description: error.description)
        }
        do {
            service = try DaemonService(configuration: options.service)
        } catch let error as SchemaError {
            throw StartError(description: error.description + "the schemas have \(error.errorCount) error(s)")
        } catch {
            throw StartError(description: "cannot open the store at \(options.service.storePath): \(error)")
        }
        let logger = self.logger
        service.log = { message, fields in logger.info(message, fields) }
    }

    /// Listens, then runs until SIGTERM or SIGINT. `listening` runs once the socket is served
    /// (other front ends of the same service start there, only once the daemon has).
    public func run(listening: () throws(StartError) -> Void = {}) throws(StartError) {
        try serve(handlingSignals: true)
        do {
            try listening()
        } catch {
            stop(reason: error.description)
            stopped.wait()
            throw error
        }
        stopped.wait()
    }

    /// Listens and serves, as `run()` does, but returns at once and installs no signal handlers:
    /// for a process that hosts the daemon beside its own work (the benchmark drives it from
    /// client threads of the same process). End it with `stop(reason:)`.
    public func startServing() throws(StartError) {
        try serve(handlingSignals: false)
    }

    /// The signal handlers, when wanted, are in place before "listening" is logged: whoever waits
    /// for that line may send SIGTERM at once.
    private func serve(handlingSignals: Bool) throws(StartError) {
        let service = self.service
        let logger = self.logger
        let verbose = options.verbose
        server = SocketServer(path: options.socketPath, limits: options.limits, handlers: SocketServer.Handlers(
            message: { connection, body in Daemon.handle(body, on: connection, service: service, logger: verbose ? logger : nil) },
            problem: { connection, problem in
                let error: RPCError
                switch problem {
                case .malformedHeader(let reason): error = RPCError(RPCError.parseError, "the frame cannot be read: \(reason); frames are 'Content-Length: N' CRLF CRLF, then N bytes of JSON")
                case .tooLarge(let size): error = RPCError(RPCError.requestTooLarge, "the request is \(size) bytes; the limit is \(connection.bodyLimit) bytes",
                                                          data: .object(JSONObject([("limit", .int(connection.bodyLimit))])))
                case .headerTooLong: error = RPCError(RPCError.parseError, "the frame's header is longer than 8 KB; frames are 'Content-Length: N' CRLF CRLF, then N bytes of JSON")
                }
                logger.info("bad frame", [("connection", String(connection.id)), ("error", error.message)])
                connection.sendFrame(Array(JSONWriter.compact(RPCMessage.response(id: .null, error: error)).utf8))
            },
            closed: { connection in
                service.disconnected(connection.id)
                if verbose { logger.info("disconnected", [("connection", String(connection.id))]) }
            },
            log: { message, fields in logger.info(message, fields) }))
        let server = self.server!
        service.deliver = { ids, notification in server.broadcast(FrameDecoder.frame(Array(JSONWriter.compact(notification).utf8)), to: ids) }
        do {
            // Signals are handled before the first client can connect: a SIGHUP sent at once
            // must reload, not kill (its default) or be lost.
            if handlingSignals { installSignals() }
            try server.start()
        } catch {
            lockFile?.release()
            throw StartError(description: error.description)
        }
        let notify = options.notifyCommand.map { command in
            NotifyCommand(command: command, timeLimit: options.notifySeconds, log: { message, fields in logger.info(message, fields) })
        }
        self.notify = notify
        service.checkpoints.log = { message, fields in logger.error(message, fields) }
        service.checkpoints.start()
        let alarms = AlarmScheduler(service: service, notify: notify)
        service.changed = { alarms.invalidate() }
        alarms.start()
        self.alarms = alarms
        // Changes made beside the daemon (a cometcal on the same store) are announced too.
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "cometcald.journal"))
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        timer.setEventHandler { service.pollJournal() }
        timer.resume()
        journalTimer = timer
        // Several daemons on one database: their commits and fired alarms are heard at once.
        do {
            if let watcher = try options.service.opener.watcher(for: options.service.store) {
                let watch = StoreWatch(watcher: watcher, service: service)
                watch.start()
                self.watch = watch
            }
        } catch {
            logger.error("other daemons' changes will be seen within a second, not at once: the store cannot be watched", [("error", "\(error)")])
        }
        logger.info("listening", [("socket", options.socketPath), ("store", options.service.storePath), ("pid", String(getpid()))])
    }

    /// One frame's body: a request, a notification or a batch, answered in order.
    static func handle(_ body: [UInt8], on connection: Connection, service: DaemonService, logger: Logger?) {
        connection.work.async {
            defer { connection.finished() }
            if let reply = answer(body, service: service, connection: connection.id, logger: logger) {
                connection.sendFrame(reply.bytes)
            }
        }
    }

    /// What a frame's body is answered with (nil for notifications only): the dispatch, apart
    /// from any socket, so it can be driven directly (the fuzz target does). Written as text
    /// straight from the results, with no tree of the whole answer.
    static func answer(_ body: [UInt8], service: DaemonService, connection: Int, logger: Logger? = nil) -> JSONText? {
        func answer(_ request: RPCRequest) -> JSONText? {
            let started = DispatchTime.now()
            // Logged before the work too, so whoever reads the log knows a request is in flight.
            logger?.info("received", [("connection", String(connection)), ("method", request.method)])
            let result = service.answer(request.method, request.params, connection: connection)
            if let logger {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
                logger.info("request", [("connection", String(connection)), ("method", request.method),
                                        ("ms", String(format: "%.2f", elapsed)), ("ok", String(describing: (try? result.get()) != nil))])
            }
            guard let id = request.id else { return nil }  // a notification: no answer
            switch result {
            case .success(let text): return RPCMessage.responseText(id: id, result: text)
            case .failure(let error): return RPCMessage.responseText(id: id, error: error)
            }
        }
        switch RPCMessage.parse(body) {
        case .single(.success(let request)): return answer(request)
        case .single(.failure(let failure)): return RPCMessage.responseText(id: failure.id, error: failure.error)
        case .batch(let items):
            let answers = items.compactMap { item -> JSONText? in
                switch item {
                case .success(let request): return answer(request)
                case .failure(let failure): return RPCMessage.responseText(id: failure.id, error: failure.error)
                }
            }
            if answers.isEmpty { return nil }
            return JSONText.write { text in
                text.beginArray()
                for answer in answers { text.write(answer) }
                text.endArray()
            }
        }
    }

    private func installSignals() {
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if number == SIGHUP {
                    if let problem = service.reload() {
                        logger.error("reload refused; the old schemas stay", [("diagnostics", problem)])
                    } else {
                        logger.info("schemas reloaded", [("paths", options.service.schemaPaths.joined(separator: ":"))])
                    }
                } else {
                    stop(reason: number == SIGTERM ? "SIGTERM" : "SIGINT")
                }
            }
            source.resume()
            signals.append(source)
        }
    }

    /// Stops accepting, lets the write in progress finish, closes the store and removes the socket.
    public func stop(reason: String) {
        logger.info("stopping", [("reason", reason)])
        server?.stopAccepting()
        // In-flight requests finish and their answers go out before connections close.
        if server?.waitUntilIdle(seconds: options.stopSeconds) == false {
            logger.error("requests still running after \(options.stopSeconds) s (--stop-seconds); stopping anyway", [])
        }
        alarms?.stop()
        notify?.stop()
        journalTimer?.cancel()
        watch?.stop()
        service.drain()
        service.checkpoints.stop()
        server?.stop()
        lockFile?.release()
        logger.info("stopped", [])
        stopped.signal()
    }
}

