import Foundation

/// Monotonic nanoseconds (CLOCK_MONOTONIC): not affected by clock adjustments.
enum Stopwatch {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Runs `body` and returns its result with the time it took in nanoseconds.
    static func time<T>(_ body: () throws -> T) rethrows -> (T, UInt64) {
        let start = now()
        let result = try body()
        return (result, now() - start)
    }
}

/// The timings of one scenario (or reference): one sample per operation, with how many rows or
/// results the operation produced and an optional tag to break the numbers down by
/// ("single" / "series", "in window" / "outside window").
struct Measurement {
    struct Sample {
        let nanoseconds: UInt64
        let rows: Int
        let tag: String?
    }

    private(set) var samples: [Sample] = []

    init() {}

    mutating func add(_ nanoseconds: UInt64, rows: Int = 1, tag: String? = nil) {
        samples.append(Sample(nanoseconds: nanoseconds, rows: rows, tag: tag))
    }

    var summary: Summary { Summary(samples.map(\.nanoseconds)) }

    /// Mean rows per operation.
    var meanRows: Double {
        samples.isEmpty ? 0 : Double(samples.reduce(0) { $0 + $1.rows }) / Double(samples.count)
    }

    /// The summary of each tag, in order of first appearance (empty when there are no tags or one).
    var byTag: [(tag: String, summary: Summary, meanRows: Double)] {
        var order: [String] = []
        var groups: [String: [Sample]] = [:]
        for sample in samples {
            guard let tag = sample.tag else { continue }
            if groups[tag] == nil { order.append(tag) }
            groups[tag, default: []].append(sample)
        }
        guard order.count > 1 else { return [] }
        return order.map { tag in
            let group = groups[tag] ?? []
            let rows = group.isEmpty ? 0 : Double(group.reduce(0) { $0 + $1.rows }) / Double(group.count)
            return (tag, Summary(group.map(\.nanoseconds)), rows)
        }
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
