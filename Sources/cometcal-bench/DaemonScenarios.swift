import Foundation
import Dispatch
import CometSchema
import CometIntents
import CometDaemon
import CometSQLiteStore
import CometStore
import CometText

/// The daemon scenario: the daemon runs in this process (`Daemon.startServing`, wired as
/// cometcald wires it: a DaemonService with its reader pool and writer behind a SocketServer) on
/// the seeded store, and 1, 8 and 32 client threads, each with its own `DaemonClient`
/// connection, call it in a loop with a mix of reads and writes, then reads alone and writes
/// alone. Its reference is the same requests made directly on the fixture's IntentEngine,
/// single-threaded, without the socket or JSON, just before the daemon phases of each mix: the
/// difference is what the transport and JSON-RPC cost, and the client counts show how
/// concurrency scales. It is not one operation at a time, so it times itself (`selfTimed`).
enum DaemonScenarios {
    static let all: [Scenario] = [daemon, daemonGet]
    static let references: [Reference] = [engineRequests]

    static let clientCounts = [1, 8, 32]
    /// The issue's target: "At 8 clients, aim for at least 5,000 requests per second and a p99
    /// under 10 ms."
    static let targetClients = 8
    static let targetRate = 5_000.0
    static let targetP99 = 10.0

    static let daemon: Scenario = {
        var scenario = Scenario(
            name: "daemon",
            summary: "requests through cometcald's JSON-RPC over a Unix socket (the daemon in this process) from 1, 8 and 32 client threads: "
                + "70% reads (entity.search of a word, first 50; agenda of a day and of a week; entity.get; health), 30% writes (createEvent, its updateEvent, "
                + "its deleteEvent, all confirmed), then reads alone and writes alone; the table's row is the mix from 1 client",
            referenceName: "engine-requests", targetP50: nil, comparesRows: false
        ) { _ in throw BenchError("the daemon scenario times itself, phase by phase") }
        scenario.selfTimed = { run, reference in try DaemonBench(run: run).measure(reference) }
        return scenario
    }()

    /// entity.get alone, the request whose engine work is least (a record from the cache):
    /// what is left is what the daemon itself costs per request.
    static let daemonGet: Scenario = {
        var scenario = Scenario(
            name: "daemon-get",
            summary: "entity.get of a random seeded event through cometcald's JSON-RPC (the daemon in this process) from 1 and 8 client threads; "
                + "the table's row is 1 client",
            referenceName: "engine-requests", targetP50: nil, comparesRows: false
        ) { _ in throw BenchError("the daemon-get scenario times itself, phase by phase") }
        scenario.selfTimed = { run, reference in
            try DaemonBench(run: run).measure(reference, scenario: daemonGet, mixes: [.gets], clientCounts: [1, 8])
        }
        return scenario
    }()

    static let engineRequests = Reference(
        name: "engine-requests", label: "the same requests on the engine alone",
        summary: "each request of the daemon's client 0 made directly on one IntentEngine, single-threaded: engine.perform of the IntentRequest "
            + "(searchEvents by text, first 50, or from/to; createEvent, updateEvent, deleteEvent confirmed), engine.record for entity.get, checkStore for health (as the daemon's health)",
        group: "the engine alone on the store under test, without the socket or JSON, run just before the daemon's phases of the same mix"
    ) { _ in throw BenchError("engine-requests is timed by the daemon scenario, phase by phase") }
}

// MARK: The requests

/// Which requests a client makes.
enum DaemonMix: String, CaseIterable {
    case mixed, reads = "read-only", writes = "write-only"
    /// entity.get alone (the daemon-get scenario).
    case gets = "entity.get"

    /// The daemon scenario's mixes.
    static let daemonMixes: [DaemonMix] = [.mixed, .reads, .writes]
}

/// One request of the mix, made either through the daemon or on the engine.
enum DaemonRequest {
    case search(String)
    case agenda(from: DateTimeValue, to: DateTimeValue, days: Int)
    case get(UUID)
    case health
    case create(GeneratedEvent)
    case update(UUID, recurring: Bool, changes: [String: ParameterValue])
    case delete(UUID, recurring: Bool)

