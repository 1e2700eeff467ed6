import Foundation
import CometSchema
import CometStore
import CometText

/// Words for people: dialogs, confirmation prompts, candidates and snippets, built from the
/// registry (titles, `@display` names) so every domain gets sentences without Swift code.
struct Presenter {
    let registry: Registry
    /// Where references are looked up to be shown by title; without one they show as ids.
    let transaction: (any StoreReader)?
    let timeZone: TimeZone
    /// How a time of day is written ("13:00", "1:00 PM"): the engine's, from the config.
    let timeFormat: TimeFormat
    let now: Date

    /// iCalendar properties that are bookkeeping, not something to show on a card.
    static let housekeeping: Set<String> = ["UID", "SEQUENCE", "RELATED-TO", "RECURRENCE-ID", "EXDATE", "RDATE", "CREATED", "LAST-MODIFIED", "DTSTAMP", "*"]

    /// "event", "calendar": an entity's `@display` name, or its name in lower case.
    func noun(_ name: QualifiedName) -> String { Presenter.noun(name, in: registry) }

    static func noun(_ name: QualifiedName, in registry: Registry) -> String {
        registry.entity(name)?.annotations.first(named: "display")?.firstString ?? Presenter.words(name.name)
    }

    /// "startDate" → "start date".
    static func words(_ identifier: String) -> String {
        var result = ""
        for character in identifier {
            if character.isUppercase, !result.isEmpty { result += " " }
            result += character.lowercased()
        }
        return result
    }

