import Foundation
import CometSchema
import CometStore
import CometText

/// What an intent will do once confirmed: a description for prompts, and the work itself.
struct Plan {
    enum Kind { case create, update, delete, open, search }

    let kind: Kind
    /// The record acted on as it is now (nil for create and search).
    let target: EntityRecord?
    /// "only the occurrence on Tue Jun 9", for prompts and dialogs.
    let spanText: String?
    /// Properties the request changes (update).
    let changed: [String]
    /// Does the work; returns the record to report (nil when deleted) and search results.
    let apply: (ChangeRecorder) throws -> PlanOutput
    /// The record as the update will leave it, when known before performing: a confirmation
    /// then says what it will become ("Move “Picnic” to Sat Jun 13 11:30?").
    var after: EntityRecord? = nil

    init(kind: Kind, target: EntityRecord?, spanText: String?, changed: [String], after: EntityRecord? = nil,
         apply: @escaping (ChangeRecorder) throws -> PlanOutput) {
        self.kind = kind
        self.target = target
        self.spanText = spanText
        self.changed = changed
        self.after = after
        self.apply = apply
    }
}

/// What performing a plan gives: the record acted on, or a search's results and how they
/// relate to everything that matched.
struct PlanOutput {
    var record: EntityRecord?
    var records: [EntityRecord] = []
    var occurrences: [Occurrence] = []
    var page: PageInfo?
    /// What the dialog must say beyond the change itself (a default calendar made on first run).
    var notes: [String] = []
}

enum PlanOrQuestion {
    case plan(Plan)
    case ask(IntentOutcome)
}

/// One run of one intent inside one transaction.
struct Invocation {
    let engine: IntentEngine
    let intent: IntentDefinition
    var bindings: ParameterBindings
    /// For searches: which part of the results to return.
    let page: ResultPage
    let recorder: ChangeRecorder

    var registry: Registry { engine.registry }
    var transaction: any StoreReader { recorder.transaction }
    var entity: EntityDefinition? { intent.entity.flatMap { registry.entity($0) } }
    var presenter: Presenter { Presenter(registry: registry, transaction: transaction, timeZone: engine.timeZone, timeFormat: engine.timeFormat, now: engine.clock()) }
    var resolver: EntityResolver { EntityResolver(registry: registry, transaction: transaction, presenter: presenter) }

    // MARK: References

    /// Resolves entity parameters given as text or id. Several matches ask which one.
    mutating func resolveReferences(_ texts: [String: String]) throws -> IntentOutcome? {
        for parameter in intent.parameters {
            guard case .entity(let name) = parameter.type.base, !parameter.type.isArray else { continue }
            if let text = texts[parameter.name] {
                let narrowing = parameter.isTarget ? try occurrenceNarrowing(of: name) : nil
                switch try resolver.resolve(text, as: name, parameter: parameter.name, narrowing: narrowing) {
                case .found(let record): bindings[parameter.name] = .set(.reference(record.id))
                case .ambiguous(let prompt, let candidates):
                    return .needsDisambiguation(parameter: parameter.name, prompt: prompt, candidates: candidates)
                }
            } else if case .set(.reference(let id)) = bindings[parameter.name] {
                guard try transaction.fetch(name, id: id) != nil else {
                    throw IntentError(.notFound, "no \(presenter.noun(name)) has the id \(id.lowercasedText)", parameter: parameter.name)
                }
            }
        }
        return nil
    }

    /// An occurrence given with a name narrows what the name matches: of two series called
    /// “Yoga” (a series split “this and future”), the one with an occurrence at that moment, or
    /// else on that day, is meant.
    private func occurrenceNarrowing(of name: QualifiedName) throws -> ((EntityRecord) -> Bool)? {
        guard let parameter = intent.parameter(role: .occurrence), case .set(.dateTime(let wanted)) = bindings[parameter.name],
              let definition = registry.entity(name), let rules = TemporalRules(entity: definition) else { return nil }
        let zone = engine.timeZone
        let center = Date(timeIntervalSince1970: TimeInterval(wanted.sortKey))
        let nearby = try transaction.occurrences(name, from: center.addingTimeInterval(-2 * 86_400), to: center.addingTimeInterval(2 * 86_400), zone: zone, matching: [])
        let wantedDay = wanted.wallTime(in: zone).date
        let atMoment = nearby.filter { $0.recurrenceKey.sortKey == wanted.sortKey || $0.start.sortKey == wanted.sortKey }
        let held = atMoment.isEmpty ? nearby.filter { $0.recurrenceKey.wallTime(in: zone).date == wantedDay } : atMoment
        let ids = Set(held.map(\.record.id))
        let uids = Set(held.compactMap { rules.uid($0.record) })
        return { record in ids.contains(record.id) || rules.uid(record).map(uids.contains) == true }
    }

    // MARK: Missing values

    func missingRequiredValue() -> IntentOutcome? {
        for parameter in intent.parameters where parameter.isRequired && bindings[parameter.name] == .unset {
            return .needsValue(parameter: parameter.name, prompt: prompt(for: parameter))
        }
        return nil
    }

    func prompt(for parameter: ParameterDefinition) -> String {
        if let prompt = parameter.annotations.first(named: "prompt")?.firstString { return prompt }
        return "What \(Presenter.words(parameter.name)) should I use?"
    }

