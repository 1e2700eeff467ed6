import Foundation
import CometSchema
import CometStore
import CometText

/// Runs intents of any domain against the registry and a store: binds parameters with their
/// value state, validates them, resolves entity references, applies the confirmation policy,
/// performs in one transaction, journals the inverse, and answers with an `IntentOutcome`.
/// Not Sendable (it owns a store connection): one engine per thread, or behind an actor.
public final class IntentEngine {
    public let registry: Registry
    let store: any EntityStore
    /// The person's zone: floating times are shown in it and relative times read in it.
    public var timeZone: TimeZone
    /// How replies, cards, prompts and errors write a time of day (the config's time_format).
    public let timeFormat: TimeFormat
    let clock: @Sendable () -> Date
    /// Calendar resources' texts and ETags kept between requests (`ResourceCache`): share one
    /// among the engines serving a store to sync clients; nil makes them again on every read.
    public var resourceCache: ResourceCache?

    public init(store: any EntityStore, timeZone: TimeZone = .current, timeFormat: TimeFormat = .twentyFourHour,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.registry = store.registry
        self.timeZone = timeZone
        self.timeFormat = timeFormat
        self.clock = clock
    }

    /// Runs one request. Never throws: every problem is an outcome.
    public func perform(_ request: IntentRequest) -> IntentOutcome {
        do {
            return try performChecked(request)
        } catch let error as IntentError {
            return .failed(error)
        } catch let error as StoreError {
            return .failed(IntentError(.storage, "the calendar store could not do that: \(error.message)"))
        } catch {
            return .failed(IntentError(.storage, "\(error)"))
        }
    }

    /// Finds an intent by plain or qualified name, with a suggestion when it does not exist.
    public func intent(named name: String) throws -> IntentDefinition { try IntentEngine.intent(named: name, in: registry) }

    /// The same rule without an engine (a client of the daemon has the registry only).
    public static func intent(named name: String, in registry: Registry) throws -> IntentDefinition {
        let matches = registry.lookup(name).compactMap { declaration -> IntentDefinition? in
            if case .intent(let intent) = declaration { return intent }
            return nil
        }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            throw IntentError(.unknownIntent, "intent '\(name)' exists in several domains; name one: " + matches.map { "'\($0.name)'" }.joined(separator: ", "))
        }
        let names = registry.allIntents.map(\.name.name)
        throw IntentError(.unknownIntent, "no intent is named '\(name)' (intents: \(names.joined(separator: ", ")))",
                          suggestion: EditDistance.closest(to: name, among: names))
    }

    private func performChecked(_ request: IntentRequest) throws -> IntentOutcome {
        let intent = try intent(named: request.intent)
        try validate(request, for: intent)
        // Searches and opens only read: they never queue behind a writer. An alarm action
        // (`@alarmAction`: snooze, dismiss) writes to the alarms' own tables.
        let alarmAction = intent.annotations.first(named: "alarmAction")
        let reads = (intent.action == .search || intent.action == .open) && alarmAction == nil
        // The intent is a read or a write by its declaration, known only now: its body gets a
        // recorder over either, and a change asked for in a read fails in the recorder.
        if reads {
            return try store.readTransaction { try performInTransaction(request, intent, alarmAction: alarmAction, recorder: ChangeRecorder(reading: $0)) }
        }
        return try store.transaction { try performInTransaction(request, intent, alarmAction: alarmAction, recorder: ChangeRecorder($0)) }
    }

    private func performInTransaction(_ request: IntentRequest, _ intent: IntentDefinition, alarmAction: Annotation?, recorder: ChangeRecorder) throws -> IntentOutcome {
        var invocation = Invocation(engine: self, intent: intent, bindings: request.parameters, page: request.page, recorder: recorder)
        if let outcome = try invocation.resolveReferences(request.references) { return outcome }
        if let outcome = invocation.missingRequiredValue() { return outcome }
        if let alarmAction { return try invocation.performAlarmAction(alarmAction) }
        let plan: Plan
        switch try invocation.plan() {
        case .ask(let outcome): return outcome
        case .plan(let found): plan = found
        }
        if let prompt = invocation.confirmationPrompt(plan) {
            switch request.confirmation {
            case .pending: return .needsConfirmation(prompt: prompt, snippet: invocation.previewSnippet(plan))
            case .declined: return .cancelled(invocation.cancelledDialog(plan))
            case .confirmed: break
            }
        }
        let result = try invocation.perform(plan)
        return .done(result)
    }

    /// Every parameter named exists, cleared ones are optional, set values fit their types.
    private func validate(_ request: IntentRequest, for intent: IntentDefinition) throws {
        try validate(request.page, for: intent)
        let names = intent.parameters.map(\.name)
        for name in request.parameters.mentionedNames + request.references.keys.sorted() {
            guard intent.parameter(name) != nil else {
                throw IntentError(.unknownParameter, "'\(name)' is not a parameter of \(intent.name.name) (parameters: \(names.joined(separator: ", ")))",
                                  parameter: name, suggestion: EditDistance.closest(to: name, among: names))
            }
        }
        for parameter in intent.parameters {
            switch request.parameters[parameter.name] {
            case .unset: continue
            case .cleared:
                if parameter.isRequired {
                    throw IntentError(.clearedRequired, "'\(parameter.name)' is required by \(intent.name.name) and cannot be cleared", parameter: parameter.name)
                }
            case .set(let value):
                do {
                    try registry.validate(value, as: parameter.type.required)
                } catch {
                    throw IntentError(error, parameter: parameter.name)
                }
                try checkNonBlank(value, parameter: parameter, of: intent)
                if case .string(let text) = value, let entity = intent.entity.flatMap({ registry.entity($0) }),
                   entity.property(parameter.name)?.annotations.contains(named: "color") == true, CSSColor(parsing: text) == nil {
                    throw IntentError(.invalidValue, "'\(text)' is not a colour; write a CSS colour name such as teal or tomato, or hex such as #3478F6",
                                      parameter: parameter.name, suggestion: EditDistance.closest(to: text.lowercased(), among: CSSColor.named.keys.sorted()))
                }
            }
        }
    }

    /// A value written to a `@nonBlank` property must say something: empty text, or only spaces,
    /// is refused here, once, for every front end. A search may still look for what an import kept.
    private func checkNonBlank(_ value: Value, parameter: ParameterDefinition, of intent: IntentDefinition) throws {
        guard intent.action == .create || intent.action == .update, case .string(let text) = value,
              text.allSatisfy({ $0.isWhitespace || $0.isNewline }),
              let property = intent.entity.flatMap({ registry.entity($0) })?.property(parameter.name),
              property.annotations.contains(named: "nonBlank") else { return }
        let noun = property.annotations.first(named: "display")?.firstString ?? Presenter.words(property.name)
        throw IntentError(.invalidValue, "a \(noun) must have something in it", parameter: parameter.name)
    }

    /// A page is for searches only; its error names `limit` or `offset`, as the request spells them.
    private func validate(_ page: ResultPage, for intent: IntentDefinition) throws {
        guard page != .all else { return }
        guard intent.action == .search else {
            throw IntentError(.invalidValue, "only searches return results in pages; \(intent.name.name) takes no limit or offset",
                              parameter: page.limit != nil ? "limit" : "offset")
        }
        if let limit = page.limit, limit < 1 {
            throw IntentError(.invalidValue, "the limit must be 1 or more, not \(limit)", parameter: "limit")
        }
        if page.offset < 0 {
            throw IntentError(.invalidValue, "the offset must be 0 or more, not \(page.offset)", parameter: "offset")
        }
    }
}
