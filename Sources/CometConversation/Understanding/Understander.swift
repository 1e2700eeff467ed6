import Foundation
import CometSchema
import CometIntents

/// What an utterance asks for, before the dialog gives "it" and "the third one" a meaning.
struct Draft: Sendable {
    enum Slot: Sendable, Hashable {
        case value(Value)
        case cleared
        /// A DateTime said in words; what it means depends on the record it moves.
        case time(TemporalResolution)
        case mention(Mention)
    }

    let intent: IntentDefinition
    var slots: [String: Slot]
    /// The DateTime parameter the words set last: what a correction ("actually 11:30") revises.
    var timeParameter: String?
    /// The words each slot was read from, as said; a slot the phrase itself sets (`clear:`, a
    /// constant) has none. What `Interpretation` shows, so it is never re-derived.
    var sourceWords: [String: Utterance] = [:]
    /// Words that only said the kind of record a search is about ("any appointments"): shown
    /// in the interpretation, asked for by nothing.
    var kindWords: Utterance?
    /// A sentence the reply adds, from the schema (`@reminder(said:)`).
    var saidAfter: String?
    /// A search asked as "am I free …?": answered yes or no, with what is in the way.
    var asksFree = false
    /// A search for "my next …": answered with the first match only.
    var nextOnly = false
    /// Array parameters whose values are added to what the record has, not put in its place
    /// (an alarm added by "remind me about …").
    var appends: [String] = []
    /// Time expressions said and put in no slot ("tomorrow afternoon" as a new event's start):
    /// the interpretation shows them and the reply says so.
    var unusedTimes: [Utterance] = []
}

/// A question one property answers (`@question("where is {}")`), about a mentioned entity or,
/// without one, the entity in focus.
struct QuestionDraft: Sendable {
    let entity: EntityDefinition
    let property: PropertyDefinition
    let annotation: Annotation
    let mention: Mention?
    /// The words that named the entity asked about, as said.
    var mentionWords: Utterance? = nil
}

enum Reading: Sendable {
    case request(Draft)
    case question(QuestionDraft)
    case undo
    case redo
}

/// Reads utterances through the schemas' phrases and questions. Deterministic: the most
/// specific pattern (most fixed words; then as declared) whose every slot reads as its
/// parameter's type wins. Entity slots other than an intent's target must name something that
/// exists, so "move it to my Deep Space calendar" is a calendar and "move it to Lab 3" a place.
final class Understander {
    let registry: Registry
    let engine: IntentEngine
    let book: PhraseBook
    var parser: TemporalParser
    /// Lookups made while reading one utterance, by entity and text.
    private var lookups: [String: EntityLookup] = [:]
    /// Why the statistical reader's reading of the last utterance was not taken, if it was
    /// not: its class, how sure it was, and the reason. What "I didn't understand" can name.
    private(set) var refusal: Refusal?
    /// The statistical reader's model, looked up once: the process-wide cache is keyed by the
    /// whole registry, too costly to hash on every word read.
    lazy var model: StatisticalModel = StatisticalModel.shared(for: registry)

    struct Refusal: Sendable {
        enum Reason: String, Sendable {
            /// Less sure than the threshold.
            case unsure
            /// Read as being about something the schemas do not know.
            case elsewhere
            /// Too many words it could not place.
            case unplaced
            /// The class alone, with nothing read from the words.
            case empty
        }
        let label: String
        let probability: Double
        let reason: Reason
    }
    /// What "it" and "the third one" can mean now, from the dialog: a reading that points at
    /// an entity of another kind is not the one meant ("rename it" with an event in focus is
    /// not a calendar's rename).
    var focusEntity: QualifiedName?
    var listedEntities: Set<QualifiedName> = []

    init(registry: Registry, engine: IntentEngine, book: PhraseBook, parser: TemporalParser) {
        self.registry = registry
        self.engine = engine
        self.book = book
        self.parser = parser
    }

    static let undoWords: [[String]] = [["undo"], ["undo", "that"], ["undo", "it"], ["undo", "the", "last", "change"], ["undo", "my", "last", "change"],
                                        ["take", "that", "back"], ["revert", "that"], ["put", "it", "back"]]
    static let redoWords: [[String]] = [["redo"], ["redo", "that"], ["redo", "it"], ["do", "it", "again"]]

    /// The reading of a request or question; nil when nothing in the schemas matches. With
    /// `strict`, a target named by words must match something in the store (the second pass,
    /// not strict, still finds the phrase so the reply can say what was not found).
    func read(_ utterance: Utterance) -> Reading? { readTelling(utterance)?.reading }

