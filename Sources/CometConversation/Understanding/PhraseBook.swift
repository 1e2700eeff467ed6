import CometSchema

/// Every pattern the schemas declare, compiled once per registry: the intents' `@phrase`s and
/// the properties' `@question`s. A pattern is words and slots; matching it against an
/// utterance gives every way the slots can cover the words between the fixed ones.
struct PhraseBook: Sendable {
    enum Element: Sendable, Hashable {
        case word(String)
        /// A parameter's name; "" in a question stands for the entity asked about.
        case slot(String)
    }

    enum Source: Sendable {
        case intent(IntentDefinition, Phrase)
        case question(EntityDefinition, PropertyDefinition, Annotation)
    }

    struct Pattern: Sendable {
        let elements: [Element]
        let source: Source
        /// Fixed words: the more a pattern has, the more specific it is.
        var wordCount: Int { elements.reduce(0) { count, element in if case .word = element { return count + 1 } else { return count } } }
    }

    /// Slot name → the words it covers.
    typealias Match = [String: Range<Int>]

    let patterns: [Pattern]

    init(registry: Registry) {
        var patterns: [Pattern] = []
        for intent in registry.allIntents {
            for phrase in intent.phrases {
                var elements: [Element] = []
                for part in phrase.parts {
                    switch part {
                    case .text(let text): elements += Utterance(text).keys.map(Element.word)
                    case .parameter(let name): elements.append(.slot(name))
                    }
                }
                patterns.append(Pattern(elements: elements, source: .intent(intent, phrase)))
            }
        }
        patterns += PhraseBook.clearingPatterns(registry)
        for entity in registry.allEntities {
            for property in entity.properties {
                for annotation in property.annotations where annotation.name == "question" {
                    guard let text = annotation.firstString else { continue }
                    var elements: [Element] = []
                    for (index, piece) in text.components(separatedBy: "{}").enumerated() {
                        if index > 0 { elements.append(.slot("")) }
                        elements += Utterance(piece).keys.map(Element.word)
                    }
                    patterns.append(Pattern(elements: elements, source: .question(entity, property, annotation)))
                }
            }
        }
        // Most specific first; among equals, as declared.
        self.patterns = patterns.enumerated().sorted { ($0.element.wordCount, -$0.offset) > ($1.element.wordCount, -$1.offset) }.map(\.element)
    }

    /// "remove the location (from {event})": every optional value of an update can be cleared
    /// by name, in any domain, without a phrase of its own; without the entity, the one in
    /// focus is meant.
    static func clearingPatterns(_ registry: Registry) -> [Pattern] {
        var patterns: [Pattern] = []
        for intent in registry.allIntents where intent.action == .update {
            guard let target = intent.targetParameter else { continue }
            for parameter in intent.parameters where !parameter.isRequired && !parameter.isTarget && parameter.role == nil {
                let said = parameter.annotations.first(named: "display")?.firstString ?? ConversationText.words(parameter.name)
                // The property's declared words name it too: "remove the alert from the dentist".
                let declared = intent.entity.flatMap(registry.entity)?.property(parameter.name)?.annotations.strings(named: "words") ?? []
                var seen = Set<[String]>()
                for spoken in [said] + declared {
                    let keys = Utterance(spoken).keys
                    guard !keys.isEmpty, seen.insert(keys).inserted else { continue }
                    let name = keys.map(Element.word)
                    let phrase = Phrase(parts: [], clears: [parameter.name])
                    for verb in ["remove", "clear", "delete", "drop"] {
                        for link in ["from", "of", "on"] {
                            patterns.append(Pattern(elements: [.word(verb), .word("the")] + name + [.word(link), .slot(target.name)], source: .intent(intent, phrase)))
                        }
                        patterns.append(Pattern(elements: [.word(verb), .word("the")] + name, source: .intent(intent, phrase)))
                    }
                    // "take the location off the picnic".
                    patterns.append(Pattern(elements: [.word("take"), .word("the")] + name + [.word("off"), .slot(target.name)], source: .intent(intent, phrase)))
                    patterns.append(Pattern(elements: [.word("take"), .word("the")] + name + [.word("off")], source: .intent(intent, phrase)))
                }
            }
        }
        return patterns
    }

    /// Every way `pattern` covers all of `words`, shorter early slots first.
    static func matches(_ pattern: [Element], _ words: [String]) -> [Match] {
        var results: [Match] = []
        var current: Match = [:]
        func walk(_ elementIndex: Int, _ wordIndex: Int) {
            if elementIndex == pattern.count {
                if wordIndex == words.count { results.append(current) }
                return
            }
            switch pattern[elementIndex] {
            case .word(let word):
                guard wordIndex < words.count, words[wordIndex] == word else { return }
                walk(elementIndex + 1, wordIndex + 1)
            case .slot(let name):
                // A slot covers one word or more; the elements after it need one word each at least.
                let isLast = elementIndex + 1 == pattern.count
                let latestEnd = words.count - (pattern.count - elementIndex - 1)
                guard wordIndex < latestEnd else { return }
                for end in (isLast ? words.count : wordIndex + 1)...latestEnd {
                    current[name] = wordIndex..<end
                    walk(elementIndex + 1, end)
                }
                current[name] = nil
            }
        }
        walk(0, 0)
        return results
    }
}