    private func label(_ property: PropertyDefinition) -> String {
        let text = property.annotations.first(named: "display")?.firstString ?? Presenter.words(property.name)
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    // MARK: Time

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// "Mon Jun 15 08:00–09:00" (times as `timeFormat` writes them), in the value's own zone (named when it is not the viewer's),
    /// with the year only when it is not this year. Deterministic: no locale involved.
    func when(_ start: DateTimeValue, end: DateTimeValue?, allDay: Bool = false) -> String {
        let local = start.localTime
        let currentYear = TimeZones.localNow(now, in: timeZone).date.year
        var text = dayText(local.date, currentYear: currentYear)
        if allDay {
            if let end, end.localTime.date.dayNumber - local.date.dayNumber > 1 {
                let last = LocalDateTime(wallSeconds: end.localTime.wallSeconds - 86_400).date
                text += " – " + dayText(last, currentYear: currentYear)
            }
            return text + " (all day)"
        }
        text += " " + timeFormat.text(local)
        if let end, end.sortKey != start.sortKey {
            let endLocal = end.localTime
            if endLocal.date == local.date {
                text += "–" + timeFormat.text(endLocal)
            } else {
                text += " – " + dayText(endLocal.date, currentYear: currentYear) + " " + timeFormat.text(endLocal)
            }
        }
        if let zone = start.timeZoneIdentifier, zone != timeZone.identifier { text += " (\(zone))" }
        if case .utc = start.kind, timeZone.identifier != "UTC", timeZone.identifier != "GMT" { text += " (UTC)" }
        return text
    }

    private func dayText(_ date: CalendarDate, currentYear: Int) -> String {
        let weekday = Presenter.weekdays[date.weekdayIndex]
        let month = Presenter.months[date.month - 1]
        var text = "\(weekday.prefix(3)) \(month.prefix(3)) \(date.day)"
        if date.year != currentYear { text += " \(date.year)" }
        return text
    }

    // MARK: Records

    func title(_ record: EntityRecord) -> String { registry.title(of: record) }

    /// What tells a record apart from others with the same title: its subtitle (an event's time).
    func subtitle(_ record: EntityRecord) -> String? {
        guard let definition = registry.entity(record.entity) else { return nil }
        if let rules = TemporalRules(entity: definition), let start = rules.start(record) {
            var text = when(start, end: rules.end(record), allDay: rules.isAllDay(record))
            if rules.isSeries(record), let property = rules.fields.recurrence, case .recurrence(let rule)? = record[property] {
                text += ", " + RecurrenceText.describe(rule)
            }
            return text
        }
        guard let property = definition.subtitleProperty, let value = record[property.name] else { return nil }
        return display(value, type: property.type)
    }

    func candidate(_ record: EntityRecord) -> Candidate {
        Candidate(id: record.id, title: title(record), subtitle: subtitle(record))
    }

    /// A value as a card shows it: references by their title, times as `when` text.
    func display(_ value: Value, type: TypeExpression) -> String {
        switch value {
        case .reference(let id):
            if case .entity(let name) = type.base, let record = try? transaction?.fetch(name, id: id) { return title(record) }
            return id.lowercasedText
        case .dateTime(let dateTime): return when(dateTime, end: nil)
        case .recurrence(let rule): return RecurrenceText.describe(rule)
        case .duration(let duration): return DurationText.describe(duration)
        case .union(_, let payload):
            if case .duration(let duration) = payload { return DurationText.describe(duration) + (duration.isNegative ? " before" : " after") }
            return display(payload, type: type)
        case .array(let items): return items.map { display($0, type: type.element) }.joined(separator: ", ")
        case .enumCase(let name):
            if case .enumeration(let enumName) = type.base,
               let display = registry.enumeration(enumName)?.enumCase(name)?.annotations.first(named: "display")?.firstString { return display }
            return Presenter.words(name)
        case .object(let properties):
            if case .entity(let name) = type.base, let definition = registry.entity(name), let titleProperty = definition.titleProperty,
               let titleValue = properties[titleProperty.name] {
                let extra = definition.properties.filter { $0.name != titleProperty.name }.compactMap { property -> String? in
                    guard let value = properties[property.name], value != property.defaultValue else { return nil }
                    return display(value, type: property.type)
                }
                return registry.displayText(titleValue) + (extra.isEmpty ? "" : " (\(extra.joined(separator: ", ")))")
            }
            return registry.displayText(value)
        default: return registry.displayText(value)
        }
    }

    func snippet(_ record: EntityRecord) -> Snippet {
        guard let definition = registry.entity(record.entity) else { return Snippet(title: title(record), subtitle: nil, fields: []) }
        let rules = TemporalRules(entity: definition)
        let skipped = Set([definition.titleProperty?.name, definition.subtitleProperty?.name, rules?.fields.start, rules?.fields.end, rules?.fields.isAllDay,
                           rules?.timeZoneProperty, rules?.fields.recurrence].compactMap { $0 })
        var fields: [Snippet.Field] = []
        if let rules, rules.isSeries(record), let property = rules.fields.recurrence, case .recurrence(let rule)? = record[property] {
            fields.append(.init(label: "Repeats", value: RecurrenceText.describe(rule)))
        }
        for property in definition.properties where property.name != "id" && !skipped.contains(property.name) {
            if let ical = property.icalName, Presenter.housekeeping.contains(ical), property.icalParameter == nil { continue }
            guard let value = record[property.name] else { continue }
            if value == property.defaultValue, property.type.base != .builtin(.string) { continue }
            if case .array(let items) = value, items.isEmpty { continue }
            fields.append(.init(label: label(property), value: display(value, type: property.type)))
        }
        return Snippet(title: title(record), subtitle: subtitle(record), fields: fields)
    }

    // MARK: Dialogs

    private func quoted(_ record: EntityRecord?) -> String {
        record.map { "“\(title($0))”" } ?? "it"
    }

    func confirmation(_ plan: Plan, intent: IntentDefinition) -> String {
        if let own = reply("confirm", intent: intent, record: plan.target) { return own }
        let name = quoted(plan.target)
        let span = plan.spanText.map { ", \($0)" } ?? ""
        switch plan.kind {
        case .delete:
            let when = plan.spanText == nil ? plan.target.flatMap(subtitle).map { " (\($0))" } ?? "" : ""
            return "Delete \(name)\(when)\(span)?"
        case .update:
            var sentence = "Change \(changeList(plan.changed)) of \(name)\(span)?"
            if let after = plan.after, let when = subtitle(after), isMove(plan, intent: intent) {
                sentence = "Move \(name)\(span) to \(when)?"
            }
            if case .whenTargetHas(let property) = intent.confirmation, let target = plan.target,
               case .array(let items)? = target[property], !items.isEmpty {
                let noun = Presenter.words(property)
                let counted = items.count == 1 && noun.hasSuffix("s") ? String(noun.dropLast()) : noun
                sentence += " It has \(items.count) \(counted), who may need to hear about it."
            }
            return sentence
        default:
            return "\(intent.name.name.prefix(1).uppercased() + intent.name.name.dropFirst()) \(name)\(span)?"
        }
    }

    /// "the start date", "the recurrence and calendar": what an update changes, in words.
    private func changeList(_ changed: [String]) -> String {
        let what = changed.map(Presenter.words)
        return "the " + (what.count <= 1 ? (what.first ?? "details") : what.dropLast().joined(separator: ", ") + " and " + (what.last ?? ""))
    }

    /// An update of only when the record happens (start, end, all day, zone) is a move.
    private func isMove(_ plan: Plan, intent: IntentDefinition) -> Bool {
        guard let definition = intent.entity.flatMap(registry.entity), let rules = TemporalRules(entity: definition) else { return false }
        return !plan.changed.isEmpty && Set(plan.changed).isSubset(of: rules.timeProperties)
    }

    func cancelled(_ plan: Plan, intent: IntentDefinition) -> Dialog {
        if let own = reply("cancelled", intent: intent, record: plan.target) { return Dialog(full: own, supporting: "Nothing was changed.") }
        let name = quoted(plan.target)
        switch plan.kind {
        case .delete: return Dialog(full: "OK, I won't delete \(name).", supporting: "Nothing was deleted.")
        case .update: return Dialog(full: "OK, I'll leave \(name) as it is.", supporting: "Nothing was changed.")
        default: return Dialog(full: "OK, I won't do that.", supporting: "Nothing was changed.")
        }
    }

    /// The intent's own sentence for an outcome (`@reply(done: "Added {title} to your tasks.")`),
    /// its `{property}` slots filled from the record as a card shows them; nil without one.
    func reply(_ outcome: String, intent: IntentDefinition, record: EntityRecord?) -> String? {
        guard let template = intent.annotations.first(named: "reply")?.string(outcome) else { return nil }
        let definition = record.flatMap { registry.entity($0.entity) }
        var text = ""
        var slot: String?
        for character in template {
            if character == "{", slot == nil { slot = ""; continue }
            if character == "}", let name = slot {
                if let record, let property = definition?.property(name), let value = record[name] {
                    text += display(value, type: property.type)
                } else if name == "title", let record {
                    text += title(record)
                }
                slot = nil
                continue
            }
            if slot != nil { slot?.append(character) } else { text.append(character) }
        }
        return text
    }

    func done(_ plan: Plan, result: EntityRecord?, page: PageInfo?, intent: IntentDefinition) -> Dialog {
        let generated = generatedDone(plan, result: result, page: page, intent: intent)
        guard let own = reply("done", intent: intent, record: result ?? plan.target) else { return generated }
        return Dialog(full: own, supporting: generated.supporting)
    }

    private func generatedDone(_ plan: Plan, result: EntityRecord?, page: PageInfo?, intent: IntentDefinition) -> Dialog {
        let entityNoun = intent.entity.map(noun) ?? "item"
        switch plan.kind {
        case .create:
            let name = quoted(result)
            let when = result.flatMap(subtitle)
            return Dialog(full: "Created \(name)" + (when.map { " for \($0)" } ?? "") + ".",
                          supporting: "Created \(entityNoun) \(name)")
        case .update:
            let record = result ?? plan.target
            let name = quoted(record)
            let span = plan.spanText.map { " for \($0)" } ?? ""
            let when = record.flatMap(subtitle)
            // Only the time moved: say where to, as a person would ("Moved “Picnic” to …").
            if let when, isMove(plan, intent: intent) {
                return Dialog(full: "Moved \(name)\(span) to \(when).", supporting: "Updated \(entityNoun) \(name)")
            }
            // One Bool set: "Marked “Buy cake” as done."
            if plan.changed.count == 1, let record, let property = intent.entity.flatMap(registry.entity)?.property(plan.changed[0]),
               property.type.base == .builtin(.bool), case .bool(let flag)? = record[property.name] {
                let word = property.annotations.first(named: "display")?.firstString ?? Presenter.words(property.name.hasPrefix("is") ? String(property.name.dropFirst(2)) : property.name)
                return Dialog(full: "Marked \(name) as \(flag ? "" : "not ")\(word).", supporting: "Updated \(entityNoun) \(name)")
            }
            let tail = plan.changed.contains(where: { $0.lowercased().contains("date") }) ? (when.map { " It's now \($0)." } ?? "") : ""
            return Dialog(full: "Changed \(changeList(plan.changed)) of \(name)\(span).\(tail)", supporting: "Updated \(entityNoun) \(name)")
        case .delete:
            let name = quoted(plan.target)
            let span = plan.spanText.map { " (\($0))" } ?? ""
            // The history says which occurrences went, not only which event.
            return Dialog(full: "Deleted \(name)\(span).", supporting: "Deleted \(entityNoun) \(name)\(span)")
        case .open:
            return Dialog(full: "Here's \(quoted(result)).", supporting: result.flatMap(subtitle) ?? quoted(result))
        case .search:
            return found(page ?? PageInfo(total: 0, offset: 0, limit: nil, count: 0), noun: entityNoun)
        }
    }

    /// "I found 6,272 events; here are the first 200." — always the true total, and which part
    /// of it the results are when they are not all of it.
    func found(_ page: PageInfo, noun: String) -> Dialog {
        let total = NumberText.grouped(page.total)
        let counted = "\(total) \(page.total == 1 ? noun : noun + "s")"
        if page.total == 0 { return Dialog(full: "I didn't find any \(noun)s.", supporting: counted) }
        if page.count == page.total { return Dialog(full: "I found \(counted).", supporting: counted) }
        let first = page.offset + 1
        if page.count == 0 {
            return Dialog(full: "I found \(counted), none from number \(NumberText.grouped(first)) on.",
                          supporting: "0 of \(counted) from number \(NumberText.grouped(first))")
        }
        if page.count == 1 {
            let which = page.offset == 0 ? "the first" : "number \(NumberText.grouped(first))"
            return Dialog(full: "I found \(counted); here is \(which).", supporting: "\(page.offset == 0 ? "1" : which) of \(counted)")
        }
        if page.offset == 0 {
            return Dialog(full: "I found \(counted); here are the first \(NumberText.grouped(page.count)).",
                          supporting: "\(NumberText.grouped(page.count)) of \(counted)")
        }
        let last = NumberText.grouped(page.offset + page.count)
        return Dialog(full: "I found \(counted); here are numbers \(NumberText.grouped(first)) to \(last).",
                      supporting: "\(NumberText.grouped(first))–\(last) of \(counted)")
    }
}

extension TimeZones {
    /// The wall-clock reading of an instant in a zone (for "this year" and "today").
    static func localNow(_ date: Date, in zone: TimeZone) -> LocalDateTime {
        DateTimeValue.utc(date).wallTime(in: zone)
    }
}