    /// The reading, and whether it held strictly: false when only the second pass found it
    /// (a target named by words that matches nothing in the store).
    func readTelling(_ utterance: Utterance) -> (reading: Reading, strict: Bool)? {
        readFully(utterance).map { ($0.reading, $0.strict) }
    }

    /// A reading and how it was made: by a declared phrase (strictly, or only leniently: a
    /// record it names was not found), or by the statistical reader, with its frame.
    struct Found {
        let reading: Reading
        let strict: Bool
        var frame: StatisticalFrame? = nil
    }

    /// Declared phrases first, word for word; then, for what they do not cover, the
    /// statistical reader, when it is sure enough. A phrase that matched only leniently (a
    /// record it names is not there) still wins over a statistical reading of the same intent,
    /// so its reply can say what was not found and suggest a spelling.
    func readFully(_ utterance: Utterance, statistical: Bool = true) -> Found? {
        lookups = [:]
        refusal = nil
        let words = utterance.droppingLeading(Fillers.leading, keeping: model.verbsBeginningWithFillers).droppingTrailing(Fillers.trailing)
        guard !words.isEmpty else { return nil }
        if Understander.undoWords.contains(words.keys) { return Found(reading: .undo, strict: true) }
        if Understander.redoWords.contains(words.keys) { return Found(reading: .redo, strict: true) }
        if let found = readWithTrailingChoice(words) { return Found(reading: found.reading, strict: found.strict) }
        if let reading = readPatterns(words, strict: true) ?? readJoined(words) { return Found(reading: reading, strict: true) }
        let lenient = readPatterns(words, strict: false)
        guard statistical, let frame = readFrame(words) else { return lenient.map { Found(reading: $0, strict: false) } }
        func refuse(_ reason: Refusal.Reason) -> Found? {
            refusal = Refusal(label: frame.label, probability: frame.probability, reason: reason)
            return lenient.map { Found(reading: $0, strict: false) }
        }
        // Sure enough: likely enough outright, or clearly ahead of the next class (probability is
        // spread over many classes, so a clear lead counts too).
        let lead = frame.probability >= Understander.leadingThreshold && frame.probability >= 1.5 * (frame.runnerUp?.probability ?? 0)
            || frame.verbFirst && frame.probability >= Understander.verbBackedThreshold && frame.probability >= 1.5 * (frame.runnerUp?.probability ?? 0)
        guard frame.probability >= Understander.statisticalThreshold || lead else { return refuse(.unsure) }
        guard let reading = reading(frame, words) else { return refuse(.elsewhere) }
        if let lenient, looksLikeTitle(lenient) {
            let same = Understander.sameIntent(lenient, reading)
            if same ? Understander.namesByWordsAlone(reading) : frame.probability < Understander.overridesPhrase {
                return Found(reading: lenient, strict: false)
            }
        }
        // Words it could not place, a third of the request or more: not about what the schemas know.
        guard frame.unaccounted < 2 || frame.unaccounted * 3 < words.words.count else { return refuse(.unplaced) }
        // A class alone, said with little else ("cancel", "set a reminder"), asks for the rest;
        // one the reader is unsure of needs something in the words too: a slot, the kind, or a
        // verb its intent declares ("I want to add something to my calendar" asks what).
        guard frame.probability >= 0.6 || frame.verbSaid || Understander.saysSomething(reading) else { return refuse(.empty) }
        // A question the reader is unsure of, about words that name nothing: more likely about
        // something else ("what's the weather like") than a record not there.
        if frame.probability < 0.6, case .question(let question) = reading, case .text(let text)? = question.mention,
           case .notFound = lookup(question.entity.name, text) {
            return refuse(.elsewhere)
        }
        return Found(reading: reading, strict: true, frame: frame)
    }

    /// Whether the words a lenient phrase took as a record's name hold a word the schemas do
    /// not declare: "the harpsichord recital" is a title not found, "my upcoming events" is not
    /// a title at all.
    private func looksLikeTitle(_ reading: Reading) -> Bool {
        let text: String
        switch reading {
        case .request(let draft):
            guard let target = draft.intent.targetParameter, case .mention(.text(let words))? = draft.slots[target.name] else { return true }
            text = words
        case .question(let question):
            guard case .text(let words)? = question.mention else { return true }
            text = words
        default:
            return true
        }
        return Utterance(text).keys.contains { model.token($0) == TrainingSentences.unknown }
    }

    /// Whether the statistical reader found anything in the words beyond the class: a slot, a
    /// record, the kind. A class alone ("move", "what's the weather like") is not a request.
    private static func saysSomething(_ reading: Reading) -> Bool {
        switch reading {
        case .request(let draft): return !draft.sourceWords.isEmpty || draft.kindWords != nil
        case .question(let question): return question.mention != nil
        default: return true
        }
    }

