import Foundation
import CometSchema
import CometStore

extension Invocation {
    func plan() throws -> PlanOrQuestion {
        guard let action = intent.action, let entity else {
            throw IntentError(.notSupported, "intent '\(intent.name.name)' declares no action (creates, updates, …), so the engine cannot run it")
        }
        switch action {
        case .create: return .plan(try planCreate(entity))
        case .update: return try planUpdate(entity)
        case .delete: return try planDelete(entity)
        case .open:
            let target = try targetRecord(entity)
            return .plan(Plan(kind: .open, target: target, spanText: nil, changed: []) { _ in PlanOutput(record: target) })
        case .search: return .plan(try planSearch(entity))
        }
    }

    /// The record named by the `@target` parameter.
    func targetRecord(_ entity: EntityDefinition) throws -> EntityRecord {
        guard let target = intent.targetParameter, case .set(.reference(let id)) = bindings[target.name],
              let record = try transaction.fetch(entity.name, id: id) else {
            throw IntentError(.notFound, "the \(presenter.noun(entity.name)) to act on was not found", parameter: intent.targetParameter?.name)
        }
        return record
    }

    /// Parameters that carry a property's new value: same name as a property of the entity.
    func propertyParameters(_ entity: EntityDefinition) -> [ParameterDefinition] {
        intent.parameters.filter { !$0.isTarget && entity.property($0.name) != nil && $0.name != "id" }
    }

    // MARK: Create

    private func planCreate(_ entity: EntityDefinition) throws -> Plan {
        var values: [String: Value] = [:]
        var changed = Set<String>()
        for property in entity.properties where property.name != "id" {
            if intent.parameter(property.name) != nil, case .set(let value) = bindings[property.name] {
                values[property.name] = withDefaults(value, type: property.type)
                changed.insert(property.name)
            } else if let defaultValue = property.defaultValue {
                values[property.name] = defaultValue
            }
        }
        var record = EntityRecord(entity: entity.name, id: UUID(), values: values)
        stamp(&record, entity, isNew: true)
        let firstRun = try fillDefaultReferences(&record, entity)
        try applyDefaultMarker(&record, entity, isNew: true)
        if let rules = TemporalRules(entity: entity) {
            // Only an end nobody mentioned gets the schema's length: a cleared one stays absent.
            if let endProperty = rules.fields.end, bindings[endProperty] == .unset { try rules.fillDefaultEnd(&record) }
            try rules.normalize(&record, previous: nil, changed: changed, timeFormat: engine.timeFormat)
        }
        try checkUnique(record, entity)
        let created = record
        return Plan(kind: .create, target: nil, spanText: nil, changed: Array(changed)) { recorder in
            // Both made here with new ids: nothing stored to read first.
            for made in firstRun { try recorder.saveNew(made) }
            try clearOtherDefaults(created, entity, recorder)
            try recorder.saveNew(created)
            let notes = firstRun.map { made in
                "There was no \(presenter.noun(made.entity)) yet, so I created one called “\(registry.title(of: made))”, the default."
            }
            return PlanOutput(record: created, notes: notes)
        }
    }

    /// Transient values (an attendee) get their schema defaults now, so the record returned is
    /// exactly the record stored.
    func withDefaults(_ value: Value, type: TypeExpression) -> Value {
        switch value {
        case .array(let items): return .array(items.map { withDefaults($0, type: type.element) })
        case .object(var properties):
            guard case .entity(let name) = type.base, let definition = registry.entity(name) else { return value }
            for property in definition.properties {
                if let existing = properties[property.name] {
                    properties[property.name] = withDefaults(existing, type: property.type)
                } else if let defaultValue = property.defaultValue {
                    properties[property.name] = defaultValue
                }
            }
            return .object(properties)
        default: return value
        }
    }

