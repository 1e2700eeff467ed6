import Foundation
import Testing
import TestThreads

@Suite("worker threads for tests")
struct WorkerThreadsTests {
    /// Blocks that compute on every global-queue thread there is, until told to stop.
    private final class Spinners: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        var isStopped: Bool { lock.withLock { stopped } }
        func stop() { lock.withLock { stopped = true } }

        func start(_ count: Int) {
            for _ in 0..<count {
                DispatchQueue.global().async { [self] in
                    var x = 0.5
                    while !isStopped { for _ in 0..<10_000 { x = x * 1.000001 + 0.000001 } }
                    _ = x
                }
            }
        }
    }

    @Test("while computing blocks hold every thread of Dispatch's global queues, four worker threads all start within a second, and wait returns when they end")
    func startWhileTheGlobalQueuesCompute() {
        let spinners = Spinners()
        spinners.start(ProcessInfo.processInfo.activeProcessorCount)
        defer { spinners.stop() }
        usleep(100_000)
        let started = Date()
        let delays = Delays()
        let threads = WorkerThreads()
        for _ in 0..<4 { threads.start { delays.add(Date().timeIntervalSince(started)) } }
        #expect(threads.wait(seconds: 10))
        #expect(delays.all.count == 4)
        #expect(delays.all.allSatisfy { $0 < 1 }, "\(delays.all)")
    }

    @Test("run gives each index its own thread at once: four bodies that each wait until all four have arrived all pass")
    func runIsConcurrent() {
        let arrived = NSCondition()
        let count = Delays()
        let passed = Delays()
        WorkerThreads.run(4) { _ in
            arrived.lock()
            count.add(1)
            arrived.broadcast()
            // Run one after the other, the first would wait here until the deadline.
            let deadline = Date().addingTimeInterval(10)
            while count.all.count < 4, arrived.wait(until: deadline) {}
            arrived.unlock()
            passed.add(count.all.count == 4 ? 1 : 0)
        }
        #expect(passed.all == [1, 1, 1, 1])
    }
}

private final class Delays: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Double] = []
    func add(_ value: Double) { lock.withLock { values.append(value) } }
    var all: [Double] { lock.withLock { values } }
}
