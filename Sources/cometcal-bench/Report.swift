import Foundation
import CometSchema

/// Everything a run produced, printed as a table for people or as JSON for machines.
struct Report {
    let options: BenchOptions
    let environment: Environment
    let frame: TimeFrame
    let seed: SeedReport?
    let storeAfterSeed: StoreStats?
    let storeAtEnd: StoreStats?
    let results: [ScenarioResult]
    /// References measured, in the order first needed.
    var references: [(Reference, Measurement)] {
        var seen = Set<String>()
        return results.compactMap { result in
            guard let reference = result.reference, let measurement = result.referenceMeasurement, seen.insert(reference.name).inserted else { return nil }
            return (reference, measurement)
        }
    }

    // MARK: Text

    func text() -> String {
        var lines: [String] = []
        let dataRange = "\(TimeFrame.date(day: frame.firstDay)) … \(TimeFrame.date(day: frame.lastDay))"
        lines.append("CometCal benchmark · \(environment.build) build · \(options.events) events (\(options.recurringPercent)% recurring) · "
                     + "\(options.samples) samples + \(options.warmup) warm-up per scenario · seed \(options.seed)")
        lines.append("clock \(TimeFrame.nowText) · zone \(frame.zoneName) · events start \(dataRange) · "
                     + "\(environment.cpu) (\(environment.cores) cores) · SQLite \(environment.sqliteVersion)")
        if environment.build == "debug" {
            lines.append("warning: debug build; numbers are only good for a smoke test (scripts/bench builds release)")
        }
        lines.append("")

        if let seed {
            if seed.reused {
                lines.append("Seeding: reused the \(seed.events) events already in the store (--db); no seeding measured")
            } else {
                let summary = seed.measurement.summary
                lines.append(String(format: "Seeding: %d createEvent intents in %.1f s = %.0f events/s", seed.events, seed.seconds, seed.eventsPerSecond))
                lines.append("  per intent (ms)   " + statsText(summary))
                for (tag, tagSummary, _) in seed.measurement.byTag {
                    lines.append("  \(pad(tag, 16))  " + statsText(tagSummary))
                }
                let samples = seed.measurement.samples
                if samples.count >= 20 {
                    let tenth = samples.count / 10
                    let first = Summary(samples.prefix(tenth).map(\.nanoseconds))
                    let last = Summary(samples.suffix(tenth).map(\.nanoseconds))
                    lines.append("  first 10% (ms)    " + statsText(first))
                    lines.append("  last 10% (ms)     " + statsText(last))
                    lines.append("  p50 by tenth of the seed (ms): " + deciles(samples).map { ms($0) }.joined(separator: "  "))
                }
                let kinds = EventKind.allCases.compactMap { kind in seed.kinds[kind].map { "\(kind.rawValue) \($0)" } }
                lines.append("  mix: " + kinds.joined(separator: " · "))
                let endings = ["never", "count", "until"].compactMap { name in seed.endings[name].map { "\(name) \($0)" } }
                if !endings.isEmpty { lines.append("  series end: " + endings.joined(separator: " · ")) }
            }
        }
        if let store = storeAfterSeed { lines.append("Store after seeding: " + storeText(store)) }
        if let store = storeAtEnd { lines.append("Store at the end:    " + storeText(store)) }
        lines.append("")

        let header = "\(pad("scenario", 22)) \(lpad("ops", 6)) \(lpad("min", 9)) \(lpad("p50", 9)) \(lpad("p90", 9)) \(lpad("p99", 9)) \(lpad("max", 9)) \(lpad("rows/op", 8))  p50 vs reference"
        lines.append("Scenarios (ms)")
        lines.append(header)
        for result in results {
            let summary = result.measurement.summary
            let ratio = result.ratio.map { String(format: "%.1f× %@", $0, result.reference?.name ?? "") } ?? "–"
            lines.append(row(result.scenario.name, summary, rows: result.measurement.meanRows) + "  " + ratio)
            for (tag, tagSummary, rows) in result.measurement.byTag {
                lines.append(row("  " + tag, tagSummary, rows: rows))
            }
        }
        lines.append("")

        if !references.isEmpty {
            lines.append("References (ms): raw SQLite in the same run, WAL + synchronous=NORMAL, a plain table with as many event-like rows as the store has events")
            lines.append(header.replacingOccurrences(of: "scenario", with: "reference").replacingOccurrences(of: "  p50 vs reference", with: ""))
            for (reference, measurement) in references {
                lines.append(row(reference.name, measurement.summary, rows: measurement.meanRows))
            }
            for (reference, _) in references {
                lines.append("  \(pad(reference.name, 14)) \(reference.summary)")
            }
            lines.append("")
        }

        lines.append("Summary")
        for result in results {
            let summary = result.measurement.summary
            var line = "  \(result.scenario.name) p50 = \(ms(summary.p50)) ms"
            if let ratio = result.ratio, let reference = result.reference {
                line += String(format: " = %.1f× ", ratio) + reference.label
            }
            line += ", p99 = \(ms(summary.p99)) ms"
            if let target = result.scenario.targetP50 {
                line += summary.p50 <= target ? "  (target p50 ≤ \(ms(target)) ms: met)" : "  (target p50 ≤ \(ms(target)) ms: NOT met)"
            }
            lines.append(line)
        }
        if let store = results.first(where: { $0.scenario.name == "agenda-month-store" }),
           let engine = results.first(where: { $0.scenario.name == "agenda-month" }) {
            let share = engine.measurement.summary.p50 - store.measurement.summary.p50
            lines.append("  engine overhead on agenda-month (p50 engine − p50 store) = \(ms(share)) ms")
        }
        lines.append("")
        lines.append("Percentiles are nearest-rank over \(options.samples) samples after \(options.warmup) unrecorded warm-up operations; "
                     + "agenda-month returns at most 1,000 occurrences (the engine's cap), agenda-month-store all of them.")
        return lines.joined(separator: "\n")
    }

