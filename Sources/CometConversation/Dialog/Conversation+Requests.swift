import Foundation
import CometSchema
import CometIntents

extension Conversation {
    /// What a mention names: one record (and the occurrence meant), or a turn to say instead
    /// (a question when several match, a reply when none does).
    enum Resolution {
        case record(EntityRecord, occurrence: DateTimeValue?)
        case turn(Turn)
    }

    // MARK: Performing a request

    /// Builds the request the draft means against the store as it is, runs it through the
    /// engine, and renders the outcome; a pending question is kept for the next turn.
    func perform(_ draft: Draft, confirmation: IntentRequest.Confirmation = .pending) -> Turn {
        state.pending = nil
        var draft = draft
        var request = IntentRequest(intent: draft.intent.name.description, confirmation: confirmation)
        var target: EntityRecord?
        var occurrence: DateTimeValue?

        // A phrase without its entity ("remove the location") means the one in focus.
        if let parameter = draft.intent.targetParameter, draft.slots[parameter.name] == nil, state.focus != nil {
            draft.slots[parameter.name] = .mention(.focus)
        }
        if let parameter = draft.intent.targetParameter, case .entity(let entityName) = parameter.type.base,
           case .mention(let mention)? = draft.slots[parameter.name] {
            switch resolve(mention, entity: entityName, subject: .request(draft), parameter: parameter.name) {
            case .turn(let turn): return turn
            case .record(let record, let at):
                target = record
                occurrence = at ?? upcomingOccurrence(of: record)
                draft.slots[parameter.name] = .mention(.id(record.id, occurrence: occurrence))
                request.parameters[parameter.name] = .set(.reference(record.id))
            }
        }
        if let target, let occurrence, isSeries(target), let parameter = draft.intent.parameter(role: .occurrence), draft.slots[parameter.name] == nil {
            request.parameters[parameter.name] = .set(.dateTime(occurrence))
        }

        let entity = draft.intent.entity.flatMap(registry.entity)
        let binding = TimeBinding(intent: draft.intent, entity: entity, zone: timeZone, now: clock())
        // What a new time is said against: the record's start, or for a kind with no start its
        // first date-time (a task moved "to Saturday" keeps its time of day).
        let baseField = entity?.temporalFields?.start ?? Understander.firstTime(of: draft.intent)
        var base: DateTimeValue? = occurrence ?? target.flatMap { record in
            baseField.flatMap { field in if case .dateTime(let value)? = record[field] { return value } else { return nil } }
        }
        let saidTo = draft.intent.parameter(role: .to).map { draft.slots[$0.name] != nil } ?? false
        // The start first: a length said with it ("for two hours") counts from it.
        let start = entity?.temporalFields?.start
        let ordered = draft.slots.sorted { ($0.key == start ? 0 : 1, $0.key) < ($1.key == start ? 0 : 1, $1.key) }
        for (name, slot) in ordered where name != draft.intent.targetParameter?.name {
            guard let parameter = draft.intent.parameter(name) else { continue }
            switch slot {
            case .value(.array(let added)) where draft.appends.contains(name):
                // Added to what the record holds: its other alarms stay.
                var held: [Value] = []
                if let target, case .array(let items)? = target[name] { held = items }
                request.parameters[name] = .set(.array(held + added))
            case .value(let value): request.parameters[name] = .set(value)
            case .cleared: request.parameters[name] = .cleared
            case .time(var resolution):
                if let base { resolution = Conversation.inheritingMeridiem(resolution, said: draft.sourceWords[name], from: base, zone: timeZone) }
                do {
                    for (key, value) in try binding.values(resolution, for: parameter, base: base, saidTo: saidTo)
                    where key == name || draft.slots[key] == nil {
                        request.parameters[key] = .set(value)
                        // A new record's start is what its length counts from.
                        if target == nil, key == start, case .dateTime(let bound) = value { base = bound }
                    }
                } catch let problem as TimeBinding.Problem {
                    return Turn(reply: Replies.sentence(problem.message), outcome: .failed, snippet: nil, understood: true)
                } catch {
                    return Turn(reply: Replies.sentence("\(error)"), outcome: .failed, snippet: nil, understood: true)
                }
            case .mention(let mention):
                guard case .entity(let entityName) = parameter.type.base else { continue }
                if case .text(let text) = mention {
                    request.references[name] = text  // the engine resolves it, and asks when several match
                    continue
                }
                switch resolve(mention, entity: entityName, subject: .request(draft), parameter: name) {
                case .turn(let turn): return turn
                case .record(let record, _): request.parameters[name] = .set(.reference(record.id))
                }
            }
        }
        let outcome = engine.perform(request)
        return settle(outcome, draft: draft)
    }