    /// A required reference left out (an event's calendar) goes to the record marked default,
    /// or to the only record there is. On first run, when there is none and the kind has a
    /// default (`@marksDefault`), one is made, named after its kind: a fresh store just works.
    /// Returns the records made, to be saved (and journaled) with the new one.
    private func fillDefaultReferences(_ record: inout EntityRecord, _ entity: EntityDefinition) throws -> [EntityRecord] {
        var made: [EntityRecord] = []
        for property in entity.properties where property.isRequired && record[property.name] == nil {
            guard case .entity(let target) = property.type.base, let targetDefinition = registry.entity(target), targetDefinition.kind == .indexed else { continue }
            let noun = presenter.noun(target)
            if let marker = targetDefinition.properties.first(where: { $0.annotations.contains(named: "marksDefault") }),
               let chosen = try transaction.fetchAll(target, matching: [.equals(marker.name, .bool(true))], limit: 1).first {
                record[property.name] = .reference(chosen.id)
                continue
            }
            let all = try transaction.fetchAll(target, matching: [], limit: 2)
            if all.count == 1 {
                record[property.name] = .reference(all[0].id)
            } else if all.isEmpty, let first = firstRecord(of: targetDefinition) {
                record[property.name] = .reference(first.id)
                made.append(first)
            } else if all.isEmpty {
                let creator = registry.domains.flatMap(\.intents).first { $0.action == .create && $0.entity == target }
                throw IntentError(.notFound, "there is no \(noun) yet to put this \(presenter.noun(entity.name)) in; create one first"
                                  + (creator.map { " with the intent \($0.name.name)" } ?? ""), parameter: property.name)
            } else {
                throw IntentError(.invalidValue, "say which \(noun) to use (there are several and none is the default)", parameter: property.name)
            }
        }
        return made
    }

    /// The default record of a kind that has none yet: its title is the kind's name ("Calendar"),
    /// every other property its schema default. Nil when the kind has no default marker, or a
    /// required property without a default that only a person can fill.
    private func firstRecord(of definition: EntityDefinition) -> EntityRecord? {
        guard let marker = definition.properties.first(where: { $0.annotations.contains(named: "marksDefault") }),
              let title = definition.titleProperty, title.type.base == .builtin(.string) else { return nil }
        var values: [String: Value] = [:]
        for property in definition.properties where property.name != "id" {
            if let value = property.defaultValue { values[property.name] = value }
        }
        let noun = presenter.noun(definition.name)
        values[title.name] = .string(noun.prefix(1).uppercased() + noun.dropFirst())
        values[marker.name] = .bool(true)
        guard definition.properties.allSatisfy({ !$0.isRequired || $0.name == "id" || values[$0.name] != nil }) else { return nil }
        var record = EntityRecord(entity: definition.name, id: UUID(), values: values)
        stamp(&record, definition, isNew: true)
        return record
    }

    /// `@marksDefault`: the first record of its kind becomes the default; at most one is.
    private func applyDefaultMarker(_ record: inout EntityRecord, _ entity: EntityDefinition, isNew: Bool) throws {
        guard isNew, let marker = entity.properties.first(where: { $0.annotations.contains(named: "marksDefault") }),
              intent.parameter(marker.name).map({ bindings[$0.name] == .unset }) ?? true else { return }
        if try transaction.count(entity.name) == 0 { record[marker.name] = .bool(true) }
    }

    private func clearOtherDefaults(_ record: EntityRecord, _ entity: EntityDefinition, _ recorder: ChangeRecorder) throws {
        guard let marker = entity.properties.first(where: { $0.annotations.contains(named: "marksDefault") }),
              record[marker.name] == .bool(true) else { return }
        for other in try transaction.fetchAll(entity.name, matching: [.equals(marker.name, .bool(true))], limit: nil) where other.id != record.id {
            var updated = other
            updated[marker.name] = .bool(false)
            try recorder.save(updated)
        }
    }

    // MARK: Update

