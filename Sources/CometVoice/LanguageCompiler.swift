import Foundation
import CometSchema
import CometText
import CometConversation

/// What a compile made, and what it could not use.
public struct LanguageReport: Sendable, Hashable {
    /// Sentences the model was estimated from.
    public let sentences: Int
    /// Words in the dictionary.
    public let words: Int
    /// Words with no pronunciation in the dictionary and no spelling made of known words, with
    /// how many generated sentences were left out because of each. They cannot be heard.
    public let unpronounceable: [String: Int]
    /// Words said as other words: "stargazing" as "star gazing", "7" as "seven". The recognizer
    /// hears the spelling.
    public let respelled: [String: [String]]
    public let seconds: Double

    /// {sentences, words, seconds, unpronounceable: {word: sentences dropped}, respelled: {word: [words]}}.
    public var json: JSONValue {
        .object(JSONObject([
            ("sentences", .int(sentences)), ("words", .int(words)), ("seconds", .double(Hearing.rounded(seconds))),
            ("unpronounceable", .object(JSONObject(unpronounceable.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.int($0.value)) }))),
            ("respelled", .object(JSONObject(respelled.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.array($0.value.map(JSONValue.string))) }))),
        ]))
    }
}

/// A language compiled for the recognizer: its files and the report of how it was made.
public struct CompiledLanguage: Sendable, Hashable {
    public let files: LanguageFiles
    public let report: LanguageReport
}

/// Compiles the recognizer's language from what CometCal knows: sentences generated from the
/// schemas' declarations (`SpokenLanguage`), their name placeholders filled with the store's
/// titles, people and places, their time placeholders with spoken temporal expressions, the
/// dialog's own turns (yes, no, undo, …); a Witten-Bell trigram estimated from them
/// (`NGramModel`) and a dictionary of the words used, from cmudict.
public struct LanguageCompiler: Sendable {
    public let pronunciations: Pronunciations
    /// Generated requests per intent and question class.
    public var perClass = 60
    /// How many times each generated sentence is filled in, with other names and times.
    public var fills = 3
    /// How many times each declared phrase and question is filled in, and the weight of each.
    public var declaredFills = 20
    public var declaredWeight = 1.0
    /// The weight of each sentence of the statistical reader's.
    public var generatedWeight = 0.3
    /// The seed of every random choice: the same inputs give the same files.
    public var seed: UInt64 = 24
    /// The longest n-grams of the model.
    public var order = 3
    /// The decoder settings the language is heard with (`DecoderSettings.compiled`).
    public var decoderSettings = DecoderSettings.compiled

    public init(pronunciations: Pronunciations) { self.pronunciations = pronunciations }

