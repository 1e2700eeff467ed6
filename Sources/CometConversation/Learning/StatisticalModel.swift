import Foundation
import CometSchema
import CometText

/// The statistical reader's model: an intent classifier and a slot tagger, trained from the
/// sentences the schemas' declarations generate. Trained once per set of schemas in a process
/// (a conversation, a daemon's many conversations and `cometcal understand` share it), and
/// only when a reading needs it.
final class StatisticalModel: Sendable {
    let language: DeclaredLanguage
    /// Every word the generated sentences use: any other word reads as `<w>`.
    let vocabulary: Set<String>
    /// The vocabulary in order (typo folding picks the first near word, the same on every run).
    let sortedVocabulary: [String]
    /// "wheres" → "where's".
    let apostropheless: [String: String]
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
        sortedVocabulary = vocabulary.sorted()
        var apostropheless: [String: String] = [:]
        for word in sortedVocabulary where word.contains("'") { apostropheless[word.replacingOccurrences(of: "'", with: "")] = word }
        self.apostropheless = apostropheless

        var classes: [String] = []
        var classIndex: [String: Int] = [:]
        for sentence in sentences where classIndex[sentence.label] == nil {
            classIndex[sentence.label] = classes.count
            classes.append(sentence.label)
        }
        var verbPhrases: [String: [(words: [String], intent: String)]] = [:]
        for (intent, lists) in language.verbs {
            for words in lists where !words.isEmpty { verbPhrases[words[0], default: []].append((words, intent.description)) }
        }
        // Longest first, then by intent: the same order on every run, so sums add up alike.
        for key in verbPhrases.keys {
            verbPhrases[key]!.sort { ($0.words.count, $1.intent) > ($1.words.count, $0.intent) }
        }
        self.verbPhrases = verbPhrases
        verbsBeginningWithFillers = verbPhrases.values.flatMap { $0.map(\.words) }.filter { words in
            words.count > 1 && (Fillers.leading.contains(words[0]) || Fillers.leading.contains(words[0] + " " + words[1]))
        }.sorted { $0.joined(separator: " ") < $1.joined(separator: " ") }
        var nouns = Set<String>()
        for entity in language.nouns.keys { nouns.formUnion(language.nounKeys(entity).filter { !$0.contains(" ") }) }
        self.nouns = nouns
        var labelEntity: [String: QualifiedName] = [:]
        for intent in registry.allIntents { if let entity = intent.entity { labelEntity[intent.name.description] = entity } }
        for entity in registry.allEntities {
            for property in entity.properties {
                labelEntity[TrainingSentences.questionLabel(entity.name, property.name)] = entity.name
                for annotation in property.annotations where annotation.name == "question" {
                    if case .name(let only)? = annotation.labelled["only"] {
                        labelEntity[TrainingSentences.questionLabel(entity.name, property.name, only: only)] = entity.name
                    }
                }
            }
        }
        self.labelEntity = labelEntity
        let timed = registry.allEntities.filter { $0.kind == .indexed && $0.temporalFields != nil }.map(\.name)
        primary = Set(timed.isEmpty ? registry.allEntities.filter { $0.kind == .indexed }.map(\.name) : timed)
        var classifier = LogisticRegression(classes: classes)
        classifier.train(sentences.map { (StatisticalModel.intentFeatures($0.tokens, verbs: verbPhrases, nouns: nouns), classIndex[$0.label]!) },
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

    /// The declared verbs by their first word, longest first, with the intent declaring each.
    let verbPhrases: [String: [(words: [String], intent: String)]]

    /// Declared verbs that begin with a leading filler ("let me know about"): read whole, not
    /// with the filler dropped.
    let verbsBeginningWithFillers: [[String]]

    /// Every entity's one-word nouns, singular and plural.
    let nouns: Set<String>
    /// The entity each class is about.
    let labelEntity: [String: QualifiedName]
    /// The kinds a request may be about without naming them (as in `TrainingSentences`).
    let primary: Set<QualifiedName>

    /// Whether a class may be chosen for these words: a kind that is not the domain's main one
    /// must be named, and not only as where something goes ("add swim practice to my
    /// calendar" is about an event, not a calendar).
    func allows(_ label: String, _ keys: [String]) -> Bool {
        guard let entity = labelEntity[label], !primary.contains(entity) else { return true }
        let nouns = language.nounKeys(entity)
        let places: Set<String> = ["to", "on", "in", "from", "off", "into", "onto"]
        return keys.indices.contains { index in
            guard nouns.contains(keys[index]) else { return false }
            var before = index - 1
            while before >= 0, ["my", "the", "your", "our", "whole"].contains(keys[before]) { before -= 1 }
            return before < 0 || !places.contains(keys[before])
        }
    }

    /// Whether a declared verb of three words or more is said ("tell me more about"): words as
    /// much the domain's own as its nouns.
    func saysLongVerb(_ tokens: [String]) -> Bool {
        tokens.indices.contains { index in
            (verbPhrases[tokens[index]] ?? []).contains { candidate in
                candidate.words.count >= 3 && index + candidate.words.count <= tokens.count
                    && Array(tokens[index..<(index + candidate.words.count)]) == candidate.words
            }
        }
    }

    func intentFeatures(_ tokens: [String]) -> [String] { StatisticalModel.intentFeatures(tokens, verbs: verbPhrases, nouns: nouns) }

    /// Words and word pairs, the first words, and which intents declare the verbs said: "v:"
    /// for every declared verb phrase found (longest at each place), "v1:" for the first. The
    /// verb's owner generalises across the verbs of one intent, so "get rid of" and "scrap"
    /// weigh alike.
    static func intentFeatures(_ tokens: [String], verbs: [String: [(words: [String], intent: String)]], nouns: Set<String>) -> [String] {
        var features: [String] = []
        features.reserveCapacity(tokens.count * 2 + 6)
        // Whether anything declared is said at all: what tells a request from noise.
        if tokens.contains(where: nouns.contains) { features.append("has:noun") }
        if tokens.contains(TrainingSentences.time) { features.append("has:time") }
        var index = 0
        var first = true
        while index < tokens.count {
            // "my schedule", "the plan": after a determiner a verb's word is a noun; so is a
            // word that is both, said after other words ("my work schedule"), unless what comes
            // before leads to a verb ("can you schedule", "I need to plan").
            let nounHere = index > 0 && nouns.contains(tokens[index]) && !StatisticalModel.verbLeads.contains(tokens[index - 1])
            guard index == 0 || !["my", "the", "your", "our", "this", "that", "a", "an"].contains(tokens[index - 1]), !nounHere,
                  let candidates = verbs[tokens[index]],
                  let length = candidates.first(where: { index + $0.words.count <= tokens.count && Array(tokens[index..<(index + $0.words.count)]) == $0.words })?.words.count else {
                index += 1
                continue
            }
            for candidate in candidates where candidate.words.count == length && Array(tokens[index..<(index + length)]) == candidate.words {
                features.append("v:" + candidate.intent)
                if first { features.append("v1:" + candidate.intent) }
            }
            first = false
            index += length
        }
        if !first { features.append("has:verb") }
        features.sort()
        for (index, token) in tokens.enumerated() {
            features.append("u:" + token)
            if index + 1 < tokens.count { features.append("b:" + token + " " + tokens[index + 1]) }
        }
        if let first = tokens.first { features.append("f:" + first) }
        if tokens.count > 1 { features.append("f2:" + tokens[0] + " " + tokens[1]) }
        if let last = tokens.last { features.append("l:" + last) }
        return features
    }

    /// Words after which a word that is both a verb and a noun is the verb.
    static let verbLeads: Set<String> = ["to", "and", "then", "also", "you", "i", "we", "let's", "lets", "please", "can", "could", "will",
                                         "would", "should", "must", "just", "me", "us"]

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