    /// How sure the statistical reader must be to take a request of another intent than a
    /// phrase that matched only leniently ("make a repeating reminder for …" is not a change
    /// of an event called "a repeating reminder").
    static let overridesPhrase = 0.6

    /// Whether a reading names its record by plain words only, as a phrase does.
    private static func namesByWordsAlone(_ reading: Reading) -> Bool {
        switch reading {
        case .request(let draft):
            guard let target = draft.intent.targetParameter else { return true }
            if case .mention(.description)? = draft.slots[target.name] { return false }
            if case .mention(.time)? = draft.slots[target.name] { return false }
            return true
        case .question(let question):
            if case .description? = question.mention { return false }
            if case .time? = question.mention { return false }
            return true
        default:
            return true
        }
    }

    private static func sameIntent(_ left: Reading, _ right: Reading) -> Bool {
        switch (left, right) {
        case (.request(let a), .request(let b)): return a.intent.name == b.intent.name
        case (.question(let a), .question(let b)): return a.property.name == b.property.name && a.entity.name == b.entity.name
        default: return false
        }
    }

    /// "delete the standup, only this one": a clause after the last pause that answers one of
    /// the intent's enum parameters the rest left unset, by a case's name or its `@spoken` or
    /// `@display` words (the rule the engine's own prompts use).
    private func readWithTrailingChoice(_ words: Utterance) -> (reading: Reading, strict: Bool)? {
        guard let pause = words.words.indices.dropLast().last(where: { words.words[$0].pauseAfter }) else { return nil }
        let tail = words[(pause + 1)..<words.words.count].keyText
        let answered = registry.allEnums.filter { $0.enumCase(answering: tail) != nil }
        guard !answered.isEmpty else { return nil }
        let head = words[0..<(pause + 1)]
        let strictHead = readPatterns(head, strict: true)
        guard case .request(var draft)? = strictHead ?? readPatterns(head, strict: false) else { return nil }
        for parameter in draft.intent.parameters where draft.slots[parameter.name] == nil {
            guard case .enumeration(let name) = parameter.type.base, let definition = answered.first(where: { $0.name == name }),
                  let chosen = definition.enumCase(answering: tail) else { continue }
            draft.slots[parameter.name] = .value(.enumCase(chosen.name))
            draft.sourceWords[parameter.name] = words[(pause + 1)..<words.words.count]
            return (.request(draft), strictHead != nil)
        }
        return nil
    }

    /// "change this to repeat weekly and move it to my Deep Space calendar": two requests of
    /// one intent on one target, said as one update.
    private func readJoined(_ words: Utterance) -> Reading? {
        for (index, word) in words.words.enumerated() where word.key == "and" && index > 0 && index < words.words.count - 1 {
            guard case .request(let first)? = readPatterns(words[0..<index], strict: true),
                  case .request(let second)? = readPatterns(words[(index + 1)..<words.words.count].droppingLeading(["also", "then"]), strict: true),
                  first.intent.name == second.intent.name else { continue }
            var merged = first
            for (name, slot) in second.slots {
                if name == first.intent.targetParameter?.name, case .mention(.focus) = slot, merged.slots[name] != nil { continue }
                merged.slots[name] = slot
                merged.sourceWords[name] = second.sourceWords[name]
            }
            merged.timeParameter = second.timeParameter ?? first.timeParameter
            return .request(merged)
        }
        return nil
    }

    private func readPatterns(_ words: Utterance, strict: Bool) -> Reading? {
        let keys = words.keys
        for pattern in book.patterns {
            for match in PhraseBook.matches(pattern.elements, keys) {
                switch pattern.source {
                case .intent(let intent, let phrase):
                    if let draft = draft(intent, phrase: phrase, pattern: pattern.elements, match: match, words: words, strict: strict) {
                        return .request(draft)
                    }
                case .question(let entity, let property, let annotation):
                    guard let range = match[""] else {
                        return .question(QuestionDraft(entity: entity, property: property, annotation: annotation, mention: nil))
                    }
                    guard let mention = mention(words[range], of: entity.name),
                          !strict || isKnown(mention, entity: entity.name) else { continue }
                    return .question(QuestionDraft(entity: entity, property: property, annotation: annotation, mention: mention, mentionWords: words[range]))
                }
            }
        }
        return nil
    }