    /// The tag its samples carry.
    var kind: String {
        switch self {
        case .search: return "entity.search"
        case .agenda(_, _, let days): return days == 1 ? "agenda day" : "agenda week"
        case .get: return "entity.get"
        case .health: return "health"
        case .create: return "create"
        case .update: return "update"
        case .delete: return "delete"
        }
    }

    static let kinds = ["entity.search", "agenda day", "agenda week", "entity.get", "health", "create", "update", "delete"]
}

/// What one client (or the reference) asks, deterministically from its stream: reads drawn by
/// weight, and writes that walk one event at a time through create → update → delete, so the
/// store ends each cycle as it began (`cleanUp` ends a cycle left open when a phase stops).
struct DaemonWorkload {
    static let searchWords = ["lunch", "standup", "review", "Ada", "dentist", "yoga", "budget", "birthday"]
    /// A search asks for a screenful, as a front end does: unbounded, "lunch" at the default
    /// size returns thousands of whole events in one answer. Agendas are whole days and weeks.
    static let searchLimit = 50
    /// Out of 100: 70 reads, 30 writes.
    static let readWeights = [("search", 20), ("day", 15), ("week", 10), ("get", 15), ("health", 10)]
    static let writeWeight = 30

    private enum Cycle {
        case idle
        case created(UUID, recurring: Bool)
        case updated(UUID, recurring: Bool)
    }

    let mix: DaemonMix
    private let frame: TimeFrame
    private let ids: [UUID]
    private var random: SplitMix64
    private var generator: EventGenerator
    private var cycle = Cycle.idle

    init(mix: DaemonMix, index: Int, fixture: Fixture, ids: [UUID]) {
        self.mix = mix
        frame = fixture.frame
        self.ids = ids
        let seed = fixture.options.seed
        random = SplitMix64(seed: seed, stream: "daemon-\(mix.rawValue)-\(index)")
        generator = EventGenerator(frame: fixture.frame, calendars: fixture.calendars, recurringPercent: fixture.options.recurringPercent,
                                   random: SplitMix64(seed: seed, stream: "daemon-events-\(mix.rawValue)-\(index)"))
    }

    mutating func next() throws -> DaemonRequest {
        let writing: Bool
        switch mix {
        case .mixed: writing = random.int(0...99) < DaemonWorkload.writeWeight
        case .reads: writing = false
        case .writes: writing = true
        case .gets:
            guard !ids.isEmpty else { return .health }
            return .get(ids[random.int(0...(ids.count - 1))])
        }
        if writing {
            switch cycle {
            case .idle: return .create(try generator.next())
            case .created(let id, let recurring): return .update(id, recurring: recurring, changes: generator.changes())
            case .updated(let id, let recurring): return .delete(id, recurring: recurring)
            }
        }
        switch random.weighted(DaemonWorkload.readWeights) {
        case "search": return .search(random.pick(DaemonWorkload.searchWords))
        case "day", "week":
            let days = random.int(0...1) == 0 ? 1 : 7
            let day = Int64(random.int(Int(frame.firstDay)...Int(frame.lastDay) - 7))
            guard let midnight = LocalDateTime(date: TimeFrame.date(day: day), hour: 0, minute: 0) else { throw BenchError("bad day \(day)") }
            let from = try DateTimeValue.zoned(midnight, timeZone: frame.zoneName)
            return .agenda(from: from, to: from.adding(days: days), days: days)
        case "get":
            guard !ids.isEmpty else { return .health }
            return .get(ids[random.int(0...(ids.count - 1))])
        default: return .health
        }
    }

    /// The request was answered as asked: the write cycle moves on.
    mutating func done(_ request: DaemonRequest, created: UUID?) throws {
        switch request {
        case .create(let event):
            guard let created else { throw BenchError("createEvent gave no id") }
            cycle = .created(created, recurring: event.kind.isRecurring)
        case .update(let id, let recurring, _): cycle = .updated(id, recurring: recurring)
        case .delete: cycle = .idle
        default: break
        }
    }

