import Foundation

/// A back-off n-gram model (a trigram unless told) estimated from sentences with Witten-Bell
/// discounting, interpolated (as SRILM's `-wbdiscount -interpolate`), written in the ARPA format pocketsphinx reads. The
/// unigrams are interpolated with a uniform distribution over the vocabulary, so every word of
/// the dictionary has a probability.
struct NGramModel {
    static let start = "<s>"
    static let end = "</s>"

    /// The longest n-grams counted.
    let order: Int
    /// Counts of n-grams, by order (1…`order`), each key the words joined by a space.
    private var counts: [[String: Double]]

    init(order: Int = 3) {
        self.order = max(2, order)
        counts = Array(repeating: [:], count: self.order)
    }

    /// Adds a sentence `weight` times.
    mutating func add(_ words: [String], weight: Double = 1) {
        let padded = [NGramModel.start] + words + [NGramModel.end]
        for index in 1..<padded.count {
            for order in 1...self.order where index - order + 1 >= 0 {
                counts[order - 1][padded[(index - order + 1)...index].joined(separator: " "), default: 0] += weight
            }
        }
        counts[0][NGramModel.start, default: 0] += weight
    }

    var vocabulary: [String] { counts[0].keys.sorted() }

    /// The ARPA text.
    func arpa() -> String {
        // Every sum runs in one order (sorted), not a dictionary's, which changes from run to
        // run: floating-point sums in another order could print another last digit.
        let vocabulary = counts[0].keys.filter { $0 != NGramModel.start }.sorted()
        let vocabularySize = Double(vocabulary.count)
        let total = vocabulary.reduce(0.0) { $0 + (counts[0][$1] ?? 0) }

        // Each context's count and its number of distinct followers (Witten-Bell's T).
        func contexts(_ order: Int) -> [String: (count: Double, types: Double)] {
            var table: [String: (count: Double, types: Double)] = [:]
            for (gram, count) in counts[order - 1].sorted(by: { $0.key < $1.key }) {
                guard let space = gram.lastIndex(of: " ") else { continue }
                let context = String(gram[..<space])
                let old = table[context] ?? (0, 0)
                table[context] = (old.count + count, old.types + 1)
            }
            return table
        }
        var probability: [[String: Double]] = Array(repeating: [:], count: order)
        // Unigrams: interpolated with 1/V.
        let unigramLambda = total / (total + vocabularySize)
        for word in vocabulary {
            probability[0][word] = unigramLambda * (counts[0][word] ?? 0) / total + (1 - unigramLambda) / vocabularySize
        }
        func lower(_ gram: [Substring]) -> Double {
            let shorter = gram.dropFirst().joined(separator: " ")
            if let known = probability[gram.count - 2][shorter] { return known }
            // A shorter n-gram never seen: back off further (only its unigram is certain).
            return backedOff(Array(gram.dropFirst()))
        }
        var backoff: [[String: Double]] = Array(repeating: [:], count: order - 1)
        func backedOff(_ gram: [Substring]) -> Double {
            if gram.count == 1 { return probability[0][String(gram[0])] ?? 0 }
            let context = gram.dropLast().joined(separator: " ")
            return (backoff[gram.count - 2][context] ?? 1) * backedOff(Array(gram.dropFirst()))
        }
        for order in 2...self.order {
            let table = contexts(order)
            for (gram, count) in counts[order - 1] {
                let words = gram.split(separator: " ")
                let context = words.dropLast().joined(separator: " ")
                guard let (contextCount, types) = table[context] else { continue }
                let lambda = contextCount / (contextCount + types)
                probability[order - 1][gram] = lambda * count / contextCount + (1 - lambda) * lower(words)
            }
            // Each context's back-off weight: the mass left over, over the lower order's mass of
            // the words never seen after it.
            var seenMass: [String: (here: Double, lower: Double)] = [:]
            for (gram, value) in probability[order - 1].sorted(by: { $0.key < $1.key }) {
                let words = gram.split(separator: " ")
                let context = words.dropLast().joined(separator: " ")
                let old = seenMass[context] ?? (0, 0)
                seenMass[context] = (old.here + value, old.lower + lower(words))
            }
            for (context, mass) in seenMass {
                let left = max(1e-12, 1 - mass.here), lowerLeft = max(1e-12, 1 - mass.lower)
                backoff[order - 2][context] = left / lowerLeft
            }
        }

        var text = "\\data\\\n"
        let sizes = [vocabulary.count + 1] + probability.dropFirst().map(\.count)
        for order in 1...self.order { text += "ngram \(order)=\(sizes[order - 1])\n" }
        func log10(_ value: Double) -> String { String(format: "%.6f", Foundation.log10(max(value, 1e-99))) }
        text += "\n\\1-grams:\n"
        text += "-99.000000 \(NGramModel.start) \(log10(backoff[0][NGramModel.start] ?? 1))\n"
        for word in vocabulary.sorted() {
            text += "\(log10(probability[0][word] ?? 0)) \(word)"
            if let weight = backoff[0][word] { text += " \(log10(weight))" }
            text += "\n"
        }
        for order in 2...self.order {
            text += "\n\\\(order)-grams:\n"
            for gram in probability[order - 1].keys.sorted() {
                text += "\(log10(probability[order - 1][gram] ?? 0)) \(gram)"
                if order < self.order, let weight = backoff[order - 1][gram] { text += " \(log10(weight))" }
                text += "\n"
            }
        }
        text += "\n\\end\\\n"
        return text
    }
}
