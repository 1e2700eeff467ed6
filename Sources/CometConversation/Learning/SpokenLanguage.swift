import CometSchema
import CometText

/// What a recognizer's language is compiled from, as the conversation layer knows it: sentences
/// generated from the schemas' declarations (the statistical reader's own training sentences,
/// with placeholders for names and times), the words that answer the dialog's questions, and
/// temporal expressions as people say them, composed from the temporal grammar's lexicon. It
/// holds no domain's words: those come from the schemas and the store.
public enum SpokenLanguage {
    /// A word the schemas do not declare (a title, a name, a place) stands here.
    public static let nameToken = TrainingSentences.unknown
    /// A temporal expression stands here.
    public static let timeToken = TrainingSentences.time

    /// One generated sentence: its tokens, and what each placeholder stands for (name, person,
    /// place, value, or "O" for a declared word or a time).
    public struct Sentence: Sendable, Hashable {
        public let tokens: [String]
        public let tags: [String]
    }

    /// The training sentences of the statistical reader, `perClass` per class, drawn with `seed`.
    public static func sentences(registry: Registry, perClass: Int, seed: UInt64 = 19) -> [Sentence] {
        var generator = TrainingSentences(registry: registry, language: DeclaredLanguage(registry: registry), seed: seed)
        return generator.generate(perClass: perClass).map { Sentence(tokens: $0.tokens, tags: $0.tags.map(\.rawValue)) }
    }

    /// The schemas' own patterns, each filled `times` times: every intent's `@phrase` and every
    /// property's `@question`, as the deterministic reader matches them word for word.
    public static func declaredSentences(registry: Registry, times: Int, seed: UInt64 = 19) -> [Sentence] {
        var generator = TrainingSentences(registry: registry, language: DeclaredLanguage(registry: registry), seed: seed)
        var sentences: [TrainingSentence] = []
        for intent in registry.allIntents {
            for phrase in intent.phrases {
                for _ in 0..<times { sentences.append(generator.instantiate(phrase, intent: intent)) }
            }
        }
        for entity in registry.allEntities {
            for property in entity.properties {
                for annotation in property.annotations where annotation.name == "question" {
                    guard let template = annotation.firstString else { continue }
                    for _ in 0..<times { sentences.append(generator.question(template, entity: entity.name, label: "")) }
                }
            }
        }
        return sentences.map { Sentence(tokens: $0.tokens, tags: $0.tags.map(\.rawValue)) }
    }

    /// Whole turns the dialog reads without the schemas: yes and no (alone and with a
    /// correction lead-in), undo, redo, help, a correction's lead-ins, pronouns and ordinals
    /// that point at records, and the fillers said around a request.
    public static var dialogTurns: [[String]] {
        var turns = Answers.yes + Answers.no + Understander.undoWords + Understander.redoWords
        turns += Conversation.helpWords.sorted().map { Utterance($0).keys }
        turns += MentionReader.pronouns
        turns += MentionReader.ordinals.keys.filter { word in word.allSatisfy(\.isLetter) }.sorted().map { ["the", $0, "one"] }
        return turns.filter { !$0.isEmpty }
    }

    /// Words said before or after a request, and the lead-ins of corrections and answers.
    public static var aroundWords: (leading: [[String]], trailing: [[String]], corrections: [[String]]) {
        (Fillers.leading.sorted().map { Utterance($0).keys }, Fillers.trailing.sorted().map { Utterance($0).keys },
         (Corrections.leadIns.union(Answers.valueLeadIns)).sorted().map { Utterance($0).keys })
    }

    /// The words of `text` as the conversation reads them (lower case, punctuation apart from
    /// apostrophes dropped): what a recognizer must be able to say back.
    public static func words(_ text: String) -> [String] { Utterance(text).keys }

    /// Whether `text` answers yes (true), no (false) or neither (nil), as the dialog reads an
    /// answer to its questions. "no, make it 1pm" is a no.
    public static func yesOrNo(_ text: String) -> Bool? {
        switch Answers.classify(Utterance(text)) {
        case .yes?: return true
        case .no?: return false
        case nil: return nil
        }
    }

    /// `count` temporal expressions as people say them, words only ("next friday at one thirty
    /// pm", "june twenty third", "for forty five minutes"), composed from the temporal
    /// grammar's lexicon; the same seed gives the same list. Every one reads as a time with
    /// `TemporalParser.extract` (SpokenLanguageTests).
    public static func timeExpressions(count: Int, seed: UInt64 = 23) -> [[String]] {
        var random = SplitMix64(seed: seed)
        var result: [[String]] = []
        for _ in 0..<count { result.append(SpokenTime.expression(&random)) }
        return result
    }
}

