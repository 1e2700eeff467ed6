import Foundation
import Dispatch
import CometSchema
import CometStore
import CometIntents
import CometText
import CometDaemon
import CometArguments

/// `cometcal alarms` (the alarms to come) and `cometcal remind` (alarms going off without the
/// daemon, through the same bookkeeping, `AlarmWatch`, and the same notify command).
struct AlarmCommands {
    let context: AppContext
    private var terminal: Terminal { context.terminal }
    private var parsed: ParsedCommand { context.parsed }

    static let defaultDays = 7

    func list() throws -> ExitCode {
        let from: Date
        let to: Date
        do {
            from = try parsed.value("from").map { try instant(context.valueText.dateTime($0)) } ?? context.now
            to = try parsed.value("to").map { try instant(context.valueText.dateTime($0)) } ?? from.addingTimeInterval(TimeInterval(AlarmCommands.defaultDays * 86_400))
        } catch let problem as ValueText.Problem {
            throw CommandFailure(code: .usage, message: "error: \(parsed.value("from") != nil && parsed.value("to") == nil ? "--from" : "--to"): \(problem.message)")
        }
        guard from < to else { throw CommandFailure(code: .usage, message: "error: --to must be after --from") }
        let alarms = try context.backend.upcomingAlarms(from: from, to: to)
        if context.wantsJSON {
            terminal.out(JSONWriter.pretty(.object(JSONObject([
                ("from", .string(DateTimeValue.utc(from).description)), ("to", .string(DateTimeValue.utc(to).description)), ("alarms", .array(alarms)),
            ]))))
            return .success
        }
        let range = "from \(moment(DateTimeValue.utc(from))) to \(moment(DateTimeValue.utc(to)))"
        guard !alarms.isEmpty else {
            terminal.out("No alarms \(range).")
            return .success
        }
        terminal.out("Alarms \(range):")
        for alarm in alarms { terminal.out(line(alarm)) }
        return .success
    }

    /// "Thu Dec 3 09:15  Standup  (starts Thu Dec 3 09:30; 15 minutes before the start)".
    private func line(_ alarm: JSONValue, late: Bool = false) -> String {
        let trigger = alarm["trigger"]?.stringValue.flatMap { try? DateTimeValue(parsing: $0) }
        let start = alarm["start"]?.stringValue.flatMap { try? DateTimeValue(parsing: $0) }
        var text = (trigger.map(moment) ?? "?") + "  " + Terminal.printable(alarm["title"]?.stringValue ?? "")
        text += "  (starts \(start.map(moment) ?? "?"); \(alarm["alarm"]?.stringValue ?? ""))"
        if late { text += terminal.style(" late", .yellow) }
        return text
    }

    /// A moment in the person's zone, with the config's time format.
    private func moment(_ value: DateTimeValue) -> String {
        let local = value.wallTime(in: context.zone)
        return DateFormat.format("%a %b %-d ", date: local.date) + context.config.timeFormat.text(local)
    }

    private func instant(_ value: DateTimeValue) -> Date {
        value.instant ?? Date(timeIntervalSince1970: TimeInterval(value.wallTime(in: context.zone).dateTime(in: context.zone).sortKey))
    }

    // MARK: remind

    func remind() throws -> ExitCode {
        guard let engine = context.localEngine, let store = context.localStore else {
            throw CommandFailure(code: .usage, message: "error: remind runs on the store itself, not through --connect; with a daemon running, use cometcald --notify")
        }
        var seconds = context.config.notifySeconds ?? NotifyCommand.defaultTimeLimit
        if let text = parsed.value("notify-seconds") {
            guard let number = Double(text), number > 0 else {
                throw CommandFailure(code: .usage, message: "error: --notify-seconds takes a number of seconds above 0, not '\(text)'")
            }
            seconds = number
        }
        let logger = Logger(verbose: false)
        let log: @Sendable (String, [(String, String)]) -> Void = { message, fields in logger.info(message, fields) }
        let notify = (parsed.value("notify") ?? context.config.notify).map { NotifyCommand(command: $0, timeLimit: seconds, log: log) }
        // COMETCAL_NOW fixes the clock, as for every command (tests, cron replays).
        let fixed = ProcessInfo.processInfo.environment["COMETCAL_NOW"] != nil
        let now = context.now
        let clock: () -> Date = { fixed ? now : Date() }
        let watch = AlarmWatch(storedCheck: try engine.storedFact(AlarmWatch.checkedKey), now: clock(),
                               read: { try engine.dueAlarms(from: $0, to: $1) },
                               record: { try engine.markFired($0, at: $1, late: $2) },
                               save: { try engine.storeFact($0, $1) },
                               log: { message, fields in log(message, fields) })
        if watch.isFirstWatch {
            terminal.err("note: alarms were never watched on this store; from now on they go off (older ones are history, not missed)")
        }
        let fire = { (fired: [(alarm: DueAlarm, late: Bool)]) in
            for (alarm, late) in fired {
                let notice: AlarmNotice
                do {
                    notice = try engine.notice(for: alarm, late: late)
                } catch {
                    log("the notify command was not run: the event could not be read", [("event", alarm.title), ("error", "\(error)")])
                    terminal.out(line(alarm.listing, late: late))
                    continue
                }
                terminal.out(context.wantsJSON ? JSONWriter.compact(notice.json) : line(alarm.listing, late: late))
                notify?.run(notice)
            }
        }
        if parsed.flag("once") {
            fire(watch.tick(now: clock()))
            watch.saveCheck(now: clock(), force: true)
            finish(notify, seconds: seconds)
            return .success
        }

        // SIGINT and SIGTERM end the loop at its next turn; the wait is cut short by them.
        let stop = DispatchSemaphore(value: 0)
        let stopped = LockedCache(false)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                stopped.withLock { $0 = true }
                stop.signal()
            }
            source.resume()
            sources.append(source)
        }
        defer { for source in sources { source.cancel() } }
        terminal.err("Watching alarms in \(store.location); Ctrl-C stops.")
        var seenVersion = try store.othersVersion()
        while !stopped.withLock({ $0 }) {
            // Another process (cometcal, the daemon) wrote: plan again, so what it added rings on time.
            let version = try store.othersVersion()
            if version != seenVersion {
                seenVersion = version
                watch.invalidate()
            }
            fire(watch.tick(now: clock()))
            _ = stop.wait(timeout: .now() + 0.5)
        }
        watch.saveCheck(now: clock(), force: true)
        finish(notify, seconds: seconds)
        terminal.err("Stopped.")
        return .success
    }

    /// Waits for the commands still running (each is killed at its limit), so none is left behind.
    private func finish(_ notify: NotifyCommand?, seconds: Double) {
        guard let notify else { return }
        notify.waitUntilIdle(seconds: seconds * 2 + 5)
    }
}