    /// Writes `language.lm` (ARPA), `language.dict` and `sentences.txt` (what the model was
    /// estimated from, each with its weight) into `folder` (made if missing).
    public func compile(registry: Registry, store: StoreWords, folder: String) throws(VoiceError) -> CompiledLanguage {
        let started = Date()
        var random = SplitMix64(seed: seed)
        var spelling = Speller(pronunciations: pronunciations)
        var model = NGramModel(order: order)
        var sentences = 0
        var corpus = ""
        func add(_ words: [String], weight: Double = 1) {
            guard let said = spelling.say(words) else { return }
            model.add(said, weight: weight)
            sentences += 1
            corpus += String(format: "%.2f ", weight) + said.joined(separator: " ") + "\n"
        }

        let titles = store.titles.map(SpokenLanguage.words).filter { !$0.isEmpty }
        let people = store.people.map(SpokenLanguage.words).filter { !$0.isEmpty }
        let places = store.places.map(SpokenLanguage.words).filter { !$0.isEmpty }
        // A title is named whole, or by one of its words ("the lunch" for "Crew Lunch").
        let titleParts = titles.flatMap { title in title.count > 1 ? title.map { [$0] } : [] }
        let firstNames = people.compactMap { $0.count > 1 ? [$0[0]] : nil }
        let times = SpokenLanguage.timeExpressions(count: 600, seed: seed)

        func name(_ tag: String) -> [String] {
            switch tag {
            case "person" where !people.isEmpty: return random.int(0...2) == 0 && !firstNames.isEmpty ? random.pick(firstNames) : random.pick(people)
            case "place" where !places.isEmpty: return random.pick(places)
            default:
                if titles.isEmpty { return people.isEmpty ? [] : random.pick(people) }
                return random.int(0...3) == 0 && !titleParts.isEmpty ? random.pick(titleParts) : random.pick(titles)
            }
        }
        func fill(_ sentence: SpokenLanguage.Sentence) -> [String] {
            var words: [String] = []
            var index = 0
            while index < sentence.tokens.count {
                let token = sentence.tokens[index]
                if token == SpokenLanguage.nameToken {
                    // A run of placeholders is one name.
                    var end = index
                    while end + 1 < sentence.tokens.count, sentence.tokens[end + 1] == SpokenLanguage.nameToken, sentence.tags[end + 1] == sentence.tags[index] { end += 1 }
                    words += name(sentence.tags[index])
                    index = end + 1
                    continue
                }
                words += token == SpokenLanguage.timeToken ? random.pick(times) : [token]
                index += 1
            }
            return words
        }

        // The declared patterns weigh most: they are how the schemas say people talk. The
        // statistical reader's sentences (other orders, fillers) widen it at a lower weight.
        for sentence in SpokenLanguage.declaredSentences(registry: registry, times: declaredFills, seed: seed) { add(fill(sentence), weight: declaredWeight) }
        for sentence in SpokenLanguage.sentences(registry: registry, perClass: perClass, seed: seed) {
            for _ in 0..<fills where generatedWeight > 0 { add(fill(sentence), weight: generatedWeight) }
        }
        // The dialog's own turns, and answers to its questions: a time, a name, a correction,
        // a choice among an enumeration's cases ("just this one", "the whole series": each
        // case's `@display` and `@spoken` phrases, as the reader takes them).
        for turn in SpokenLanguage.dialogTurns { add(turn, weight: 4) }
        for enumeration in registry.allEnums {
            for enumCase in enumeration.cases {
                for phrase in enumCase.phrases { add(SpokenLanguage.words(phrase), weight: 2) }
            }
        }
        let around = SpokenLanguage.aroundWords
        for _ in 0..<(perClass * 4) {
            let time = random.pick(times)
            add(time)
            add([random.pick(["at", "on", "to", "for", "by"])] + time)
            add(random.pick(around.corrections) + time)
            add([random.pick(["no", "yes", "actually"])] + random.pick(around.corrections) + time)
        }
        for title in titles + people + places {
            add(title, weight: 2)
            add(["the"] + title, weight: 2)
            add(random.pick(around.corrections) + ["the"] + title)
        }
        for lead in around.leading { add(lead + ["what's", "on"] + random.pick(times), weight: 0.5) }

        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let files = LanguageFiles(languageModel: folder + "/language.lm", dictionary: folder + "/language.dict", settings: decoderSettings)
            // The sentences with their weights, for a person asking why a word is (not) heard.
            try corpus.write(toFile: folder + "/sentences.txt", atomically: true, encoding: .utf8)
            try model.arpa().write(toFile: files.languageModel, atomically: true, encoding: .utf8)
            let vocabulary = model.vocabulary.filter { $0 != NGramModel.start && $0 != NGramModel.end }
            let dictionary = vocabulary.flatMap(pronunciations.entries).joined(separator: "\n") + "\n"
            try dictionary.write(toFile: files.dictionary, atomically: true, encoding: .utf8)
            let report = LanguageReport(sentences: sentences, words: vocabulary.count, unpronounceable: spelling.missing,
                                        respelled: spelling.respelled, seconds: Date().timeIntervalSince(started))
            return CompiledLanguage(files: files, report: report)
        } catch {
            throw VoiceError(.language, place: folder, "cannot write the compiled language: \(error.localizedDescription)")
        }
    }

    /// Compiles on a background thread and hands the result to `done` there, so a turn is never
    /// kept waiting for a rebuild.
    public func compileInBackground(registry: Registry, store: StoreWords, folder: String,
                                    done: @escaping @Sendable (Result<CompiledLanguage, VoiceError>) -> Void) {
        let compiler = self
        DispatchQueue.global(qos: .utility).async {
            done(Result { () throws(VoiceError) -> CompiledLanguage in try compiler.compile(registry: registry, store: store, folder: folder) })
        }
    }
}

/// Words as the dictionary can say them, remembering what it could not say and what it said
/// as other words.
struct Speller {
    let pronunciations: Pronunciations
    var missing: [String: Int] = [:]
    var respelled: [String: [String]] = [:]
    private var known: [String: [String]?] = [:]

    init(pronunciations: Pronunciations) { self.pronunciations = pronunciations }

    /// The sentence in words the dictionary has, or nil (counted) when a word has no spelling.
    mutating func say(_ words: [String]) -> [String]? {
        var said: [String] = []
        var unsayable: [String] = []
        // A generated piece may hold several words in one token ("in the").
        for word in words.flatMap({ $0.split(separator: " ").map(String.init) }) {
            let spelled: [String]?
            if let cached = known[word] { spelled = cached } else {
                spelled = pronunciations.spelling(of: word)
                known[word] = spelled
                if let spelled, spelled != [word] { respelled[word] = spelled }
            }
            if let spelled { said += spelled } else { unsayable.append(word) }
        }
        for word in unsayable { missing[word, default: 0] += 1 }
        return unsayable.isEmpty && !said.isEmpty ? said : nil
    }
}
