import Foundation

/// A multinomial logistic regression over sparse binary features, trained by stochastic
/// gradient descent: the statistical reader's intent classifier. Small, deterministic (the
/// order of examples comes from a seeded generator) and fast to apply: a reading costs one
/// weight lookup per feature and class.
struct LogisticRegression: Sendable {
    let classes: [String]
    private var featureIndex: [String: Int] = [:]
    /// Feature-major: the weights of feature f are at f * classes.count ..< (f + 1) * classes.count.
    private var weights: [Float] = []
    private var bias: [Float]

    init(classes: [String]) {
        self.classes = classes
        bias = Array(repeating: 0, count: classes.count)
    }

    /// Trains on (features, class index) pairs: `epochs` passes, each in a shuffled order.
    mutating func train(_ examples: [(features: [String], label: Int)], epochs: Int, learningRate: Float, seed: UInt64) {
        let encoded = examples.map { example in (example.features.map { index(of: $0) }, example.label) }
        var order = Array(encoded.indices)
        var random = SplitMix64(seed: seed)
        let width = classes.count
        for epoch in 0..<epochs {
            order.shuffle(using: &random)
            let rate = learningRate / (1 + Float(epoch) * 0.5)
            for position in order {
                let (features, label) = encoded[position]
                let probabilities = softmax(scores(features))
                for klass in 0..<width {
                    let gradient = (klass == label ? 1 : 0) - probabilities[klass]
                    guard abs(gradient) > 1e-4 else { continue }
                    let step = rate * gradient
                    bias[klass] += step
                    for feature in features { weights[feature * width + klass] += step }
                }
            }
        }
    }

    /// The probability of each class for these features; unknown features weigh nothing.
    func probabilities(_ features: [String]) -> [Float] {
        softmax(scores(features.compactMap { featureIndex[$0] }))
    }

    private func scores(_ features: [Int]) -> [Float] {
        var scores = bias
        let width = classes.count
        for feature in features {
            let base = feature * width
            for klass in 0..<width { scores[klass] += weights[base + klass] }
        }
        return scores
    }

    private func softmax(_ scores: [Float]) -> [Float] {
        let top = scores.max() ?? 0
        let exponentials = scores.map { exp($0 - top) }
        let total = exponentials.reduce(0, +)
        return exponentials.map { $0 / total }
    }

    private mutating func index(of feature: String) -> Int {
        if let known = featureIndex[feature] { return known }
        let next = featureIndex.count
        featureIndex[feature] = next
        weights += Array(repeating: 0, count: classes.count)
        return next
    }
}

/// A small, fast, seeded generator, so that training gives the same model on every machine.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
