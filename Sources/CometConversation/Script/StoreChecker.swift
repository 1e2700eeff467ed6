import Foundation
import CometSchema
import CometIntents

/// The store-side checks of a script: a field of the record with a title, whether it exists,
/// how many records an entity has. Values are written as a person reads them (`2026-06-13
/// 11:30`, `weekly`, a title, `true`, `none`) and compared by their type.
struct StoreChecker {
    let world: any ScriptWorld
    let zone: TimeZone
    let now: Date

    struct Problem: Error { let message: String }

    var registry: Registry { world.registry }

    /// "event", "Event", "events": an entity by its name or `@display` noun, any case.
    func entity(_ name: String) -> Result<EntityDefinition, Problem> {
        let wanted = name.lowercased()
        if let found = registry.allEntities.first(where: { $0.name.name.lowercased() == wanted || IntentEngine.noun($0.name, count: 1, in: registry) == wanted }) {
            return .success(found)
        }
        let names = registry.allEntities.filter { $0.kind == .indexed }.map { $0.name.name.lowercased() }
        return .failure(Problem(message: "no entity is called '\(name)' (entities: \(names.joined(separator: ", ")))"))
    }

    func count(_ name: String) -> Result<Int, Problem> {
        entity(name).flatMap { definition in
            do { return .success(try world.records(definition.name).count) } catch { return .failure(Problem(message: "\(error)")) }
        }
    }

    /// The records titled `title`; a series stands for its overrides, which share its title.
    private func titled(_ definition: EntityDefinition, _ title: String) throws -> [EntityRecord] {
        let all = try world.records(definition.name).filter {
            registry.title(of: $0).compare(title, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
        }
        guard all.count > 1, let override = definition.temporalFields?.recurrenceID else { return all }
        let masters = all.filter { $0[override] == nil }
        return masters.isEmpty ? all : masters
    }

    func exists(entity name: String, title: String, present: Bool) -> String? {
        switch entity(name) {
        case .failure(let problem): return problem.message
        case .success(let definition):
            do {
                let found = try titled(definition, title)
                if present, found.isEmpty { return "no \(name) is titled “\(title)”" + known(definition) }
                if !present, !found.isEmpty { return "\(found.count) \(name) titled “\(title)”" }
                return nil
            } catch { return "\(error)" }
        }
    }

    private func known(_ definition: EntityDefinition) -> String {
        let titles = ((try? world.records(definition.name)) ?? []).prefix(8).map { "“\(registry.title(of: $0))”" }
        return titles.isEmpty ? " (there are none)" : " (there are \(titles.joined(separator: ", ")))"
    }

    func check(entity name: String, title: String, field: String, expected: String) -> String? {
        let definition: EntityDefinition
        switch entity(name) {
        case .failure(let problem): return problem.message
        case .success(let found): definition = found
        }
        guard let property = definition.property(field) else {
            return "\(definition.name.name) has no field '\(field)' (fields: \(definition.properties.map(\.name).joined(separator: ", ")))"
        }
        let records: [EntityRecord]
        do { records = try titled(definition, title) } catch { return "\(error)" }
        guard records.count == 1, let record = records.first else {
            return records.isEmpty ? "no \(name) is titled “\(title)”" + known(definition) : "\(records.count) \(name)s are titled “\(title)”"
        }
        return compare(record[property.name], type: property.type, expected: expected)
    }

    /// Nil when the value is what the text says; else what the value is.
    private func compare(_ value: Value?, type: TypeExpression, expected: String) -> String? {
        let text = expected.trimmingCharacters(in: .whitespaces)
        let shown = value.map { IntentEngine.display($0, type: type, registry: registry, timeZone: zone, now: now) } ?? "none"
        if text.lowercased() == "none" {
            if value == nil { return nil }
            if case .array(let items)? = value, items.isEmpty { return nil }
            return shown
        }
        guard let value else { return "none" }
        switch (value, type.base) {
        case (.array(let items), _):
            if let number = Int(text) { return items.count == number ? nil : "\(items.count) items (\(shown))" }
            return shown.range(of: text, options: .caseInsensitive) != nil ? nil : shown
        case (.dateTime(let actual), _):
            return sameTime(actual, text) ? nil : wall(actual)
        case (.recurrence(let actual), _):
            return sameRule(actual, text) ? nil : actual.description
        case (.duration(let actual), _):
            guard case .duration(let wanted)? = try? TemporalParser(now: now, timeZone: zone).parse(text) else { return "\(actual) (and '\(text)' is not a duration)" }
            return wanted.approximateSeconds == actual.approximateSeconds ? nil : shown
        case (.reference(let id), .entity(let target)):
            let referenced = (try? world.record(target, id: id)).flatMap { $0 }.map { registry.title(of: $0) } ?? id.uuidString
            return referenced.compare(text, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame ? nil : "“\(referenced)”"
        case (.bool(let flag), _):
            return String(flag) == text.lowercased() ? nil : String(flag)
        case (.int(let number), _):
            return Int(text) == number ? nil : String(number)
        case (.enumCase(let name), _):
            return name.lowercased() == text.lowercased() || shown.lowercased() == text.lowercased() ? nil : name
        case (.string(let actual), _):
            return actual == text ? nil : "“\(actual)”"
        default:
            return shown.compare(text, options: [.caseInsensitive]) == .orderedSame ? nil : "“\(shown)”"
        }
    }

    /// `2026-06-13 11:30` (or a date alone) on the script's clock; ISO 8601 as an instant.
    private func sameTime(_ actual: DateTimeValue, _ text: String) -> Bool {
        let local = actual.isFloating ? actual.localTime : actual.wallTime(in: zone)
        if let date = CalendarDate(parsing: text) { return local.date == date }
        if let parsed = try? DateTimeValue(parsing: text.replacingOccurrences(of: " ", with: "T")) {
            if case .floating(let wanted) = parsed.kind { return wanted == local }
            return parsed.instant == actual.instant
        }
        return false
    }

    private func wall(_ value: DateTimeValue) -> String {
        let local = value.isFloating ? value.localTime : value.wallTime(in: zone)
        return String(format: "%@ %02d:%02d", local.date.description, local.hour, local.minute)
    }

    /// `weekly` checks what it says (the frequency and interval); an RRULE checks every part it names.
    private func sameRule(_ actual: RecurrenceRule, _ text: String) -> Bool {
        let wanted: RecurrenceRule
        if let rule = try? RecurrenceRule(parsing: text) {
            wanted = rule
        } else if case .recurrence(let rule?)? = try? TemporalParser(now: now, timeZone: zone).parse(text) {
            wanted = rule
        } else {
            return false
        }
        guard wanted.frequency == actual.frequency, wanted.interval == actual.interval else { return false }
        if !wanted.byDay.isEmpty, wanted.byDay != actual.byDay { return false }
        if !wanted.byMonthDay.isEmpty, wanted.byMonthDay != actual.byMonthDay { return false }
        if !wanted.byMonth.isEmpty, wanted.byMonth != actual.byMonth { return false }
        if wanted.end != .never, wanted.end != actual.end { return false }
        return true
    }
}
