import Foundation

/// One timed operation of a scenario or a reference. It does its own setup (draw an event, pick
/// a month) outside the clock and records exactly one sample per call.
typealias Operation = (inout Measurement) throws -> Void

/// One measured thing: a scenario names the reference its p50 is divided by. New groups of
/// scenarios (iCalendar import, with libical's own parse as the reference) add themselves to
/// `Scenario.catalogue` and `Reference.catalogue`; the harness, the statistics and the report
/// need no change.
struct Scenario: Sendable {
    let name: String
    /// What one operation is, for the report.
    let summary: String
    /// The `Reference.name` to compare with, if any.
    let referenceName: String?
    /// The p50 this scenario aims at, in ms (the targets), if any.
    let targetP50: Double?
    /// The largest p50 ÷ reference p50 the issue allows, if it sets one.
    var targetRatio: Double? = nil
    /// The p99 the issue aims at, in ms, if any.
    var targetP99: Double? = nil
    /// Whether rows per operation mean the same as the reference's, so a per-row cost is worth
    /// printing (not when the scenario's results are capped, as the engine's agenda is).
    var comparesRows = true
    /// False for a scenario run only when named (--scenario): too slow for every run.
    var inDefaultRun = true
    /// Makes the operation (and whatever state it keeps between calls).
    let prepare: @Sendable (BenchRun) throws -> Operation
    /// Set for a scenario that is not one operation at a time (the daemon's concurrent clients):
    /// the harness calls it once instead of `prepare` and the interleaved loop, and it measures
    /// its reference itself, in the same run, beside each of its phases.
    var selfTimed: (@Sendable (BenchRun, Reference?) throws -> ScenarioResult)? = nil

    /// A scenario that runs its own rounds (imports, agendas of a store it made) and measures
    /// its reference itself, beside them.
    static func timingItself(name: String, summary: String, referenceName: String?, targetP50: Double?, comparesRows: Bool = false,
                             inDefaultRun: Bool = true, body: @escaping @Sendable (BenchRun, Reference?, Scenario) throws -> ScenarioResult) -> Scenario {
        var scenario = Scenario(name: name, summary: summary, referenceName: referenceName, targetP50: targetP50, comparesRows: comparesRows,
                                inDefaultRun: inDefaultRun, prepare: { _ in throw BenchError("\(name) times itself") })
        let described = scenario
        scenario.selfTimed = { run, reference in try body(run, reference, described) }
        return scenario
    }

    static var catalogue: [Scenario] { CalendarScenarios.all + ICalScenarios.all + ConversationScenarios.all + UnderstandingScenarios.all + DaemonScenarios.all
        + DaemonAgendaScenarios.all + CalDAVScenarios.all + VoiceScenarios.all }
}

/// What a scenario is compared with: the same kind of work done as plainly as possible, on the
/// same machine, in the same run. Its operations are interleaved one for one with the
/// scenario's, so both see the same load: on a shared, noisy machine the absolute numbers drift
/// from minute to minute, the ratio much less.
struct Reference: Sendable {
    let name: String
    /// "raw SQLite insert+commit": reads after "= 3.2× ".
    let label: String
    let summary: String
    /// What kind of reference it is, said once above the references of that kind in the report.
    var group = Reference.rawSQLite
    let prepare: @Sendable (BenchRun) throws -> Operation

    static let rawSQLite = "raw SQLite through CSQLite, WAL + synchronous=NORMAL like the store, "
        + "a plain table with as many event-like rows as the store had events"

    static var catalogue: [Reference] { SQLiteReferences.all + ICalScenarios.references + ConversationScenarios.references + UnderstandingScenarios.references
        + DaemonScenarios.references + VoiceScenarios.references }
}

/// The result of one scenario, with its interleaved reference's when it has one.
struct ScenarioResult {
    let scenario: Scenario
    let measurement: Measurement
    let reference: Reference?
    let referenceMeasurement: Measurement?
    /// The daemon scenario's phases (clients, mixes, rates), beside the engine's.
    var daemon: DaemonFigures? = nil
    /// The figures this scenario checks against the targets.
    var checks: [TargetCheck] = []
    /// An agenda scenario's first query on a newly opened store.
    var coldMilliseconds: Double?
    /// The scaling scenario's table.
    var scaling: [ScalingRow] = []
    /// The understanding scenario's readers side by side, and its new processes' load figures.
    var understanding: UnderstandingFigures? = nil
    /// The CalDAV scenario's servers side by side, per calendar size.
    var caldav: CalDAVFigures? = nil

    /// p50 of the scenario over p50 of its reference.
    var ratio: Double? {
        guard let referenceMeasurement else { return nil }
        let base = referenceMeasurement.summary.p50
        return base > 0 ? measurement.summary.p50 / base : nil
    }
}
