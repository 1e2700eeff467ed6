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
}

/// What performing a plan gives: the record acted on, or a search's results and how they
/// relate to everything that matched.
struct PlanOutput {
    var record: EntityRecord?
    var records: [EntityRecord] = []
    var occurrences: [Occurrence] = []
    var page: PageInfo?
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
    var transaction: any StoreTransaction { recorder.transaction }
    var entity: EntityDefinition? { intent.entity.flatMap { registry.entity($0) } }
    var presenter: Presenter { Presenter(registry: registry, transaction: transaction, timeZone: engine.timeZone, now: engine.clock()) }

    // MARK: References

    /// Resolves entity parameters given as text or id. Several matches ask which one.
    mutating func resolveReferences(_ texts: [String: String]) throws -> IntentOutcome? {
        for parameter in intent.parameters {
            guard case .entity(let name) = parameter.type.base, !parameter.type.isArray else { continue }
            if let text = texts[parameter.name] {
                switch try resolve(text, as: name, parameter: parameter) {
                case .found(let id): bindings[parameter.name] = .set(.reference(id))
                case .ask(let outcome): return outcome
                }
            } else if case .set(.reference(let id)) = bindings[parameter.name] {
                guard try transaction.fetch(name, id: id) != nil else {
                    throw IntentError(.notFound, "no \(presenter.noun(name)) has the id \(id.uuidString.lowercased())", parameter: parameter.name)
                }
            }
        }
        return nil
    }

    /// How many candidates a question names; the rest are counted ("and 4 more") and listed in
    /// the outcome's candidates.
    static let namedCandidates = 10

    private enum Resolution {
        case found(UUID)
        case ask(IntentOutcome)
    }

    /// The entity's string query: an id, else full-text search; an exact title wins over partial
    /// matches. Several equally good matches become a disambiguation.
    private func resolve(_ text: String, as name: QualifiedName, parameter: ParameterDefinition) throws -> Resolution {
        let noun = presenter.noun(name)
        if let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) {
            guard try transaction.fetch(name, id: id) != nil else {
                throw IntentError(.notFound, "no \(noun) has the id \(text)", parameter: parameter.name)
            }
            return .found(id)
        }
        // Every match, not the best few: an exact title may rank after many partial matches,
        // and the question must say how many there are.
        var matches = collapseSeries(try transaction.fetchAll(name, matching: [], text: text, limit: nil, offset: 0), of: name)
        if matches.isEmpty {
            // Entities without searchable text still match their title exactly.
            matches = try transaction.fetchAll(name, matching: [], limit: nil).filter {
                registry.title(of: $0).compare(text, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
            }
        }
        let exact = matches.filter { registry.title(of: $0).compare(text, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        if exact.count == 1 { return .found(exact[0].id) }
        if matches.count == 1 { return .found(matches[0].id) }
        if matches.isEmpty {
            let titles = try transaction.fetchAll(name, matching: [], limit: 500).map { registry.title(of: $0) }
            throw IntentError(.notFound, "no \(noun) matches '\(text)'", parameter: parameter.name,
                              suggestion: EditDistance.closest(to: text, among: titles, maxDistance: 3))
        }
        let pool = exact.isEmpty ? matches : exact
        let candidates = pool.map { presenter.candidate($0) }
        let named = candidates.prefix(Invocation.namedCandidates)
        var prompt = "Which \(noun) did you mean: " + named.map { candidate in
            "“\(candidate.title)”" + (candidate.subtitle.map { " (\($0))" } ?? "")
        }.joined(separator: ", ")
        if candidates.count > named.count { prompt += ", and \(NumberText.grouped(candidates.count - named.count)) more" }
        return .ask(.needsDisambiguation(parameter: parameter.name, prompt: prompt + "?", candidates: candidates))
    }

    /// An override stands for one occurrence of its series: when the series matches too, the
    /// series is what the person named (span and occurrence then pick the instance).
    private func collapseSeries(_ records: [EntityRecord], of name: QualifiedName) -> [EntityRecord] {
        guard let definition = registry.entity(name), let rules = TemporalRules(entity: definition) else { return records }
        let seriesUIDs = Set(records.filter { !rules.isOverride($0) }.compactMap { rules.uid($0) })
        return records.filter { !(rules.isOverride($0) && rules.uid($0).map(seriesUIDs.contains) == true) }
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
        return presenter.snippet(target)
    }

    func cancelledDialog(_ plan: Plan) -> Dialog {
        presenter.cancelled(plan)
    }

    // MARK: Performing

    func perform(_ plan: Plan) throws -> IntentResult {
        let outcome = try plan.apply(recorder)
        let changes = recorder.changes
        let dialog = presenter.done(plan, result: outcome.record, page: outcome.page, intent: intent)
        var sequence: Int64?
        if intent.isUndoable, !changes.isEmpty {
            sequence = try transaction.appendJournal(JournalEntry(
                intent: intent.name.description, summary: dialog.supporting, created: engine.clock(), changes: changes))
        }
        return IntentResult(
            intent: intent.name, action: intent.action, record: outcome.record, records: outcome.records,
            occurrences: outcome.occurrences, dialog: dialog, snippet: outcome.record.map { presenter.snippet($0) },
            journalSequence: sequence, page: outcome.page)
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
