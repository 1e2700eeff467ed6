import Foundation
import CometSchema

/// The statistical reader's model: an intent classifier and a slot tagger, trained from the
/// sentences the schemas' declarations generate. Trained once per set of schemas in a process
/// (a conversation, a daemon's many conversations and `cometcal understand` share it), and
/// only when a reading needs it.
final class StatisticalModel: Sendable {
    let language: DeclaredLanguage
    /// Every word the generated sentences use: any other word reads as `<w>`.
    let vocabulary: Set<String>
    let classifier: LogisticRegression
    let tagger: AveragedPerceptron

    /// Sentences generated per class; with the phrases, enough for every verb and frame to
    /// appear many times, few enough to train in well under a second in a release build.
    static let sentencesPerClass = 220

    init(registry: Registry) {
        language = DeclaredLanguage(registry: registry)
        var generator = TrainingSentences(registry: registry, language: language)
        let sentences = generator.generate(perClass: StatisticalModel.sentencesPerClass)
        var vocabulary = Set<String>()
        for sentence in sentences { vocabulary.formUnion(sentence.tokens) }
        vocabulary.remove(TrainingSentences.unknown)
        vocabulary.remove(TrainingSentences.time)
        self.vocabulary = vocabulary

        var classes: [String] = []
        var classIndex: [String: Int] = [:]
        for sentence in sentences where classIndex[sentence.label] == nil {
            classIndex[sentence.label] = classes.count
            classes.append(sentence.label)
        }
        var classifier = LogisticRegression(classes: classes)
        classifier.train(sentences.map { (StatisticalModel.intentFeatures($0.tokens), classIndex[$0.label]!) },
                         epochs: 8, learningRate: 0.1, seed: 5)
        self.classifier = classifier

        let tags = SlotTag.allCases.map(\.rawValue)
        var tagger = AveragedPerceptron(tags: tags)
        tagger.train(sentences.map { sentence in
            (sentence.tokens, sentence.tags.map { tag in tags.firstIndex(of: tag.rawValue)! }, StatisticalModel.context(sentence.label))
        }, epochs: 5, seed: 7)
        self.tagger = tagger
    }

    /// What the tagger is told about the sentence: its class's action, so "to 3pm" after a
    /// move and "Lunch" after an add are read in their light.
    static func context(_ label: String) -> String { label }

    static func intentFeatures(_ tokens: [String]) -> [String] {
        var features: [String] = []
        features.reserveCapacity(tokens.count * 2 + 3)
        for (index, token) in tokens.enumerated() {
            features.append("u:" + token)
            if index + 1 < tokens.count { features.append("b:" + token + " " + tokens[index + 1]) }
        }
        if let first = tokens.first { features.append("f:" + first) }
        if tokens.count > 1 { features.append("f2:" + tokens[0] + " " + tokens[1]) }
        if let last = tokens.last { features.append("l:" + last) }
        return features
    }

    // MARK: One model per set of schemas

    private static let lock = NSLock()
    nonisolated(unsafe) private static var models: [[DomainDefinition]: StatisticalModel] = [:]

    static func shared(for registry: Registry) -> StatisticalModel {
        lock.lock()
        defer { lock.unlock() }
        if let model = models[registry.domains] { return model }
        let model = StatisticalModel(registry: registry)
        models[registry.domains] = model
        return model
    }
}
