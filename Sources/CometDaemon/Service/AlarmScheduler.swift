import Foundation
import Dispatch
import CometSchema
import CometIntents

/// Fires the alarms of the store as `alarm` notifications, on time. Each is recorded in the
/// store before it is announced, so a restart never fires one twice; the store also keeps how
/// far the daemon has looked, so an alarm whose moment passed while the daemon was down fires
/// once when it starts again, marked late.
final class AlarmScheduler: @unchecked Sendable {
    /// How far ahead the alarms are planned; a change to the store plans again at once.
    static let horizon: TimeInterval = 300
    /// An alarm fired later than this after its moment is late (the timer ticks twice a second
    /// and a change is planned within a second, so only an alarm missed, while the daemon was
    /// down or busy, is).
    static let lateAfter: TimeInterval = 2.5
    static let checkedKey = "alarms.checkedUntil"

    private let service: DaemonService
    private let queue = DispatchQueue(label: "cometcald.alarms")
    private var timer: DispatchSourceTimer?
    private var plan: [DueAlarm] = []
    private var plannedUntil = Date.distantPast
    private var checkedUntil: Date
    private var savedCheck = Date.distantPast
    private let clock: @Sendable () -> Date
    private let notify: NotifyCommand?

    init(service: DaemonService, notify: NotifyCommand? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.service = service
        self.notify = notify
        self.clock = clock
        let stored = (try? service.writer.run { try $0.storedFact(AlarmScheduler.checkedKey) }) ?? nil
        // The first start ever looks from now: old alarms are history, not missed.
        checkedUntil = stored.flatMap { Double($0) }.map { Date(timeIntervalSince1970: $0) } ?? clock()
    }

    func start() {
        queue.async { [self] in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: 0.5, leeway: .milliseconds(100))
            timer.setEventHandler { [weak self] in self?.tick() }
            self.timer = timer
            timer.resume()
        }
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            saveCheck(force: true)
        }
    }

    /// The store changed: plan again from where the alarms were last looked at, at most once
    /// a second (planning reads a month of occurrences either side; re-planning after every
    /// write was 22% of a write's CPU in the benchmark).
    func invalidate() { queue.async { self.stale = true } }

    private var stale = false
    private var lastPlan = Date.distantPast

    private func tick() {
        let now = clock()
        if now >= plannedUntil || (stale && now.timeIntervalSince(lastPlan) >= 1) {
            stale = false
            lastPlan = now
            do {
                let until = now.addingTimeInterval(AlarmScheduler.horizon)
                let checkedUntil = self.checkedUntil
                plan = try service.readers.run { try $0.dueAlarms(from: checkedUntil, to: until) }
                plannedUntil = until.addingTimeInterval(-AlarmScheduler.horizon / 2)
            } catch {
                service.log("alarms could not be read", [("error", "\(error)")])
                return
            }
        }
        var fired = false
        while let next = plan.first, next.trigger <= now {
            plan.removeFirst()
            let late = now.timeIntervalSince(next.trigger) > AlarmScheduler.lateAfter
            do {
                guard try service.writer.run({ try $0.markFired(next, at: now, late: late) }) else { continue }
            } catch {
                service.log("an alarm could not be recorded, so it is not fired yet", [("event", next.title), ("error", "\(error)")])
                plannedUntil = .distantPast
                return
            }
            fired = true
            service.announceAlarm(next, late: late)
            if let notify {
                // One read of the record, then the command runs on a thread of its own.
                do {
                    notify.run(try service.readers.run { try $0.notice(for: next, late: late) })
                } catch {
                    service.log("the notify command was not run: the event could not be read", [("event", next.title), ("error", "\(error)")])
                }
            }
        }
        checkedUntil = max(checkedUntil, now)
        saveCheck(force: fired)
    }

    private func saveCheck(force: Bool) {
        let now = clock()
        guard force || now.timeIntervalSince(savedCheck) >= 10 else { return }
        savedCheck = now
        let value = String(checkedUntil.timeIntervalSince1970)
        try? service.writer.run { try $0.storeFact(AlarmScheduler.checkedKey, value) }
    }
}
