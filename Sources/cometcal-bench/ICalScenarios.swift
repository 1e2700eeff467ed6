import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// The iCalendar scenarios: a generated calendar file imported (in a process of its own, for
/// its peak RSS), imported again unchanged, exported, and the agenda of the store it made,
/// beside libical's own parse and serialization, python `icalendar` and `recurring_ical_events`,
/// and raw covering-index SQLite queries of the same rows, all in the same run.
enum ICalScenarios {
    static let all: [Scenario] = [importFile, reimport, export, agendaBusiestMonth, agendaMonthLimit, agendaDay, agendaEveryMonth,
                                  agendaYearBack, agendaTwoYearsAhead, scaling]
    static let references: [Reference] = [libicalParse, libicalSerialize, rawOccurrences]

    static let libicalGroup = "libical 3 itself, through scripts/bench-references/libical_reference.c built by the benchmark (-O2); reading the file is outside its clock"

    static let libicalParse = Reference(
        name: "libical-parse", label: "libical's parse of the same file",
        summary: "icalparser_parse_string on the whole file", group: libicalGroup, prepare: selfTimedOnly
    )

    static let libicalSerialize = Reference(
        name: "libical-write", label: "libical's serialization of the parsed file",
        summary: "icalcomponent_as_ical_string_r on the tree libical parsed from the same file", group: libicalGroup, prepare: selfTimedOnly
    )

    static let rawOccurrences = Reference(
        name: "sqlite-cover", label: "raw covering-index SQLite query of the same rows",
        summary: "SELECT start, end, id, title, location, calendar of the same occurrences from a table with a covering index on them, read into Swift values",
        group: "raw SQLite through CSQLite, a table of the agenda's own rows (the scenario's answer, stored once)", prepare: selfTimedOnly
    )

    private static let selfTimedOnly: @Sendable (BenchRun) throws -> Operation = { _ in
        throw BenchError("this reference is measured by its scenario")
    }

    // MARK: Import, re-import, export

