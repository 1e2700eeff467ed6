import Foundation
import CometSchema

/// One run of the benchmark: the options, and the resources scenarios share, each made on first
/// use (so a scenario that needs no seeded store never pays for seeding). References are
/// measured once, just before the first scenario that needs them.
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
    private var referenceResults: [String: Measurement] = [:]

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
        progress(options.databasePath == nil ? "seeding \(options.events) events into \(fixture.path)" : "store: \(fixture.path)")
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

    /// The reference's measurement (measured on first request).
    func reference(_ reference: Reference) throws -> Measurement {
        if let measured = referenceResults[reference.name] { return measured }
        progress("measuring reference \(reference.name)")
        let measurement = try reference.measure(self)
        referenceResults[reference.name] = measurement
        return measurement
    }

    /// Runs the scenarios, in the order given.
    func run(_ scenarios: [Scenario]) throws -> [ScenarioResult] {
        var results: [ScenarioResult] = []
        for scenario in scenarios {
            let reference = scenario.referenceName.flatMap { name in Reference.catalogue.first { $0.name == name } }
            let referenceMeasurement = try reference.map { try self.reference($0) }
            progress("running \(scenario.name) (\(options.warmup) warm-up + \(options.samples) samples)")
            let measurement = try scenario.run(self)
            results.append(ScenarioResult(scenario: scenario, measurement: measurement, reference: reference, referenceMeasurement: referenceMeasurement))
        }
        return results
    }

    /// Removes temporary files: the reference database always, the store when it was a temp file.
    func cleanUp() {
        if let referenceDatabase { referenceDatabase.remove() }
        referenceDatabase = nil
        seededFixture?.removeTemporaryFiles()
    }
}
