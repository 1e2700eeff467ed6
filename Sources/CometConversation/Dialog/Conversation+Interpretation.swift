import Foundation
import CometSchema
import CometIntents

extension Conversation {
    /// How `text` reads as a new request, without acting and without changing the dialog: no
    /// write, no focus, no pending question. It may read the store to say what a mention names.
    public func interpret(_ text: String) -> Interpretation {
        prepareReader()
        guard text.count <= Conversation.maximumCharacters else { return .unknown(text) }
        let utterance = Utterance(text)
        guard utterance.words.count <= Conversation.maximumWords, !utterance.isEmpty else { return .unknown(text) }
        return interpretation(of: readRequest(utterance), text: text)
    }

    /// The reader set to this turn's clock and to what the dialog points at.
    func prepareReader() {
        understander.parser = parser
        understander.focusEntity = state.focus?.entity
        understander.listedEntities = state.listedEntities
    }

    /// A new request as read: help, or the reading of its first clause with the corrections
    /// said after it applied ("noon… actually 11:30"), and whether the reading held strictly.
    struct ReadRequest {
        var isHelp = false
        var reading: Reading?
        var strict = false
        var frame: StatisticalFrame? = nil
    }

    func readRequest(_ utterance: Utterance) -> ReadRequest {
        if Conversation.helpWords.contains(utterance.droppingLeading(Fillers.leading).droppingTrailing(Fillers.trailing).keyText) {
            return ReadRequest(isHelp: true)
        }
        let clauses = Corrections.clauses(utterance)
        guard let found = understander.readFully(clauses.request, statistical: statisticalReading) else { return ReadRequest() }
        guard case .request(var draft) = found.reading else { return ReadRequest(reading: found.reading, strict: found.strict, frame: found.frame) }
        for correction in clauses.corrections {
            if let revised = Corrections.revise(draft, with: correction, understander: understander) { draft = revised }
        }
        return ReadRequest(reading: .request(draft), strict: found.strict, frame: found.frame)
    }

    func interpretation(of read: ReadRequest, text: String) -> Interpretation {
        if read.isHelp { return .command(text, "help") }
        guard let reading = read.reading else {
            var unknown = Interpretation.unknown(text)
            if let refusal = understander.refusal { unknown.closest = (refusal.label, refusal.probability, refusal.reason.rawValue) }
            return unknown
        }
        let confidence = read.frame?.probability ?? (read.strict ? 1.0 : 0.5)
        var result: Interpretation
        switch reading {
        case .undo: return .command(text, "undo")
        case .redo: return .command(text, "redo")
        case .question(let question):
            let mentions = question.mention.map { [describe($0, slot: "about", raw: question.mentionWords?.text ?? "", entity: question.entity.name)] } ?? []
            result = Interpretation(text: text, understood: true, kind: .question, intent: nil, action: nil, confidence: confidence, parameters: [],
                                    mentions: mentions, question: (question.entity.name.description, question.property.name))
        case .request(let draft):
            result = interpretation(of: draft, text: text, kind: .request, confidence: confidence)
            result.kindWords = draft.kindWords?.text
            result.unusedTimes = draft.unusedTimes.map(\.text)
        }
        result.reader = read.frame == nil ? "phrase" : "statistical"
        if let runnerUp = read.frame?.runnerUp { result.runnerUp = (runnerUp.label, runnerUp.probability) }
        return result
    }

    func interpretation(of draft: Draft, text: String, kind: Interpretation.Kind, confidence: Double) -> Interpretation {
        var parameters: [Interpretation.Parameter] = []
        var mentions: [Interpretation.Mention] = []
        // In the order the intent declares its parameters, so the output is stable.
        for parameter in draft.intent.parameters {
            guard let slot = draft.slots[parameter.name] else { continue }
            let raw = draft.sourceWords[parameter.name]?.text
            let entity = entityKind(slot, parameter: parameter, intent: draft.intent)
            switch slot {
            case .cleared:
                parameters.append(.init(name: parameter.name, state: .cleared, value: nil, raw: raw, entity: entity))
            case .value(let value):
                parameters.append(.init(name: parameter.name, state: .set, value: registry.encode(value), raw: raw, entity: entity))
            case .time(let resolution):
                parameters.append(.init(name: parameter.name, state: .set, value: resolution.json, raw: raw, entity: entity))
            case .mention(let mention):
                guard case .entity(let name) = parameter.type.base else { continue }
                let described = describe(mention, slot: parameter.name, raw: raw ?? "", entity: name)
                mentions.append(described)
                parameters.append(.init(name: parameter.name, state: .set, value: .object(JSONObject([("mention", .string(described.by))])), raw: raw, entity: entity))
            }
        }
        return Interpretation(text: text, understood: true, kind: kind, intent: draft.intent.name.description, action: draft.intent.action?.rawValue,
                              confidence: confidence, parameters: parameters, mentions: mentions, question: nil)
    }