    /// One pattern read strictly: the request it makes of the words, if it matches them.
    func readPattern(_ pattern: PhraseBook.Pattern, _ words: Utterance) -> Reading? {
        guard case .intent(let intent, let phrase) = pattern.source else { return nil }
        lookups = [:]
        for match in PhraseBook.matches(pattern.elements, words.keys) {
            if let draft = draft(intent, phrase: phrase, pattern: pattern.elements, match: match, words: words, strict: true) { return .request(draft) }
        }
        return nil
    }

    private func draft(_ intent: IntentDefinition, phrase: Phrase, pattern: [PhraseBook.Element], match: PhraseBook.Match,
                       words: Utterance, strict: Bool) -> Draft? {
        var draft = Draft(intent: intent, slots: [:], timeParameter: nil)
        for (name, value) in phrase.constants { draft.slots[name] = .value(value) }
        for name in phrase.clears { draft.slots[name] = .cleared }
        for (index, element) in pattern.enumerated() {
            guard case .slot(let name) = element, let range = match[name], let parameter = intent.parameter(name) else { continue }
            let lead = leadIn(pattern, before: index)
            guard var slot = readSlot(words[range], parameter: parameter, intent: intent, lead: lead, strict: strict) else { return nil }
            // "schedule Tea for tomorrow afternoon": a new record starts at the start of a part of
            // one day, said in the reply, as the statistical reader does; it does not last it.
            if intent.action == .create, name == intent.entity.flatMap(registry.entity)?.temporalFields?.start,
               case .time(.range(let start, let end)) = slot, !Understander.saysRange(words[range]),
               let from = start.instant, let to = end.instant, to.timeIntervalSince(from) <= 86_400 {
                slot = .time(.instant(start))
                draft.saidAfter = "It starts at the start of “\(words[range].text)”; say a time to change it."
            }
            draft.slots[name] = slot
            draft.sourceWords[name] = words[range]
            if case .time = slot { draft.timeParameter = name }
        }
        return draft
    }

    /// The fixed words before a slot, other slots said as "it": "push it out" before "by an
    /// hour", so a shift the parser knows only with its verb still reads.
    private func leadIn(_ pattern: [PhraseBook.Element], before index: Int) -> String {
        pattern[..<index].map { element -> String in
            if case .word(let word) = element { return word }
            return "it"
        }.joined(separator: " ")
    }

    // MARK: Slots

    func readSlot(_ words: Utterance, parameter: ParameterDefinition, intent: IntentDefinition, lead: String = "", strict: Bool = true) -> Draft.Slot? {
        let type = parameter.type
        guard !words.isEmpty, !type.isArray else { return nil }
        let isTitle = parameter.name == intent.entity.flatMap(registry.entity)?.titleProperty?.name
        // "create an event called Dentist": the title is what follows "called".
        if isTitle, words.words.count > 1, Understander.namingWords.contains(words.words[0].key) {
            return readSlot(words.dropping(first: 1), parameter: parameter, intent: intent, lead: lead, strict: strict)
        }
        // "remind me to defrost the freezer on sunday at noon": a new title does not end in a time.
        if isTitle, intent.action == .create, words.words.count > 1,
           timeSpans(words).contains(where: { $0.range.upperBound == words.words.count && $0.range.lowerBound > 0 }) {
            return nil
        }
        // "add tennis to my calendar on saturday": nor in where it goes (the statistical reader
        // reads it, with the title cut there).
        if isTitle, intent.action == .create, let entity = intent.entity,
           droppingContainer(0..<words.words.count, words, entity: entity) != 0..<words.words.count {
            return nil
        }
        switch type.base {
        case .entity(let name):
            guard registry.entity(name)?.kind == .indexed, let mention = mention(words, of: name) else { return nil }
            if parameter.isTarget {
                if strict, !isKnown(mention, entity: name) { return nil }
            } else {
                // Other references must exist, and only words can name them.
                guard case .text(let text) = mention, case .found = lookup(name, text) else { return nil }
            }
            return .mention(mention)
        case .builtin(.dateTime):
            guard let resolution = time(words.text, lead: lead) else { return nil }
            // "move the standup on Friday to 10" is a move to 10, not to the range "Friday to 10".
            if intent.action == .update, parameter.role == nil, case .range = resolution, Understander.splitsAsMove(words) { return nil }
            switch resolution {
            case .recurrence, .recurrenceEnd: return nil
            case .duration where parameter.role != nil || intent.entity.flatMap(registry.entity)?.temporalFields?.end != parameter.name: return nil
            default: return .time(resolution)
            }
        case .builtin(.recurrence):
            guard let resolution = time(words.text, lead: lead), case .recurrence(let rule) = resolution else { return nil }
            return rule.map { .value(.recurrence($0)) } ?? .cleared
        case .builtin(.duration):
            guard let resolution = time(words.text, lead: lead), case .duration(let duration) = resolution else { return nil }
            return .value(.duration(duration))
        default:
            return value(words, type: type).map(Draft.Slot.value)
        }
    }

