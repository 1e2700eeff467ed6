import Foundation
import CometText

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
            random.shuffle(&order)
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