    /// Keeps what the outcome means for the next turns, and renders it.
    private func settle(_ outcome: IntentOutcome, draft: Draft) -> Turn {
        switch outcome {
        case .done(let result):
            state.lastRequest = result.action == .update || result.action == .create ? draft : nil
            if let record = result.record {
                let occurrence: DateTimeValue? = {
                    guard let target = draft.intent.targetParameter, case .mention(.id(let id, let at))? = draft.slots[target.name], id == record.id else { return nil }
                    return at
                }()
                state.focus = DialogState.Focus(entity: record.entity, id: record.id, occurrence: occurrence)
            }
            if result.action == .search { remember(result) }
            if result.action == .delete { state.focus = nil }
        case .needsConfirmation(let prompt, _):
            state.pending = DialogState.Pending(subject: .request(draft), waiting: .confirmation, prompt: prompt)
        case .needsValue(let parameter, let prompt):
            state.pending = DialogState.Pending(subject: .request(draft), waiting: .value(parameter: parameter), prompt: prompt)
        case .needsDisambiguation(let parameter, let prompt, let candidates):
            state.pending = DialogState.Pending(subject: .request(draft), waiting: .choice(parameter: parameter, candidates: candidates), prompt: prompt)
            state.lastResults = candidates.map { DialogState.Focus(entity: entityOf(parameter, in: draft.intent), id: $0.id, occurrence: nil) }
        case .cancelled:
            // "no" to a change of a record: it stays what "it" means ("then make it an hour later").
            if let target = draft.intent.targetParameter, case .mention(.id(let id, let occurrence))? = draft.slots[target.name],
               case .entity(let entity) = target.type.base {
                state.focus = DialogState.Focus(entity: entity, id: id, occurrence: occurrence)
            }
        case .failed(let error):
            if error.code == .notFound, let parameter = error.parameter, let suggestion = error.suggestion {
                let turn = render(outcome, draft: draft)
                offer(suggestion, entity: entityOf(parameter, in: draft.intent), subject: .request(draft), parameter: parameter, prompt: turn.reply)
                return turn
            }
        }
        return render(outcome, draft: draft)
    }

    /// "Did you mean “Picnic”?": the next "yes" takes the suggestion, for the request or the
    /// question that named nothing (a "no", or anything else said, lets it go).
    func offer(_ suggestion: String, entity: QualifiedName, subject: DialogState.Subject, parameter: String, prompt: String) {
        guard case .found(let record) = understander.lookup(entity, suggestion) else { return }
        state.pending = DialogState.Pending(subject: subject, waiting: .suggestion(parameter: parameter, id: record.id), prompt: prompt)
    }

    private func entityOf(_ parameter: String, in intent: IntentDefinition) -> QualifiedName {
        if case .entity(let name)? = intent.parameter(parameter)?.type.base { return name }
        return intent.entity ?? QualifiedName(domain: "", name: "")
    }

    /// A search's results become what "the third one" means, in the order shown.
    private func remember(_ result: IntentResult) {
        if !result.occurrences.isEmpty {
            state.lastResults = result.occurrences.map {
                DialogState.Focus(entity: $0.record.entity, id: $0.record.id, occurrence: $0.isRecurrenceInstance ? $0.start : nil)
            }
        } else {
            state.lastResults = result.records.map { DialogState.Focus(entity: $0.entity, id: $0.id, occurrence: nil) }
        }
        if state.lastResults.count == 1, let only = state.lastResults.first { state.focus = only }
    }

    // MARK: Mentions