    /// Asks for the parameter playing `role`; an intent without one cannot be asked, so the
    /// request fails saying what is missing.
    func question(role: ParameterRole) -> PlanOrQuestion {
        guard let parameter = intent.parameter(role: role) else {
            return .ask(.failed(IntentError(.invalidValue, "\(intent.name.name) cannot say which \(role.rawValue) it means: it has no parameter with @role(\(role.rawValue))")))
        }
        return .ask(.needsValue(parameter: parameter.name, prompt: prompt(for: parameter)))
    }

    func question(_ parameterName: String) -> IntentOutcome {
        let text = intent.parameter(parameterName).map(prompt(for:)) ?? "Which \(Presenter.words(parameterName))?"
        return .needsValue(parameter: parameterName, prompt: text)
    }

    // MARK: Policy

    /// The question to ask before performing, or nil when the policy does not ask.
    func confirmationPrompt(_ plan: Plan) -> String? {
        switch intent.confirmation {
        case .never: return nil
        case .always: break
        case .whenTargetHas(let property):
            guard let target = plan.target, let value = target[property] else { return nil }
            if case .array(let items) = value, items.isEmpty { return nil }
        }
        return presenter.confirmation(plan, intent: intent)
    }

    func previewSnippet(_ plan: Plan) -> Snippet {
        guard let target = plan.target else { return Snippet(title: intent.name.name, subtitle: nil, fields: []) }
        // A change is shown as it will leave the record: the card of "Move “Picnic” to 13:00?"
        // says 13:00, as the question does.
        return presenter.snippet(plan.kind == .update ? plan.after ?? target : target)
    }

    func cancelledDialog(_ plan: Plan) -> Dialog {
        presenter.cancelled(plan, intent: intent)
    }

    // MARK: Performing

    func perform(_ plan: Plan) throws -> IntentResult {
        let outcome = try plan.apply(recorder)
        let changes = recorder.changes
        let done = presenter.done(plan, result: outcome.record, page: outcome.page, intent: intent)
        var dialog = done
        if !outcome.notes.isEmpty {
            let notes = outcome.notes.joined(separator: " ")
            dialog = Dialog(full: done.full + " " + notes, supporting: done.supporting + ". " + notes)
        }
        // A repeat newly set that crowds a day is said, in the reply and in `warnings`.
        var warnings = changes.compactMap { change -> String? in
            guard let after = change.after, let temporal = registry.entity(after.entity)?.temporalFields,
                  let property = temporal.recurrence, after[property] != nil, change.before?[property] != after[property] else { return nil }
            return RecurrenceDensity.warning(for: after, temporal: temporal, registry: registry)
        }
        // A record made or moved onto others' time is said too, in the reply and in `warnings`.
        if let record = outcome.record, let sentence = try overlapSentence(plan, record: record) { warnings.append(sentence) }
        if !warnings.isEmpty {
            dialog = Dialog(full: dialog.full + " " + warnings.joined(separator: " "), supporting: dialog.supporting)
        }
        var sequence: Int64?
        if intent.isUndoable, !changes.isEmpty {
            // The journal names the change; undoing it removes what it made on the way too.
            sequence = try recorder.appendJournal(JournalEntry(
                intent: intent.name.description, summary: done.supporting, created: engine.clock(), changes: changes))
        }
        return IntentResult(
            intent: intent.name, action: intent.action, record: outcome.record, records: outcome.records,
            occurrences: outcome.occurrences, dialog: dialog, snippet: outcome.record.map { presenter.snippet($0) },
            journalSequence: sequence, page: outcome.page, warnings: warnings)
    }

    /// The overlap sentence for a record created, or updated in when it happens or whether it
    /// takes up its time; nil when it overlaps nothing busy or the change cannot move it.
    private func overlapSentence(_ plan: Plan, record: EntityRecord) throws -> String? {
        guard plan.kind == .create || plan.kind == .update, let definition = registry.entity(record.entity),
              let rules = TemporalRules(entity: definition) else { return nil }
        if plan.kind == .update {
            let timing = rules.timeProperties.union([rules.fields.recurrence, rules.busyProperty].compactMap { $0 })
            guard !timing.isDisjoint(with: plan.changed) else { return nil }
        }
        let now = engine.clock()
        let check = OverlapCheck(rules: rules, transaction: transaction, zone: engine.timeZone, now: now)
        let finding = try check.find(for: record)
        let startsLater = rules.start(record).map { check.instant($0) > now } ?? false
        return OverlapCheck.sentence(finding, series: rules.isSeries(record), startsLater: startsLater, presenter: presenter, entity: record.entity)
    }

    /// Deletes a record and, first, what depends on it: records whose required reference points
    /// at it are deleted too; optional references are cleared. Everything is journaled.
    func deleteCascading(_ record: EntityRecord) throws {
        for (dependent, property) in try transaction.referencing(record.entity, id: record.id) {
            guard let definition = registry.entity(dependent.entity), let propertyDefinition = definition.property(property) else { continue }
            if propertyDefinition.isRequired {
                try deleteCascading(dependent)
            } else {
                var updated = dependent
                updated[property] = nil
                try recorder.save(updated)
            }
        }
        try recorder.delete(record.entity, id: record.id)
    }
}