    /// What the words are, from the parameter's type and the schema's annotations: the words
    /// naming the record acted on (or searched for) are its name; a reference to another
    /// entity is that entity's kind ("calendar").
    private func entityKind(_ slot: Draft.Slot, parameter: ParameterDefinition, intent: IntentDefinition) -> String {
        switch slot {
        case .time(let resolution):
            switch resolution {
            case .duration, .shift(.by): return "duration"
            case .recurrence, .recurrenceEnd: return "recurrence"
            default: return "time"
            }
        case .mention(.time):
            return "time"
        case .mention:
            if parameter.isTarget { return "name" }
            if case .entity(let name) = parameter.type.base { return name.name.lowercased() }
            return "name"
        case .value, .cleared:
            break
        }
        if parameter.role == .text { return "name" }
        if parameter.annotations.contains(named: "reminder") { return "reminder" }
        switch parameter.type.base {
        case .builtin(let builtin):
            switch builtin {
            case .dateTime, .date: return "time"
            case .duration: return "duration"
            case .recurrence: return "recurrence"
            case .person: return "person"
            case .place: return "place"
            case .int, .double: return "number"
            case .bool: return "enum"
            case .string:
                let title = intent.entity.flatMap(registry.entity)?.titleProperty?.name
                return title == parameter.name ? "name" : "text"
            default: return "text"
            }
        case .enumeration: return "enum"
        case .entity(let name): return name.name.lowercased()
        case .union(let name):
            let cases = registry.union(name)?.cases.map(\.type.base) ?? []
            if cases.contains(.builtin(.place)) { return "place" }
            if cases.contains(.builtin(.person)) { return "person" }
            return "text"
        }
    }

    /// A mention and what it names in the store now; `focus` and `ordinal` name what the dialog
    /// points at, which a fresh reading does not have.
    private func describe(_ mention: Mention, slot: String, raw: String, entity: QualifiedName) -> Interpretation.Mention {
        switch mention {
        case .focus:
            return .init(slot: slot, raw: raw, by: "focus", matches: [], details: JSONObject())
        case .ordinal(let position):
            return .init(slot: slot, raw: raw, by: "ordinal", matches: [], details: JSONObject([("position", .int(position))]))
        case .time(let resolution, let text):
            return .init(slot: slot, raw: raw, by: "time", matches: [], details: JSONObject([("time", resolution.json), ("timeText", .string(text))]))
        case .id(let id, _):
            return .init(slot: slot, raw: raw, by: "id", matches: [], details: JSONObject([("id", .string(id.uuidString.lowercased()))]))
        case .description(let description):
            var details = JSONObject([("position", .string(description.position.rawValue)), ("all", .bool(description.all))])
            if let words = description.words { details["words"] = .string(words) }
            if let time = description.time { details["time"] = time.json }
            if let text = description.timeText { details["timeText"] = .string(text) }
            if let person = description.person { details["person"] = .string(person) }
            return .init(slot: slot, raw: raw, by: "description", matches: [], details: details)
        case .text(let words):
            let matches: [Interpretation.Mention.Match]
            switch understander.lookup(entity, words) {
            case .found(let record): matches = [.init(id: record.id, title: registry.title(of: record))]
            case .ambiguous(_, let candidates): matches = candidates.map { .init(id: $0.id, title: $0.title) }
            case .notFound: matches = []
            }
            return .init(slot: slot, raw: raw, by: "words", matches: matches, details: JSONObject([("words", .string(words))]))
        }
    }
}
