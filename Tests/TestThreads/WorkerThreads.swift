import Foundation

/// Work that blocks for long (a writer looping on a store, a client of a daemon, a pipe's
/// reader) on threads of its own, never on `DispatchQueue.global()`. On these 2-core machines
/// libdispatch gives that queue 2 threads and adds one more only about once a second while
/// those block, and none while they compute: with the voice suite's recognizers busy on both,
/// a block queued there did not start for minutes, and tests that waited for it timed out.
/// WorkerThreadsTests shows these threads start while the global queue computes.
public final class WorkerThreads: @unchecked Sendable {
    private let group = DispatchGroup()

    public init() {}

    /// Runs `body` on a new thread, now.
    public func start(_ body: @escaping @Sendable () -> Void) {
        group.enter()
        let finished = group
        let thread = Thread {
            body()
            finished.leave()
        }
        thread.start()
    }

    /// Waits until every body started here has returned.
    public func wait() { group.wait() }

    /// Waits at most `seconds`; false when some body still runs.
    public func wait(seconds: Double) -> Bool { group.wait(timeout: .now() + seconds) == .success }

    /// Runs `body(0)` … `body(count - 1)`, each on a thread of its own, all at once, and
    /// returns when all have: what `DispatchQueue.concurrentPerform` promises only when the
    /// global queues have threads to spare.
    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let threads = WorkerThreads()
        for index in 0..<count { threads.start { body(index) } }
        threads.wait()
    }
}