    /// The p50 of each tenth of the samples, in order: how the cost grows with the store.
    private func deciles(_ samples: [Measurement.Sample]) -> [Double] {
        let tenth = samples.count / 10
        guard tenth > 0 else { return [] }
        return (0..<10).map { index in Summary(samples[(index * tenth)..<((index + 1) * tenth)].map(\.nanoseconds)).p50 }
    }

    private func storeText(_ store: StoreStats) -> String {
        String(format: "%lld events, %lld series, %lld occurrence rows, %lld journal entries, %.1f MB (db + wal)",
               store.events, store.series, store.occurrenceRows, store.journalEntries, Double(store.bytes) / 1_048_576)
    }

    private func statsText(_ summary: Summary) -> String {
        "min \(ms(summary.min))  p50 \(ms(summary.p50))  p90 \(ms(summary.p90))  p99 \(ms(summary.p99))  max \(ms(summary.max))"
    }

    private func row(_ name: String, _ summary: Summary, rows: Double) -> String {
        "\(pad(name, 22)) \(lpad(String(summary.count), 6)) \(lpad(ms(summary.min), 9)) \(lpad(ms(summary.p50), 9)) \(lpad(ms(summary.p90), 9)) "
            + "\(lpad(ms(summary.p99), 9)) \(lpad(ms(summary.max), 9)) \(lpad(rowsText(rows), 8))"
    }

    private func rowsText(_ rows: Double) -> String {
        rows == rows.rounded() ? String(Int(rows)) : String(format: "%.1f", rows)
    }

