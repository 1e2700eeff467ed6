import Foundation
import CometSchema
import CometDaemon
import CometText

/// The agenda through the daemon: the daemon serves the store the iCalendar scenarios imported,
/// and one client asks it (`agenda`, JSON-RPC over the Unix socket, the answer parsed) for the
/// same ranges the in-process agenda scenarios ask the engine for, interleaved one for one with
/// the raw covering-index query of the same rows. Inside the materialized window and outside it.
enum DaemonAgendaScenarios {
    static let all: [Scenario] = [month, day, yearBack, twoYearsAhead]

    /// Enough untimed queries that each of the daemon's reader engines has answered the range
    /// once: the samples are of warm readers, as a running daemon's are.
    static let warmUp = 12

    static let month = scenario(
        name: "daemon-agenda-month", summary: "agenda through the daemon of the month with the most occurrences, all of them (1 client)",
        target: .both(value: 20, ratio: 3), targetP50: 20
    ) { run, agenda in
        let month = try agenda.busiestMonth(run)
        return (month.bounds, "busiest month \(month.name)")
    }

    static let day = scenario(
        name: "daemon-agenda-day", summary: "agenda through the daemon of the busiest day of that month (1 client)",
        target: .valueAtMost(2), targetP50: 2
    ) { run, agenda in
        let day = try agenda.busiestDay(run)
        return (day.bounds, "busiest day \(day.name)")
    }

    static let yearBack = scenario(
        name: "daemon-agenda-year-back", summary: "agenda through the daemon of the whole month 13 months before now (before the materialized window; 1 client)",
        target: .both(value: 20, ratio: 3), targetP50: 20
    ) { run, _ in
        let month = run.frame.monthOutsideWindow(monthsFromNow: -13)
        return (try run.frame.monthBounds(month), String(format: "%04d-%02d, before the window", month.year, month.month))
    }

    static let twoYearsAhead = scenario(
        name: "daemon-agenda-two-years-ahead", summary: "agenda through the daemon of the first whole month after the materialized window (1 client)",
        target: .both(value: 20, ratio: 3), targetP50: 20
    ) { run, _ in
        let month = run.frame.monthOutsideWindow(monthsFromNow: 25)
        return (try run.frame.monthBounds(month), String(format: "%04d-%02d, after the window", month.year, month.month))
    }

    private typealias Range = (from: DateTimeValue, to: DateTimeValue)

    private static func scenario(name: String, summary: String, target: TargetCheck.Target, targetP50: Double,
                                 range: @escaping @Sendable (BenchRun, AgendaBench) throws -> (Range, String)) -> Scenario {
        Scenario.timingItself(
            name: name, summary: summary, referenceName: "sqlite-cover", targetP50: targetP50, comparesRows: true,
            body: { run, reference, scenario in
                let agenda = try AgendaBench.shared(run)
                let (bounds, label) = try range(run, agenda)
                let (daemon, socket, cleanUp) = try DaemonBench.startDaemon(storePath: agenda.store.path, now: run.frame.now, run: run)
                defer {
                    daemon.stop(reason: "the benchmark is done")
                    cleanUp()
                }
                let client = try DaemonClient(path: socket)
                return try agenda.measure(scenario: scenario, reference: reference, range: bounds, limit: nil, run: run, target: target,
                                          warmUp: warmUp, answer: { try occurrences(client, $0) }) {
                    "agenda through the daemon, \(label) (\(ICalScenarios.thousands($0)) occurrences)"
                }
            }
        )
    }

    /// The daemon's answer for the range, checked: how many occurrences it gave.
    private static func occurrences(_ client: DaemonClient, _ range: Range) throws -> Int {
        let params = JSONObject([("from", .string(range.from.description)), ("to", .string(range.to.description))])
        switch try client.call("agenda", params) {
        case .success(let answer):
            guard answer["outcome"] == "done", case .array(let items)? = answer["occurrences"] else {
                throw BenchError("the daemon's agenda did not complete: \(JSONWriter.compact(answer).prefix(300))")
            }
            return items.count
        case .failure(let error):
            throw BenchError("the daemon's agenda was answered with error \(error.code): \(error.message)")
        }
    }
}