    /// The delete that ends an open cycle, if one is open.
    mutating func cleanUp() -> DaemonRequest? {
        switch cycle {
        case .idle: return nil
        case .created(let id, let recurring), .updated(let id, let recurring):
            cycle = .idle
            return .delete(id, recurring: recurring)
        }
    }
}

// MARK: The phases

/// One phase: a mix through the daemon from some clients, or on the engine alone.
struct DaemonPhase {
    let mix: DaemonMix
    /// nil for the engine alone.
    let clients: Int?
    /// Wall time per request; CPU is the calling thread's (a client's, or the engine's work).
    let measurement: Measurement
    /// The measured window, in seconds: the requests are those that finished inside it.
    let seconds: Double
    /// CPU time of the whole process in the window (clients, daemon and all), in seconds.
    let processCPUSeconds: Double

    var requests: Int { measurement.samples.count }
    var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    /// Mean process CPU µs per request (every thread).
    var cpuPerRequest: Double { requests > 0 ? processCPUSeconds * 1e6 / Double(requests) : 0 }
    /// Mean CPU µs per request of the thread that made it.
    var callerCPUPerRequest: Double { measurement.cpuSummary.mean * 1_000 }
    var label: String { clients.map { $0 == 1 ? "1 client" : "\($0) clients" } ?? "engine" }
}

/// The daemon's figures: every phase, each daemon phase beside the engine's of its mix.
struct DaemonFigures {
    let phases: [DaemonPhase]
    let cores: Int
    /// Each phase's planned window and unrecorded warm-up, in seconds.
    let window: Double
    let warmup: Double

    func phase(_ mix: DaemonMix, clients: Int?) -> DaemonPhase? {
        phases.first { $0.mix == mix && $0.clients == clients }
    }

    var target: DaemonPhase? { phase(.mixed, clients: DaemonScenarios.targetClients) }

    var targetMet: Bool {
        guard let target else { return false }
        return target.requestsPerSecond >= DaemonScenarios.targetRate && target.measurement.summary.p99 < DaemonScenarios.targetP99
    }
}

/// Runs the daemon on the fixture's store and the phases against it.
final class DaemonBench {
    let run: BenchRun
    let fixture: Fixture
    let registry: Registry
    /// The seeded events, for entity.get.
    let ids: [UUID]
    let createIntent: IntentDefinition
    /// The measured window of each phase (at least; and until `minimumRequests` finished in it),
    /// and the unrecorded warm-up before it: 2 s and 0.25 s at the default 1,000 samples, so the
    /// twelve phases take about 30 s.
    let window: Double
    let warmup: Double
    /// So that every phase has percentiles to print, however slow it is.
    let minimumRequests: Int

    convenience init(run: BenchRun) throws {
        try self.init(run: run, fixture: try run.fixture())
    }

    /// On a fixture of the caller's (`--store postgresql` has one per store); `minimumWindow`
    /// lengthens each phase's measured window past the one `--samples` gives.
    init(run: BenchRun, fixture: Fixture, minimumWindow: Double = 0) throws {
        self.run = run
        self.fixture = fixture
        registry = run.registry
        ids = fixture.pool.singles + fixture.pool.series
        guard let create = registry.allIntents.first(where: { $0.name.name == "createEvent" }) else { throw BenchError("no createEvent intent") }
        createIntent = create
        window = max(0.02, minimumWindow, Double(run.options.samples) * 0.002)
        warmup = max(0.01, window / 8)
        minimumRequests = min(run.options.samples, 20)
    }

