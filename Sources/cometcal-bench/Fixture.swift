import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometText

/// Event ids by shape, with O(1) random pick and removal, so updates and deletes can aim at
/// single events or at series.
struct EventPool {
    private(set) var singles: [UUID] = []
    private(set) var series: [UUID] = []

    var count: Int { singles.count + series.count }

    mutating func add(_ id: UUID, recurring: Bool) {
        if recurring { series.append(id) } else { singles.append(id) }
    }

    func pick(recurring: Bool, using random: inout SplitMix64) -> UUID? {
        let ids = recurring ? series : singles
        return ids.isEmpty ? nil : ids[random.int(0...(ids.count - 1))]
    }

    /// Removes one id (swap with the last: order does not matter).
    mutating func remove(_ id: UUID, recurring: Bool) {
        if recurring {
            if let index = series.firstIndex(of: id) { series.swapAt(index, series.count - 1); series.removeLast() }
        } else {
            if let index = singles.firstIndex(of: id) { singles.swapAt(index, singles.count - 1); singles.removeLast() }
        }
    }
}

/// How seeding went: every createEvent timed, and the mix that was created.
struct SeedReport {
    var reused = false
    var events = 0
    var measurement = Measurement()
    var seconds = 0.0
    var kinds: [EventKind: Int] = [:]
    var endings: [String: Int] = [:]

    var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
}

/// The store under test, the engine in front of it, and what the benchmark knows about the
/// events in it. One per run; scenarios share it in the order they run.
final class Fixture {
    let registry: Registry
    let frame: TimeFrame
    let store: any OpenedStore
    let engine: IntentEngine
    /// The store file, or for a PostgreSQL store the temporary folder's placeholder path (its
    /// `directory` is still where the references and sockets go).
    let path: String
    /// Where the store is: the file at `path`, or a PostgreSQL address (`--store postgresql`).
    let location: StoreLocation
    let isTemporary: Bool
    let options: BenchOptions
    let event = QualifiedName(domain: "calendar", name: "Event")
    private(set) var calendars: [UUID] = []
    var pool = EventPool()
    /// New events for the create scenario: the generator continues past the seeded ones.
    var generator: EventGenerator
    private(set) var seedReport = SeedReport()

    /// `postgres`: a PostgreSQL address to seed or reuse instead of a store file; its scratch
    /// files (sockets) go to a temporary folder all the same.
    init(options: BenchOptions, registry: Registry, frame: TimeFrame, postgres: String? = nil) throws {
        self.options = options
        self.registry = registry
        self.frame = frame
        if postgres == nil, let given = options.databasePath {
            path = given
            isTemporary = false
        } else {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("cometcal-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("bench.sqlite").path
            isTemporary = true
        }
        if let postgres {
            location = .postgres(postgres)
            store = try BenchStores.opener.open(location, registry: registry, now: frame.now)
        } else {
            location = .file(path)
            store = try SQLiteStore(path: path, registry: registry, now: frame.now)
        }
        let now = frame.now
        engine = IntentEngine(store: store, timeZone: frame.zone, clock: { now })
        generator = EventGenerator(frame: frame, calendars: [], recurringPercent: options.recurringPercent,
                                   random: SplitMix64(seed: options.seed, stream: "events"))
    }

    /// The directory holding the store: the reference database goes next to it (same disk).
    var directory: String { (path as NSString).deletingLastPathComponent }

    /// What the report calls this store.
    var storeName: String { location.isPostgres ? "PostgreSQL" : "SQLite" }

    /// Removes the temporary store (and its -wal/-shm) and its directory.
    func removeTemporaryFiles() {
        guard isTemporary else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: Running intents

    /// Performs a request and insists that it is done: a benchmark of failures measures nothing.
    @discardableResult
    func perform(_ request: IntentRequest) throws -> IntentResult {
        switch engine.perform(request) {
        case .done(let result): return result
        case .failed(let error): throw BenchError("\(request.intent) failed: \(error)")
        case let other: throw BenchError("\(request.intent) did not complete: \(other.name)")
        }
    }

    // MARK: Seeding

    /// Creates three calendars and `options.events` events through the engine (createEvent,
    /// confirmed), one intent at a time as a person or a sync would, timing each. A store that
    /// already holds events is reused as it is.
    func seed(progress: (String) -> Void) throws {
        let existing = try store.transaction { try $0.count(event) }
        if existing > 0 {
            try adopt(progress: progress)
            return
        }
        for (title, color) in [("Work", "#3478F6"), ("Personal", "#34C759"), ("Family", "#FF9500")] {
            let result = try perform(IntentRequest(intent: "createCalendar", parameters: ParameterBindings([
                "title": .set(.string(title)), "color": .set(.string(color)),
            ]), confirmation: .confirmed))
            guard let id = result.record?.id else { throw BenchError("createCalendar returned no calendar") }
            calendars.append(id)
        }
        generator = EventGenerator(frame: frame, calendars: calendars, recurringPercent: options.recurringPercent,
                                   random: SplitMix64(seed: options.seed, stream: "events"))
        progress("seeding \(options.events) events through createEvent")
        var report = SeedReport()
        report.events = options.events
        let started = Stopwatch.now()
        let step = max(1, options.events / 10)
        for index in 0..<options.events {
            let event = try generator.next()
            let (result, timing) = try Stopwatch.time {
                try perform(IntentRequest(intent: "createEvent", parameters: event.parameters, confirmation: .confirmed))
            }
            guard let id = result.record?.id else { throw BenchError("createEvent returned no event") }
            pool.add(id, recurring: event.kind.isRecurring)
            report.measurement.add(timing, tag: event.kind.isRecurring ? "series" : "single")
            report.kinds[event.kind, default: 0] += 1
            if let ending = event.ending { report.endings[ending, default: 0] += 1 }
            if options.events >= 5_000, (index + 1) % step == 0 {
                let elapsed = Double(Stopwatch.now() - started) / 1e9
                progress(String(format: "seeded %d/%d events in %.1f s (%.0f events/s)", index + 1, options.events, elapsed, Double(index + 1) / elapsed))
            }
        }
        report.seconds = Double(Stopwatch.now() - started) / 1e9
        seedReport = report
    }

    /// Reads the ids of an existing store's calendars and events (a series is an event with a rule).
    func adopt(progress: (String) -> Void) throws {
        progress("reusing the events already in \(location.isPostgres ? "the PostgreSQL database" : path); not seeding")
        let calendarName = QualifiedName(domain: "calendar", name: "Calendar")
        let (calendarIDs, events) = try store.transaction { transaction -> ([UUID], [(UUID, Bool)]) in
            let calendars = try transaction.fetchAll(calendarName, matching: [], limit: nil).map(\.id)
            let events = try transaction.fetchAll(event, matching: [], limit: nil).map { ($0.id, $0["recurrence"] != nil) }
            return (calendars, events)
        }
        guard calendarIDs.count >= 3 else { throw BenchError("the store at \(path) has fewer than 3 calendars; seed a new one") }
        calendars = Array(calendarIDs.prefix(3))
        for (id, recurring) in events { pool.add(id, recurring: recurring) }
        generator = EventGenerator(frame: frame, calendars: calendars, recurringPercent: options.recurringPercent,
                                   random: SplitMix64(seed: options.seed, stream: "events-reused"))
        seedReport.reused = true
        seedReport.events = events.count
    }
}
