import Foundation
import CometStore

/// Listens for the store's word of other processes' commits (`StoreWatcher`, PostgreSQL's
/// LISTEN/NOTIFY), on a thread of its own: a change made through another daemon on the same
/// database is announced here at once, not at the next once-a-second look; an alarm another
/// daemon fired is announced to this daemon's subscribers. An outage is logged when it starts
/// and ends; after it, the journal is looked at for what was missed.
final class StoreWatch: @unchecked Sendable {
    /// How long one wait lasts: how soon `stop` is seen.
    static let waitSeconds = 0.25

    private let watcher: any StoreWatcher
    private let service: DaemonService
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    init(watcher: any StoreWatcher, service: DaemonService) {
        self.watcher = watcher
        self.service = service
    }

    func start() {
        // This daemon announces its own writes as it makes them (`DaemonService`).
        watcher.hearOnlyOtherProcesses()
        service.relay = { [watcher, service] message in
            do { try watcher.relay(message) } catch {
                service.log("not relayed to other daemons", [("error", "\(error)")])
            }
        }
        let thread = Thread { [self] in
            while !lock.withLock({ stopping }) {
                for signal in watcher.wait(seconds: StoreWatch.waitSeconds) {
                    switch signal {
                    case .changed: service.pollJournal()
                    case .relayed(let message): service.heard(relayed: message)
                    case .lost(let reason): service.log("store watch lost", [("error", reason)])
                    case .back:
                        service.log("store watch back", [])
                        service.pollJournal()
                    }
                }
            }
            finished.signal()
        }
        thread.name = "cometcald.watch"
        thread.start()
    }

    /// Ends the thread after its current wait.
    func stop() {
        lock.withLock { stopping = true }
        finished.wait()
    }
}