    /// Starts the daemon, runs for each mix the engine alone and then 1, 8 and 32 clients, and
    /// stops it. The table's row is the mix from 1 client beside the engine's.
    func measure(_ reference: Reference?, scenario: Scenario = DaemonScenarios.daemon, mixes: [DaemonMix] = DaemonMix.daemonMixes,
                 clientCounts: [Int] = DaemonScenarios.clientCounts) throws -> ScenarioResult {
        let (daemon, socket, cleanUp) = try startDaemon()
        defer {
            daemon.stop(reason: "the benchmark is done")
            cleanUp()
        }
        // The connections are made once and kept for every phase (client i of a phase talks on
        // connection i): connecting is not what is measured, and a connection closed while new
        // ones arrive can lose the next one's requests (see ConnectionChurnTests).
        let connections = try (0..<(clientCounts.max() ?? 1)).map { index in
            do { return try DaemonClient(path: socket) } catch { throw BenchError("client \(index) cannot connect: \(error)") }
        }
        var phases: [DaemonPhase] = []
        for mix in mixes {
            run.progress("daemon \(mix.rawValue): the engine alone")
            phases.append(try enginePhase(mix))
            for clients in clientCounts {
                run.progress("daemon \(mix.rawValue): \(clients) client\(clients == 1 ? "" : "s")")
                phases.append(try daemonPhase(mix, connections: Array(connections.prefix(clients))))
            }
        }
        let figures = DaemonFigures(phases: phases, cores: ProcessInfo.processInfo.activeProcessorCount, window: window, warmup: warmup)
        guard let mix = mixes.first, let row = figures.phase(mix, clients: 1), let engine = figures.phase(mix, clients: nil) else {
            throw BenchError("the daemon's \(mixes.first?.rawValue ?? "") phases are missing")
        }
        return ScenarioResult(scenario: scenario, measurement: row.measurement, reference: reference,
                              referenceMeasurement: engine.measurement, daemon: figures)
    }

    private func startDaemon(named name: String = "") throws -> (Daemon, String, () -> Void) {
        try DaemonBench.startDaemon(storePath: fixture.path, location: fixture.location, now: fixture.frame.now, run: run, name: name)
    }

    /// The mixed load from `clients` connections spread in turn over `daemons` daemons, all on
    /// the fixture's store (for PostgreSQL: several daemons on one database, as the issue
    /// runs them). Client i makes the same requests as client i of `measure`'s phases.
    func spreadPhase(_ mix: DaemonMix, daemons count: Int, clients: Int) throws -> DaemonPhase {
        var started: [(Daemon, String, () -> Void)] = []
        defer {
            for (daemon, _, cleanUp) in started {
                daemon.stop(reason: "the benchmark is done")
                cleanUp()
            }
        }
        for index in 0..<count { started.append(try startDaemon(named: "-\(index + 1)")) }
        let connections = try (0..<clients).map { index in
            let socket = started[index % count].1
            do { return try DaemonClient(path: socket) } catch { throw BenchError("client \(index) cannot connect to \(socket): \(error)") }
        }
        // Each daemon's engines start with empty record caches: one window warms them, the
        // next is measured, so that one daemon and two are compared warm, not a cold start.
        run.progress("daemon \(mix.rawValue): \(clients) clients over \(count) daemon\(count == 1 ? "" : "s"), a window to warm up")
        _ = try daemonPhase(mix, connections: connections)
        run.progress("daemon \(mix.rawValue): \(clients) clients over \(count) daemon\(count == 1 ? "" : "s"), measured")
        return try daemonPhase(mix, connections: connections)
    }

