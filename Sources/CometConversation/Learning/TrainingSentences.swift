import CometSchema
import CometText

/// What a word is to the request, as the slot tagger labels it.
enum SlotTag: String, Sendable, CaseIterable {
    /// Neither: a verb, a filler, a preposition.
    case outside = "O"
    /// Words that name the record: a new record's title, or the words of a mention.
    case name
    case person
    case place
    /// A new value for a text property ("rename the standup to sync").
    case value
}

/// One generated sentence: tokens as the reader sees them (declared words, and placeholders
/// for what varies: `<w>` for a word the schemas do not declare, `<time>` for a temporal
/// expression), the tag of each, and the class it means.
struct TrainingSentence: Sendable {
    var tokens: [String] = []
    var tags: [SlotTag] = []
    let label: String

    init(label: String) { self.label = label }

    mutating func add(_ words: [String], _ tag: SlotTag = .outside) {
        tokens += words
        tags += Array(repeating: tag, count: words.count)
    }
}

/// Generates the statistical reader's training sentences from the schemas' declarations: each
/// `@phrase` with its slots filled, and, for each intent, requests built from its verbs, its
/// entity's nouns and the parts any request of its kind can have (a name, a time, people, a
/// place, where it goes), in varied orders and with the fillers people add. The grammar words
/// here are English, not any domain's: the domain's words come from the schemas.
struct TrainingSentences {
    static let unknown = "<w>"
    static let time = "<time>"

    let registry: Registry
    let language: DeclaredLanguage
    var random: SplitMix64

    /// The class of a question about one property.
    static func questionLabel(_ entity: QualifiedName, _ property: String, only: String? = nil) -> String {
        "?" + entity.description + "." + property + (only.map { "#" + $0 } ?? "")
    }

    init(registry: Registry, language: DeclaredLanguage, seed: UInt64 = 19) {
        self.registry = registry
        self.language = language
        random = SplitMix64(seed: seed)
        let verbs = language.verbs.values.flatMap { $0 }.filter { $0.count == 1 }.map { $0[0] }
        let nouns = language.nouns.values.flatMap { $0 }.filter { $0.count == 1 }.map { $0[0] }
        ordinaryWords = Array(Set(verbs + nouns)).sorted()
        let timed = registry.allEntities.filter { $0.kind == .indexed && $0.temporalFields != nil }.map(\.name)
        primary = Set(timed.isEmpty ? registry.allEntities.filter { $0.kind == .indexed }.map(\.name) : timed)
    }

    mutating func generate(perClass: Int) -> [TrainingSentence] {
        var sentences: [TrainingSentence] = []
        for intent in registry.allIntents {
            guard let action = intent.action, let entity = intent.entity, language.verbs[intent.name] != nil else { continue }
            for phrase in intent.phrases {
                for _ in 0..<3 { sentences.append(instantiate(phrase, intent: intent)) }
            }
            for ordinal in 0..<perClass {
                if let sentence = request(intent, action: action, entity: entity, bare: primary.contains(entity), ordinal: ordinal) { sentences.append(sentence) }
            }
        }
        for entity in registry.allEntities {
            for property in entity.properties {
                // Questions that list only one case ("who declined {}") are a class of their own.
                var byCase: [String: [String]] = [:]
                for annotation in property.annotations where annotation.name == "question" && annotation.labelled["kind"] == nil {
                    guard let text = annotation.firstString else { continue }
                    if case .name(let only)? = annotation.labelled["only"] { byCase[only, default: []].append(text) }
                }
                for (only, texts) in byCase.sorted(by: { $0.key < $1.key }) {
                    let label = TrainingSentences.questionLabel(entity.name, property.name, only: only)
                    for _ in 0..<perClass { sentences.append(question(pick(texts), entity: entity.name, label: label)) }
                }
                let questions = property.annotations.filter { $0.name == "question" && $0.labelled["kind"] == nil && $0.labelled["only"] == nil }
                    .compactMap(\.firstString)
                guard !questions.isEmpty else { continue }
                let label = TrainingSentences.questionLabel(entity.name, property.name)
                // "what's the address of {}": the property asked about by one of its words.
                let asked = (language.propertyWords[entity.name]?[property.name] ?? []).flatMap { words in
                    let said = words.joined(separator: " ")
                    return ["what's the \(said) of {}", "what is the \(said) for {}", "tell me the \(said) of {}", "what's the \(said) for {}"]
                }
                for _ in 0..<perClass {
                    sentences.append(question(pick(questions + asked), entity: entity.name, label: label))
                }
            }
        }
        for _ in 0..<(perClass / 2) { sentences.append(noise()) }
        return sentences
    }

    /// The class of words about nothing the schemas know.
    static let noneLabel = "none"

