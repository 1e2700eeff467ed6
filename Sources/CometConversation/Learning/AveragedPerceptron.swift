import CometText

/// A greedy left-to-right sequence tagger with averaged perceptron weights: the statistical
/// reader's slot tagger. Each word's tag is scored from the words around it, the tag before
/// it and the intent the sentence was read as; averaging the weights over every update keeps
/// the model from following the last examples it saw.
struct AveragedPerceptron: Sendable {
    let tags: [String]
    private var weights: [String: [Float]] = [:]
    /// For averaging: the running total of each weight, and when it last changed.
    private var totals: [String: [Float]] = [:]
    private var stamps: [String: [Int]] = [:]
    private var clock = 0

    init(tags: [String]) { self.tags = tags }

    /// The tag of every word. `context` is added to every word's features (the intent).
    func tag(_ words: [String], context: String) -> [Int] {
        var result: [Int] = []
        for position in words.indices {
            let features = AveragedPerceptron.features(words, position, previous: result.last.map { tags[$0] } ?? "^", context: context)
            result.append(best(features))
        }
        return result
    }

    mutating func train(_ examples: [(words: [String], tags: [Int], context: String)], epochs: Int, seed: UInt64) {
        var order = Array(examples.indices)
        var random = SplitMix64(seed: seed)
        for _ in 0..<epochs {
            random.shuffle(&order)
            for index in order {
                let example = examples[index]
                var previous = "^"
                for position in example.words.indices {
                    clock += 1
                    let features = AveragedPerceptron.features(example.words, position, previous: previous, context: example.context)
                    let guess = best(features)
                    let truth = example.tags[position]
                    if guess != truth {
                        for feature in features {
                            update(feature, tag: truth, by: 1)
                            update(feature, tag: guess, by: -1)
                        }
                    }
                    previous = tags[truth]
                }
            }
        }
        // Average: each weight becomes its mean over every step of training.
        for (feature, vector) in weights {
            var averaged = vector
            for tag in tags.indices {
                let total = totals[feature]![tag] + Float(clock - stamps[feature]![tag]) * vector[tag]
                averaged[tag] = total / Float(max(clock, 1))
            }
            weights[feature] = averaged
        }
        totals = [:]
        stamps = [:]
    }

    private func best(_ features: [String]) -> Int {
        var scores = Array(repeating: Float(0), count: tags.count)
        for feature in features {
            guard let vector = weights[feature] else { continue }
            for tag in tags.indices { scores[tag] += vector[tag] }
        }
        var best = 0
        for tag in tags.indices where scores[tag] > scores[best] { best = tag }
        return best
    }

    private mutating func update(_ feature: String, tag: Int, by change: Float) {
        if weights[feature] == nil {
            weights[feature] = Array(repeating: 0, count: tags.count)
            totals[feature] = Array(repeating: 0, count: tags.count)
            stamps[feature] = Array(repeating: 0, count: tags.count)
        }
        totals[feature]![tag] += Float(clock - stamps[feature]![tag]) * weights[feature]![tag]
        stamps[feature]![tag] = clock
        weights[feature]![tag] += change
    }

    static func features(_ words: [String], _ position: Int, previous: String, context: String) -> [String] {
        func word(_ offset: Int) -> String {
            let index = position + offset
            if index < 0 { return "^" }
            if index >= words.count { return "$" }
            return words[index]
        }
        let here = word(0)
        return [
            "b", "w=" + here, "p=" + word(-1), "n=" + word(1), "pp=" + word(-2), "nn=" + word(2),
            "pw=" + word(-1) + "|" + here, "wn=" + here + "|" + word(1), "t=" + previous, "tw=" + previous + "|" + here,
            "c=" + context, "cw=" + context + "|" + here, "cp=" + context + "|" + word(-1), "ct=" + context + "|" + previous,
        ]
    }
}