    /// The daemon as cometcald runs it on the store at `storePath`, on a socket in a folder of
    /// its own next to the store (or in the temp folder when that path is too long for a Unix
    /// socket). Returns it, its socket and what removes the folder once it is stopped.
    static func startDaemon(storePath: String, location: StoreLocation? = nil, now: Date, run: BenchRun, name suffix: String = "") throws -> (Daemon, String, () -> Void) {
        let name = "cometcal-bench-daemon-\(ProcessInfo.processInfo.processIdentifier)" + suffix
        var folder = ((storePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
        if folder.utf8.count > 90 { folder = (NSTemporaryDirectory() as NSString).appendingPathComponent(name) }
        let socket = (folder as NSString).appendingPathComponent("d.sock")
        let lockPath = storePath + ".lock"
        let lockExisted = FileManager.default.fileExists(atPath: lockPath)
        var service = DaemonService.Configuration(store: location ?? .file(storePath), opener: BenchStores.opener, schemaPaths: schemaDirectories(run.options.schemaPaths),
                                                  timeZone: run.frame.zone)
        service.clock = { now }
        let daemon: Daemon
        do {
            daemon = try Daemon(options: Daemon.Options(socketPath: socket, service: service))
            try daemon.startServing()
        } catch {
            throw BenchError("cannot start the daemon: \(error.description)")
        }
        run.progress("daemon: listening at \(socket)")
        return (daemon, socket, {
            try? FileManager.default.removeItem(atPath: folder)
            if !lockExisted { try? FileManager.default.removeItem(atPath: lockPath) }
        })
    }

    // MARK: The engine alone

    /// Client 0's requests, on the fixture's engine, on this thread.
    private func enginePhase(_ mix: DaemonMix) throws -> DaemonPhase {
        var workload = DaemonWorkload(mix: mix, index: 0, fixture: fixture, ids: ids)
        var discarded = Measurement()
        let warmupEnd = Stopwatch.now() + UInt64(warmup * 1e9)
        while Stopwatch.now() < warmupEnd { try engineRequest(&workload, &discarded) }
        var measurement = Measurement()
        let cpuStart = processCPU()
        let start = Stopwatch.now()
        let planned = start + UInt64(window * 1e9)
        var end = start
        while end < planned || measurement.samples.count < minimumRequests {
            try engineRequest(&workload, &measurement)
            end = Stopwatch.now()
        }
        let cpu = processCPU() - cpuStart
        if let last = workload.cleanUp() { _ = try performOnEngine(last) }
        return DaemonPhase(mix: mix, clients: nil, measurement: measurement, seconds: Double(end - start) / 1e9, processCPUSeconds: cpu)
    }

    private func engineRequest(_ workload: inout DaemonWorkload, _ measurement: inout Measurement) throws {
        let request = try workload.next()
        let ((rows, created), timing) = try Stopwatch.time { try performOnEngine(request) }
        try workload.done(request, created: created)
        measurement.add(timing, rows: rows, tag: request.kind)
    }

    /// One request on the engine, as an in-process program makes it: rows returned, and the id made.
    private func performOnEngine(_ request: DaemonRequest) throws -> (Int, UUID?) {
        switch request {
        case .search(let text):
            let result = try fixture.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": .set(.string(text))]),
                                                           page: ResultPage(limit: DaemonWorkload.searchLimit)))
            return (result.records.count, nil)
        case .agenda(let from, let to, _):
            let result = try fixture.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
                "from": .set(.dateTime(from)), "to": .set(.dateTime(to)),
            ])))
            return (result.occurrences.count, nil)
        case .get(let id):
            guard try fixture.engine.record(fixture.event, id: id) != nil else { throw BenchError("entity.get: no event \(id)") }
            return (1, nil)
        case .health:
            // The same check the daemon's health makes: the store's layout, and its records read.
            let check = fixture.engine.checkStore()
            guard check.isHealthy else { throw BenchError("checkStore: \(check.problem ?? "")") }
            return (0, nil)
        case .create(let event):
            let result = try fixture.perform(IntentRequest(intent: "createEvent", parameters: event.parameters, confirmation: .confirmed))
            guard let id = result.record?.id else { throw BenchError("createEvent returned no event") }
            return (1, id)
        case .update(let id, let recurring, let changes):
            var parameters = changes
            parameters["event"] = .set(.reference(id))
            if recurring { parameters["span"] = .set(.enumCase("all")) }
            try fixture.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed))
            return (1, nil)
        case .delete(let id, let recurring):
            var parameters: [String: ParameterValue] = ["event": .set(.reference(id))]
            if recurring { parameters["span"] = .set(.enumCase("all")) }
            try fixture.perform(IntentRequest(intent: "deleteEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed))
            return (1, nil)
        }
    }

    // MARK: Through the daemon

    /// A thread for each connection, calling on it without pause. The window opens
    /// after the warm-up and closes once it has lasted `window` and seen `minimumRequests`
    /// finish; the requests counted are those that finished inside it.
    private func daemonPhase(_ mix: DaemonMix, connections: [DaemonClient]) throws -> DaemonPhase {
        let clients = connections.enumerated().map { index, connection in
            DaemonBenchClient(connection: connection, workload: DaemonWorkload(mix: mix, index: index, fixture: fixture, ids: ids),
                              registry: registry, createIntent: createIntent)
        }
        let control = PhaseControl()
        let finished = DispatchSemaphore(value: 0)
        for client in clients {
            let thread = Thread {
                client.play(control)
                finished.signal()
            }
            thread.start()
        }
        Thread.sleep(forTimeInterval: warmup)
        let cpuStart = processCPU()
        let start = control.openWindow()
        let planned = start + UInt64(window * 1e9)
        // Not forever: a phase that cannot reach its count in a minute reports what it has.
        let latest = planned + 60_000_000_000
        while !control.failed {
            let now = Stopwatch.now()
            if now >= latest || (now >= planned && control.completed >= minimumRequests) { break }
            usleep(now < planned ? UInt32(min(10_000, (planned - now) / 1_000)) : 1_000)
        }
        let end = control.stop()
        let cpu = processCPU() - cpuStart
        for _ in clients { finished.wait() }
        if let failure = control.failure { throw failure }
        var measurement = Measurement()
        for client in clients {
            try client.cleanUp()
            for sample in client.samples where sample.finished >= start && sample.finished <= end {
                measurement.add(sample.timing, rows: sample.rows, tag: sample.kind)
            }
        }
        return DaemonPhase(mix: mix, clients: clients.count, measurement: measurement, seconds: Double(end - start) / 1e9, processCPUSeconds: cpu)
    }

    /// CPU seconds of the whole process so far.
    private func processCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// The window of a phase and when to stop, shared by the client threads and the coordinator.