    /// Milliseconds with three significant-ish digits: 0.412, 12.3, 154.
    private func ms(_ value: Double) -> String {
        if value < 1 { return String(format: "%.3f", value) }
        if value < 10 { return String(format: "%.2f", value) }
        if value < 100 { return String(format: "%.1f", value) }
        return String(format: "%.0f", value)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private func lpad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    // MARK: JSON

    func json() -> String {
        var root = JSONObject()
        root["benchmark"] = "cometcal-bench"
        root["config"] = .object(JSONObject([
            ("events", .int(options.events)), ("recurringPercent", .int(options.recurringPercent)),
            ("samples", .int(options.samples)), ("warmup", .int(options.warmup)), ("seed", .string(String(options.seed))),
            ("now", .string(TimeFrame.nowText)), ("zone", .string(frame.zoneName)),
            ("firstDay", .string(TimeFrame.date(day: frame.firstDay).description)),
            ("lastDay", .string(TimeFrame.date(day: frame.lastDay).description)),
        ]))
        root["environment"] = .object(JSONObject([
            ("build", .string(environment.build)), ("cpu", .string(environment.cpu)), ("cores", .int(environment.cores)),
            ("sqlite", .string(environment.sqliteVersion)), ("system", .string(environment.system)),
        ]))
        if let seed {
            var object = JSONObject()
            object["reused"] = .bool(seed.reused)
            object["events"] = .int(seed.events)
            if !seed.reused {
                object["seconds"] = .double(seed.seconds)
                object["eventsPerSecond"] = .double(seed.eventsPerSecond)
                object["perIntent"] = statsJSON(seed.measurement.summary)
                object["p50ByTenth"] = .array(deciles(seed.measurement.samples).map { .double($0) })
                object["byTag"] = tagsJSON(seed.measurement)
                object["mix"] = .object(JSONObject(EventKind.allCases.compactMap { kind in seed.kinds[kind].map { (kind.rawValue, JSONValue.int($0)) } }))
                object["seriesEnd"] = .object(JSONObject(["never", "count", "until"].compactMap { name in seed.endings[name].map { (name, JSONValue.int($0)) } }))
            }
            root["seed"] = .object(object)
        }
        if let store = storeAfterSeed { root["storeAfterSeed"] = storeJSON(store) }
        if let store = storeAtEnd { root["storeAtEnd"] = storeJSON(store) }
        root["references"] = .array(references.map { reference, measurement in
            .object(JSONObject([
                ("name", .string(reference.name)), ("label", .string(reference.label)), ("summary", .string(reference.summary)),
                ("ms", statsJSON(measurement.summary)), ("rowsPerOp", .double(measurement.meanRows)),
            ]))
        })
        root["scenarios"] = .array(results.map { result in
            var object = JSONObject()
            object["name"] = .string(result.scenario.name)
            object["summary"] = .string(result.scenario.summary)
            object["ms"] = statsJSON(result.measurement.summary)
            object["rowsPerOp"] = .double(result.measurement.meanRows)
            object["byTag"] = tagsJSON(result.measurement)
            object["reference"] = result.reference.map { .string($0.name) } ?? .null
            object["p50Ratio"] = result.ratio.map { .double($0) } ?? .null
            if let target = result.scenario.targetP50 {
                object["targetP50"] = .double(target)
                object["targetMet"] = .bool(result.measurement.summary.p50 <= target)
            }
            return .object(object)
        })
        return JSONWriter.pretty(.object(root))
    }

    private func statsJSON(_ summary: Summary) -> JSONValue {
        .object(JSONObject([
            ("count", .int(summary.count)), ("min", .double(summary.min)), ("p50", .double(summary.p50)), ("p90", .double(summary.p90)),
            ("p99", .double(summary.p99)), ("max", .double(summary.max)), ("mean", .double(summary.mean)),
        ]))
    }

    private func tagsJSON(_ measurement: Measurement) -> JSONValue {
        .object(JSONObject(measurement.byTag.map { tag, summary, rows in
            var stats = JSONObject()
            stats["ms"] = statsJSON(summary)
            stats["rowsPerOp"] = .double(rows)
            return (tag, .object(stats))
        }))
    }

    private func storeJSON(_ store: StoreStats) -> JSONValue {
        .object(JSONObject([
            ("events", .int(Int(store.events))), ("series", .int(Int(store.series))), ("occurrenceRows", .int(Int(store.occurrenceRows))),
            ("journalEntries", .int(Int(store.journalEntries))), ("bytes", .int(Int(store.bytes))),
        ]))
    }
}