    static let importFile = Scenario.timingItself(
        name: "import", summary: "import the generated file into a new store (a child process: file read, decode, save, commit)",
        referenceName: "libical-parse", targetP50: nil, comparesRows: false,
        body: { run, reference, scenario in
            let workspace = try ICalWorkspace.shared(run)
            let file = try workspace.file(events: run.options.events, run: run)
            var measurement = Measurement()
            var libical = Measurement()
            var rss: [Double] = []
            for round in 0..<run.options.importRounds {
                let store = workspace.newStorePath("import-\(round)")
                if workspace.libicalHarness != nil {
                    let times = try workspace.libical(file.path)
                    libical.add(seconds(times.parse), rows: times.events)
                }
                run.progress("import round \(round + 1)/\(run.options.importRounds) of \(file.summary.events) events")
                let imported = try workspace.childImport(file.path, into: store, run: run)
                guard imported.added == file.summary.events else {
                    throw BenchError("the import added \(imported.added) events of \(file.summary.events)")
                }
                measurement.add(Timing(wall: UInt64(imported.seconds * 1e9), cpu: UInt64(imported.cpuSeconds * 1e9)), rows: imported.added)
                rss.append(imported.peakRSSMiB)
                if let previous = workspace.mainStore { ICalWorkspace.removeStore(previous) }
                workspace.mainStore = store
            }
            var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: reference,
                                        referenceMeasurement: workspace.libicalHarness == nil ? nil : libical)
            let p50 = measurement.summary.p50
            result.checks.append(TargetCheck(figure: "import, \(thousands(file.summary.events)) events (\(megabytes(file.summary.bytes)))",
                                             value: p50, unit: .milliseconds, reference: result.referenceMeasurement.map { ($0.summary.p50, "libical parse") },
                                             target: .ratioAtMost(3)))
            let peak = rss.max() ?? 0
            result.checks.append(TargetCheck(figure: "import peak RSS", value: peak, unit: .mebibytes, reference: nil, target: .valueAtMost(100)))
            if let python = try workspace.python(file.path, days: nil) {
                run.progress(String(format: "python icalendar %@ parsed the file in %.1f s", python.version, python.parse))
                result.checks.append(TargetCheck(figure: "import vs python icalendar \(python.version) parse", value: python.parse * 1_000 / p50,
                                                 unit: .times, reference: nil, target: .valueAtLeast(20),
                                                 note: String(format: "python %.1f s, import %.2f s", python.parse, p50 / 1_000)))
            } else {
                result.checks.append(TargetCheck(figure: "import vs python icalendar parse", value: nil, unit: .times, reference: nil,
                                                 target: .valueAtLeast(20), note: "python3 with icalendar not found: not measured"))
            }
            return result
        }
    )

    static let reimport = Scenario.timingItself(
        name: "reimport", summary: "import the same file again into the store it made: nothing changes",
        referenceName: "libical-parse", targetP50: nil, comparesRows: false,
        body: { run, reference, scenario in
            let workspace = try ICalWorkspace.shared(run)
            let file = try workspace.file(events: run.options.events, run: run)
            let store = try workspace.importedStore(run)
            var measurement = Measurement()
            var libical = Measurement()
            for round in 0..<run.options.importRounds {
                if workspace.libicalHarness != nil {
                    let times = try workspace.libical(file.path)
                    libical.add(seconds(times.parse), rows: times.events)
                }
                run.progress("re-import round \(round + 1)/\(run.options.importRounds)")
                let imported = try workspace.childImport(file.path, into: store, run: run)
                guard imported.unchanged == file.summary.events, imported.added == 0, imported.updated == 0 else {
                    throw BenchError("the re-import changed something: \(imported.added) added, \(imported.updated) updated, \(imported.unchanged) unchanged")
                }
                measurement.add(Timing(wall: UInt64(imported.seconds * 1e9), cpu: UInt64(imported.cpuSeconds * 1e9)), rows: imported.unchanged)
            }
            var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: reference,
                                        referenceMeasurement: workspace.libicalHarness == nil ? nil : libical)
            result.checks.append(TargetCheck(figure: "re-import, nothing changed", value: measurement.summary.p50, unit: .milliseconds,
                                             reference: result.referenceMeasurement.map { ($0.summary.p50, "libical parse") }, target: .ratioAtMost(2)))
            return result
        }
    )

    static let export = Scenario.timingItself(
        name: "export", summary: "exportCalendar of every event of the imported store, in this process",
        referenceName: "libical-write", targetP50: nil, comparesRows: false,
        body: { run, reference, scenario in
            let workspace = try ICalWorkspace.shared(run)
            let file = try workspace.file(events: run.options.events, run: run)
            let opened = try AgendaBench.shared(run)
            let rssBefore = ICalWorkspace.residentMiB()
            var measurement = Measurement()
            var libical = Measurement()
            for round in 0..<run.options.importRounds {
                if workspace.libicalHarness != nil {
                    let times = try workspace.libical(file.path)
                    libical.add(seconds(times.serialize), rows: times.events)
                }
                run.progress("export round \(round + 1)/\(run.options.importRounds)")
                let (text, timing) = try Stopwatch.time { try opened.engine.exportCalendar() }
                measurement.add(timing, rows: text.utf8.count)
            }
            var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: reference,
                                        referenceMeasurement: workspace.libicalHarness == nil ? nil : libical)
            result.checks.append(TargetCheck(figure: "export, \(thousands(file.summary.events)) events", value: measurement.summary.p50, unit: .milliseconds,
                                             reference: result.referenceMeasurement.map { ($0.summary.p50, "libical serialization") }, target: .ratioAtMost(2),
                                             note: String(format: "resident memory %.0f → %.0f MiB: the exported document, and the store's record cache, at most %d records",
                                                          rssBefore, ICalWorkspace.residentMiB(), SQLiteStore.recordCacheLimit)))
            return result
        }
    )

    // MARK: The agenda of the imported store

    static let agendaBusiestMonth = Scenario.timingItself(
        name: "agenda-busiest-month", summary: "searchEvents from/to the month with the most occurrences, all of them (no limit)",
        referenceName: "sqlite-cover", targetP50: 20, comparesRows: true,
        body: { run, reference, scenario in
            let agenda = try AgendaBench.shared(run)
            let month = try agenda.busiestMonth(run)
            var result = try agenda.measure(scenario: scenario, reference: reference, range: month.bounds, limit: nil, run: run,
                                            target: .both(value: 20, ratio: 3)) { "agenda, busiest month \(month.name) (\(thousands($0)) occurrences)" }
            let rows = Int(result.measurement.meanRows)
            let workspace = try ICalWorkspace.shared(run)
            if let python = try workspace.python(try workspace.file(events: run.options.events, run: run).path, days: month.days),
               let range = python.range, let occurrences = python.occurrences {
                result.checks.append(TargetCheck(figure: "  recurring_ical_events, the same month", value: range * 1_000, unit: .milliseconds,
                                                 reference: nil, target: nil,
                                                 note: "\(thousands(occurrences)) occurrences (cometcal: \(thousands(rows))); for scale, no target"))
            }
            return result
        }
    )

    static let agendaMonthLimit = Scenario.timingItself(
        name: "agenda-month-limit", summary: "searchEvents of the busiest month with limit 1000 (the first page)",
        referenceName: "sqlite-cover", targetP50: 5, comparesRows: true,
        body: { run, reference, scenario in
            let agenda = try AgendaBench.shared(run)
            let month = try agenda.busiestMonth(run)
            return try agenda.measure(scenario: scenario, reference: reference, range: month.bounds, limit: 1_000, run: run,
                                      target: .valueAtMost(5)) { _ in "agenda, first 1,000 of that month" }
        }
    )

    static let agendaDay = Scenario.timingItself(
        name: "agenda-day", summary: "searchEvents of the busiest day of that month, all of its occurrences",
        referenceName: "sqlite-cover", targetP50: 2, comparesRows: true,
        body: { run, reference, scenario in
            let agenda = try AgendaBench.shared(run)
            let day = try agenda.busiestDay(run)
            return try agenda.measure(scenario: scenario, reference: reference, range: day.bounds, limit: nil, run: run,
                                      target: .valueAtMost(2)) { "agenda, busiest day \(day.name) (\(thousands($0)) occurrences)" }
        }
    )

    static let agendaEveryMonth = Scenario.timingItself(
        name: "agenda-every-month", summary: "searchEvents of each month of the data in turn, all occurrences (past months lie outside the materialized window)",
        referenceName: nil, targetP50: 20, comparesRows: false,
        body: { run, _, scenario in
            let agenda = try AgendaBench.shared(run)
            var measurement = Measurement()
            let rounds = max(1, run.options.agendaSamples / 10)
            var worst: (name: String, p50: Double) = ("", 0)
            let rssBefore = ICalWorkspace.residentMiB()
            for month in run.frame.months {
                let bounds = try run.frame.monthBounds(month)
                var perMonth = Measurement()
                for _ in 0..<rounds {
                    let (result, timing) = try Stopwatch.time { try agenda.search(bounds, limit: nil) }
                    let tag = run.frame.isInsideWindow(bounds) ? "inside window" : "outside window"
                    measurement.add(timing, rows: result.occurrences.count, tag: tag)
                    perMonth.add(timing, rows: result.occurrences.count)
                }
                if perMonth.summary.p50 > worst.p50 { worst = (String(format: "%04d-%02d", month.year, month.month), perMonth.summary.p50) }
            }
            var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: nil, referenceMeasurement: nil)
            let rssAfter = ICalWorkspace.residentMiB()
            result.checks.append(TargetCheck(figure: "agenda, slowest month of \(run.frame.months.count) (\(worst.name))", value: worst.p50,
                                             unit: .milliseconds, reference: nil, target: .valueAtMost(20),
                                             note: String(format: "resident memory %.0f → %.0f MiB over the months: the store's record cache, at most %d records",
                                                          rssBefore, rssAfter, SQLiteStore.recordCacheLimit)))
            return result
        }
    )

    /// A month wholly before the store's materialization window (it starts a year before now):
    /// what someone looking back at last year, or a CalDAV client asking for a wide range, asks.
    static let agendaYearBack = Scenario.timingItself(
        name: "agenda-year-back", summary: "searchEvents of the whole month 13 months before now (before the materialized window), all occurrences",
        referenceName: "sqlite-cover", targetP50: 20, comparesRows: true,
        body: { run, reference, scenario in
            let agenda = try AgendaBench.shared(run)
            let month = run.frame.monthOutsideWindow(monthsFromNow: -13)
            let bounds = try run.frame.monthBounds(month)
            return try agenda.measure(scenario: scenario, reference: reference, range: bounds, limit: nil, run: run,
                                      target: .both(value: 20, ratio: 3)) {
                "agenda, \(String(format: "%04d-%02d", month.year, month.month)), before the window (\(thousands($0)) occurrences)"
            }
        }
    )

    /// A month wholly after the window (it ends two years after now): only unbounded series reach it.
    static let agendaTwoYearsAhead = Scenario.timingItself(
        name: "agenda-two-years-ahead", summary: "searchEvents of the first whole month after the materialized window (25 months ahead), all occurrences",
        referenceName: "sqlite-cover", targetP50: 20, comparesRows: true,
        body: { run, reference, scenario in
            let agenda = try AgendaBench.shared(run)
            let month = run.frame.monthOutsideWindow(monthsFromNow: 25)
            let bounds = try run.frame.monthBounds(month)
            return try agenda.measure(scenario: scenario, reference: reference, range: bounds, limit: nil, run: run,
                                      target: .both(value: 20, ratio: 3)) {
                "agenda, \(String(format: "%04d-%02d", month.year, month.month)), after the window (\(thousands($0)) occurrences)"
            }
        }
    )

    // MARK: Scaling

    static let scaling = Scenario.timingItself(
        name: "scaling", summary: "import of generated files of each size (child process) and the agenda of one fixed day on each store",
        referenceName: nil, targetP50: nil, comparesRows: false,
        body: { run, _, scenario in
            let workspace = try ICalWorkspace.shared(run)
            var measurement = Measurement()
            var rows: [ScalingRow] = []
            for size in run.options.scalingSizes {
                let file = try workspace.file(events: size, run: run)
                let store = workspace.newStorePath("scaling-\(size)")
                run.progress("scaling: importing \(thousands(size)) events")
                let imported = try workspace.childImport(file.path, into: store, run: run)
                let agenda = try AgendaBench(path: store, run: run)
                let day = try run.frame.dayBounds(TimeFrame.date(day: Int64(run.frame.now.timeIntervalSince1970) / 86_400 + 1))
                var dayMeasurement = Measurement()
                for _ in 0..<run.options.agendaSamples {
                    let (result, timing) = try Stopwatch.time { try agenda.search(day, limit: nil) }
                    dayMeasurement.add(timing, rows: result.occurrences.count)
                }
                agenda.close()
                ICalWorkspace.removeStore(store)
                measurement.add(Timing(wall: UInt64(imported.seconds * 1e9), cpu: UInt64(imported.cpuSeconds * 1e9)), rows: size, tag: thousands(size))
                rows.append(ScalingRow(events: size, bytes: file.summary.bytes, importSeconds: imported.seconds, peakRSSMiB: imported.peakRSSMiB,
                                       dayP50: dayMeasurement.summary.p50, dayRows: Int(dayMeasurement.meanRows)))
            }
            var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: nil, referenceMeasurement: nil)
            result.scaling = rows
            let perEvent = rows.map { $0.importSeconds / Double($0.events) }
            if let low = perEvent.min(), let high = perEvent.max(), low > 0 {
                result.checks.append(TargetCheck(figure: "import time per event, largest ÷ smallest (\(rows.map { thousands($0.events) }.joined(separator: ", ")))",
                                                 value: high / low, unit: .times, reference: nil, target: .valueAtMost(1.2)))
            }
            // The generator spreads every size over the same three years, so a fixed day holds
            // more occurrences in a larger calendar: the agenda is compared per occurrence, and
            // the plain ratio is said beside it.
            let large = rows.filter { $0.events >= 10_000 && $0.dayRows > 0 }
            let perOccurrence = large.map { $0.dayP50 / Double($0.dayRows) }
            if perOccurrence.count > 1, let low = perOccurrence.min(), let high = perOccurrence.max(), low > 0,
               let fastest = large.map(\.dayP50).min(), let slowest = large.map(\.dayP50).max(), fastest > 0 {
                result.checks.append(TargetCheck(figure: "agenda of a fixed day per occurrence, slowest ÷ fastest size from 10,000 events", value: high / low,
                                                 unit: .times, reference: nil, target: .valueAtMost(2),
                                                 note: String(format: "the day itself: %.1f× slower for %d× the occurrences", slowest / fastest,
                                                              (large.map(\.dayRows).max() ?? 0) / max(1, large.map(\.dayRows).min() ?? 1))))
            }
            return result
        }
    )

    static func seconds(_ value: Double) -> Timing {
        Timing(wall: UInt64(max(0, value) * 1e9), cpu: UInt64(max(0, value) * 1e9))
    }

    static func thousands(_ number: Int) -> String {
        let digits = String(number)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return result
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
}

