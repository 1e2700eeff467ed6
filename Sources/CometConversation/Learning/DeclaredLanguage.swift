import CometSchema

/// The words the schemas declare for people to use: each intent's verbs (`@verbs`, and the
/// words its `@phrase`s begin with), each entity's nouns (`@nouns`, its `@display` name and its
/// name) and each property's words (`@words`). Nothing here names a calendar word: a new
/// domain brings its own.
struct DeclaredLanguage: Sendable {
    /// Intents the statistical reader can choose, with their verbs as word lists.
    let verbs: [QualifiedName: [[String]]]
    /// Singular nouns per entity, as word lists ("to do").
    let nouns: [QualifiedName: [[String]]]
    /// Words per entity and property ("place", "venue" for location).
    let propertyWords: [QualifiedName: [String: [[String]]]]
    /// Verbs that ask to be reminded (`@verbs(…, reminder: true)`), per intent.
    let reminderVerbs: [QualifiedName: [[String]]]
    /// Verbs that ask whether a time is free (`@verbs(…, free: true)`), per search intent.
    let freeVerbs: [QualifiedName: [[String]]]
    /// The kinds a record of each kind is put in (what its create intent references: a
    /// calendar for an event).
    let containers: [QualifiedName: [QualifiedName]]

    init(registry: Registry) {
        var verbs: [QualifiedName: [[String]]] = [:]
        var reminderVerbs: [QualifiedName: [[String]]] = [:]
        var freeVerbs: [QualifiedName: [[String]]] = [:]
        // Words another intent of the same entity declares as its verb are its, not a phrase's
        // of this one ("make {event} last …" does not make "make" a change's verb when the
        // create declares it).
        var declaredBy: [QualifiedName: [String: Set<QualifiedName>]] = [:]
        for intent in registry.allIntents {
            guard let entity = intent.entity else { continue }
            for verb in intent.annotations.strings(named: "verbs") {
                declaredBy[entity, default: [:]][Utterance(verb).keys.joined(separator: " "), default: []].insert(intent.name)
            }
        }
        for intent in registry.allIntents where intent.action != nil {
            var lists = intent.annotations.strings(named: "verbs").map { Utterance($0).keys }
            for phrase in intent.phrases {
                guard case .text(let text)? = phrase.parts.first else { continue }
                let lead = Utterance(text).keys
                // The phrase's first word is its verb ("reschedule {event} to …").
                guard let first = lead.first else { continue }
                let owners = intent.entity.flatMap { declaredBy[$0]?[first] } ?? []
                if owners.isEmpty || owners.contains(intent.name) { lists.append([first]) }
            }
            verbs[intent.name] = DeclaredLanguage.unique(lists.filter { !$0.isEmpty })
            let reminding = intent.annotations.filter { $0.name == "verbs" && $0.labelled["reminder"] == .bool(true) }
                .flatMap { annotation in annotation.positional.compactMap { argument -> [String]? in
                    if case .string(let text) = argument { return Utterance(text).keys } else { return nil }
                } }
            if !reminding.isEmpty { reminderVerbs[intent.name] = reminding.sorted { $0.count > $1.count } }
            let asking = intent.annotations.filter { $0.name == "verbs" && $0.labelled["free"] == .bool(true) }
                .flatMap { annotation in annotation.positional.compactMap { argument -> [String]? in
                    if case .string(let text) = argument { return Utterance(text).keys } else { return nil }
                } }
            if !asking.isEmpty { freeVerbs[intent.name] = asking }
        }
        var nouns: [QualifiedName: [[String]]] = [:]
        var propertyWords: [QualifiedName: [String: [[String]]]] = [:]
        for entity in registry.allEntities {
            var lists = entity.annotations.strings(named: "nouns").map { Utterance($0).keys }
            if let display = entity.annotations.first(named: "display")?.firstString { lists.append(Utterance(display).keys) }
            lists.append(Utterance(ConversationText.words(entity.name.name)).keys)
            nouns[entity.name] = DeclaredLanguage.unique(lists.filter { !$0.isEmpty })
            var words: [String: [[String]]] = [:]
            for property in entity.properties {
                var lists = property.annotations.strings(named: "words").map { Utterance($0).keys }
                lists.append(Utterance(property.annotations.first(named: "display")?.firstString ?? ConversationText.words(property.name)).keys)
                words[property.name] = DeclaredLanguage.unique(lists.filter { !$0.isEmpty })
            }
            propertyWords[entity.name] = words
        }
        var containers: [QualifiedName: [QualifiedName]] = [:]
        for intent in registry.allIntents where intent.action == .create {
            guard let entity = intent.entity else { continue }
            for parameter in intent.parameters {
                if case .entity(let name) = parameter.type.base, name != entity { containers[entity, default: []].append(name) }
            }
        }
        self.containers = containers
        self.verbs = verbs
        self.reminderVerbs = reminderVerbs
        self.freeVerbs = freeVerbs
        self.nouns = nouns
        self.propertyWords = propertyWords
    }

    /// Every noun of every entity, singular and plural, as single keys ("to do" counts as its
    /// words): what a mention's words are not, when they only say the kind.
    func nounKeys(_ entity: QualifiedName) -> Set<String> {
        var keys = Set<String>()
        for noun in nouns[entity] ?? [] {
            keys.insert(noun.joined(separator: " "))
            keys.insert(DeclaredLanguage.plural(noun).joined(separator: " "))
        }
        return keys
    }

    /// Where the first reminder verb of `intent` is said in `keys`, longest first.
    func reminderVerb(of intent: QualifiedName, in keys: [String]) -> Range<Int>? {
        for start in keys.indices {
            for verb in reminderVerbs[intent] ?? [] where start + verb.count <= keys.count && Array(keys[start..<(start + verb.count)]) == verb {
                return start..<(start + verb.count)
            }
        }
        return nil
    }

    /// Whether `keys` say one of the search's "am I free" verbs.
    func asksFree(_ intent: QualifiedName, in keys: [String]) -> Bool {
        (freeVerbs[intent] ?? []).contains { verb in
            keys.indices.contains { start in start + verb.count <= keys.count && Array(keys[start..<(start + verb.count)]) == verb }
        }
    }

    static func plural(_ noun: [String]) -> [String] {
        guard let last = noun.last else { return noun }
        let plural: String
        if last.hasSuffix("s") || last.hasSuffix("x") || last.hasSuffix("ch") || last.hasSuffix("sh") { plural = last + "es" }
        else if last.hasSuffix("y"), let before = last.dropLast().last, !"aeiou".contains(before) { plural = last.dropLast() + "ies" }
        else { plural = last + "s" }
        return noun.dropLast() + [plural]
    }

    private static func unique(_ lists: [[String]]) -> [[String]] {
        var seen = Set<[String]>()
        return lists.filter { seen.insert($0).inserted }
    }
}