    /// The new values an update asks for, applied to `record`; cleared properties go back to
    /// their default or away, and clearing a required one without default is an error.
    func applyChanges(to record: EntityRecord, _ entity: EntityDefinition) throws -> (EntityRecord, Set<String>) {
        var updated = record
        var changed = Set<String>()
        for parameter in propertyParameters(entity) {
            guard let property = entity.property(parameter.name) else { continue }
            switch bindings[parameter.name] {
            case .unset: continue
            case .set(let value):
                updated[property.name] = withDefaults(value, type: property.type)
            case .cleared:
                if let defaultValue = property.defaultValue {
                    updated[property.name] = defaultValue
                } else if property.isRequired {
                    throw IntentError(.clearedRequired, "every \(presenter.noun(entity.name)) needs a \(Presenter.words(property.name)), so it cannot be cleared; give a new value instead", parameter: property.name)
                } else {
                    updated[property.name] = nil
                }
            }
            changed.insert(property.name)
        }
        return (updated, changed)
    }

    private func planUpdate(_ entity: EntityDefinition) throws -> PlanOrQuestion {
        let target = try targetRecord(entity)
        let (_, changed) = try applyChanges(to: target, entity)
        guard !changed.isEmpty else {
            let names = propertyParameters(entity).map(\.name).joined(separator: ", ")
            throw IntentError(.invalidValue, "nothing to change: set or clear at least one of \(names)")
        }
        if let rules = TemporalRules(entity: entity), rules.isSeries(target) || rules.isOverride(target) {
            return try SeriesEditor(invocation: self, entity: entity, rules: rules).planUpdate(target, changed: changed)
        }
        var (updated, _) = try applyChanges(to: target, entity)
        try TemporalRules(entity: entity)?.normalize(&updated, previous: target, changed: changed, timeFormat: engine.timeFormat)
        try checkUnique(updated, entity)
        bumpSequence(&updated, entity)
        let result = updated
        return .plan(Plan(kind: .update, target: target, spanText: nil, changed: changed.sorted(), after: result) { recorder in
            try clearOtherDefaults(result, entity, recorder)
            try recorder.save(result)
            return PlanOutput(record: result)
        })
    }