extension TargetCheck {
    /// The first query of an agenda scenario on a newly opened store (no cached records), for
    /// the table: no target of its own.
    static func cold(_ result: ScenarioResult) -> TargetCheck {
        TargetCheck(figure: "  the same, first query on a newly opened store", value: result.coldMilliseconds, unit: .milliseconds,
                    reference: nil, target: nil, note: "decodes every record; the figure above reads them from the store's record cache")
    }
}

/// One size of the scaling table.
struct ScalingRow {
    let events: Int
    let bytes: Int
    let importSeconds: Double
    let peakRSSMiB: Double
    let dayP50: Double
    let dayRows: Int
}

/// The agenda scenarios' store (the imported main file) and their raw reference: a table of the
/// agenda's own rows with a covering index, measured one for one with the engine.
final class AgendaBench {
    let store: SQLiteStore
    let engine: IntentEngine
    private var reference: RawDatabase?
    private var referencePath: String?
    private var month: (name: String, bounds: (from: DateTimeValue, to: DateTimeValue), days: (from: String, to: String))?
    private var day: (name: String, bounds: (from: DateTimeValue, to: DateTimeValue))?

    static func shared(_ run: BenchRun) throws -> AgendaBench {
        try run.shared("agenda") {
            let workspace = try ICalWorkspace.shared(run)
            return try AgendaBench(path: try workspace.importedStore(run), run: run)
        }
    }