    /// Requests about something else, as Snips NLU trains its None intent on noise: a verb
    /// the schemas do not declare ("order a pizza for the crew"), or a question about words
    /// they do not know ("what's the weather like out there"). English only, no domain's words.
    private mutating func noise() -> TrainingSentence {
        var sentence = TrainingSentence(label: TrainingSentences.noneLabel)
        lead(&sentence)
        let unknown = TrainingSentences.unknown
        if chance(65) {
            sentence.add([unknown] + pick([[], ["a"], ["the"], ["my"], ["some"], ["me", "a"], ["me"]]) + unknownWords())
            if chance(40) { sentence.add([pick(["for", "with", "to", "at", "on", "about", "from"])] + pick([[], ["the"], ["my"]]) + unknownWords()) }
        } else {
            sentence.add(pick([["what's"], ["what", "is"], ["how", "is"], ["how's"], ["how", "do", "i"], ["who", "is"], ["why", "is"], ["tell", "me"],
                               ["can", "i"], ["where", "can", "i"], ["is", "it"], ["what's", "a"], ["how", "much"], ["what", "does"]]))
            sentence.add(pick([[], ["the"], ["a"], ["my"], ["it"]]) + unknownWords())
            if chance(30) { sentence.add(pick([["like"], ["out", "there"], ["now"], ["today"], ["outside"], ["again"]])) }
        }
        if chance(15) { sentence.add([TrainingSentences.time]) }
        return sentence
    }

    // MARK: Pieces

    private mutating func chance(_ percent: Int) -> Bool { random.int(0...99) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }

    private mutating func lead(_ sentence: inout TrainingSentence) {
        guard chance(30) else { return }
        sentence.add(Utterance(pick(Array(Fillers.leading).sorted())).keys)
    }

    private mutating func tail(_ sentence: inout TrainingSentence) {
        guard chance(10) else { return }
        sentence.add(Utterance(pick(Array(Fillers.trailing).sorted())).keys)
    }

    private mutating func noun(_ entity: QualifiedName, plural: Bool = false) -> [String] {
        let noun = pick(language.nouns[entity] ?? [[entity.name.lowercased()]])
        return plural ? DeclaredLanguage.plural(noun) : noun
    }

    /// Words the schemas do not declare, of the lengths titles have.
    private mutating func unknownWords() -> [String] {
        Array(repeating: TrainingSentences.unknown, count: pick([1, 1, 2, 2, 2, 3, 4]))
    }

    /// A title: unknown words, sometimes with the entity's noun in it ("<w> meeting"), and
    /// sometimes with declared words in it, since titles are said in ordinary words ("call the
    /// <w>", "pick up the <w>"): a word's place, not only the word, says it is a title.
    private mutating func title(_ entity: QualifiedName) -> [String] {
        switch random.int(0...11) {
        case 0, 1: return unknownWords() + noun(entity)
        case 2: return noun(entity)
        case 3, 4:
            let words = ordinaryWords
            guard !words.isEmpty else { return unknownWords() }
            return [pick(words)] + pick([[], ["the"], ["my"], ["a"]]) + unknownWords()
        default: return unknownWords()
        }
    }

    /// Single declared words (verbs and nouns), the words titles borrow.
    private let ordinaryWords: [String]
    /// The kinds a request names without saying the kind: those with a time (events, not
    /// calendars), or every kind when none has one.
    private let primary: Set<QualifiedName>

    private mutating func timeWords() -> [String] {
        let lead = pick(["", "", "", "on", "at", "for", "this", "next", "by"])
        var words = lead.isEmpty ? [TrainingSentences.time] : [lead, TrainingSentences.time]
        if chance(15) { words += [pick(["at", "from", "in the"]), TrainingSentences.time] }
        return words
    }

    /// Before a record that exists: "the", "my", never "a" (a new one is "a meeting").
    private mutating func determiner() -> [String] {
        pick([[], ["the"], ["my"], ["my"], ["our"], ["that"], ["this"]])
    }

    /// The entities a record of `entity` is put in (what its create intent references).
    private func containers(_ entity: QualifiedName) -> [QualifiedName] { language.containers[entity] ?? [] }

    private mutating func container(_ entity: QualifiedName, _ sentence: inout TrainingSentence, preposition: [String]) {
        let kinds = containers(entity)
        let words = kinds.isEmpty ? noun(entity, plural: true) : noun(pick(kinds))
        sentence.add([pick(preposition)] + pick([["my"], ["the"], []]) + words)
    }

