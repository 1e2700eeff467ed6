/// A small, fast, seeded PRNG (Steele, Lea & Flood's SplitMix64). Every draw the benchmark and
/// the conversation's training make goes through it, with our own range mapping and shuffle, so
/// one seed gives the same data and the same model on every machine and toolchain (the standard
/// library's `random(in:using:)` mapping and `shuffle(using:)` are not promised stable).
public struct SplitMix64 {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// A generator for one named purpose, independent of which other purposes ran before it:
    /// `SplitMix64(seed: 7, stream: "agenda-month")` gives the same months whatever scenarios run.
    public init(seed: UInt64, stream: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in stream.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        state = seed ^ hash
        _ = next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let high = next().multipliedFullWidth(by: span).high
        return range.lowerBound + Int(high)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// True with probability `probability` (0…1).
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        items[int(0...(items.count - 1))]
    }

    /// One of `choices`, each drawn with its relative weight.
    public mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var roll = int(0...(total - 1))
        for (value, weight) in choices {
            if roll < weight { return value }
            roll -= weight
        }
        return choices[choices.count - 1].0
    }

    /// The items in an order drawn from this generator (Fisher–Yates).
    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(index, int(0...index))
        }
    }
}