    /// The record a mention names, by the engine's own lookup for words.
    func resolve(_ mention: Mention, entity: QualifiedName, subject: DialogState.Subject, parameter: String) -> Resolution {
        let noun = engine.noun(entity, count: 1)
        switch mention {
        case .id(let id, let occurrence):
            guard let record = try? engine.record(entity, id: id) else {
                return .turn(failure("That \(noun) isn't there any more."))
            }
            return .record(record, occurrence: occurrence)
        case .focus:
            guard let focus = state.focus, focus.entity == entity, let record = try? engine.record(entity, id: focus.id) else {
                // Nothing in focus: ask which, and keep the request for the answer.
                let asked = subjectPrompt(subject, parameter: parameter) ?? "Which \(noun)?"
                let prompt = asked + " Say its name, for example “\(example(entity))”."
                state.pending = DialogState.Pending(subject: subject, waiting: .value(parameter: parameter), prompt: prompt)
                return .turn(Turn(reply: prompt, outcome: .needsValue(parameter: parameter.isEmpty ? noun : parameter), snippet: nil, understood: true))
            }
            return .record(record, occurrence: focus.occurrence)
        case .ordinal(let position):
            let listed = state.lastResults.filter { $0.entity == entity }
            guard !listed.isEmpty else { return .turn(failure("I haven't listed any \(noun)s yet. Ask “what's on this week?” first.")) }
            let index = position == -1 ? listed.count - 1 : position - 1
            guard listed.indices.contains(index), let record = try? engine.record(entity, id: listed[index].id) else {
                return .turn(failure("I listed only \(listed.count) \(engine.noun(entity, count: listed.count)), so there's no number \(position)."))
            }
            return .record(record, occurrence: listed[index].occurrence)
        case .text(let text):
            switch understander.lookup(entity, text) {
            case .found(let record): return .record(record, occurrence: nil)
            case .ambiguous(let prompt, let candidates):
                state.pending = DialogState.Pending(subject: subject, waiting: .choice(parameter: parameter, candidates: candidates), prompt: prompt)
                state.lastResults = candidates.map { DialogState.Focus(entity: entity, id: $0.id, occurrence: nil) }
                return .turn(Turn(reply: prompt, outcome: .needsDisambiguation(count: candidates.count), snippet: nil, understood: true))
            case .notFound(let error):
                let hint = error.suggestion.map { " Did you mean “\($0)”?" } ?? ""
                let turn = failure("I couldn't find \(article(noun)) \(noun) called “\(text)”.\(hint)")
                if let suggestion = error.suggestion { offer(suggestion, entity: entity, subject: subject, parameter: parameter, prompt: turn.reply) }
                return .turn(turn)
            }
        case .time(let resolution, let text):
            return resolveByTime(resolution, text: text, entity: entity, subject: subject, parameter: parameter)
        case .description(let description):
            return resolveByDescription(description, entity: entity, subject: subject, parameter: parameter)
        }
    }

    /// "the event happening June 9th": what happens then, through the entity's search.
    private func resolveByTime(_ resolution: TemporalResolution, text: String, entity: QualifiedName,
                               subject: DialogState.Subject, parameter: String) -> Resolution {
        var description = MentionDescription()
        description.time = resolution
        description.timeText = text
        return resolveByDescription(description, entity: entity, subject: subject, parameter: parameter)
    }

    /// "my meeting with John tonight", "the next appointment": the entity's search with the
    /// description's words (title words and the person) over its time, or over the year ahead
    /// (the year behind for "last"); one match is the record, several are a question.
    private func resolveByDescription(_ description: MentionDescription, entity: QualifiedName,
                                      subject: DialogState.Subject, parameter: String) -> Resolution {
        // "all my lunches": title words said in the plural that match nothing are read singular.
        if let words = description.words, let singular = Conversation.singular(words), singular != words {
            let plain = resolveByDescription(description, words: words, entity: entity, subject: subject, parameter: parameter, quiet: true)
            if case .turn(let turn) = plain, turn.outcome == .failed {
                return resolveByDescription(description, words: singular, entity: entity, subject: subject, parameter: parameter, quiet: false)
            }
        }
        return resolveByDescription(description, words: description.words, entity: entity, subject: subject, parameter: parameter, quiet: false)
    }