/// Temporal expressions composed from `TemporalLexicon`: days, clock times, parts of the day,
/// durations, shifts and repeats, spelled as speech comes out of a recognizer (numbers as words).
enum SpokenTime {
    static let hours = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    static let minutes = ["fifteen", "thirty", "forty five", "ten", "twenty", "forty five", "thirty"]
    static let parts = ["morning", "afternoon", "evening", "night"]

    /// The word a lexicon table has for `value`: the shortest, then the first in order, when it
    /// has several ("twelfth" and the misspelling "twelveth" both read as 12). Never a table's
    /// own order: a dictionary's changes from run to run, and so would the language.
    static func word(for value: Int, in table: [String: Int]) -> String? {
        table.filter { $0.value == value }.keys.min { ($0.count, $0) < ($1.count, $1) }
    }

    static func number(_ value: Int) -> [String] {
        if let unit = word(for: value, in: TemporalLexicon.units) { return [unit] }
        let tens = word(for: value / 10 * 10, in: TemporalLexicon.tens) ?? ""
        let unit = value % 10 == 0 ? [] : number(value % 10)
        return [tens] + unit
    }

    static func ordinal(_ value: Int) -> [String] {
        if value == 2 { return ["second"] }
        if let word = word(for: value, in: TemporalLexicon.ordinalUnits) { return [word] }
        if let word = word(for: value, in: TemporalLexicon.ordinalTens) { return [word] }
        let tens = word(for: value / 10 * 10, in: TemporalLexicon.tens) ?? ""
        let unit = value % 10 == 2 ? "second" : word(for: value % 10, in: TemporalLexicon.ordinalUnits) ?? ""
        return [tens, unit]
    }

    /// A clock time the grammar reads on its own: with am or pm, "o'clock" or a part of the
    /// day, or after "at" (a bare number is not a time).
    static func clock(_ random: inout SplitMix64) -> [String] {
        switch random.int(0...9) {
        case 0: return [random.pick(["noon", "midnight", "midday"])]
        case 1, 2, 3: return [random.pick(hours), random.pick(["am", "pm"])]
        case 4, 5: return [random.pick(hours)] + Utterance(random.pick(minutes)).keys + [random.pick(["am", "pm"])]
        case 6: return ["at", random.pick(hours)] + Utterance(random.pick(minutes)).keys
        case 7: return [random.pick(hours), "in", "the", random.pick(["morning", "afternoon", "evening"])]
        case 8: return [random.pick(hours), "o'clock"]
        default: return ["at", random.pick(hours)]
        }
    }

    static func day(_ random: inout SplitMix64) -> [String] {
        let weekday = TemporalLexicon.weekdayNames.map { $0.lowercased() }
        let month = TemporalLexicon.monthNames.map { $0.lowercased() }
        switch random.int(0...8) {
        case 0: return [random.pick(["today", "tomorrow", "tonight"])]
        case 1, 2: return [random.pick(weekday)]
        case 3: return [random.pick(["next", "this", "on"]), random.pick(weekday)]
        case 4, 5: return [random.pick(month)] + ordinal(random.int(1...30))
        case 6: return ["on", "the"] + ordinal(random.int(1...31))
        case 7: return [random.pick(["next", "this"]), random.pick(["week", "weekend", "month"])]
        default: return ["the"] + ordinal(random.int(1...30)) + ["of", random.pick(month)]
        }
    }

    static func duration(_ random: inout SplitMix64) -> [String] {
        switch random.int(0...4) {
        case 0: return ["an", "hour"]
        case 1: return ["half", "an", "hour"]
        case 2: return number(random.pick([2, 3, 4, 10, 15, 20, 30, 45])) + [random.pick(["minutes", "hours"])]
        case 3: return number(random.pick([2, 3])) + [random.pick(["days", "weeks"])]
        default: return ["a", random.pick(["day", "week"])]
        }
    }

    static func expression(_ random: inout SplitMix64) -> [String] {
        switch random.int(0...13) {
        case 0, 1, 2: return clock(&random)
        case 3, 4: return day(&random)
        case 5, 6, 7:
            let time = clock(&random)
            return day(&random) + (time.first == "at" ? time : ["at"] + time)
        case 8: return [random.pick(hours), random.pick(["am", "pm"])] + day(&random)
        case 9: return day(&random) + [random.pick(parts)]
        case 10: return ["for"] + duration(&random)
        case 11: return duration(&random) + [random.pick(["later", "earlier"])]
        case 12: return ["every"] + Utterance(random.pick(TemporalLexicon.weekdayNames.map { $0.lowercased() } + ["day", "week", "weekday", "month", "other week"])).keys
        default: return ["from", random.pick(hours), random.pick(["to", "until"]), random.pick(hours), random.pick(["am", "pm"])]
        }
    }
}