    init(path: String, run: BenchRun) throws {
        store = try SQLiteStore(path: path, registry: run.registry, now: run.frame.now)
        let now = run.frame.now
        engine = IntentEngine(store: store, timeZone: run.frame.zone, clock: { now })
    }

    func close() {
        reference = nil
        if let referencePath { ICalWorkspace.removeStore(referencePath) }
    }

    func search(_ bounds: (from: DateTimeValue, to: DateTimeValue), limit: Int?) throws -> IntentResult {
        let parameters: [String: ParameterValue] = ["from": .set(.dateTime(bounds.from)), "to": .set(.dateTime(bounds.to))]
        let request = IntentRequest(intent: "searchEvents", parameters: ParameterBindings(parameters), page: ResultPage(limit: limit))
        switch engine.perform(request) {
        case .done(let result): return result
        case .failed(let error): throw BenchError("searchEvents failed: \(error)")
        case let other: throw BenchError("searchEvents did not complete: \(other.name)")
        }
    }

    /// The month of the data with the most occurrences (counted by the engine: limit 1, total).
    func busiestMonth(_ run: BenchRun) throws -> (name: String, bounds: (from: DateTimeValue, to: DateTimeValue), days: (from: String, to: String)) {
        if let month { return month }
        var best: (count: Int, month: (year: Int, month: Int))?
        for month in run.frame.months {
            let total = try search(try run.frame.monthBounds(month), limit: 1).page?.total ?? 0
            if total > (best?.count ?? -1) { best = (total, month) }
        }
        guard let best else { throw BenchError("the data covers no whole month") }
        let next = best.month.month == 12 ? (best.month.year + 1, 1) : (best.month.year, best.month.month + 1)
        let chosen = (name: String(format: "%04d-%02d", best.month.year, best.month.month), bounds: try run.frame.monthBounds(best.month),
                      days: (from: String(format: "%04d-%02d-01", best.month.year, best.month.month), to: String(format: "%04d-%02d-01", next.0, next.1)))
        run.progress("busiest month: \(chosen.name) with \(best.count) occurrences")
        month = chosen
        return chosen
    }

