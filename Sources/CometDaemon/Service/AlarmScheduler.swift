import Foundation
import Dispatch
import CometSchema
import CometIntents
import CometStore

/// Fires the alarms of the store as `alarm` notifications, on time, and runs the notify command
/// for each. The bookkeeping (plan, record before announcing, how far the store was looked at,
/// late) is `AlarmWatch`, shared with `cometcal remind`; this is its timer on a queue of its own.
final class AlarmScheduler: @unchecked Sendable {
    private let service: DaemonService
    private let queue = DispatchQueue(label: "cometcald.alarms")
    private var timer: DispatchSourceTimer?
    private let watch: AlarmWatch
    private let clock: @Sendable () -> Date
    private let notify: NotifyCommand?

    init(service: DaemonService, notify: NotifyCommand? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.service = service
        self.notify = notify
        self.clock = clock
        let stored = (try? service.writer.run { try $0.storedFact(AlarmWatch.checkedKey) }) ?? nil
        watch = AlarmWatch(storedCheck: stored, now: clock(),
                           read: { from, to in try AlarmScheduler.noting(service) { try service.readers.run { try $0.dueAlarms(from: from, to: to) } } },
                           record: { alarm, moment, late in try AlarmScheduler.noting(service) { try service.writer.run { try $0.markFired(alarm, at: moment, late: late) } } },
                           save: { key, value in try AlarmScheduler.noting(service) { try service.writer.run { try $0.storeFact(key, value) } } },
                           log: { message, fields in
                               // While the database is away, the watch's failures are the outage, logged once.
                               guard !service.outage.isOngoing else { return }
                               service.log(message, fields)
                           })
    }

    /// Runs a store call for the watch, noting whether the database answered (while an alarm
    /// cannot be read, the timer reads the store twice a second: it sees an outage end).
    private static func noting<T>(_ service: DaemonService, _ call: () throws -> T) throws -> T {
        do {
            let value = try call()
            service.storeAnswered()
            return value
        } catch let error as StoreError where error.code == .unavailable {
            service.storeUnavailable(error)
            throw error
        }
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
            watch.saveCheck(now: clock(), force: true)
        }
    }

    /// The store changed: plan again within a second.
    func invalidate() { queue.async { self.watch.invalidate() } }

    private func tick() {
        for (alarm, late) in watch.tick(now: clock()) {
            service.announceAlarm(alarm, late: late)
            guard let notify else { continue }
            // One read of the record, then the command runs on a thread of its own.
            do {
                notify.run(try service.readers.run { try $0.notice(for: alarm, late: late) })
            } catch {
                service.log("the notify command was not run: the event could not be read", [("event", alarm.title), ("error", "\(error)")])
            }
        }
    }
}