    /// "lunches" → "lunch", "meetings" → "meeting": the last word without a plural ending; nil
    /// when it has none.
    static func singular(_ words: String) -> String? {
        var parts = words.split(separator: " ").map(String.init)
        guard let last = parts.last, last.count > 3, last.lowercased().hasSuffix("s"), !last.lowercased().hasSuffix("ss") else { return nil }
        let lower = last.lowercased()
        if lower.hasSuffix("ches") || lower.hasSuffix("shes") || lower.hasSuffix("xes") || lower.hasSuffix("sses") { parts[parts.count - 1] = String(last.dropLast(2)) }
        else if lower.hasSuffix("ies") { parts[parts.count - 1] = String(last.dropLast(3)) + "y" }
        else { parts[parts.count - 1] = String(last.dropLast()) }
        return parts.joined(separator: " ")
    }

    private func resolveByDescription(_ description: MentionDescription, words: String?, entity: QualifiedName,
                                      subject: DialogState.Subject, parameter: String, quiet: Bool) -> Resolution {
        var description = description
        description.words = words
        let noun = engine.noun(entity, count: 1)
        let now = clock()
        guard let search = registry.allIntents.first(where: { $0.action == .search && $0.entity == entity }),
              let from = search.parameter(role: .from), let to = search.parameter(role: .to) else {
            return .turn(failure("I can't look up \(noun)s by time."))
        }
        var bindings = ParameterBindings()
        // "the 2pm one": a clock time with no day is any day's, from now on.
        var clockTime: (hour: Int, minute: Int)?
        if case .timeOfDay(let hour, let minute)? = description.time { clockTime = (hour, minute) }
        if let time = description.time, clockTime == nil {
            guard let range = try? TimeBinding(intent: search, entity: registry.entity(entity), zone: timeZone, now: now).range(time) else {
                return .turn(failure("I can't look up \(noun)s by time."))
            }
            bindings[from.name] = .set(.dateTime(range.start))
            bindings[to.name] = .set(.dateTime(range.end))
        } else {
            let year = 366.0 * 86_400
            let start = description.position == .last ? now.addingTimeInterval(-year) : now
            let end = description.position == .last ? now : now.addingTimeInterval(year)
            bindings[from.name] = .set(.dateTime(DateTimeValue(kind: .utc(epochSeconds: Int64(start.timeIntervalSince1970.rounded(.down))))))
            bindings[to.name] = .set(.dateTime(DateTimeValue(kind: .utc(epochSeconds: Int64(end.timeIntervalSince1970.rounded(.down))))))
        }
        let said = [description.words, description.person].compactMap { $0 }
        if let text = search.parameter(role: .text), !said.isEmpty { bindings[text.name] = .set(.string(said.joined(separator: " "))) }
        let outcome = engine.perform(IntentRequest(intent: search.name.description, parameters: bindings))
        guard case .done(let result) = outcome else {
            if case .failed(let error) = outcome { return .turn(failure(Replies.sentence(error.message))) }
            return .turn(failure("I couldn't look that up."))
        }
        var seen = Set<UUID>()
        var found = result.occurrences.filter { occurrence in
            guard let clockTime else { return true }
            let local = occurrence.start.wallTime(in: timeZone)
            return local.hour == clockTime.hour && local.minute == clockTime.minute
        }.filter { seen.insert($0.record.id).inserted }
        if description.position == .next, let first = found.first { found = [first] }
        if description.position == .last, let last = found.last { found = [last] }
        guard !found.isEmpty else {
            var what = "\(article(noun)) \(noun)"
            if let words = description.words { what += " called “\(words)”" }
            if let person = description.person { what += " with \(person)" }
            if let text = description.timeText { what += " " + Replies.timePhrase(text) }
            else if description.position == .next { what += " coming up" }
            return .turn(failure("I couldn't find \(what)."))
        }
        if found.count == 1 { return .record(found[0].record, occurrence: found[0].isRecurrenceInstance ? found[0].start : nil) }
        // A trial reading (the plural said in the singular) leaves the dialog as it was.
        if quiet { return .turn(Turn(reply: "", outcome: .needsDisambiguation(count: found.count), snippet: nil, understood: true)) }
        let candidates = found.map { occurrence in
            Candidate(id: occurrence.record.id, title: registry.title(of: occurrence.record),
                      subtitle: engine.when(occurrence.start, end: occurrence.end, allDay: engine.isAllDay(occurrence.record)))
        }
        // "all of them" is not a choice the dialog can take yet: it asks which, and says so.
        let lead = description.all ? "I can only change one \(noun) at a time. " : ""
        let prompt = lead + "Which \(noun) did you mean: " + ConversationText.list(candidates.map { "“\($0.title)” (\($0.subtitle ?? ""))" }) + "?"
        var pending = DialogState.Pending(subject: subject, waiting: .choice(parameter: parameter, candidates: candidates), prompt: prompt)
        for occurrence in found where occurrence.isRecurrenceInstance { pending.occurrences[occurrence.record.id] = occurrence.start }
        state.pending = pending
        state.lastResults = found.map { DialogState.Focus(entity: entity, id: $0.record.id, occurrence: $0.isRecurrenceInstance ? $0.start : nil) }
        return .turn(Turn(reply: prompt, outcome: .needsDisambiguation(count: candidates.count), snippet: nil, understood: true))
    }

