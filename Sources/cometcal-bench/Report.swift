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

        lines.append("Scenarios (ms; wall clock unless marked cpu). Under each, its reference, measured interleaved one for one with it"
                     + (results.contains { $0.daemon != nil } ? " (the daemon's: the engine alone, run just before each mix's phases; its cpu p50 is the client thread's)." : "."))
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
            if let daemon = result.daemon, let target = daemon.target {
                line += String(format: " (1 client); at %d clients %.0f requests/s, p99 %@ ms", DaemonScenarios.targetClients,
                               target.requestsPerSecond, ms(target.measurement.summary.p99))
                line += "  (target ≥ \(thousands(DaemonScenarios.targetRate)) requests/s and p99 < \(ms(DaemonScenarios.targetP99)) ms: "
                    + (daemon.targetMet ? "met)" : "NOT met)")
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
        for result in results {
            guard let figures = result.understanding else { continue }
            lines.append("")
            lines.append(contentsOf: understandingLines(result.scenario.name, figures))
        }
        for result in results {
            guard let figures = result.daemon else { continue }
            lines.append("")
            lines.append(contentsOf: daemonLines(result.scenario.name, figures))
        }
        for result in results {
            guard let figures = result.caldav else { continue }
            lines.append("")
            lines.append(contentsOf: caldavLines(result.scenario.name, figures))
        }
        let checks = results.flatMap(TargetCheck.derived)
        if !checks.isEmpty {
            lines.append("")
            lines.append("Targets (each figure beside its reference, measured in the same run)")
            lines.append("  \(pad("figure", 62)) \(lpad("value", 10)) \(lpad("reference", 10)) \(lpad("ratio", 8))  \(pad("target", 26)) verdict")
            for check in checks {
                let value = check.value.map(check.unit.text) ?? "–"
                let reference = check.reference.map { TargetCheck.Unit.milliseconds.text($0.value) } ?? ""
                let ratio = check.ratioText ?? ""
                var line = "  \(pad(check.figure, 62)) \(lpad(value, 10)) \(lpad(reference, 10)) \(lpad(ratio, 8))  \(pad(check.targetText, 26)) \(check.verdict)"
                if let note = check.note { line += "  (\(note))" }
                lines.append(line)
            }
        }
        for result in results where !result.scaling.isEmpty {
            lines.append("")
            lines.append("Scaling: import of each generated file (child process) and the agenda of one fixed day on the store it made")
            lines.append("  \(lpad("events", 8)) \(lpad("file", 9)) \(lpad("import", 9)) \(lpad("µs/event", 9)) \(lpad("peak RSS", 9)) \(lpad("day p50", 9)) \(lpad("day rows", 9))")
            for row in result.scaling {
                lines.append("  \(lpad(ICalScenarios.thousands(row.events), 8)) \(lpad(ICalScenarios.megabytes(row.bytes), 9)) "
                             + "\(lpad(String(format: "%.2f s", row.importSeconds), 9)) \(lpad(String(format: "%.0f", row.importSeconds * 1e6 / Double(row.events)), 9)) "
                             + "\(lpad(String(format: "%.0f MiB", row.peakRSSMiB), 9)) \(lpad(ms(row.dayP50), 9)) \(lpad(String(row.dayRows), 9))")
            }
        }
        lines.append("")
        lines.append("Percentiles are nearest-rank over \(options.samples) samples after \(options.warmup) unrecorded warm-up operations. "
                     + "cpu p50 is this thread's CPU time: far below the wall p50 means waiting (disk, or other processes on a shared machine). "
                     + "Agenda scenarios return every occurrence of their range unless they say limit."
                     + (results.contains { ConversationScenarios.isConversation($0.scenario) }
                        ? " For the conversation scenarios and their engine references, rows/op is store transactions per turn." : "")
                     + (results.contains { $0.daemon != nil }
                        ? " The daemon's phases count the requests that finished inside their window, after an unrecorded warm-up; "
                          + "their percentiles are over those requests, not over --samples." : ""))
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

    /// The two readers side by side, per utterance in µs, by kind of utterance, then what a new
    /// process pays before its first reading, and the targets.
    private func understandingLines(_ name: String, _ figures: UnderstandingFigures) -> [String] {
        var lines: [String] = []
        lines.append("\(name): µs per utterance through Conversation.interpret on the seeded store, \(figures.utterances) utterances read in turn "
                     + "(" + figures.kinds.map { "\($0.utterances) \($0.kind)" }.joined(separator: ", ") + "), "
                     + "the statistical reader on, and interleaved one for one with it the declared phrases alone (statisticalReading = false)")
        lines.append("  \(pad("reader", 20)) \(lpad("p50", 8)) \(lpad("p99", 8)) \(lpad("cpu p50", 8)) \(lpad("mean", 8))  understood")
        func row(_ label: String, _ reader: UnderstandingFigures.ReaderRow) -> String {
            "  \(pad(label, 20)) \(lpad(micros(reader.p50), 8)) \(lpad(micros(reader.p99), 8)) \(lpad(micros(reader.cpuP50), 8)) "
                + "\(lpad(micros(reader.mean), 8))  \(reader.understood) of \(figures.utterances)"
        }
        lines.append(row("statistical on", figures.statistical))
        lines.append(row("phrases alone", figures.phrases))
        if let ratio = figures.ratio {
            lines.append(String(format: "  p50 statistical on ÷ phrases alone = %.1f×; the statistical reader gave %d of the %d readings",
                                ratio, figures.readByModel, figures.utterances))
        }
        if !figures.slowest.isEmpty {
            lines.append("  slowest utterances (their own p50, µs, statistical on / phrases alone):")
            for slow in figures.slowest {
                lines.append("    \(lpad(micros(slow.statisticalP50), 8)) / \(lpad(micros(slow.phrasesP50), 8))  \(pad(slow.kind, 14)) “\(slow.text)”")
            }
        }
        if figures.rounds.isEmpty {
            lines.append("  schema load and first reading: not measured (--load-rounds 0)")
        } else {
            let each = figures.rounds.map { String(format: "%.0f + %.0f ms", $0.schemaLoadMilliseconds, $0.firstReadingMilliseconds) }.joined(separator: ", ")
            lines.append(String(format: "  a new process (median of %d: %@): schema load %.1f ms; store, engine and conversation opened %.1f ms; "
                                + "first reading (training included) %.1f ms, cpu %.1f ms; second reading %.2f ms",
                                figures.rounds.count, each, figures.median(\.schemaLoadMilliseconds) ?? 0, figures.median(\.openMilliseconds) ?? 0,
                                figures.median(\.firstReadingMilliseconds) ?? 0, figures.median(\.firstReadingCPUMilliseconds) ?? 0,
                                figures.median(\.secondReadingMilliseconds) ?? 0))
            let readers = Set(figures.rounds.map { $0.firstReader ?? "none" }).sorted().joined(separator: ", ")
            lines.append("  (the first reading is “\(UnderstandingScenarios.firstReading)”, read by: \(readers); "
                         + "the second “\(UnderstandingScenarios.secondReading)”)")
        }
        let verdict = figures.targetMet ? "met" : "NOT met"
        lines.append("  target: one utterance ≤ \(micros(UnderstandingScenarios.targetP50 * 1_000)) µs p50 on the store: \(micros(figures.statistical.p50)) µs, \(verdict)")
        if let load = figures.median(\.loadAndTrainingMilliseconds), let met = figures.loadTargetMet {
            lines.append(String(format: "  target: schema load + first reading (training included) ≤ %.0f ms: %.1f ms, %@",
                                UnderstandingScenarios.targetLoadMilliseconds, load, met ? "met" : "NOT met"))
        }
        return lines
    }

    /// The daemon's phases: for each mix the engine alone, then 1, 8 and 32 clients; rates and
    /// latencies, CPU per request of the whole process and of the calling thread, and each
    /// daemon phase's rate and p50 against the engine's for the same mix; the requests by kind
    /// at the target's client count; the target.
    private func daemonLines(_ name: String, _ figures: DaemonFigures) -> [String] {
        var lines: [String] = []
        lines.append("\(name): JSON-RPC over a Unix socket to the daemon in this process (DaemonService, 4 reader engines and 1 writer, behind a "
                     + "SocketServer, wired as cometcald wires them), each client a thread with its own DaemonClient connection calling without pause; "
                     + "beside it the engine alone: client 0's requests on one IntentEngine, single-threaded, no socket or JSON, run just before the "
                     + "daemon phases of the same mix (each phase: \(seconds(figures.warmup)) unrecorded, then a window of \(seconds(figures.window)) or more)")
        lines.append("  \(pad("mix", 11)) \(pad("caller", 10)) \(lpad("requests", 8)) \(lpad("req/s", 8)) \(lpad("p50", 7)) \(lpad("p90", 7)) "
                     + "\(lpad("p99", 7)) \(lpad("max", 7)) \(lpad("cpu µs/req", 10)) \(lpad("caller's", 8))  vs the engine alone")
        for phase in figures.phases {
            let summary = phase.measurement.summary
            var line = "  \(pad(phase.mix.rawValue, 11)) \(pad(phase.label, 10)) \(lpad(String(phase.requests), 8)) "
                + "\(lpad(String(format: "%.0f", phase.requestsPerSecond), 8)) \(lpad(ms(summary.p50), 7)) \(lpad(ms(summary.p90), 7)) "
                + "\(lpad(ms(summary.p99), 7)) \(lpad(ms(summary.max), 7)) \(lpad(micros(phase.cpuPerRequest), 10)) \(lpad(micros(phase.callerCPUPerRequest), 8))"
            if phase.clients != nil, let engine = figures.phase(phase.mix, clients: nil), engine.requestsPerSecond > 0, engine.measurement.summary.p50 > 0 {
                line += String(format: "  %.2f× the rate, p50 %.1f×, cpu %.1f×", phase.requestsPerSecond / engine.requestsPerSecond,
                               summary.p50 / engine.measurement.summary.p50, engine.cpuPerRequest > 0 ? phase.cpuPerRequest / engine.cpuPerRequest : 0)
            }
            lines.append(line)
        }
        lines.append("  (ms, wall clock, per request. cpu µs/req: the whole process's CPU in the window over its requests, clients and daemon; "
                     + "caller's: the calling thread's own, a client's JSON and socket calls, or for the engine alone its work)")
        if let target = figures.target {
            let cpu = target.cpuPerRequest
            if cpu > 0 {
                lines.append(String(format: "  at %d clients the mix costs %@ µs of CPU per request (%@ µs in the client threads, %@ µs in the daemon's): "
                                    + "%d cores can serve at most %.0f requests/s of it; the engine alone needs %@ µs per request of the same mix",
                                    DaemonScenarios.targetClients, micros(cpu), micros(target.callerCPUPerRequest), micros(cpu - target.callerCPUPerRequest),
                                    figures.cores, Double(figures.cores) * 1e6 / cpu, micros(figures.phase(.mixed, clients: nil)?.cpuPerRequest ?? 0)))
            }
            if let engine = figures.phase(.mixed, clients: nil) {
                lines.append("  mixed, \(target.label), by kind of request (ms; the engine alone's for the same kind):")
                lines.append("    \(pad("kind", 14)) \(lpad("requests", 8)) \(lpad("p50", 7)) \(lpad("p99", 7)) \(lpad("rows/op", 8))   "
                             + "\(lpad("engine p50", 10)) \(lpad("p99", 7)) \(lpad("rows/op", 8))")
                let engineTags = Dictionary(engine.measurement.byTag.map { ($0.tag, $0.measurement) }, uniquingKeysWith: { first, _ in first })
                for (tag, part) in target.measurement.byTag {
                    let summary = part.summary
                    var line = "    \(pad(tag, 14)) \(lpad(String(summary.count), 8)) \(lpad(ms(summary.p50), 7)) \(lpad(ms(summary.p99), 7)) "
                        + "\(lpad(rowsText(part.meanRows), 8))"
                    if let reference = engineTags[tag] {
                        line += "   \(lpad(ms(reference.summary.p50), 10)) \(lpad(ms(reference.summary.p99), 7)) \(lpad(rowsText(reference.meanRows), 8))"
                    }
                    lines.append(line)
                }
            }
            let verdict = figures.targetMet ? "met" : "NOT met"
            lines.append(String(format: "  target: at %d clients, at least %@ requests per second and a p99 under %@ ms: %.0f requests/s, p99 %@ ms, %@",
                                DaemonScenarios.targetClients, thousands(DaemonScenarios.targetRate), ms(DaemonScenarios.targetP99),
                                target.requestsPerSecond, ms(target.measurement.summary.p99), verdict))
        }
        return lines
    }

    private func seconds(_ value: Double) -> String {
        value < 1 ? String(format: "%.0f ms", value * 1_000) : String(format: "%.2f s", value)
    }

    /// 5000 as "5,000".
    private func thousands(_ value: Double) -> String {
        let whole = Int(value.rounded())
        let text = String(whole)
        guard whole >= 1_000 else { return text }
        var result = ""
        for (index, character) in text.enumerated() {
            if index > 0, (text.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return result
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
            if let figures = result.daemon { object["daemon"] = daemonJSON(figures) }
            if let figures = result.understanding { object["understanding"] = understandingJSON(figures) }
            if let figures = result.caldav { object["caldav"] = caldavJSON(figures) }
            if !result.scaling.isEmpty {
                object["scaling"] = .array(result.scaling.map { row in
                    .object(JSONObject([("events", .int(row.events)), ("bytes", .int(row.bytes)), ("importSeconds", .double(row.importSeconds)),
                                        ("peakRSSMiB", .double(row.peakRSSMiB)), ("dayP50", .double(row.dayP50)), ("dayRows", .int(row.dayRows))]))
                })
            }
            return .object(object)
        })
        root["targets"] = .array(results.flatMap(TargetCheck.derived).map { check in
            .object(JSONObject([
                ("figure", .string(check.figure)), ("value", check.value.map(JSONValue.double) ?? .null),
                ("unit", .string({ switch check.unit { case .milliseconds: return "ms"; case .mebibytes: return "MiB"; case .times: return "×" } }())),
                ("reference", check.reference.map { .double($0.value) } ?? .null), ("referenceName", check.reference.map { .string($0.name) } ?? .null),
                ("ratio", check.ratio.map(JSONValue.double) ?? .null), ("speedup", check.speedup.map(JSONValue.double) ?? .null),
                ("target", .string(check.targetText)),
                ("met", check.met.map(JSONValue.bool) ?? .null), ("note", check.note.map(JSONValue.string) ?? .null),
            ]))
        })
        return JSONWriter.pretty(.object(root))
    }

    /// Each size's servers, per request: p50, p90 and the events each answer held.
    private func caldavJSON(_ figures: CalDAVFigures) -> JSONValue {
        .array(figures.sizes.map { size in
            .object(JSONObject([
                ("events", .int(size.events)), ("month", .string(size.month)),
                ("servers", .array(size.servers.map(JSONValue.string))),
                ("firstFullMilliseconds", .array(size.firstFullMilliseconds.map(JSONValue.double))),
                ("connections", .array(size.connections.map(JSONValue.int))),
                ("requests", .array(size.rows.map { row in
                    .object(JSONObject([
                        ("request", .string(row.kind.key)), ("summary", .string(row.kind.rawValue)),
                        ("countsAgree", .bool(size.countsAgree(row))),
                        ("results", .array(zip(size.servers, zip(row.measurements, row.returned)).map { name, pair in
                            .object(JSONObject([("server", .string(name)), ("result", measurementJSON(pair.0)),
                                                ("eventsReturned", .array(Array(Set(pair.1)).sorted().map(JSONValue.int)))]))
                        })),
                    ]))
                })),
            ]))
        })
    }

    /// The three servers side by side: one table per calendar size, CometCal beside the faster
    /// peer with the speed-up and the issue's target, and how many events each answer held.
    private func caldavLines(_ name: String, _ figures: CalDAVFigures) -> [String] {
        var lines: [String] = []
        lines.append("\(name): CometCal's CalDAV server (the daemon's CalDAVService behind HTTPServer, in this process) beside Radicale and Xandikos "
                     + "(child processes, storage written to disk), each holding the same one-hour events (single, UTC) in one calendar; one client "
                     + "on a raw socket over loopback, keeping the connection where the server does; each round asks the three servers in turn, "
                     + "the first changing every round. ms, wall clock, p50 (p90); CometCal cpu: the p50 of this process's CPU time in each of CometCal's requests, its server's threads and the client's.")
        if options.caldavWithoutPeers {
            lines.append("  Radicale and Xandikos were not started (--caldav-without-peers): CometCal alone, no target checked.")
        }
        for size in figures.sizes {
            lines.append("  \(ICalScenarios.thousands(size.events)) events; the month is \(size.month); connections made: "
                         + zip(size.servers, size.connections).map { "\($0) \($1)" }.joined(separator: ", ")
                         + "; first whole calendar after start: " + zip(size.servers, size.firstFullMilliseconds).map { "\($0) \(ms($1)) ms" }.joined(separator: ", "))
            var header = "    \(pad("request", 46)) \(lpad("n", 3))"
            for server in size.servers { header += " \(lpad(server, 20))" }
            lines.append(header + " \(lpad("CometCal cpu", 12))  speed-up vs the faster peer (target ≥ \(String(format: "%g", CalDAVScenarios.targetSpeedup))×)  events returned")
            for row in size.rows {
                var line = "    \(pad(row.kind.rawValue, 46)) \(lpad(String(row.measurements[0].summary.count), 3))"
                for measurement in row.measurements {
                    line += " \(lpad("\(ms(measurement.summary.p50)) (\(ms(measurement.summary.p90)))", 20))"
                }
                line += " \(lpad(ms(row.measurements[0].cpuSummary.p50), 12))"
                if let peer = size.fasterPeer(row), row.measurements[0].summary.p50 > 0 {
                    let speedup = peer.p50 / row.measurements[0].summary.p50
                    line += "  \(TargetCheck.speedupText(speedup)) than \(peer.name), " + (speedup >= CalDAVScenarios.targetSpeedup ? "met" : "NOT met")
                }
                if row.kind != .put {
                    let counts = row.returned.map { Set($0).sorted().map(String.init).joined(separator: "/") }
                    line += "  " + counts.joined(separator: ", ") + (size.countsAgree(row) ? "" : "  (the servers DISAGREE)")
                }
                lines.append(line)
            }
        }
        return lines
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

    /// Per utterance µs of each reader (p50, p99, cpu p50, mean, understood), by kind; the
    /// ratio; each new process's load figures and their medians; the targets.
    private func understandingJSON(_ figures: UnderstandingFigures) -> JSONValue {
        func reader(_ row: UnderstandingFigures.ReaderRow) -> JSONValue {
            .object(JSONObject([
                ("p50Microseconds", .double(row.p50)), ("p99Microseconds", .double(row.p99)), ("cpuP50Microseconds", .double(row.cpuP50)),
                ("meanMicroseconds", .double(row.mean)), ("understood", .int(row.understood)),
            ]))
        }
        var load = JSONObject()
        load["rounds"] = .array(figures.rounds.map { round in
            .object(JSONObject([
                ("schemaLoadMs", .double(round.schemaLoadMilliseconds)), ("openMs", .double(round.openMilliseconds)),
                ("firstReadingMs", .double(round.firstReadingMilliseconds)), ("firstReadingCPUMs", .double(round.firstReadingCPUMilliseconds)),
                ("secondReadingMs", .double(round.secondReadingMilliseconds)), ("firstReader", round.firstReader.map(JSONValue.string) ?? .null),
            ]))
        })
        func median(_ value: (LoadRound) -> Double) -> JSONValue { figures.median(value).map(JSONValue.double) ?? .null }
        load["schemaLoadMs"] = median(\.schemaLoadMilliseconds)
        load["openMs"] = median(\.openMilliseconds)
        load["firstReadingMs"] = median(\.firstReadingMilliseconds)
        load["firstReadingCPUMs"] = median(\.firstReadingCPUMilliseconds)
        load["secondReadingMs"] = median(\.secondReadingMilliseconds)
        load["schemaLoadAndFirstReadingMs"] = median(\.loadAndTrainingMilliseconds)
        load["firstReading"] = .string(UnderstandingScenarios.firstReading)
        load["targetMs"] = .double(UnderstandingScenarios.targetLoadMilliseconds)
        load["targetMet"] = figures.loadTargetMet.map(JSONValue.bool) ?? .null
        return .object(JSONObject([
            ("utterances", .int(figures.utterances)),
            ("kinds", .object(JSONObject(figures.kinds.map { ($0.kind, JSONValue.int($0.utterances)) }))),
            ("statistical", reader(figures.statistical)), ("phrases", reader(figures.phrases)),
            ("p50Ratio", figures.ratio.map(JSONValue.double) ?? .null), ("readByStatisticalReader", .int(figures.readByModel)),
            ("slowest", .array(figures.slowest.map { slow in
                .object(JSONObject([("text", .string(slow.text)), ("kind", .string(slow.kind)),
                                    ("statisticalP50Microseconds", .double(slow.statisticalP50)), ("phrasesP50Microseconds", .double(slow.phrasesP50))]))
            })),
            ("targetP50Microseconds", .double(UnderstandingScenarios.targetP50 * 1_000)), ("targetMet", .bool(figures.targetMet)),
            ("load", .object(load)),
        ]))
    }

    /// Each phase (mix, clients or null for the engine alone, requests, seconds, requests per
    /// second, CPU µs per request of the process and of the caller, the measurement by kind of
    /// request), the cores, and the target at 8 clients.
    private func daemonJSON(_ figures: DaemonFigures) -> JSONValue {
        let phases: [JSONValue] = figures.phases.map { phase in
            var object = JSONObject()
            object["mix"] = .string(phase.mix.rawValue)
            object["clients"] = phase.clients.map { .int($0) } ?? .null
            object["transport"] = .string(phase.clients == nil ? "engine" : "socket")
            object["requests"] = .int(phase.requests)
            object["seconds"] = .double(phase.seconds)
            object["requestsPerSecond"] = .double(phase.requestsPerSecond)
            object["cpuMicrosecondsPerRequest"] = .double(phase.cpuPerRequest)
            object["callerCPUMicrosecondsPerRequest"] = .double(phase.callerCPUPerRequest)
            if phase.clients != nil, let engine = figures.phase(phase.mix, clients: nil) {
                object["rateRatioToEngine"] = .double(engine.requestsPerSecond > 0 ? phase.requestsPerSecond / engine.requestsPerSecond : 0)
                object["p50RatioToEngine"] = .double(engine.measurement.summary.p50 > 0 ? phase.measurement.summary.p50 / engine.measurement.summary.p50 : 0)
            }
            object["result"] = measurementJSON(phase.measurement)
            return .object(object)
        }
        var target = JSONObject()
        target["clients"] = .int(DaemonScenarios.targetClients)
        target["requestsPerSecond"] = .double(DaemonScenarios.targetRate)
        target["p99Ms"] = .double(DaemonScenarios.targetP99)
        if let phase = figures.target {
            target["measuredRequestsPerSecond"] = .double(phase.requestsPerSecond)
            target["measuredP99Ms"] = .double(phase.measurement.summary.p99)
        }
        target["met"] = .bool(figures.targetMet)
        return .object(JSONObject([("cores", .int(figures.cores)), ("windowSeconds", .double(figures.window)), ("warmupSeconds", .double(figures.warmup)),
                                   ("phases", .array(phases)), ("target", .object(target))]))
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
