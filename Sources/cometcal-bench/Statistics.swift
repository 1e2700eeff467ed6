import Foundation

/// Clocks: wall time (CLOCK_MONOTONIC, not affected by clock adjustments) and the CPU time of
/// this thread (CLOCK_THREAD_CPUTIME_ID). Wall time is what a person waits; CPU time leaves out
/// waiting for the disk and for other processes, which tells work from contention on a shared
/// machine.
enum Stopwatch {
    static func now() -> UInt64 {
        read(CLOCK_MONOTONIC)
    }

    static func cpuNow() -> UInt64 {
        read(CLOCK_THREAD_CPUTIME_ID)
    }

    /// CPU time of the whole process, every thread (a server in this process and its client).
    static func processCPUNow() -> UInt64 {
        read(CLOCK_PROCESS_CPUTIME_ID)
    }

    private static func read(_ clock: clockid_t) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Runs `body` and returns its result with its wall and CPU nanoseconds. The CPU clock is
    /// read outside the wall-clock window, so its (system call) cost does not count as wall time.
    static func time<T>(_ body: () throws -> T) rethrows -> (T, Timing) {
        let cpuStart = cpuNow()
        let start = now()
        let result = try body()
        let end = now()
        let cpuEnd = cpuNow()
        return (result, Timing(wall: end - start, cpu: cpuEnd - cpuStart))
    }
}

/// The time one operation took.
struct Timing {
    let wall: UInt64
    let cpu: UInt64
}

/// The timings of one scenario (or reference): one sample per operation, with how many rows or
/// results the operation produced and an optional tag to break the numbers down by
/// ("single" / "series", "in window" / "outside window").
struct Measurement {
    struct Sample {
        /// Wall-clock nanoseconds.
        let nanoseconds: UInt64
        let cpuNanoseconds: UInt64
        let rows: Int
        let tag: String?
    }

    private(set) var samples: [Sample] = []

    init() {}

    mutating func add(_ timing: Timing, rows: Int = 1, tag: String? = nil) {
        samples.append(Sample(nanoseconds: timing.wall, cpuNanoseconds: timing.cpu, rows: rows, tag: tag))
    }

    /// Wall-clock statistics.
    var summary: Summary { Summary(samples.map(\.nanoseconds)) }

    /// CPU-time statistics of the same operations.
    var cpuSummary: Summary { Summary(samples.map(\.cpuNanoseconds)) }

    /// Mean rows per operation.
    var meanRows: Double {
        samples.isEmpty ? 0 : Double(samples.reduce(0) { $0 + $1.rows }) / Double(samples.count)
    }

    /// The samples of each tag, in order of first appearance (empty when there are no tags or one).
    var byTag: [(tag: String, measurement: Measurement)] {
        var order: [String] = []
        var groups: [String: Measurement] = [:]
        for sample in samples {
            guard let tag = sample.tag else { continue }
            if groups[tag] == nil { order.append(tag) }
            groups[tag, default: Measurement()].samples.append(sample)
        }
        guard order.count > 1 else { return [] }
        return order.map { ($0, groups[$0] ?? Measurement()) }
    }

    /// The samples from `range` (by position), e.g. each tenth of a seeding.
    func slice(_ range: Range<Int>) -> Measurement {
        var part = Measurement()
        part.samples = Array(samples[range])
        return part
    }
}

/// Order statistics of a set of timings, in milliseconds. Percentiles use the nearest-rank
/// method (p99 of 1,000 samples is the 990th fastest), so every reported value was observed.
struct Summary {
    let count: Int
    let min: Double
    let p50: Double
    let p90: Double
    let p99: Double
    let max: Double
    let mean: Double
    let total: Double

    init(_ nanoseconds: [UInt64]) {
        let sorted = nanoseconds.sorted().map { Double($0) / 1_000_000 }
        count = sorted.count
        func rank(_ quantile: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((quantile * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        min = sorted.first ?? 0
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = sorted.last ?? 0
        total = sorted.reduce(0, +)
        mean = sorted.isEmpty ? 0 : total / Double(sorted.count)
    }
}
