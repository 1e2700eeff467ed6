import Foundation
import CometArguments
import CometSchema
import CometIntents
import CometStore

/// `cometcal free [RANGE]`: the busy and free stretches of a span, by the engine's one rule of
/// what takes up time (the conversation's "am I free" and the overlap sentence use it too). It
/// asks the store through searchEvents, so it works through --connect as every intent does.
struct FreeCommand {
    let context: AppContext

    private var terminal: Terminal { context.terminal }
    private var parsed: ParsedCommand { context.parsed }
    private var registry: Registry { context.backend.registry }

    /// A run of time, busy with the occurrences that make it, or free.
    struct Stretch {
        let start: Int64
        let end: Int64
        var occurrences: [Occurrence]
        var isBusy: Bool { !occurrences.isEmpty }
    }

    func run() throws -> ExitCode {
        let (from, to) = try range()
        guard from.sortKey < to.sortKey else {
            throw CommandFailure(code: .usage, message: "error: the range ends (\(describe(to))) before it starts (\(describe(from)))")
        }
        var minimum = 0
        if let text = parsed.value("min") {
            do { minimum = try ValueText.duration(text).approximateSeconds } catch let problem as ValueText.Problem {
                throw CommandFailure(code: .usage, message: "error: --min: \(problem.message)")
            }
            guard minimum > 0 else { throw CommandFailure(code: .usage, message: "error: --min takes a length longer than nothing, such as 30m or 1h") }
        }
        let intent = try context.backend.intent(named: "searchEvents")
        guard let fromParameter = intent.parameter(role: .from), let toParameter = intent.parameter(role: .to) else {
            throw CommandFailure(code: .internalError, message: "error: searchEvents has no parameters with @role(from) and @role(to), so free cannot ask for a range")
        }
        var request = IntentRequest(intent: intent.name.description)
        request.parameters[fromParameter.name] = .set(.dateTime(from))
        request.parameters[toParameter.name] = .set(.dateTime(to))
        if let calendar = parsed.value("calendar") { request.references["calendar"] = calendar }
        let runner = IntentRunner(context: context, intent: intent)
        let (outcome, code) = runner.run(request)
        guard case .done(let result) = outcome else {
            OutcomePrinter(context: context).print(outcome, runner: runner)
            return code
        }
        let lower = from.sortKey, upper = to.sortKey
        var busy: [Occurrence] = [], leavingFree: [(Occurrence, String)] = []
        for occurrence in result.occurrences {
            if let reason = IntentEngine.freeReason(occurrence.record, registry: registry) {
                leavingFree.append((occurrence, reason))
            } else if seconds(occurrence.end) <= seconds(occurrence.start) {
                // A moment with no length takes up no stretch of time; it is listed, not dropped.
                leavingFree.append((occurrence, "no length"))
            } else {
                busy.append(occurrence)
            }
        }
        let stretches = FreeCommand.stretches(busy: busy, from: lower, to: upper, seconds: seconds)
        let shown = stretches.filter { $0.isBusy || $0.end - $0.start >= Int64(minimum) }
        let shortGaps = stretches.count - shown.count
        if context.wantsJSON {
            printJSON(from: from, to: to, shown: shown, leavingFree: leavingFree, shortGaps: shortGaps, minimum: minimum, all: stretches)
        } else {
            printText(from: from, to: to, shown: shown, leavingFree: leavingFree, shortGaps: shortGaps, minimum: minimum, all: stretches)
        }
        return .success
    }

    /// RANGE, then --from and --to over it; without either, from now to the end of today.
    private func range() throws -> (DateTimeValue, DateTimeValue) {
        let text = parsed.positionals("range").joined(separator: " ")
        var start = DateTimeValue.utc(context.now)
        var end: DateTimeValue?
        do {
            if !text.isEmpty { (start, end) = try context.valueText.range(text) }
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: \(problem.message)")
        }
        do {
            if let given = parsed.value("from") { start = try context.valueText.dateTime(given) }
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: --from: \(problem.message)")
        }
        do {
            if let given = parsed.value("to") { end = try context.valueText.dateTime(given) }
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: --to: \(problem.message)")
        }
        if let end { return (zoned(start), zoned(end)) }
        // The end of the day the range starts on.
        let day = start.wallTime(in: context.zone).date
        guard let midnight = LocalDateTime(date: day, hour: 0, minute: 0) else {
            throw CommandFailure(code: .usage, message: "error: \(day) has no midnight")
        }
        return (zoned(start), midnight.dateTime(in: context.zone).adding(days: 1))
    }

    /// Busy stretches where busy occurrences (cut to the range) overlap or touch, free ones
    /// between them, in order, covering [from, to).
    static func stretches(busy: [Occurrence], from: Int64, to: Int64, seconds: (DateTimeValue) -> Int64) -> [Stretch] {
        let sorted = busy.sorted { seconds($0.start) < seconds($1.start) }
        var result: [Stretch] = []
        var cursor = from
        var current: Stretch?
        for occurrence in sorted {
            let start = max(seconds(occurrence.start), from), end = min(seconds(occurrence.end), to)
            guard start < end else { continue }
            if let open = current, start <= open.end {
                current = Stretch(start: open.start, end: max(open.end, end), occurrences: open.occurrences + [occurrence])
                continue
            }
            if let open = current { result.append(open); cursor = open.end }
            if start > cursor { result.append(Stretch(start: cursor, end: start, occurrences: [])) }
            current = Stretch(start: start, end: end, occurrences: [occurrence])
        }
        if let open = current { result.append(open); cursor = open.end }
        if cursor < to { result.append(Stretch(start: cursor, end: to, occurrences: [])) }
        return result
    }

