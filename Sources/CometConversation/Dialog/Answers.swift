import Foundation
import CometSchema
import CometIntents

/// Reading the answers to questions CometCal asked: yes or no, the value asked for, which one.
enum Answers {
    enum Verdict: Equatable {
        /// With the words after the yes ("yes, but make it 1pm"), when there are any.
        case yes(Utterance?)
        case no(Utterance?)
    }

    static let yes: [[String]] = [
        ["yes"], ["yeah"], ["yep"], ["yup"], ["yes", "please"], ["sure"], ["ok"], ["okay"], ["sounds", "good"], ["sounds", "great"],
        ["sounds", "fine"], ["that's", "fine"], ["that", "is", "fine"], ["that's", "good"], ["that's", "great"], ["that's", "right"],
        ["that", "works"], ["fine"], ["do", "it"], ["go", "ahead"], ["confirm"], ["confirmed"], ["correct"], ["right"], ["absolutely"],
        ["please", "do"], ["perfect"], ["looks", "good"], ["of", "course"], ["definitely"], ["great"], ["alright"], ["all", "right"],
        ["affirmative"], ["go", "for", "it"], ["let's", "do", "it"], ["y"],
    ]
    static let no: [[String]] = [
        ["no"], ["nope"], ["nah"], ["never", "mind"], ["nevermind"], ["cancel"], ["cancel", "that"], ["don't"], ["do", "not"],
        ["don't", "do", "it"], ["stop"], ["forget", "it"], ["forget", "about", "it"], ["not", "now"], ["leave", "it"], ["no", "thanks"],
        ["keep", "it"], ["keep", "it", "as", "it", "is"], ["n"], ["scratch", "that"],
    ]
    /// Said around an answer without changing it.
    static let around: Set<String> = ["oh", "um", "uh", "hmm", "well", "actually", "ok", "okay", "so", "thanks", "thank", "you", "please", "great", "wait"]
    /// A yes restating the request ("yes, delete it") adds nothing to it.
    static let restatements: Set<String> = ["delete", "it", "do", "move", "change", "that", "this", "go", "ahead", "one", "is", "fine", "make", "the",
                                            "please", "thanks", "thank", "you", "great", "good", "sounds", "perfect", "cancel", "remove", "create"]

    static func classify(_ utterance: Utterance) -> Verdict? {
        let words = utterance.droppingLeading(["oh", "um", "uh", "hmm", "well", "actually", "so", "wait"])
        for (list, isYes) in [(no, false), (yes, true)] {
            // The longest expression that starts the answer.
            guard let phrase = list.filter({ words.starts(with: $0) }).max(by: { $0.count < $1.count }) else { continue }
            // "ok so move it to 3": an "ok" that starts a new request is no answer.
            var rest = words.dropping(first: phrase.count).droppingLeading(around).droppingTrailing(around)
            // "yep, that's fine": one answer said twice.
            while let again = list.filter({ rest.starts(with: $0) }).max(by: { $0.count < $1.count }) {
                rest = rest.dropping(first: again.count).droppingLeading(around).droppingTrailing(around)
            }
            if rest.isEmpty || rest.keys.allSatisfy(restatements.contains) { return isYes ? .yes(nil) : .no(nil) }
            // "no, make it 1pm": the rest is a correction, which the caller reads.
            return isYes ? .yes(rest) : .no(rest)
        }
        return nil
    }

    /// Words that introduce an answer without being part of it.
    static let valueLeadIns: Set<String> = ["call it", "it's called", "name it", "title it", "it's", "it is", "the title is", "make it", "let's say",
                                            "how about", "i'd say", "at", "on", "for", "to", "i mean", "i meant", "maybe"]

    /// The draft with the asked parameter set from the answer, and any more the answer says
    /// ("Call it Zero Gravity Yoga for June 15th, 8am" gives the title and the start); nil when
    /// the answer does not read as the value.
    static func value(_ utterance: Utterance, for parameter: ParameterDefinition, in draft: Draft, understander: Understander) -> Draft? {
        let words = utterance.droppingLeading(Fillers.leading).droppingTrailing(Fillers.trailing)
        // A phrase of the same intent that sets the parameter: its slots join the draft.
        for pattern in understander.book.patterns {
            guard case .intent(let intent, let phrase) = pattern.source, intent.name == draft.intent.name, phrase.parameterNames.contains(parameter.name),
                  case .request(let more)? = understander.readPattern(pattern, words) else { continue }
            var merged = draft
            for (name, slot) in more.slots where name != intent.targetParameter?.name || draft.slots[name] == nil {
                merged.slots[name] = slot
                merged.sourceWords[name] = more.sourceWords[name]
            }
            merged.timeParameter = more.timeParameter ?? draft.timeParameter
            return merged
        }
        // "Call it" and nothing after: the lead-in is not the value. Text is given as empty, so
        // the engine's own rule for it (`@nonBlank`: a title must say something) answers.
        if !words.isEmpty, words.droppingLeading(valueLeadIns).isEmpty, parameter.type.base == .builtin(.string) {
            var revised = draft
            revised.slots[parameter.name] = .value(.string(""))
            revised.sourceWords[parameter.name] = words
            return revised
        }
        // The value alone, after the words that lead into it.
        for candidate in [words, words.droppingLeading(valueLeadIns)] where !candidate.isEmpty {
            if case .enumeration(let name) = parameter.type.base, let found = understander.enumCase(utterance, of: name) {
                var revised = draft
                revised.slots[parameter.name] = .value(.enumCase(found))
                revised.sourceWords[parameter.name] = utterance
                return revised
            }
            if let slot = understander.readSlot(candidate, parameter: parameter, intent: draft.intent) {
                var revised = draft
                revised.slots[parameter.name] = slot
                revised.sourceWords[parameter.name] = candidate
                if case .time = slot { revised.timeParameter = parameter.name }
                return revised
            }
        }
        return nil
    }

