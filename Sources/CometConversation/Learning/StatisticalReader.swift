import Foundation
import CometSchema
import CometText

/// A temporal expression found inside an utterance: the words it covers and what it means.
struct TimeSpan: Sendable, Hashable {
    let range: Range<Int>
    let resolution: TemporalResolution
}

/// How the statistical reader read an utterance: the class it chose and how sure it is, the
/// class it nearly chose, each word's tag, and the time expressions in it.
struct StatisticalFrame: Sendable {
    let label: String
    let probability: Double
    let runnerUp: (label: String, probability: Double)?
    /// One per word of the utterance read.
    let tags: [SlotTag]
    let times: [TimeSpan]
    /// Words neither declared nor read as anything: many of them mean the request is about
    /// something the schemas do not know ("what's the weather like out there").
    let unaccounted: Int
    /// Whether a verb the chosen class's intent declares was said ("add … to my calendar"):
    /// the words ask for that intent even when they say nothing else.
    var verbSaid = false
    /// Whether the first verb said is one the chosen class's intent declares ("add the
    /// following to my calendar"): the request's own verb backs the class.
    var verbFirst = false

    /// The same reading taken as another class (an open of many is a search).
    func relabelled(_ label: String) -> StatisticalFrame {
        StatisticalFrame(label: label, probability: probability, runnerUp: runnerUp, tags: tags, times: times, unaccounted: unaccounted,
                         verbSaid: verbSaid, verbFirst: verbFirst)
    }

    /// The same reading with its time expressions cut otherwise ("on Friday to 10" as two).
    func with(times: [TimeSpan]) -> StatisticalFrame {
        StatisticalFrame(label: label, probability: probability, runnerUp: runnerUp, tags: tags, times: times, unaccounted: unaccounted,
                         verbSaid: verbSaid, verbFirst: verbFirst)
    }

    /// Stretches of words with one tag, in order (time expressions are never among them).
    func spans(_ tag: SlotTag) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start: Int?
        for index in 0...tags.count {
            let same = index < tags.count && tags[index] == tag
            if same, start == nil { start = index }
            if !same, let first = start { spans.append(first..<index); start = nil }
        }
        return spans
    }
}

extension Understander {
    /// The probability under which a statistical reading is not taken: the reply then says
    /// it did not understand, and names the closest reading.
    static let statisticalThreshold = 0.35
    /// Below the threshold, a reading at least this likely is taken when it is at least 1.5
    /// times as likely as the next.
    static let leadingThreshold = 0.2
    /// Lower still when the request's first verb is one the class's intent declares, and the
    /// class is 1.5 times as likely as the next: the verb said names the intent.
    static let verbBackedThreshold = 0.1

    /// Reads `words` with the model trained from the schemas' declarations: the class, then
    /// the tags. Nil when no word of it is one the schemas declare (nothing to go on).
    func readFrame(_ words: Utterance) -> StatisticalFrame? {
        let times = timeSpans(words)
        var tokens: [String] = []
        var positions: [Int] = []  // token → first word
        var declared = 0
        var index = 0
        var spanIndex = 0
        while index < words.words.count {
            if spanIndex < times.count, times[spanIndex].range.lowerBound == index {
                tokens.append(TrainingSentences.time)
                positions.append(index)
                index = times[spanIndex].range.upperBound
                spanIndex += 1
                continue
            }
            let token = model.token(words.words[index].key)
            if token != TrainingSentences.unknown, !Fillers.leading.contains(token), !Fillers.trailing.contains(token) { declared += 1 }
            tokens.append(token)
            positions.append(index)
            index += 1
        }
        guard declared > 0 else { return nil }
        let features = model.intentFeatures(tokens)
        var probabilities = model.classifier.probabilities(features)
        let keys = words.keys
        var ranked = probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }.filter { model.allows(model.classifier.classes[$0], keys) }
        guard !ranked.isEmpty else { return nil }
        // Noise never names the domain's kinds, nor says one of its verbs of three words or more:
        // a request that says "meeting" or "let me know of" is not about something else,
        // whatever else it says. The rest are read as likely given that.
        if model.classifier.classes[ranked[0]] == TrainingSentences.noneLabel,
           tokens.contains(where: model.nouns.contains) || model.saysLongVerb(tokens), ranked.count > 1 {
            let noise = probabilities[ranked[0]]
            ranked.removeFirst()
            probabilities = probabilities.map { $0 / max(1 - noise, 1e-6) }
        }
        let label = model.classifier.classes[ranked[0]]
        let tagged = model.tagger.tag(tokens, context: StatisticalModel.context(label))
        var tags = Array(repeating: SlotTag.outside, count: words.words.count)
        for (token, tag) in tagged.enumerated() where tokens[token] != TrainingSentences.time {
            tags[positions[token]] = SlotTag(rawValue: model.tagger.tags[tag]) ?? .outside
        }
        let runnerUp = ranked.count > 1 ? (model.classifier.classes[ranked[1]], Double(probabilities[ranked[1]])) : nil
        let unaccounted = tagged.indices.filter { tokens[$0] == TrainingSentences.unknown && tags[positions[$0]] == .outside }.count
        return StatisticalFrame(label: label, probability: Double(probabilities[ranked[0]]), runnerUp: runnerUp, tags: tags, times: times,
                                unaccounted: unaccounted, verbSaid: features.contains("v:" + label),
                                verbFirst: features.contains("v1:" + label))
    }

    /// The time expressions in `words`, longest first from the left, never overlapping
    /// (the parser's extractor: words around an expression are left to the rest of the reading).
    func timeSpans(_ words: Utterance) -> [TimeSpan] {
        parser.extract(from: words.words.map(\.text)).map { TimeSpan(range: $0.range, resolution: $0.resolution) }
    }
}

extension StatisticalModel {
    /// A word as the model knows it: a declared word as itself, anything else as `<w>`.
    func token(_ key: String) -> String {
        if vocabulary.contains(key) { return key }
        return folded(key) ?? TrainingSentences.unknown
    }

    /// A typo of a declared word: the same word without its apostrophe ("wheres", "whos"),
    /// two letters swapped in a short word ("teh"), or one edit in a long one ("remidn").
    /// Titles are read from the words as said; only the reading of the request uses this.
    private func folded(_ key: String) -> String? {
        guard key.count >= 3, key.allSatisfy({ $0.isLetter || $0 == "'" }) else { return nil }
        if let apostrophe = apostropheless[key] { return apostrophe }
        let characters = Array(key)
        for word in sortedVocabulary where abs(word.count - key.count) <= 1 && word.first?.isLetter == true {
            if key.count < 5 {
                guard word.count == key.count, Array(word).sorted() == characters.sorted(), EditDistance.distance(word, key) == 1 else { continue }
                return word
            }
            if word.count >= 5, EditDistance.distance(word, key) == 1 { return word }
        }
        return nil
    }
}
