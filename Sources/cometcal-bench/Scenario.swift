import Foundation

/// One measured thing: a scenario names the reference its p50 is divided by, and records one
/// sample per operation. New groups of scenarios (iCalendar import, with libical's own parse as
/// reference) add themselves to `Scenario.catalogue` and `Reference.catalogue`; the harness,
/// the statistics and the report need no change.
struct Scenario: Sendable {
    let name: String
    /// What one operation is, for the report.
    let summary: String
    /// The `Reference.name` to compare with, if any.
    let referenceName: String?
    /// The p50 this scenario aims at, in ms (the targets), if any.
    let targetP50: Double?
    let run: @Sendable (BenchRun) throws -> Measurement

    static var catalogue: [Scenario] { CalendarScenarios.all }
}

/// What a scenario is compared with: the same kind of work done as plainly as possible, on the
/// same machine, in the same run (the machines are noisy; absolute numbers drift, ratios less).
struct Reference: Sendable {
    let name: String
    /// "raw SQLite insert+commit": reads after "= 3.2× ".
    let label: String
    let summary: String
    let measure: @Sendable (BenchRun) throws -> Measurement

    static var catalogue: [Reference] { SQLiteReferences.all }
}

/// The result of one scenario, with its reference's when it has one.
struct ScenarioResult {
    let scenario: Scenario
    let measurement: Measurement
    let reference: Reference?
    let referenceMeasurement: Measurement?

    /// p50 of the scenario over p50 of its reference.
    var ratio: Double? {
        guard let referenceMeasurement else { return nil }
        let base = referenceMeasurement.summary.p50
        return base > 0 ? measurement.summary.p50 / base : nil
    }
}

extension BenchRun {
    /// Runs `operation` `warmup` times unrecorded, then `samples` times recorded. The operation
    /// times only its own work (setup such as generating an event stays outside the clock).
    func repeated(_ operation: (inout Measurement) throws -> Void) rethrows -> Measurement {
        var discarded = Measurement()
        for _ in 0..<options.warmup { try operation(&discarded) }
        var measurement = Measurement()
        for _ in 0..<options.samples { try operation(&measurement) }
        return measurement
    }
}
