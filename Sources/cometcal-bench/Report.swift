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

    /// The references used, each once, in the order first used.
    private var references: [Reference] {
        var seen = Set<String>()
        return results.compactMap { result in
            guard let reference = result.reference, seen.insert(reference.name).inserted else { return nil }
            return reference
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
        lines.append(contentsOf: seedLines())
        if let store = storeAfterSeed { lines.append("Store after seeding: " + storeText(store)) }
        if let store = storeAtEnd { lines.append("Store at the end:    " + storeText(store)) }
        lines.append("")

        lines.append("Scenarios (ms; wall clock unless marked cpu). Under each, its reference, measured interleaved one for one with it.")
        lines.append("\(pad("scenario", 24)) \(lpad("ops", 5)) \(lpad("min", 8)) \(lpad("p50", 8)) \(lpad("p90", 8)) \(lpad("p99", 8)) "
                     + "\(lpad("max", 8)) \(lpad("cpu p50", 8)) \(lpad("rows/op", 8))  p50 ratio")
        for result in results {
            let ratio = result.ratio.map { String(format: "%.1f× %@", $0, result.reference?.name ?? "") } ?? ""
            lines.append(row(result.scenario.name, result.measurement) + "  " + ratio)
            for (tag, part) in result.measurement.byTag {
                lines.append(row("  " + tag, part))
            }
            if let reference = result.reference, let measurement = result.referenceMeasurement {
                lines.append(row("  ref " + reference.name, measurement))
            }
        }
        lines.append("")
        if !references.isEmpty {
            var groups: [String] = []
            for reference in references where !groups.contains(reference.group) { groups.append(reference.group) }
            for group in groups {
                lines.append("References: \(group)")
                for reference in references where reference.group == group {
                    lines.append("  \(pad(reference.name, 14)) \(reference.summary)")
                }
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
            if let perRow = perRowText(result) { line += perRow }
            if let target = result.scenario.targetP50 {
                line += summary.p50 <= target ? "  (target p50 ≤ \(ms(target)) ms: met)" : "  (target p50 ≤ \(ms(target)) ms: NOT met)"
            }
            lines.append(line)
        }
        if let store = results.first(where: { $0.scenario.name == "agenda-month-store" }),
           let engine = results.first(where: { $0.scenario.name == "agenda-month" }) {
            let share = engine.measurement.summary.p50 - store.measurement.summary.p50
            lines.append("  engine share of agenda-month (p50 engine − p50 store, same months) = \(ms(share)) ms")
        }
        for result in results {
            guard let figures = ConversationFigures(result) else { continue }
            lines.append("")
            lines.append(contentsOf: conversationLines(result.scenario.name, figures))
        }
        lines.append("")
        lines.append("Percentiles are nearest-rank over \(options.samples) samples after \(options.warmup) unrecorded warm-up operations. "
                     + "cpu p50 is this thread's CPU time: far below the wall p50 means waiting (disk, or other processes on a shared machine). "
                     + "agenda-month returns at most 1,000 occurrences (the engine's cap), agenda-month-store all of them."
                     + (results.contains { ConversationScenarios.isConversation($0.scenario) }
                        ? " For the conversation scenarios and their engine references, rows/op is store transactions per turn." : ""))
        return lines.joined(separator: "\n")
    }

    /// The conversation's figures by kind of turn: mean CPU per turn of the conversation and of
    /// the engine calls alone for the same turns, the difference (the conversation's own cost),
    /// and the store transactions each opens.
    private func conversationLines(_ name: String, _ figures: ConversationFigures) -> [String] {
        var lines: [String] = []
        lines.append("\(name): mean CPU µs per turn, the conversation beside the engine calls alone for the same turns, "
                     + "and the difference, the conversation's own cost (understanding, dialog state, replies)")
        lines.append("  \(pad("kind of turn", 18)) \(lpad("turns", 6)) \(lpad("conversation", 12)) \(lpad("engine-only", 12)) \(lpad("own", 8)) "
                     + "\(lpad("own share", 9))  store transactions per turn")
        func row(_ row: ConversationFigures.Row) -> String {
            // A share within noise of nothing (the engine-only calls a shade dearer) reads 0%, not -0%.
            let share = row.cpu > 0 ? String(format: "%.0f%%", max(0, 100 * row.ownCPU / row.cpu).rounded()) : "–"
            return "  \(pad(row.kind, 18)) \(lpad(String(row.turns), 6)) \(lpad(micros(row.cpu), 12)) \(lpad(micros(row.engineCPU), 12)) "
                + "\(lpad(micros(row.ownCPU), 8)) \(lpad(share, 9))  \(rowsText(row.transactions)) vs \(rowsText(row.engineTransactions))"
        }
        for kind in figures.kinds { lines.append(row(kind)) }
        lines.append(row(figures.all))
        let all = figures.all
        lines.append(String(format: "  conversation: %.0f turns/s (mean wall %@ µs per turn); by CPU %.0f turns/s on one core (mean CPU %@ µs per turn)",
                            figures.turnsPerSecond, micros(all.wall), figures.turnsPerCPUSecond, micros(all.cpu)))
        lines.append("  engine calls alone for the same turns: mean CPU \(micros(all.engineCPU)) µs (wall \(micros(all.engineWall)) µs); "
                     + "the conversation's own: mean CPU \(micros(all.ownCPU)) µs per turn (wall \(micros(all.wall - all.engineWall)) µs)")
        let verdict = figures.targetMet ? "met" : "NOT met"
        lines.append("  target: a turn takes well under 1 ms of CPU on average apart from the store work it needs "
                     + "(own CPU mean ≤ \(micros(ConversationFigures.targetOwnCPU)) µs): \(micros(all.ownCPU)) µs, \(verdict)")
        return lines
    }

    /// Microseconds: 3.4, 41.2, 412, 4120.
    private func micros(_ value: Double) -> String {
        abs(value) < 100 ? String(format: "%.1f", value) : String(format: "%.0f", value)
    }

    /// When a scenario and its reference return quite different numbers of rows (an agenda
    /// expands series; the plain table holds one row per event), the p50 ratio mixes "more rows"
    /// with "dearer rows": this splits the two, using mean time per mean row.
    private func perRowText(_ result: ScenarioResult) -> String? {
        guard result.scenario.comparesRows, let reference = result.referenceMeasurement else { return nil }
        let rows = result.measurement.meanRows
        let referenceRows = reference.meanRows
        guard rows >= 2, referenceRows >= 2, max(rows, referenceRows) / min(rows, referenceRows) >= 1.2 else { return nil }
        let perRow = result.measurement.summary.mean * 1_000 / rows
        let referencePerRow = reference.summary.mean * 1_000 / referenceRows
        guard referencePerRow > 0 else { return nil }
        return String(format: "; %.0f rows vs %.0f, mean %.1f µs vs %.1f µs per row = %.1f× per row",
                      rows, referenceRows, perRow, referencePerRow, perRow / referencePerRow)
    }

    private func seedLines() -> [String] {
        guard let seed else { return [] }
        if seed.reused {
            return ["Seeding: reused the \(seed.events) events already in the store (--db); no seeding measured"]
        }
        var lines: [String] = []
        lines.append(String(format: "Seeding: %d createEvent intents (confirmed, one transaction each) in %.1f s = %.0f events/s",
                            seed.events, seed.seconds, seed.eventsPerSecond))
        lines.append("  per intent (ms)    " + statsText(seed.measurement))
        for (tag, part) in seed.measurement.byTag {
            lines.append("  \(pad(tag, 17))  " + statsText(part))
        }
        let tenths = self.tenths(seed.measurement)
        if !tenths.isEmpty {
            lines.append("  first tenth (ms)   " + statsText(tenths[0]))
            lines.append("  last tenth (ms)    " + statsText(tenths[tenths.count - 1]))
            lines.append("  p50 by tenth (ms): " + tenths.map { ms($0.summary.p50) }.joined(separator: "  "))
        }
        let kinds = EventKind.allCases.compactMap { kind in seed.kinds[kind].map { "\(kind.rawValue) \($0)" } }
        lines.append("  mix: " + kinds.joined(separator: " · "))
        let endings = ["never", "count", "until"].compactMap { name in seed.endings[name].map { "\(name) \($0)" } }
        if !endings.isEmpty { lines.append("  series end: " + endings.joined(separator: " · ")) }
        return lines
    }

    /// Each tenth of the samples, in order: how the cost grows as the store fills.
    private func tenths(_ measurement: Measurement) -> [Measurement] {
        let tenth = measurement.samples.count / 10
        guard tenth > 1 else { return [] }
        return (0..<10).map { measurement.slice(($0 * tenth)..<(($0 + 1) * tenth)) }
    }

    private func storeText(_ store: StoreStats) -> String {
        String(format: "%lld events, %lld series, %lld occurrence rows, %lld journal entries, %.1f MB (db + wal)",
               store.events, store.series, store.occurrenceRows, store.journalEntries, Double(store.bytes) / 1_048_576)
    }

    private func statsText(_ measurement: Measurement) -> String {
        let summary = measurement.summary
        return "min \(ms(summary.min))  p50 \(ms(summary.p50))  p90 \(ms(summary.p90))  p99 \(ms(summary.p99))  max \(ms(summary.max))  cpu p50 \(ms(measurement.cpuSummary.p50))"
    }

    private func row(_ name: String, _ measurement: Measurement) -> String {
        let summary = measurement.summary
        return "\(pad(name, 24)) \(lpad(String(summary.count), 5)) \(lpad(ms(summary.min), 8)) \(lpad(ms(summary.p50), 8)) \(lpad(ms(summary.p90), 8)) "
            + "\(lpad(ms(summary.p99), 8)) \(lpad(ms(summary.max), 8)) \(lpad(ms(measurement.cpuSummary.p50), 8)) \(lpad(rowsText(measurement.meanRows), 8))"
    }

    private func rowsText(_ rows: Double) -> String {
        rows == rows.rounded() ? String(Int(rows)) : String(format: "%.1f", rows)
    }

    /// Milliseconds with about three significant digits: 0.412, 4.12, 41.2, 412.
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
                object["perIntent"] = measurementJSON(seed.measurement)
                object["p50ByTenth"] = .array(tenths(seed.measurement).map { .double($0.summary.p50) })
                object["mix"] = .object(JSONObject(EventKind.allCases.compactMap { kind in seed.kinds[kind].map { (kind.rawValue, JSONValue.int($0)) } }))
                object["seriesEnd"] = .object(JSONObject(["never", "count", "until"].compactMap { name in seed.endings[name].map { (name, JSONValue.int($0)) } }))
            }
            root["seed"] = .object(object)
        }
        if let store = storeAfterSeed { root["storeAfterSeed"] = storeJSON(store) }
        if let store = storeAtEnd { root["storeAtEnd"] = storeJSON(store) }
        root["references"] = .array(references.map { reference in
            .object(JSONObject([("name", .string(reference.name)), ("label", .string(reference.label)), ("summary", .string(reference.summary))]))
        })
        root["scenarios"] = .array(results.map { result in
            var object = JSONObject()
            object["name"] = .string(result.scenario.name)
            object["summary"] = .string(result.scenario.summary)
            object["result"] = measurementJSON(result.measurement)
            object["reference"] = result.reference.map { .string($0.name) } ?? .null
            object["referenceResult"] = result.referenceMeasurement.map(measurementJSON) ?? .null
            object["p50Ratio"] = result.ratio.map { .double($0) } ?? .null
            if let target = result.scenario.targetP50 {
                object["targetP50"] = .double(target)
                object["targetMet"] = .bool(result.measurement.summary.p50 <= target)
            }
            if let figures = ConversationFigures(result) { object["conversation"] = conversationJSON(figures) }
            return .object(object)
        })
        return JSONWriter.pretty(.object(root))
    }

    /// Mean CPU and wall µs per turn, of the conversation and of the engine calls alone, and the
    /// store transactions per turn, for all turns and by kind; turns per second; the target.
    private func conversationJSON(_ figures: ConversationFigures) -> JSONValue {
        func row(_ row: ConversationFigures.Row) -> JSONValue {
            .object(JSONObject([
                ("kind", .string(row.kind)), ("turns", .int(row.turns)),
                ("cpuMicroseconds", .double(row.cpu)), ("engineCPUMicroseconds", .double(row.engineCPU)), ("ownCPUMicroseconds", .double(row.ownCPU)),
                ("wallMicroseconds", .double(row.wall)), ("engineWallMicroseconds", .double(row.engineWall)),
                ("storeTransactions", .double(row.transactions)), ("engineStoreTransactions", .double(row.engineTransactions)),
            ]))
        }
        return .object(JSONObject([
            ("turnsPerSecond", .double(figures.turnsPerSecond)), ("turnsPerCPUSecond", .double(figures.turnsPerCPUSecond)),
            ("all", row(figures.all)), ("byKind", .array(figures.kinds.map(row))),
            ("targetOwnCPUMicroseconds", .double(ConversationFigures.targetOwnCPU)), ("targetMet", .bool(figures.targetMet)),
        ]))
    }

    /// `{"ms": {...wall...}, "cpuMs": {...}, "rowsPerOp": n, "byTag": {...}}`.
    private func measurementJSON(_ measurement: Measurement) -> JSONValue {
        var object = JSONObject()
        object["ms"] = statsJSON(measurement.summary)
        object["cpuMs"] = statsJSON(measurement.cpuSummary)
        object["rowsPerOp"] = .double(measurement.meanRows)
        let tags = measurement.byTag
        if !tags.isEmpty {
            object["byTag"] = .object(JSONObject(tags.map { tag, part in (tag, measurementJSON(part)) }))
        }
        return .object(object)
    }

    private func statsJSON(_ summary: Summary) -> JSONValue {
        .object(JSONObject([
            ("count", .int(summary.count)), ("min", .double(summary.min)), ("p50", .double(summary.p50)), ("p90", .double(summary.p90)),
            ("p99", .double(summary.p99)), ("max", .double(summary.max)), ("mean", .double(summary.mean)),
        ]))
    }

    private func storeJSON(_ store: StoreStats) -> JSONValue {
        .object(JSONObject([
            ("events", .int(Int(store.events))), ("series", .int(Int(store.series))), ("occurrenceRows", .int(Int(store.occurrenceRows))),
            ("journalEntries", .int(Int(store.journalEntries))), ("bytes", .int(Int(store.bytes))),
        ]))
    }
}