final class PhaseControl: @unchecked Sendable {
    private let lock = NSLock()
    private var windowStart: UInt64 = 0
    private var stopped = false
    private var count = 0
    private var firstFailure: Error?

    /// Opens the measured window now and returns when it opened.
    func openWindow() -> UInt64 {
        lock.withLock {
            windowStart = Stopwatch.now()
            return windowStart
        }
    }

    /// Stops the clients (each finishes the request it is in) and returns when.
    func stop() -> UInt64 {
        lock.withLock {
            stopped = true
            return Stopwatch.now()
        }
    }

    var isStopped: Bool { lock.withLock { stopped } }
    var completed: Int { lock.withLock { count } }
    var failed: Bool { lock.withLock { firstFailure != nil } }
    var failure: Error? { lock.withLock { firstFailure } }

    func finished(at time: UInt64) {
        lock.withLock { if windowStart > 0, time >= windowStart { count += 1 } }
    }

    func fail(_ error: Error) {
        lock.withLock {
            if firstFailure == nil { firstFailure = error }
            stopped = true
        }
    }
}

/// One client thread's connection, requests and samples. Only its thread touches it while the
/// phase runs; the coordinator reads it after the thread has signalled that it is done.
final class DaemonBenchClient: @unchecked Sendable {
    struct Sample {
        let timing: Timing
        let finished: UInt64
        let rows: Int
        let kind: String
    }

    private let connection: DaemonClient
    private var workload: DaemonWorkload
    private let registry: Registry
    private let createIntent: IntentDefinition
    private(set) var samples: [Sample] = []

    init(connection: DaemonClient, workload: DaemonWorkload, registry: Registry, createIntent: IntentDefinition) {
        self.connection = connection
        self.workload = workload
        self.registry = registry
        self.createIntent = createIntent
    }

