import Foundation
import CometSchema

/// One run of the benchmark: the options, and the resources scenarios share, each made on first
/// use (so a scenario that needs no seeded store never pays for seeding).
final class BenchRun {
    let options: BenchOptions
    let registry: Registry
    let frame: TimeFrame
    /// Progress and notes for people: stderr, so --json output stays clean.
    let progress: (String) -> Void

    private var seededFixture: Fixture?
    /// The store's contents right after seeding (before any scenario changed it).
    private(set) var storeAfterSeed: StoreStats?
    private var referenceDatabase: ReferenceDatabase?
    /// State a scenario and its reference share (the conversation's dialog and named events).
    private var sharedState: [String: AnyObject] = [:]
    /// Run at the end, newest first (the iCalendar workspace removes its directory).
    private var cleanUps: [() -> Void] = []

    init(options: BenchOptions, registry: Registry, frame: TimeFrame, progress: @escaping (String) -> Void) {
        self.options = options
        self.registry = registry
        self.frame = frame
        self.progress = progress
    }

    /// The seeded store (seeded on first use).
    func fixture() throws -> Fixture {
        if let seededFixture { return seededFixture }
        let fixture = try Fixture(options: options, registry: registry, frame: frame)
        seededFixture = fixture
        progress("store: \(fixture.path)")
        try fixture.seed(progress: progress)
        storeAfterSeed = StoreStats.measure(path: fixture.path)
        return fixture
    }

    var fixtureIfMade: Fixture? { seededFixture }

    /// The raw SQLite database of the references, with as many rows as the store has events.
    func references() throws -> ReferenceDatabase {
        if let referenceDatabase { return referenceDatabase }
        let fixture = try fixture()
        let path = (fixture.directory as NSString).appendingPathComponent("reference-\(ProcessInfo.processInfo.processIdentifier).sqlite")
        progress("building the raw SQLite reference table (\(fixture.pool.count) rows)")
        let database = try ReferenceDatabase(path: path, rows: fixture.pool.count, run: self)
        referenceDatabase = database
        return database
    }

    /// The object a scenario and its reference share under `key`, made by the first to ask.
    func shared<T: AnyObject>(_ key: String, make: () throws -> T) throws -> T {
        if let existing = sharedState[key] {
            guard let typed = existing as? T else { throw BenchError("shared state '\(key)' is a \(type(of: existing)), not a \(T.self)") }
            return typed
        }
        let made = try make()
        sharedState[key] = made
        return made
    }

    /// Runs the scenarios in the order given. Each scenario's operations alternate one for one
    /// with its reference's (warm-up included), so both are measured under the same load; a
    /// self-timed scenario runs its own phases and its reference's.
    func run(_ scenarios: [Scenario]) throws -> [ScenarioResult] {
        var results: [ScenarioResult] = []
        for scenario in scenarios {
            let reference = scenario.referenceName.flatMap { name in Reference.catalogue.first { $0.name == name } }
            if let selfTimed = scenario.selfTimed {
                progress("running \(scenario.name), timed phase by phase with \(reference?.name ?? "no reference")")
                results.append(try selfTimed(self, reference))
                continue
            }
            let operation = try scenario.prepare(self)
            let referenceOperation = try reference.map { try $0.prepare(self) }
            let pairing = reference.map { " interleaved with \($0.name)" } ?? ""
            progress("running \(scenario.name)\(pairing): \(options.warmup) warm-up + \(options.samples) samples")
            var discarded = Measurement()
            for _ in 0..<options.warmup {
                try referenceOperation?(&discarded)
                try operation(&discarded)
            }
            var measurement = Measurement()
            var referenceMeasurement = Measurement()
            let started = Stopwatch.now()
            var lastReport = started
            for index in 0..<options.samples {
                try referenceOperation?(&referenceMeasurement)
                try operation(&measurement)
                let now = Stopwatch.now()
                if now - lastReport > 60_000_000_000 {
                    lastReport = now
                    progress(String(format: "  %@: %d/%d samples in %.0f s", scenario.name, index + 1, options.samples, Double(now - started) / 1e9))
                }
            }
            results.append(ScenarioResult(scenario: scenario, measurement: measurement, reference: reference,
                                          referenceMeasurement: referenceOperation == nil ? nil : referenceMeasurement))
        }
        return results
    }

    /// Registers work for `cleanUp`.
    func onCleanUp(_ work: @escaping () -> Void) {
        cleanUps.append(work)
    }

    /// Removes temporary files: the reference database always, the store when it was a temp file.
    func cleanUp() {
        sharedState.removeAll()
        for work in cleanUps.reversed() { work() }
        cleanUps.removeAll()
        if let referenceDatabase { referenceDatabase.remove() }
        referenceDatabase = nil
        seededFixture?.removeTemporaryFiles()
    }
}
