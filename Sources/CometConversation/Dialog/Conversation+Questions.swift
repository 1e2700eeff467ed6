import Foundation
import CometSchema
import CometIntents

extension Conversation {
    /// Answers a `@question` from the store: the property's value for the entity asked about
    /// (or in focus), said through the property's `@answer` when it has one. The start of a
    /// repeating entity answers with the next occurrence.
    func ask(_ question: QuestionDraft) -> Turn {
        switch resolve(question.mention ?? .focus, entity: question.entity.name, subject: .question(question), parameter: "") {
        case .turn(let turn): return turn
        case .record(let record, let occurrence):
            state.focus = DialogState.Focus(entity: record.entity, id: record.id, occurrence: occurrence)
            let reply = answer(question, about: record)
            return Turn(reply: reply, outcome: .done, snippet: engine.snippet(of: record), understood: true)
        }
    }

    private func answer(_ question: QuestionDraft, about record: EntityRecord) -> String {
        let title = "“\(registry.title(of: record))”"
        let property = question.property
        if case .name("mailto")? = question.annotation.labelled["kind"] { return mailto(record, title: title, property: property) }
        if case .name(let only)? = question.annotation.labelled["only"] { return answer(question, only: only, about: record, title: title) }
        let template = property.annotations.first(named: "answer")
        let label = property.annotations.first(named: "display")?.firstString ?? ConversationText.words(property.name)

        var said: (value: String, count: Int)?
        if question.entity.temporalFields?.start == property.name {
            said = next(record).map { ($0, 1) }
        } else if let value = record[property.name] {
            if case .array(let items) = value {
                if !items.isEmpty { said = (ConversationText.list(items.map { item(describing: $0, type: property.type.element) }), items.count) }
            } else {
                said = (engine.display(value, type: property.type), 1)
            }
        }
        guard let said else {
            if let none = template?.string("none") { return fill(none, title: title, value: "", count: 0) }
            return "\(title) has no \(label)."
        }
        if let says = template?.firstString { return fill(says, title: title, value: said.value, count: said.count) }
        if case .array = record[property.name] { return "\(title) has \(said.count) \(label): \(said.value)." }
        return "The \(label) of \(title) is \(said.value)."
    }

    /// "who declined the picnic": the items of the list in one case of their enum (an attendee's
    /// answer), by title, said through the question's own `answer:` and `none:`.
    private func answer(_ question: QuestionDraft, only: String, about record: EntityRecord, title: String) -> String {
        let property = question.property
        var names: [String] = []
        if case .array(let items)? = record[property.name], case .entity(let itemEntity) = property.type.element.base,
           let definition = registry.entity(itemEntity) {
            let states = definition.properties.filter { if case .enumeration = $0.type.base { return true } else { return false } }
            for case .object(let fields) in items where states.contains(where: { (fields[$0.name] ?? $0.defaultValue) == .enumCase(only) }) {
                guard let titleProperty = definition.titleProperty, let value = fields[titleProperty.name] else { continue }
                if case .person(let person) = value { names.append(person.name ?? person.email ?? engine.display(value, type: titleProperty.type)) }
                else { names.append(engine.display(value, type: titleProperty.type)) }
            }
        }
        let said = ConversationText.list(names)
        if names.isEmpty {
            if let none = question.annotation.string("none") { return fill(none, title: title, value: "", count: 0) }
            return "Nobody in \(title) is \(ConversationText.words(only))."
        }
        if let says = question.annotation.string("answer") { return fill(says, title: title, value: said, count: names.count) }
        return Replies.sentence(said) + "."
    }

    /// "on Sat Jun 13 14:00–16:00, in 5 days": the next occurrence from now.
    private func next(_ record: EntityRecord) -> String? {
        let now = clock()
        guard let occurrence = try? engine.nextOccurrence(of: record, after: now) else { return nil }
        let when = engine.when(occurrence.start, end: occurrence.end, allDay: engine.isAllDay(occurrence.record))
        let today = DateTimeValue.utc(now).wallTime(in: timeZone).date.dayNumber
        let day = occurrence.start.wallTime(in: occurrence.start.isFloating ? nil : timeZone).date.dayNumber
        let days = day - today
        let relative = days <= 0 ? "today" : days == 1 ? "tomorrow" : "in \(days) days"
        return "on \(when), \(relative)"
    }

    /// An item of a list as people say it: its title (a person by name) and its first enum,
    /// the item's state (an attendee is their name and their answer).
    private func item(describing value: Value, type: TypeExpression) -> String {
        guard case .object(let properties) = value, case .entity(let name) = type.base, let definition = registry.entity(name),
              let titleProperty = definition.titleProperty, let titleValue = properties[titleProperty.name] else {
            return engine.display(value, type: type)
        }
        var text: String
        if case .person(let person) = titleValue { text = person.name ?? person.email ?? engine.display(titleValue, type: titleProperty.type) } else {
            text = engine.display(titleValue, type: titleProperty.type)
        }
        // The first enum is the item's state (an attendee's answer), said even when it is the default.
        if let state = definition.properties.first(where: { if case .enumeration = $0.type.base { return $0.name != titleProperty.name } else { return false } }),
           let value = properties[state.name] ?? state.defaultValue {
            text += " (" + engine.display(value, type: state.type) + ")"
        }
        return text
    }

    /// The people of a record and a mailto: link to write to them all. CometCal sends nothing.
    private func mailto(_ record: EntityRecord, title: String, property: PropertyDefinition) -> String {
        var people: [PersonValue] = []
        func collect(_ value: Value) {
            switch value {
            case .person(let person): people.append(person)
            case .array(let items): items.forEach(collect)
            case .object(let properties): properties.keys.sorted().compactMap { properties[$0] }.forEach(collect)
            default: break
            }
        }
        if let value = record[property.name] { collect(value) }
        let addresses = people.compactMap(\.email)
        guard !addresses.isEmpty else { return "\(title) has nobody with an email address to write to." }
        let names = people.filter { $0.email != nil }.map { person in person.name.map { "\($0) <\(person.email ?? "")>" } ?? (person.email ?? "") }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let subject = registry.title(of: record).addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        let link = "mailto:" + addresses.joined(separator: ",") + "?subject=" + subject
        return "The people in \(title) are \(ConversationText.list(names)). To write to them, open \(link) — I don't send email myself."
    }

    private func fill(_ template: String, title: String, value: String, count: Int) -> String {
        let text = template.replacingOccurrences(of: "{title}", with: title).replacingOccurrences(of: "{value}", with: value)
            .replacingOccurrences(of: "{count}", with: String(count))
        // A title opening the sentence keeps its quotes; the sentence still starts with a capital.
        return Replies.sentence(text)
    }
}