    // MARK: Output

    private func printText(from: DateTimeValue, to: DateTimeValue, shown: [Stretch], leavingFree: [(Occurrence, String)], shortGaps: Int, minimum: Int, all: [Stretch]) {
        terminal.out(terminal.style("Free and busy, \(describe(from, to)):", .bold))
        for stretch in shown {
            let when = describe(value(stretch.start), value(stretch.end))
            if stretch.isBusy {
                let titles = stretch.occurrences.map { "“\(registry.title(of: $0.record))”" }.joined(separator: ", ")
                terminal.out("busy  \(when)  \(Terminal.printable(titles))")
            } else {
                terminal.out(terminal.style("free  \(when)  \(length(stretch.end - stretch.start))", .bold))
            }
        }
        let free = all.filter { !$0.isBusy }.reduce(Int64(0)) { $0 + $1.end - $1.start }
        terminal.out("\(length(free)) free in all.")
        if shortGaps > 0 {
            terminal.out(terminal.style("\(shortGaps) free stretch\(shortGaps == 1 ? "" : "es") shorter than \(length(Int64(minimum))) not listed (--min).", .dim))
        }
        if !leavingFree.isEmpty {
            let listed = leavingFree.map { occurrence, reason in
                let allDay = IntentEngine.isAllDay(occurrence.record, registry: registry)
                let when = IntentEngine.when(occurrence.start, end: occurrence.end, allDay: allDay, registry: registry, timeZone: context.zone, timeFormat: context.config.timeFormat, now: context.now)
                // An all-day time says "(all day)" itself.
                return "“\(registry.title(of: occurrence.record))”, \(when)" + (allDay ? "" : " (\(reason))")
            }
            terminal.out(terminal.style(Terminal.printable("Not counted as busy: " + listed.joined(separator: "; ") + "."), .dim))
        }
    }

    private func printJSON(from: DateTimeValue, to: DateTimeValue, shown: [Stretch], leavingFree: [(Occurrence, String)], shortGaps: Int, minimum: Int, all: [Stretch]) {
        func occurrenceJSON(_ occurrence: Occurrence) -> JSONObject {
            JSONObject([("id", .string(occurrence.record.id.lowercasedText)), ("title", .string(registry.title(of: occurrence.record))),
                        ("start", .string(occurrence.start.rfc3339Text)), ("end", .string(occurrence.end.rfc3339Text))])
        }
        let stretches: [JSONValue] = shown.map { stretch in
            var object = JSONObject([("kind", .string(stretch.isBusy ? "busy" : "free")), ("start", .string(value(stretch.start).rfc3339Text)),
                                     ("end", .string(value(stretch.end).rfc3339Text)), ("minutes", .int(Int((stretch.end - stretch.start) / 60)))])
            if stretch.isBusy { object["events"] = .array(stretch.occurrences.map { .object(occurrenceJSON($0)) }) }
            return .object(object)
        }
        let notBusy: [JSONValue] = leavingFree.map { occurrence, reason in
            var object = occurrenceJSON(occurrence)
            object["reason"] = .string(reason)
            return .object(object)
        }
        let free = all.filter { !$0.isBusy }.reduce(Int64(0)) { $0 + $1.end - $1.start }
        let busy = all.filter(\.isBusy).reduce(Int64(0)) { $0 + $1.end - $1.start }
        var object = JSONObject([("from", .string(from.rfc3339Text)), ("to", .string(to.rfc3339Text)), ("stretches", .array(stretches)),
                                 ("freeMinutes", .int(Int(free / 60))), ("busyMinutes", .int(Int(busy / 60))), ("notBusy", .array(notBusy))])
        if minimum > 0 {
            object["minMinutes"] = .int(minimum / 60)
            object["shortFreeLeftOut"] = .int(shortGaps)
        }
        terminal.out(JSONWriter.pretty(.object(object)))
    }

    // MARK: Time

    /// Epoch seconds; floating times (and all-day ones) are read in the person's zone.
    private func seconds(_ value: DateTimeValue) -> Int64 {
        if let instant = value.instant { return Int64(instant.timeIntervalSince1970) }
        return value.localTime.dateTime(in: context.zone).instant.map { Int64($0.timeIntervalSince1970) } ?? value.sortKey
    }

    private func value(_ seconds: Int64) -> DateTimeValue {
        DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: context.zone.identifier))
    }

    private func zoned(_ dateTime: DateTimeValue) -> DateTimeValue { value(seconds(dateTime)) }

    private func describe(_ start: DateTimeValue, _ end: DateTimeValue? = nil) -> String {
        IntentEngine.when(start, end: end, registry: registry, timeZone: context.zone, timeFormat: context.config.timeFormat, now: context.now)
    }

    /// "4 hours 30 minutes": a stretch's length, to the minute.
    private func length(_ seconds: Int64) -> String {
        let minutes = Int(seconds / 60)
        return DurationText.describe(DurationValue(hours: minutes / 60, minutes: minutes % 60))
    }
}
