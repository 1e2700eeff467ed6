import Foundation
import CometSchema
import CometIntents

extension Conversation {
    /// The reply for an engine outcome: its own sentence, then for a list the items, numbered,
    /// so that "the third one" can be said.
    func render(_ outcome: IntentOutcome, draft: Draft?) -> Turn {
        let turn = renderOutcome(outcome, draft: draft)
        // Never silent: a time said and not used is named ("tomorrow afternoon" is no start).
        guard let unused = draft?.unusedTimes, !unused.isEmpty else { return turn }
        let said = ConversationText.list(unused.map { "“\($0.text)”" })
        let note = " (I didn't use \(said): " + (unused.count == 1 ? "it isn't" : "they aren't") + " a time I can set here.)"
        return Turn(reply: turn.reply + note, outcome: turn.outcome, snippet: turn.snippet, understood: turn.understood)
    }

    private func renderOutcome(_ outcome: IntentOutcome, draft: Draft?) -> Turn {
        switch outcome {
        case .done(let result):
            var reply = result.dialog.full
            if result.action == .create || result.action == .update, let said = draft?.saidAfter { reply += " " + said }
            if result.action == .search, draft?.nextOnly == true {
                // "What's my next meeting?" is the first one, not a list.
                guard let first = result.occurrences.first else {
                    return Turn(reply: "Nothing is coming up in the next year.", outcome: .done, snippet: nil, understood: true)
                }
                let when = engine.when(first.start, end: first.end, allDay: engine.isAllDay(first.record))
                return Turn(reply: "Next: “\(registry.title(of: first.record))”, \(when).", outcome: .done, snippet: engine.snippet(of: first.record),
                            understood: true)
            }
            if result.action == .search, draft?.asksFree == true {
                // "Am I free Saturday afternoon?" is a yes or a no, then what is in the way.
                // Busy is the engine's rule: all-day and transparent events leave the time free,
                // and are still listed and counted, never passed over in silence.
                let count = result.occurrences.filter { engine.blocksTime($0.record) }.count
                let free = result.occurrences.count - count
                let noun = draft?.intent.entity.map { engine.noun($0, count: count) } ?? "things"
                let freeNoun = draft?.intent.entity.map { engine.noun($0, count: free) } ?? "things"
                let leaving = "\(free) \(freeNoun) that leave\(free == 1 ? "s" : "") the time free (all day, or marked free)"
                if count == 0 {
                    reply = free == 0 ? "Yes, you're free then: nothing is on." : "Yes, you're free then: only \(leaving)."
                } else {
                    reply = "No, you have \(count) \(noun) then" + (free == 0 ? "." : ", and \(leaving).")
                }
            }
            let lines = listing(result)
            if !lines.isEmpty { reply += "\n" + lines.joined(separator: "\n") }
            return Turn(reply: reply, outcome: .done, snippet: result.snippet, understood: true)
        case .needsValue(let parameter, let prompt):
            return Turn(reply: prompt, outcome: .needsValue(parameter: parameter), snippet: nil, understood: true)
        case .needsConfirmation(let prompt, let snippet):
            return Turn(reply: prompt, outcome: .needsConfirmation, snippet: snippet, understood: true)
        case .needsDisambiguation(_, let prompt, let candidates):
            return Turn(reply: prompt, outcome: .needsDisambiguation(count: candidates.count), snippet: nil, understood: true)
        case .cancelled(let dialog):
            return Turn(reply: dialog.full, outcome: .cancelled, snippet: nil, understood: true)
        case .failed(let error):
            return Turn(reply: failureText(error, draft: draft), outcome: .failed, snippet: nil, understood: true)
        }
    }

    /// How many items a spoken list names before it counts the rest.
    static let listedItems = 20

