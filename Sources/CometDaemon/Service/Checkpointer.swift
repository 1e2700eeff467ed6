import Foundation
import CometStore

/// Takes the store's upkeep off the write path (the embedded store's write-ahead log
/// checkpoints): the daemon's writer no longer checkpoints inside its commits (the embedded
/// store's default, every 1,000 pages, which writes and syncs while the request waits); this
/// thread does, through the store's `StoreMaintainer` on a connection of its own, passively (it
/// waits for no reader or writer), when the writer reports `pageThreshold` pages waiting and at
/// least every `period` seconds while any wait.
final class Checkpointer: @unchecked Sendable {
    static let pageThreshold = 1_000
    static let period = 1.0

    /// The store's own upkeep connection; nil for a store with none (in memory), and then this
    /// thread has nothing to do.
    private let maintainer: (any StoreMaintainer)?
    private let condition = NSCondition()
    /// Held while a checkpoint runs: never the condition's lock, which the writer takes after each commit.
    private let checkpointing = NSLock()
    /// Pages in the WAL after the writer's last commit, and whether a checkpoint may be due.
    private var pages = 0
    private var lastReported = 0
    private var due = false
    private var stopping = false
    private var running = false
    private let finished = DispatchSemaphore(value: 0)
    var log: @Sendable (String, [(String, String)]) -> Void = { _, _ in }

    init(maintainer: (any StoreMaintainer)?) {
        self.maintainer = maintainer
    }

    /// Told by the writer's connection after each commit.
    func committed(pages: Int) {
        condition.withLock {
            self.pages = pages
            lastReported = pages
            due = true
            if pages >= Checkpointer.pageThreshold { condition.signal() }
        }
    }

    /// The pages the WAL held after the writer's last commit.
    var pagesAtLastCommit: Int { condition.withLock { lastReported } }

    /// One passive checkpoint now (the thread's work; tests call it directly).
    @discardableResult
    func checkpoint() -> (walPages: Int, copied: Int)? {
        do {
            guard let maintainer else { return nil }
            return try checkpointing.withLock {
                let done = try maintainer.maintain()
                return (done.waiting, done.done)
            }
        } catch {
            log("checkpoint failed", [("error", "\(error)")])
            return nil
        }
    }

    func start() {
        condition.withLock { running = true }
        let thread = Thread { [self] in
            while true {
                let work = condition.withLock { () -> Bool? in
                    if !stopping, pages < Checkpointer.pageThreshold { _ = condition.wait(until: Date(timeIntervalSinceNow: Checkpointer.period)) }
                    if stopping { return nil }
                    defer { due = false; pages = 0 }
                    return due
                }
                guard let work else { break }
                if work { checkpoint() }
            }
            finished.signal()
        }
        thread.name = "cometcald.checkpoints"
        thread.start()
    }

    /// Ends the thread (after the checkpoint in progress, if any).
    func stop() {
        let wasRunning = condition.withLock { () -> Bool in
            stopping = true
            condition.signal()
            return running
        }
        if wasRunning { finished.wait() }
    }
}