    /// "move it to 7:30" said of a record at 20:00 means 19:30, and "to 10" of one at 14:00
    /// means 10:00: a clock time said without a morning or an evening is the one of its two
    /// readings nearer the time it replaces (the parser's reading when they are as near).
    static func inheritingMeridiem(_ resolution: TemporalResolution, said: Utterance?, from base: DateTimeValue, zone: TimeZone) -> TemporalResolution {
        guard !saysMeridiem(said) else { return resolution }
        let local = base.wallTime(in: zone)
        let was = local.hour * 60 + local.minute
        func nearer(_ hour: Int, _ minute: Int) -> Int {
            let morning = (hour % 12) * 60 + minute, evening = morning + 12 * 60
            let said = hour * 60 + minute
            let other = said == morning ? evening : morning
            return abs(other - was) < abs(said - was) ? other / 60 : hour
        }
        switch resolution {
        case .timeOfDay(let hour, let minute) where hour % 12 != 0:
            return .timeOfDay(hour: nearer(hour, minute), minute: minute)
        case .shift(.toTimeOfDay(let hour, let minute)) where hour % 12 != 0:
            return .shift(.toTimeOfDay(hour: nearer(hour, minute), minute: minute))
        default:
            return resolution
        }
    }

    private static let meridiemWords: Set<String> = ["am", "pm", "a.m.", "p.m.", "morning", "afternoon", "evening", "night", "tonight", "noon", "midnight", "midday"]

    private static func saysMeridiem(_ said: Utterance?) -> Bool {
        guard let said else { return true }
        return said.keys.contains { key in
            meridiemWords.contains(key) || key.range(of: #"^\d{1,4}(:\d{2})?(a|p|am|pm|a\.m\.|p\.m\.)$"#, options: .regularExpression) != nil
        }
    }

    /// The schema's `@prompt` for the parameter a mention fills ("Which event?").
    private func subjectPrompt(_ subject: DialogState.Subject, parameter: String) -> String? {
        guard case .request(let draft) = subject else { return nil }
        return draft.intent.parameter(parameter)?.annotations.first(named: "prompt")?.firstString
    }

    /// For a repeating record named without a day: the next occurrence from now, the one
    /// people mean by "the standup".
    func upcomingOccurrence(of record: EntityRecord) -> DateTimeValue? {
        guard isSeries(record), let next = try? engine.nextOccurrence(of: record, after: clock()) else { return nil }
        return next.isRecurrenceInstance ? next.start : nil
    }

    func isSeries(_ record: EntityRecord) -> Bool {
        guard let fields = registry.entity(record.entity)?.temporalFields, let property = fields.recurrence else { return false }
        return record[property] != nil
    }

    func failure(_ reply: String) -> Turn {
        Turn(reply: reply, outcome: .failed, snippet: nil, understood: true)
    }

    private func article(_ noun: String) -> String {
        guard let first = noun.first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    /// A title of the entity to show in a hint; the noun when the store has none.
    private func example(_ entity: QualifiedName) -> String {
        if let focus = state.lastResults.first(where: { $0.entity == entity }), let record = try? engine.record(entity, id: focus.id) {
            return registry.title(of: record)
        }
        return "the " + engine.noun(entity, count: 1)
    }
}