    /// `@unique` properties: no other record of the entity holds the same value (text ignoring
    /// case and accents, as titles are matched when people name things).
    func checkUnique(_ record: EntityRecord, _ entity: EntityDefinition) throws {
        for property in entity.properties where property.annotations.contains(named: "unique") {
            guard let value = record[property.name] else { continue }
            let clash = try transaction.fetchAll(entity.name, matching: [], limit: nil).first { other in
                guard other.id != record.id, let existing = other[property.name] else { return false }
                if case .string(let left) = value, case .string(let right) = existing {
                    return left.compare(right, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
                }
                return existing == value
            }
            if let clash {
                let noun = presenter.noun(entity.name)
                throw IntentError(.duplicate, "there is already a \(noun) called “\(registry.title(of: clash))” (id \(clash.id.lowercasedText)); choose another \(Presenter.words(property.name))",
                                  parameter: property.name)
            }
        }
    }

    /// CREATED (when new), LAST-MODIFIED and DTSTAMP (always) record the change in UTC, for any
    /// entity that maps them: a version CometCal wrote is stamped when CometCal wrote it.
    func stamp(_ record: inout EntityRecord, _ entity: EntityDefinition, isNew: Bool) {
        let now = Value.dateTime(.utc(engine.clock()))
        for property in entity.properties where property.type == .builtin(.dateTime, optional: property.type.isOptional) && !property.type.isArray {
            switch property.icalName {
            case "CREATED"? where isNew && record[property.name] == nil: record[property.name] = now
            case "LAST-MODIFIED"?, "DTSTAMP"?: record[property.name] = now
            default: continue
            }
        }
    }

    /// SEQUENCE goes up with every change, so calendar clients see the newer version; the
    /// change is stamped in LAST-MODIFIED.
    func bumpSequence(_ record: inout EntityRecord, _ entity: EntityDefinition) {
        stamp(&record, entity, isNew: false)
        guard let property = entity.properties.first(where: { $0.icalName == "SEQUENCE" && $0.type.base == .builtin(.int) }) else { return }
        if case .int(let number)? = record[property.name] {
            record[property.name] = .int(number + 1)
        } else {
            record[property.name] = .int(1)
        }
    }

    // MARK: Delete

    private func planDelete(_ entity: EntityDefinition) throws -> PlanOrQuestion {
        let target = try targetRecord(entity)
        if let rules = TemporalRules(entity: entity), rules.isSeries(target) || rules.isOverride(target) {
            return try SeriesEditor(invocation: self, entity: entity, rules: rules).planDelete(target)
        }
        return .plan(Plan(kind: .delete, target: target, spanText: nil, changed: []) { _ in
            try deleteCascading(target)
            return PlanOutput(record: nil)
        })
    }

    // MARK: Search

    /// Search intents follow a convention: the `@role(text)` parameter searches the
    /// `@searchable` properties, `@role(from)`/`@role(to)` select occurrences in a range, and
    /// parameters named like properties filter by equality. Everything that matches is returned unless the request
    /// asks for a page; either way the result says how many matched in all.
    private func planSearch(_ entity: EntityDefinition) throws -> Plan {
        var filters: [RecordFilter] = []
        for parameter in intent.parameters where entity.property(parameter.name) != nil {
            if case .set(let value) = bindings[parameter.name] { filters.append(.equals(parameter.name, value)) }
        }
        let text: String? = { if case .set(.string(let text)) = bound(.text) { return text } else { return nil } }()
        let from: DateTimeValue? = { if case .set(.dateTime(let value)) = bound(.from) { return value } else { return nil } }()
        let to: DateTimeValue? = { if case .set(.dateTime(let value)) = bound(.to) { return value } else { return nil } }()
        let zone = engine.timeZone
        if let from, let to, instant(of: to, zone: zone) <= instant(of: from, zone: zone) {
            throw IntentError(.invalidValue, "the range ends (\(to)) before or when it starts (\(from)); give an end after the start",
                              parameter: intent.parameter(role: .to)?.name)
        }
        let transaction = self.transaction
        let page = self.page
        return Plan(kind: .search, target: nil, spanText: nil, changed: []) { _ in
            if from != nil || to != nil, entity.temporalFields != nil {
                let lower = from.map { instant(of: $0, zone: zone) } ?? Date(timeIntervalSince1970: -62_135_596_800)
                let upper = to.map { instant(of: $0, zone: zone) } ?? Date(timeIntervalSince1970: 253_402_300_799)
                let found = try transaction.occurrences(entity.name, from: lower, to: upper, zone: zone, matching: filters,
                                                        text: text, limit: page.limit, offset: page.offset)
                return PlanOutput(occurrences: found.occurrences,
                                  page: PageInfo(total: found.total, offset: page.offset, limit: page.limit, count: found.occurrences.count))
            }
            let found = try transaction.page(entity.name, matching: filters, text: text, limit: page.limit, offset: page.offset)
            return PlanOutput(records: found.records, page: PageInfo(total: found.total, offset: page.offset, limit: page.limit, count: found.records.count))
        }
    }
}

extension Invocation {
    /// The value of the parameter playing `role`; unset when the intent has none.
    func bound(_ role: ParameterRole) -> ParameterValue {
        intent.parameter(role: role).map { bindings[$0.name] } ?? .unset
    }
}

/// The instant of a DateTime; a floating one read in `zone`.
func instant(of value: DateTimeValue, zone: TimeZone) -> Date {
    if let instant = value.instant { return instant }
    return Date(timeIntervalSince1970: TimeInterval(value.localTime.dateTime(in: zone).sortKey))
}