    private func listing(_ result: IntentResult) -> [String] {
        var lines: [String] = []
        if !result.occurrences.isEmpty {
            for (index, occurrence) in result.occurrences.prefix(Conversation.listedItems).enumerated() {
                let when = engine.when(occurrence.start, end: occurrence.end, allDay: engine.isAllDay(occurrence.record))
                lines.append("\(index + 1). \(registry.title(of: occurrence.record)) — \(when)")
            }
            if result.occurrences.count > Conversation.listedItems {
                lines.append("…and \(result.occurrences.count - Conversation.listedItems) more.")
            }
        } else if result.action == .search {
            for (index, record) in result.records.prefix(Conversation.listedItems).enumerated() {
                let candidate = engine.describe(record)
                lines.append("\(index + 1). \(candidate.title)" + (candidate.subtitle.map { " — \($0)" } ?? ""))
            }
            if result.records.count > Conversation.listedItems {
                lines.append("…and \(result.records.count - Conversation.listedItems) more.")
            }
        }
        return lines
    }

    /// A failure said plainly, by name when nothing matched.
    private func failureText(_ error: IntentError, draft: Draft?) -> String {
        if error.code == .notFound, let draft, let parameter = error.parameter, case .mention(.text(let text))? = draft.slots[parameter],
           case .entity(let entity)? = draft.intent.parameter(parameter)?.type.base {
            let noun = engine.noun(entity, count: 1)
            return "I couldn't find \(Replies.article(noun)) \(noun) called “\(text)”." + (error.suggestion.map { " Did you mean “\($0)”?" } ?? "")
        }
        return "I couldn't do that: " + Replies.sentence(error.message)
    }
}

enum Replies {
    /// A message as a sentence: capital first, full stop last.
    static func sentence(_ message: String) -> String {
        guard let first = message.first else { return message }
        var text = first.uppercased() + message.dropFirst()
        if let last = text.last, !".?!".contains(last) { text += "." }
        return text
    }

    static func article(_ noun: String) -> String {
        guard let first = noun.first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    /// "on June 9th" for a day said as "June 9th"; words that already say how stay as they are.
    static func timePhrase(_ text: String) -> String {
        let first = text.split(separator: " ").first.map { $0.lowercased() } ?? ""
        if ["on", "at", "in", "this", "next", "last", "tomorrow", "today", "tonight", "yesterday", "between", "from"].contains(first) { return text }
        return "on " + text
    }

    /// What the schemas let a person say: the kinds of request per entity, with an example
    /// phrase and an example question.
    static func capabilities(registry: Registry, engine: IntentEngine, book: PhraseBook) -> String {
        let verbs: [IntentAction: String] = [.create: "create", .update: "change", .delete: "delete", .open: "open", .search: "find"]
        var byEntity: [(QualifiedName, [String])] = []
        for intent in registry.allIntents where !intent.phrases.isEmpty {
            guard let entity = intent.entity, let action = intent.action, let verb = verbs[action] else { continue }
            if let index = byEntity.firstIndex(where: { $0.0 == entity }) {
                if !byEntity[index].1.contains(verb) { byEntity[index].1.append(verb) }
            } else {
                byEntity.append((entity, [verb]))
            }
        }
        let kinds = byEntity.map { ConversationText.list($0.1) + " " + engine.noun($0.0, count: 2) }
        var text = kinds.isEmpty ? "I can't do anything with these schemas: they declare no phrases." : "I can " + ConversationText.list(kinds)
        // One question per property, about a named entity, in declaration order.
        var questions: [String] = []
        for entity in registry.allEntities {
            for property in entity.properties {
                guard let question = property.annotations.first(where: { $0.name == "question" && ($0.firstString ?? "").contains("{}") })?.firstString else { continue }
                questions.append("“" + question.replacingOccurrences(of: "{}", with: "…") + "”")
            }
        }
        if !questions.isEmpty { text += ", and answer questions such as " + questions.prefix(2).joined(separator: " or ") }
        if !kinds.isEmpty { text += "." }
        // The update with the most phrases is the domain's main one.
        let example = registry.allIntents.filter { $0.action == .update }.max { $0.phrases.count < $1.phrases.count }?.phrases.first
            ?? registry.allIntents.first(where: { !$0.phrases.isEmpty })?.phrases.first
        if let example { text += " Try “\(spell(example))”." }
        return text
    }

    private static func spell(_ phrase: Phrase) -> String {
        phrase.parts.map { part -> String in
            switch part {
            case .text(let text): return text
            case .parameter(let name): return "<" + ConversationText.words(name) + ">"
            }
        }.joined()
    }
}
