import Foundation
import CometStore

/// Whether the database under the daemon is away (a PostgreSQL restart), so that an outage is
/// logged once when it is first seen and once when the store answers again, not at every
/// request or tick in between (the alarm timer looks twice a second).
final class StoreOutage: @unchecked Sendable {
    private let lock = NSLock()
    private var since: Date?
    /// Failures seen during the outage now going on.
    private var failures = 0

    var isOngoing: Bool { lock.withLock { since != nil } }

    /// A store call failed as `unavailable`: the first of an outage is logged.
    func failed(_ error: StoreError, log: (String, [(String, String)]) -> Void) {
        let first = lock.withLock { () -> Bool in
            failures += 1
            guard since == nil else { return false }
            since = Date()
            return true
        }
        guard first else { return }
        log("the database is unavailable; requests that need it fail with -32005 until it answers again, and alarms wait",
            [("error", error.message)])
    }

    /// A store call succeeded: an outage going on is over, and is logged with its length.
    func answered(log: (String, [(String, String)]) -> Void) {
        let ended = lock.withLock { () -> (Date, Int)? in
            guard let start = since else { return nil }
            defer { since = nil; failures = 0 }
            return (start, failures)
        }
        guard let (start, count) = ended else { return }
        log("the database answers again", [("seconds", String(format: "%.1f", Date().timeIntervalSince(start))), ("failures", String(count))])
    }
}