    func play(_ control: PhaseControl) {
        while !control.isStopped {
            do {
                let request = try workload.next()
                let (method, params) = rpc(request)
                let (answer, timing) = try Stopwatch.time { try connection.call(method, params) }
                let finished = Stopwatch.now()
                let (rows, created) = try check(request, answer)
                try workload.done(request, created: created)
                samples.append(Sample(timing: timing, finished: finished, rows: rows, kind: request.kind))
                control.finished(at: finished)
            } catch {
                control.fail(error)
                return
            }
        }
    }

    /// Ends an open write cycle (untimed), so the store holds what it held before the phase.
    func cleanUp() throws {
        guard let request = workload.cleanUp() else { return }
        let (method, params) = rpc(request)
        _ = try check(request, try connection.call(method, params))
    }

    /// The method and params a client sends for the request (made outside the clock).
    private func rpc(_ request: DaemonRequest) -> (String, JSONObject) {
        switch request {
        case .search(let text):
            return ("entity.search", JSONObject([("entity", .string("Event")), ("text", .string(text)), ("limit", .int(DaemonWorkload.searchLimit))]))
        case .agenda(let from, let to, _):
            return ("agenda", JSONObject([("from", .string(from.description)), ("to", .string(to.description))]))
        case .get(let id):
            return ("entity.get", JSONObject([("entity", .string("Event")), ("id", .string(id.uuidString.lowercased()))]))
        case .health:
            return ("health", JSONObject())
        case .create(let event):
            return ("intent.perform", JSONObject([("intent", .string("createEvent")),
                                                  ("parameters", .object(registry.encodeParameters(event.parameters, for: createIntent))),
                                                  ("confirmed", .bool(true))]))
        case .update(let id, let recurring, let changes):
            var parameters = JSONObject([("event", .string(id.uuidString.lowercased()))])
            for key in changes.keys.sorted() {
                if case .set(let value)? = changes[key] { parameters[key] = registry.encode(value) }
            }
            if recurring { parameters["span"] = .string("all") }
            return ("intent.perform", JSONObject([("intent", .string("updateEvent")), ("parameters", .object(parameters)), ("confirmed", .bool(true))]))
        case .delete(let id, let recurring):
            var parameters = JSONObject([("event", .string(id.uuidString.lowercased()))])
            if recurring { parameters["span"] = .string("all") }
            return ("intent.perform", JSONObject([("intent", .string("deleteEvent")), ("parameters", .object(parameters)), ("confirmed", .bool(true))]))
        }
    }

    /// Insists that the daemon did what was asked (a benchmark of failures measures nothing):
    /// rows returned, and the id made.
    private func check(_ request: DaemonRequest, _ answer: Result<JSONValue, RPCError>) throws -> (Int, UUID?) {
        let result: JSONValue
        switch answer {
        case .success(let value): result = value
        case .failure(let error): throw BenchError("\(request.kind) was answered with error \(error.code): \(error.message)")
        }
        func count(_ key: String) -> Int {
            if case .array(let items)? = result[key] { return items.count }
            return 0
        }
        switch request {
        case .health:
            guard result["status"] == "ok" else { throw BenchError("health answered \(result)") }
            return (0, nil)
        case .get(let id):
            guard let entity = result["entity"], entity != .null else { throw BenchError("entity.get: no event \(id)") }
            return (1, nil)
        case .search, .agenda, .update, .delete, .create:
            guard result["outcome"] == "done" else {
                throw BenchError("\(request.kind) did not complete: \(JSONWriter.compact(result).prefix(300))")
            }
            switch request {
            case .search: return (count("entities"), nil)
            case .agenda: return (count("occurrences"), nil)
            case .create:
                guard let text = result["entity"]?["id"]?.stringValue, let id = UUID(uuidString: text) else {
                    throw BenchError("createEvent answered no id: \(JSONWriter.compact(result).prefix(300))")
                }
                return (1, id)
            default: return (1, nil)
            }
        }
    }
}