    /// The day of the busiest month with the most occurrences starting on it.
    func busiestDay(_ run: BenchRun) throws -> (name: String, bounds: (from: DateTimeValue, to: DateTimeValue)) {
        if let day { return day }
        let month = try busiestMonth(run)
        var counts: [Int64: Int] = [:]
        for occurrence in try search(month.bounds, limit: nil).occurrences {
            guard let instant = occurrence.start.instant else { continue }
            let wall = Int64(instant.timeIntervalSince1970) + Int64(run.frame.zone.secondsFromGMT(for: instant))
            counts[wall / 86_400, default: 0] += 1
        }
        guard let (dayNumber, _) = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else {
            throw BenchError("the busiest month has no occurrences")
        }
        let date = TimeFrame.date(day: dayNumber)
        let name = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
        let chosen = (name: name, bounds: try run.frame.dayBounds(date))
        day = chosen
        return chosen
    }

    /// Interleaves the engine's answer for `range` with the raw query of the same rows.
    /// The samples come after warm-up, from a store whose record cache holds the range's
    /// records (as a daemon's or a conversation's does); `cold` is one query on a store opened
    /// just before it (what a one-shot `cometcal agenda` pays), for the report beside them.
    /// The result carries two checks: the p50 against `target` (named by `figure`, given the
    /// rows per query), and the cold query beside it.
    /// `answer`, when given, asks someone else for the range (the daemon) and returns how many
    /// occurrences came back; there is then no cold query (the asker's caches are its own).
    func measure(scenario: Scenario, reference: Reference?, range: (from: DateTimeValue, to: DateTimeValue), limit: Int?, run: BenchRun,
                 target: TargetCheck.Target, warmUp: Int = 2, answer: (((from: DateTimeValue, to: DateTimeValue)) throws -> Int)? = nil,
                 figure: (Int) -> String) throws -> ScenarioResult {
        var cold: Timing?
        if answer == nil {
            let fresh = try AgendaBench(path: store.path, run: run)
            cold = try Stopwatch.time { try fresh.search(range, limit: limit) }.1
            fresh.close()
        }
        let statement = try referenceStatement(for: range, run: run, limit: limit)
        var measurement = Measurement()
        var referenceMeasurement = Measurement()
        let samples = run.options.agendaSamples
        run.progress("running \(scenario.name) interleaved with \(reference?.name ?? "nothing"): 2 warm-up + \(samples) samples")
        for index in 0..<(samples + warmUp) {
            var rows = 0
            let (_, referenceTiming) = try Stopwatch.time {
                statement.reset()
                statement.bind(1, range.from.sortKey)
                statement.bind(2, range.to.sortKey)
                var texts: [String?] = []
                while try statement.step() {
                    _ = statement.int64(0)
                    _ = statement.int64(1)
                    texts.append(statement.text(2))
                    texts.append(statement.text(3))
                    texts.append(statement.text(4))
                    texts.append(statement.text(5))
                    rows += 1
                }
                withExtendedLifetime(texts) {}
            }
            let (count, timing) = try Stopwatch.time { try answer?(range) ?? search(range, limit: limit).occurrences.count }
            guard index >= warmUp else { continue }
            referenceMeasurement.add(referenceTiming, rows: rows)
            measurement.add(timing, rows: count)
        }
        var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: reference, referenceMeasurement: referenceMeasurement)
        result.coldMilliseconds = cold.map { Double($0.wall) / 1e6 }
        result.checks.append(TargetCheck(figure: figure(Int(measurement.meanRows)), value: measurement.summary.p50, unit: .milliseconds,
                                         reference: (referenceMeasurement.summary.p50, limit == nil ? "raw covering index" : "raw covering index, LIMIT"),
                                         target: target))
        if cold != nil { result.checks.append(.cold(result)) }
        return result
    }

    /// The reference table holds the rows of `range` as the engine returned them, stored once.
    private func referenceStatement(for range: (from: DateTimeValue, to: DateTimeValue), run: BenchRun, limit: Int?) throws -> RawStatement {
        let database: RawDatabase
        if let reference {
            database = reference
        } else {
            let path = (try ICalWorkspace.shared(run)).newStorePath("agenda-reference-\(UInt32.random(in: 0...UInt32.max))")
            database = try RawDatabase(path: path)
            try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
            try database.execute("CREATE TABLE occurrence (start_key INTEGER, end_key INTEGER, id TEXT, title TEXT, location TEXT, calendar TEXT, UNIQUE (start_key, id))")
            try database.execute("CREATE INDEX occurrence_cover ON occurrence (start_key, end_key, id, title, location, calendar)")
            reference = database
            referencePath = path
        }
        let insert = try database.prepare("INSERT OR IGNORE INTO occurrence VALUES (?, ?, ?, ?, ?, ?)")
        try database.execute("BEGIN")
        for occurrence in try search(range, limit: nil).occurrences {
            insert.reset()
            insert.bind(1, occurrence.start.sortKey)
            insert.bind(2, occurrence.end.sortKey)
            insert.bind(3, occurrence.record.id.uuidString.lowercased())
            insert.bind(4, occurrence.record["title"].flatMap { if case .string(let text) = $0 { return text } else { return nil } })
            insert.bind(5, occurrence.record["location"].map { "\($0)" })
            insert.bind(6, occurrence.record["calendar"].map { "\($0)" })
            try insert.run()
        }
        try database.execute("COMMIT")
        let limitClause = limit.map { " LIMIT \($0)" } ?? ""
        return try database.prepare("SELECT start_key, end_key, id, title, location, calendar FROM occurrence WHERE start_key >= ? AND start_key < ? ORDER BY start_key\(limitClause)")
    }
}