    /// A record named in a request: by its title, its kind, its time, or several of them. A
    /// record of a kind that is not the domain's main one is named with its noun ("the work
    /// calendar"): "delete the <w>" means the main kind.
    private mutating func mention(_ entity: QualifiedName, _ sentence: inout TrainingSentence, many: Bool = false) {
        if !primary.contains(entity) {
            sentence.add(determiner())
            if chance(50) {
                sentence.add(title(entity), .name)
                sentence.add(noun(entity))
            } else {
                sentence.add(noun(entity))
                sentence.add(unknownWords(), .name)
            }
            return
        }
        if many, chance(12) { sentence.add(pick([["all"], ["all", "my"], ["every"], ["all", "of", "my"], ["both"]])) }
        if many, chance(6) {
            // "clear everything on Friday": every record of a time.
            sentence.add(pick([["everything"], ["anything"], ["all", "events"]]) + timeWords())
            return
        }
        switch random.int(0...8) {
        case 0:
            sentence.add(determiner())
            sentence.add(noun(entity), .name)
        case 1:
            sentence.add(pick([["my"], ["the"]]) + [TrainingSentences.time])
            sentence.add(title(entity), .name)
        case 2:
            sentence.add(pick([["the", "next"], ["my", "next"], ["the", "last"], ["my", "last"], ["the", "first"]]))
            sentence.add(title(entity), .name)
        case 3:
            sentence.add(determiner())
            sentence.add(title(entity), .name)
            sentence.add(pick([["with"], ["i", "have", "with"], ["i", "had", "with"]]))
            sentence.add([TrainingSentences.unknown], .person)
        default:
            sentence.add(determiner())
            sentence.add(title(entity), .name)
        }
        if chance(35) { sentence.add(timeWords()) }
    }

    // MARK: Requests

    private mutating func request(_ intent: IntentDefinition, action: IntentAction, entity: QualifiedName, bare: Bool, ordinal: Int) -> TrainingSentence? {
        guard let verbs = language.verbs[intent.name], !verbs.isEmpty else { return nil }
        var sentence = TrainingSentence(label: intent.name.description)
        lead(&sentence)
        if action == .search, bare, chance(15) {
            // "upcoming events", "my schedule for tomorrow": a search said as what is sought.
            sentence.add(pick([[], ["my"], ["upcoming"], ["my", "upcoming"], ["latest"], ["next"], ["all", "my"]]))
            if chance(40) { sentence.add(unknownWords(), .name) }
            sentence.add(noun(entity, plural: chance(60)), .name)
            if chance(50) { sentence.add(timeWords()) }
            return sentence
        }
        // Every declared verb is said, twice over, before the rest are drawn at random: a verb
        // the draw missed would be a word the model never saw.
        sentence.add(ordinal < 2 * verbs.count ? verbs[ordinal % verbs.count] : pick(verbs))
        switch action {
        case .create:
            create(entity, bare: bare, &sentence)
        case .delete:
            if chance(10), !containers(entity).isEmpty {
                // "clear my calendar for this month": everything in what holds the records.
                sentence.add(pick([["my"], ["the"], ["my", "whole"], ["all", "of", "my"]]) + noun(pick(containers(entity))))
                if chance(60) { sentence.add(timeWords()) }
            } else {
                mention(entity, &sentence, many: true)
                if chance(25) { container(entity, &sentence, preposition: ["from", "off", "on", "in"]) }
            }
        case .open:
            mention(entity, &sentence)
        case .update:
            update(intent, entity: entity, &sentence)
        case .search:
            search(intent, entity: entity, &sentence)
        }
        tail(&sentence)
        return sentence
    }

    private mutating func create(_ entity: QualifiedName, bare: Bool, _ sentence: inout TrainingSentence) {
        var parts: [(inout TrainingSentence) -> Void] = []
        let title = self.title(entity)
        let style = bare ? random.int(0...5) : random.int(3...5)
        let noun = self.noun(entity)
        let link = pick([["called"], ["named"], ["for"], ["about"], ["titled"]])
        switch style {
        case 0, 1, 2:
            sentence.add(pick([[], [], ["a"], ["an"], ["my"], ["the"]]))
            sentence.add(title, .name)
        case 3, 4:
            sentence.add(pick([["a"], ["an"], ["a", "new"], ["an", "new"], ["the"]]) + noun + link)
            sentence.add(title, .name)
        default:
            sentence.add(pick([["a"], ["an"], ["a", "new"]] + (bare ? [["my"]] : [])))
            sentence.add(noun, .name)
        }
        let time = timeWords()
        if chance(70) { parts.append { $0.add(time) } }
        // A day and a time said apart ("on Friday … at two").
        let second = timeWords()
        if chance(25) { parts.append { $0.add(second) } }
        let person = pick([[TrainingSentences.unknown], [TrainingSentences.unknown, TrainingSentences.unknown],
                           [TrainingSentences.unknown, "and", TrainingSentences.unknown]])
        if chance(20) { parts.append { $0.add(["with"]); $0.add(person, .person) } }
        let place = pick([["at"], ["in"], ["at", "the"]])
        let placeWords = unknownWords()
        if chance(15) { parts.append { $0.add(place); $0.add(placeWords, .place) } }
        if chance(25) {
            var words = TrainingSentence(label: "")
            container(entity, &words, preposition: ["to", "on", "in"])
            parts.append { [words] in $0.add(words.tokens) }
        }
        random.shuffle(&parts)
        for part in parts { part(&sentence) }
    }