    /// A value of a simple type said in words: text as written, numbers, yes/no, enum cases by
    /// name, `@display` or `@spoken` words, and unions through their text case.
    func value(_ words: Utterance, type: TypeExpression) -> Value? {
        switch type.base {
        case .builtin(.string):
            let text = words.text.trimmingCharacters(in: CharacterSet(charactersIn: "\"“”'"))
            return text.isEmpty ? nil : .string(text)
        case .builtin(.int):
            return Int(words.keyText).map(Value.int)
        case .builtin(.bool):
            if ["yes", "true", "on", "done"].contains(words.keyText) { return .bool(true) }
            if ["no", "false", "off", "not done"].contains(words.keyText) { return .bool(false) }
            return nil
        case .builtin(.url):
            guard words.words.count == 1, let url = URL(string: words.words[0].text), url.scheme != nil else { return nil }
            return .url(url)
        case .enumeration(let name):
            return enumCase(words, of: name).map(Value.enumCase)
        case .union(let name):
            guard let union = registry.union(name), let textCase = union.cases.first(where: { $0.type.base == .builtin(.string) }) else { return nil }
            // "move it to 11:30": words that read as a time are not a place's name.
            if time(words.text) != nil { return nil }
            return value(words, type: textCase.type).map { .union(textCase.name, $0) }
        default:
            return nil
        }
    }

    /// The case whose words are said, exactly or as the longest phrase inside the answer
    /// ("just this one, please").
    func enumCase(_ words: Utterance, of name: QualifiedName) -> String? {
        guard let enumeration = registry.enumeration(name) else { return nil }
        let said = " " + words.keyText + " "
        var best: (name: String, length: Int)?
        for enumCase in enumeration.cases {
            let spellings = [enumCase.name.lowercased(), ConversationText.words(enumCase.name)] + enumCase.phrases
            for spelling in spellings {
                let key = Utterance(spelling).keyText
                guard !key.isEmpty, said.contains(" " + key + " ") else { continue }
                if key == words.keyText { return enumCase.name }
                if best.map({ key.count > $0.length }) ?? true { best = (enumCase.name, key.count) }
            }
        }
        return best?.name
    }

    /// Words that introduce a name: "an event called Dentist".
    static let namingWords: Set<String> = ["called", "named", "titled"]

    /// A range said as "DAY to TIME" with no "from" or "between" before it: in a move, the day
    /// belongs to the record moved and the time after "to" is where it goes.
    static func splitsAsMove(_ words: Utterance) -> Bool {
        let keys = words.keys
        guard let link = keys.firstIndex(where: { newTimeLinks.contains($0) }), link > 0, link < keys.count - 1 else { return false }
        return !keys[..<link].contains { ["from", "between"].contains($0) }
    }

    // MARK: Time and mentions

    /// A temporal expression, read as said and then after the words that introduced it.
    func time(_ text: String, lead: String = "") -> TemporalResolution? {
        if let resolution = try? parser.parse(text) { return resolution }
        guard !lead.isEmpty else { return nil }
        return try? parser.parse(lead + " " + text)
    }

    func mention(_ words: Utterance, of entity: QualifiedName) -> Mention? {
        MentionReader.read(words, nouns: nouns(entity)) { [parser] text in try? parser.parse(text) }
    }

    /// What people call an entity: its `@display` name and its name, in lower case.
    func nouns(_ entity: QualifiedName) -> Set<String> {
        let noun = engine.noun(entity, count: 1)
        return [noun, noun + "s", entity.name.lowercased()]
    }

    private func isKnown(_ mention: Mention, entity: QualifiedName) -> Bool {
        switch mention {
        case .focus: return focusEntity == nil || focusEntity == entity
        case .ordinal: return listedEntities.isEmpty || listedEntities.contains(entity)
        case .text(let text):
            if case .notFound = lookup(entity, text) { return false }
            return true
        case .time, .id, .description: return true
        }
    }

    func lookup(_ entity: QualifiedName, _ text: String) -> EntityLookup {
        let key = entity.description + "\u{1F}" + text.lowercased()
        if let known = lookups[key] { return known }
        let found = engine.lookup(entity, text: text)
        lookups[key] = found
        return found
    }
}

enum ConversationText {
    /// "startDate" → "start date", as the engine's dialogs say it.
    static func words(_ identifier: String) -> String { IntentEngine.words(identifier) }

    /// "a, b and c".
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