    /// Which candidate an answer picks: by number ("the second one", "2"), or by words of its
    /// title or time matching exactly one.
    static func choice(_ utterance: Utterance, among candidates: [Candidate]) -> Int? {
        let words = utterance.droppingLeading(Fillers.leading.union(["i", "meant", "mean", "i meant", "i mean"])).droppingTrailing(Fillers.trailing)
        if let mention = MentionReader.read(words, nouns: ["event", "one", "task", "calendar"], parseTime: { _ in nil }), case .ordinal(let position) = mention {
            let index = position == -1 ? candidates.count - 1 : position - 1
            return candidates.indices.contains(index) ? index : nil
        }
        if words.words.count == 1, let number = Int(words.keys[0]) {
            return candidates.indices.contains(number - 1) ? number - 1 : nil
        }
        let said = words.droppingLeading(MentionReader.determiners).droppingTrailing(["one", "event"]).keys
        guard !said.isEmpty else { return nil }
        let exact = candidates.indices.filter { Utterance(candidates[$0].title).keys == said }
        if exact.count == 1 { return exact[0] }
        let matching = candidates.indices.filter { index in
            let known = Set(Utterance(candidates[index].title + " " + (candidates[index].subtitle ?? "")).keys)
            return said.allSatisfy { known.contains($0) }
        }
        return matching.count == 1 ? matching[0] : nil
    }
}

/// Corrections: "noon… actually 11:30" in one breath, or "actually 11:30" as the next turn.
enum Corrections {
    static let markers: Set<String> = ["actually", "no", "wait", "sorry", "rather", "instead", "i mean", "i meant", "make it", "make that", "scratch that"]
    static let leadIns: Set<String> = ["actually", "no", "wait", "sorry", "oh", "um", "rather", "i mean", "i meant", "make it", "make that", "change it to",
                                       "change that to", "instead", "how about", "let's say", "let's do", "what about", "scratch that", "not", "but", "to",
                                       "at", "on", "for", "it", "should", "be", "it should be", "move it to", "go with"]

    /// The request and the corrections said after it, cut at a pause or an "actually".
    static func clauses(_ utterance: Utterance) -> (request: Utterance, corrections: [Utterance]) {
        var cuts: [Int] = []
        let words = utterance.words
        for index in 1..<max(1, words.count) {
            let key = words[index].key
            let pair = index + 1 < words.count ? key + " " + words[index + 1].key : ""
            let marked = markers.contains(key) || markers.contains(pair)
            if marked && (words[index - 1].pauseAfter || key == "actually") { cuts.append(index) }
        }
        guard !cuts.isEmpty else { return (utterance, []) }
        let bounds = [0] + cuts + [words.count]
        let pieces = zip(bounds, bounds.dropFirst()).map { utterance[$0..<$1] }
        return (pieces[0], Array(pieces.dropFirst()))
    }

    /// The draft revised by a correction: a time replaces the time the draft set (or its start),
    /// and a phrase of the same intent replaces what it says. Nil when the words are no correction.
    static func revise(_ draft: Draft, with utterance: Utterance, understander: Understander) -> Draft? {
        let words = utterance.droppingLeading(leadIns).droppingTrailing(Fillers.trailing)
        guard !words.isEmpty else { return nil }
        let timeName = draft.timeParameter ?? draft.intent.entity.flatMap { understander.registry.entity($0)?.temporalFields?.start }
        if let timeName, let parameter = draft.intent.parameter(timeName),
           case .time(let resolution)? = understander.readSlot(words, parameter: parameter, intent: draft.intent) {
            var revised = draft
            revised.slots[timeName] = .time(resolution)
            revised.sourceWords[timeName] = words
            revised.timeParameter = timeName
            return revised
        }
        // "actually, move it to the Deep Space calendar": the same intent, said again.
        guard case .request(let again)? = understander.read(utterance.droppingLeading(["actually", "no", "wait", "sorry", "oh"])),
              again.intent.name == draft.intent.name else { return nil }
        var revised = draft
        for (name, slot) in again.slots {
            if name == draft.intent.targetParameter?.name, case .mention(.focus) = slot { continue }
            revised.slots[name] = slot
            revised.sourceWords[name] = again.sourceWords[name]
        }
        revised.timeParameter = again.timeParameter ?? draft.timeParameter
        return revised
    }
}