    private mutating func update(_ intent: IntentDefinition, entity: QualifiedName, _ sentence: inout TrainingSentence) {
        guard let definition = registry.entity(entity) else { return }
        let settable = intent.parameters.filter { !$0.isTarget && $0.role == nil && definition.property($0.name) != nil }
        if definition.temporalFields != nil, chance(50) || settable.isEmpty {
            mention(entity, &sentence)
            sentence.add(pick([["to"], ["to"], ["until"], ["for"], ["by"], []]) + [TrainingSentences.time])
            return
        }
        guard !settable.isEmpty else { mention(entity, &sentence); return }
        let parameter = pick(settable)
        let words = pick(language.propertyWords[entity]?[parameter.name] ?? [[parameter.name.lowercased()]])
        let tag = valueTag(parameter)
        if chance(30) {
            // "take the location off the picnic": a value cleared.
            sentence.add(["the"] + words + [pick(["of", "from", "off", "on"])])
            mention(entity, &sentence)
            return
        }
        sentence.add(["the"] + words + [pick(["of", "for", "on"])])
        mention(entity, &sentence)
        sentence.add(["to"])
        if tag == .outside { sentence.add([TrainingSentences.time]) } else { sentence.add(unknownWords(), tag) }
    }

    private func valueTag(_ parameter: ParameterDefinition) -> SlotTag {
        switch parameter.type.base {
        case .builtin(.dateTime), .builtin(.duration), .builtin(.recurrence), .builtin(.date): return .outside
        case .builtin(.place): return .place
        case .union(let name):
            let cases = registry.union(name)?.cases.map(\.type.base) ?? []
            return cases.contains(.builtin(.place)) ? .place : .value
        default: return .value
        }
    }

    private mutating func search(_ intent: IntentDefinition, entity: QualifiedName, _ sentence: inout TrainingSentence) {
        switch random.int(0...5) {
        case 0:
            sentence.add(pick([["any"], ["my"], ["all", "my"], ["the"], []]))
            sentence.add(noun(entity, plural: true), .name)
            if chance(80) { sentence.add(timeWords()) }
        case 1:
            sentence.add(timeWords())
        case 2:
            sentence.add(pick([["anything"], ["something"], ["any"], ["everything"]]))
            sentence.add(timeWords())
        case 3:
            sentence.add(pick([["any"], ["my"], ["the"], ["about"], ["for"], []]))
            sentence.add(title(entity), .name)
            if chance(50) { sentence.add(timeWords()) }
        case 4:
            sentence.add(pick([["the", "next"], ["my", "next"], ["upcoming"], ["my", "upcoming"]]))
            sentence.add(noun(entity, plural: chance(50)), .name)
        default:
            sentence.add(timeWords())
            sentence.add(pick([["any"], ["my"]]))
            sentence.add(noun(entity, plural: true), .name)
        }
        if chance(20) { container(entity, &sentence, preposition: ["on", "in"]) }
    }

    mutating func question(_ template: String, entity: QualifiedName, label: String) -> TrainingSentence {
        var sentence = TrainingSentence(label: label)
        lead(&sentence)
        for (index, piece) in template.components(separatedBy: "{}").enumerated() {
            if index > 0 { mention(entity, &sentence) }
            sentence.add(Utterance(piece).keys)
        }
        return sentence
    }

    /// A declared phrase with its slots filled as people fill them.
    mutating func instantiate(_ phrase: Phrase, intent: IntentDefinition) -> TrainingSentence {
        var sentence = TrainingSentence(label: intent.name.description)
        lead(&sentence)
        let entity = intent.entity
        let titleName = entity.flatMap(registry.entity)?.titleProperty?.name
        for part in phrase.parts {
            switch part {
            case .text(let text):
                sentence.add(Utterance(text).keys)
            case .parameter(let name):
                guard let parameter = intent.parameter(name) else { continue }
                if parameter.isTarget, case .entity(let target) = parameter.type.base {
                    mention(target, &sentence)
                } else if case .entity = parameter.type.base {
                    sentence.add(unknownWords())
                } else if name == titleName || parameter.role == .text {
                    sentence.add(entity.map { title($0) } ?? unknownWords(), intent.action == .update ? .value : .name)
                } else {
                    let tag = valueTag(parameter)
                    if tag == .outside { sentence.add([TrainingSentences.time]) } else { sentence.add(unknownWords(), tag) }
                }
            }
        }
        tail(&sentence)
        return sentence
    }
}
