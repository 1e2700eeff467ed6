import Foundation
import CometSchema
import CometStore

/// Edits and deletes of repeating events, by span (DESIGN.md "Time"):
/// `this` overrides one occurrence (a record with RECURRENCE-ID), `future` splits the series
/// (the old one ends before the occurrence; a new UID starts there, RELATED-TO the old), and
/// `all` changes the series, moving its overrides and exceptions when its start moves.
struct SeriesEditor {
    let invocation: Invocation
    let entity: EntityDefinition
    let rules: TemporalRules

    enum Span: String { case this, future, all }

    private var fields: TemporalFields { rules.fields }
    private var transaction: any StoreReader { invocation.transaction }
    private var presenter: Presenter { invocation.presenter }

    // MARK: Choosing what the request means

    /// The span the request names (`@role(span)`); an intent without one changes the series.
    private func requestedSpan() -> Span? {
        guard let parameter = invocation.intent.parameter(role: .span) else { return .all }
        if case .set(.enumCase(let name)) = invocation.bindings[parameter.name] { return Span(rawValue: name) }
        return nil
    }

    private func requestedOccurrence() -> DateTimeValue? {
        guard let parameter = invocation.intent.parameter(role: .occurrence) else { return nil }
        if case .set(.dateTime(let value)) = invocation.bindings[parameter.name] { return value }
        return nil
    }

    private func askSpan() -> PlanOrQuestion { invocation.question(role: .span) }
    /// Asks which occurrence, naming the next three of the series, so the answer can be one
    /// of them ("… The next ones are Thu Dec 3 07:00, Thu Dec 10 07:00 and Thu Dec 17 07:00.").
    private func askOccurrence(_ target: EntityRecord) -> PlanOrQuestion {
        let question = invocation.question(role: .occurrence)
        guard case .ask(.needsValue(let parameter, let prompt)) = question, let series = try? master(of: target),
              let next = try? upcoming(of: series, count: 3), !next.isEmpty else { return question }
        let named = RecurrenceText.list(next.map { presenter.when($0.start, end: nil) })
        return .ask(.needsValue(parameter: parameter, prompt: prompt + (next.count == 1 ? " The next one is \(named)." : " The next ones are \(named).")))
    }

    /// The series' next occurrences from now (its overrides standing in for theirs).
    private func upcoming(of series: EntityRecord, count: Int) throws -> [Occurrence] {
        let now = invocation.engine.clock()
        let uid = rules.uid(series)
        return try transaction.occurrences(entity.name, from: now, to: now.addingTimeInterval(400 * 86_400), zone: invocation.engine.timeZone, matching: [])
            .filter { $0.record.id == series.id || (uid != nil && rules.uid($0.record) == uid && rules.isOverride($0.record)) }
            .prefix(count).map { $0 }
    }

    /// The occurrence the request is about: the `occurrence` parameter, else the one an override
    /// stands for; nil when neither says.
    private func wantedOccurrence(_ target: EntityRecord) -> DateTimeValue? {
        if let requested = requestedOccurrence() { return requested }
        if rules.isOverride(target), let property = fields.recurrenceID, case .dateTime(let original)? = target[property] { return original }
        return nil
    }

    /// The series master of a record (itself, or the master an override belongs to).
    private func master(of record: EntityRecord) throws -> EntityRecord {
        guard rules.isOverride(record) else { return record }
        guard let uid = rules.uid(record), let uidProperty = fields.uid, let idProperty = fields.recurrenceID,
              let found = try transaction.fetchAll(entity.name, matching: [.equals(uidProperty, .string(uid)), .equals(idProperty, nil)], limit: 1).first else {
            throw IntentError(.notFound, "this occurrence's series was not found; edit it on its own")
        }
        return found
    }

    private func overrides(of master: EntityRecord) throws -> [EntityRecord] {
        guard let uid = rules.uid(master), let uidProperty = fields.uid, let idProperty = fields.recurrenceID else { return [] }
        return try transaction.fetchAll(entity.name, matching: [.equals(uidProperty, .string(uid))], limit: nil)
            .filter { $0.id != master.id && $0[idProperty] != nil }
    }

    /// The occurrence of `master` the person means: the one starting at `wanted`, else the only
    /// one on that day. Returns the occurrence (whose record may be an override).
    private func occurrence(of master: EntityRecord, at wanted: DateTimeValue) throws -> Occurrence {
        let zone = invocation.engine.timeZone
        let seriesZone = rules.start(master)?.expansionZone
        let wantedKey = wanted.isFloating && seriesZone != nil ? wanted.localTime.dateTime(in: seriesZone).sortKey : wanted.sortKey
        let center = Date(timeIntervalSince1970: TimeInterval(wantedKey))
        let candidates = try transaction.occurrences(entity.name, from: center.addingTimeInterval(-2 * 86_400), to: center.addingTimeInterval(2 * 86_400), zone: zone, matching: [])
            .filter { $0.record.id == master.id || (rules.uid($0.record) == rules.uid(master) && rules.isOverride($0.record)) }
        if let exact = candidates.first(where: { $0.recurrenceKey.sortKey == wantedKey || $0.start.sortKey == wantedKey }) { return exact }
        let wantedDay = wanted.wallTime(in: seriesZone).date
        let sameDay = candidates.filter { $0.recurrenceKey.wallTime(in: seriesZone).date == wantedDay }
        if sameDay.count == 1 { return sameDay[0] }
        let nearby = candidates.prefix(4).map { presenter.when($0.start, end: nil) }.joined(separator: "; ")
        throw IntentError(.noSuchOccurrence, "“\(invocation.registry.title(of: master))” has no occurrence at \(presenter.when(wanted, end: nil))" + (nearby.isEmpty ? "" : "; nearby: \(nearby)"), parameter: invocation.intent.parameter(role: .occurrence)?.name)
    }

    // MARK: Update

    func planUpdate(_ target: EntityRecord, changed: Set<String>) throws -> PlanOrQuestion {
        let master = try master(of: target)
        let isOverride = rules.isOverride(target)
        // The rule itself belongs to the whole series: changing it asks for no span.
        let changesRule = fields.recurrence.map(changed.contains) ?? false
        guard let span = requestedSpan() ?? (changesRule ? .all : nil) ?? (isOverride ? .this : nil) else { return askSpan() }
        if span == .all {
            var anchor: Occurrence?
            if let wanted: DateTimeValue = self.wantedOccurrence(target) { anchor = try self.occurrence(of: master, at: wanted) }
            return .plan(try planUpdateAll(master, changed: changed, anchor: anchor))
        }
        guard let wanted: DateTimeValue = self.wantedOccurrence(target) else { return askOccurrence(target) }
        let occurrence: Occurrence = try self.occurrence(of: master, at: wanted)
        for property in [fields.recurrence, "calendar"].compactMap({ $0 }) where changed.contains(property) {
            throw IntentError(.notSupported, "the \(Presenter.words(property)) belongs to the whole series; change it with span 'all'", parameter: property)
        }
        if span == .future, occurrence.recurrenceKey.sortKey <= (rules.start(master)?.sortKey ?? .min) {
            return .plan(try planUpdateAll(master, changed: changed))
        }
        return .plan(span == .this ? try planUpdateThis(master, occurrence, changed: changed) : try planUpdateFuture(master, occurrence, changed: changed))
    }

    private func planUpdateThis(_ master: EntityRecord, _ occurrence: Occurrence, changed: Set<String>) throws -> Plan {
        var base: EntityRecord
        if occurrence.record.id != master.id {
            base = occurrence.record
        } else {
            // A new override: the series' values at this occurrence, as its own record.
            base = EntityRecord(entity: entity.name, id: UUID(), values: master.values)
            for property in fields.seriesProperties {
                base[property] = entity.property(property)?.defaultValue
            }
            base[fields.start] = .dateTime(occurrence.start)
            if let end = fields.end, master[end] != nil { base[end] = .dateTime(occurrence.end) }
            if let idProperty = fields.recurrenceID { base[idProperty] = .dateTime(occurrence.recurrenceKey) }
        }
        var (updated, _) = try invocation.applyChanges(to: base, entity)
        try rules.normalize(&updated, previous: base, changed: changed, timeFormat: invocation.engine.timeFormat)
        invocation.bumpSequence(&updated, entity)
        let result = updated
        let spanText = "only the occurrence on \(presenter.when(occurrence.start, end: nil))"
        return Plan(kind: .update, target: master, spanText: spanText, changed: changed.sorted()) { recorder in
            try recorder.save(result)
            return PlanOutput(record: result)
        }
    }

    private func planUpdateFuture(_ master: EntityRecord, _ occurrence: Occurrence, changed: Set<String>) throws -> Plan {
        let split = try SeriesSplit(master: master, at: occurrence.recurrenceKey, rules: rules, entity: entity)
        var newSeries = split.newSeries
        let before = newSeries
        (newSeries, _) = try invocation.applyChanges(to: newSeries, entity)
        adjustRule(&newSeries, previous: before, changed: changed)
        try rules.normalize(&newSeries, previous: before, changed: changed, timeFormat: invocation.engine.timeFormat)
        let seriesZone = rules.start(before)?.expansionZone
        let delta = (rules.start(newSeries)?.wallTime(in: seriesZone).wallSeconds ?? 0) - (rules.start(before)?.wallTime(in: seriesZone).wallSeconds ?? 0)
        let oldSeries = split.oldSeries
        let moved = try overrides(of: master).filter { override in
            guard let property = fields.recurrenceID, case .dateTime(let original)? = override[property] else { return false }
            return original.sortKey >= occurrence.recurrenceKey.sortKey
        }
        let newUID = rules.uid(newSeries)
        let result = newSeries
        let spanText = "this and future occurrences, from \(presenter.when(occurrence.start, end: nil))"
        return Plan(kind: .update, target: master, spanText: spanText, changed: changed.sorted()) { recorder in
            try recorder.save(oldSeries)
            try recorder.save(result)
            for override in moved {
                var rehomed = shifted(override, by: delta)
                if let uidProperty = fields.uid { rehomed[uidProperty] = newUID.map(Value.string) }
                try recorder.save(rehomed)
            }
            return PlanOutput(record: result)
        }
    }

    /// `anchor`: the occurrence the person spoke about ("move Monday's standup to 10, all of
    /// them"); a new start or end is then a change relative to that occurrence.
    private func planUpdateAll(_ master: EntityRecord, changed: Set<String>, anchor: Occurrence? = nil) throws -> Plan {
        var (updated, _) = try invocation.applyChanges(to: master, entity)
        if let anchor, anchor.recurrenceKey.sortKey != rules.start(master)?.sortKey {
            let zone = rules.start(master)?.expansionZone
            for (property, occurrenceTime) in [(fields.start, anchor.start), (fields.end, anchor.end)] {
                guard let property, changed.contains(property), case .dateTime(let requested)? = updated[property],
                      case .dateTime(let original)? = master[property] else { continue }
                let wallDelta = requested.wallTime(in: zone).wallSeconds - occurrenceTime.wallTime(in: zone).wallSeconds
                updated[property] = .dateTime(SeriesEditor.shift(original, byWall: wallDelta, in: zone))
            }
        }
        adjustRule(&updated, previous: master, changed: changed)
        try rules.normalize(&updated, previous: master, changed: changed, timeFormat: invocation.engine.timeFormat)
        invocation.bumpSequence(&updated, entity)
        let zone = rules.start(master)?.expansionZone
        let delta = (rules.start(updated)?.wallTime(in: zone).wallSeconds ?? 0) - (rules.start(master)?.wallTime(in: zone).wallSeconds ?? 0)
        if delta != 0 {
            for property in [fields.exclusions, fields.additions].compactMap({ $0 }) {
                if case .array(let items)? = updated[property] {
                    updated[property] = .array(items.map { item in
                        if case .dateTime(let value) = item { return .dateTime(SeriesEditor.shift(value, byWall: delta, in: zone)) }
                        return item
                    })
                }
            }
        }
        let overrides = try overrides(of: master)
        let stillRecurring = rules.isSeries(updated)
        let ruleChanged = fields.recurrence.map { changed.contains($0) } ?? false
        let result = updated
        return Plan(kind: .update, target: master, spanText: overrides.isEmpty ? nil : "all occurrences", changed: changed.sorted()) { recorder in
            try recorder.save(result)
            for override in overrides {
                if !stillRecurring || ruleChanged && !matchesRule(shifted(override, by: delta), of: result) {
                    try recorder.delete(entity.name, id: override.id)  // its occurrence no longer exists
                } else {
                    let updatedOverride = propagated(changed, from: master, to: result, into: shifted(override, by: delta))
                    if updatedOverride != override { try recorder.save(updatedOverride) }
                }
            }
            return PlanOutput(record: result)
        }
    }

    /// A series-wide change reaches an override where the override still had the series' old
    /// value; what was changed for that occurrence alone is kept. Times are shifted separately.
    private func propagated(_ changed: Set<String>, from old: EntityRecord, to new: EntityRecord, into override: EntityRecord) -> EntityRecord {
        var result = override
        let timeProperties = Set([fields.start, fields.end, fields.recurrenceID].compactMap { $0 } + fields.seriesProperties)
        for property in changed where !timeProperties.contains(property) && override[property] == old[property] {
            result[property] = new[property]
        }
        return result
    }

    /// An override moved with its series: its RECURRENCE-ID, and its times by the same
    /// wall-clock amount in the series' zone (so 09:00 stays 09:00 across a DST change).
    private func shifted(_ override: EntityRecord, by delta: Int64) -> EntityRecord {
        guard delta != 0 else { return override }
        var moved = override
        let zone = rules.start(override)?.expansionZone
        for property in [fields.recurrenceID, fields.start, fields.end].compactMap({ $0 }) {
            if case .dateTime(let value)? = moved[property] { moved[property] = .dateTime(SeriesEditor.shift(value, byWall: delta, in: zone)) }
        }
        return moved
    }

    /// A date-time moved by wall-clock seconds in `zone`, keeping its kind (zoned, UTC, floating).
    static func shift(_ value: DateTimeValue, byWall delta: Int64, in zone: TimeZone?) -> DateTimeValue {
        guard delta != 0 else { return value }
        if value.isFloating { return value.adding(seconds: delta) }
        let moved = LocalDateTime(wallSeconds: value.wallTime(in: zone).wallSeconds + delta).dateTime(in: zone)
        if case .zoned(_, let identifier) = value.kind, let instant = moved.instant {
            return DateTimeValue(kind: .zoned(epochSeconds: Int64(instant.timeIntervalSince1970), timeZone: identifier))
        }
        if case .utc = value.kind, let instant = moved.instant { return .utc(instant) }
        return moved
    }

    /// Whether an override's occurrence is still produced by the series' (new) rule.
    private func matchesRule(_ override: EntityRecord, of series: EntityRecord) -> Bool {
        guard let property = fields.recurrenceID, case .dateTime(let original)? = override[property],
              let set = SeriesSplit.recurrenceSet(series, rules: rules) else { return false }
        let local = original.wallTime(in: rules.start(series)?.expansionZone)
        let around = set.occurrences(from: LocalDateTime(wallSeconds: local.wallSeconds - 1), through: LocalDateTime(wallSeconds: local.wallSeconds + 1), limit: 3)
        return around.contains(local)
    }

    /// A weekly "every Monday" moved to a Tuesday repeats on Tuesdays (likewise a single
    /// BYMONTHDAY), unless the request set a new rule itself.
    private func adjustRule(_ record: inout EntityRecord, previous: EntityRecord, changed: Set<String>) {
        guard let ruleProperty = fields.recurrence, !changed.contains(ruleProperty), changed.contains(fields.start),
              case .recurrence(var rule)? = record[ruleProperty],
              let oldStart = rules.start(previous), case .dateTime(let newStart)? = record[fields.start] else { return }
        let oldDate = oldStart.localTime.date
        let newDate = newStart.localTime.date
        if rule.byDay.count == 1, rule.byDay[0].ordinal == nil, rule.byDay[0].weekday == Weekdays.of(oldDate) {
            rule.byDay = [RecurrenceRule.WeekdayOccurrence(Weekdays.of(newDate))]
        }
        if rule.byMonthDay == [oldDate.day] { rule.byMonthDay = [newDate.day] }
        record[ruleProperty] = .recurrence(rule)
    }

    // MARK: Delete

    func planDelete(_ target: EntityRecord) throws -> PlanOrQuestion {
        let master = try master(of: target)
        let isOverride = rules.isOverride(target)
        guard let span = requestedSpan() ?? (isOverride ? .this : nil) else { return askSpan() }
        if span == .all {
            let overrides = try overrides(of: master)
            return .plan(Plan(kind: .delete, target: master, spanText: "all occurrences", changed: []) { recorder in
                for override in overrides { try recorder.delete(entity.name, id: override.id) }
                try invocation.deleteCascading(master)
                return PlanOutput(record: nil)
            })
        }
        guard let wanted: DateTimeValue = self.wantedOccurrence(target) else { return askOccurrence(target) }
        let occurrence: Occurrence = try self.occurrence(of: master, at: wanted)
        if span == .this {
            var updated = master
            if let property = fields.exclusions {
                var items: [Value] = { if case .array(let list)? = updated[property] { return list } else { return [] } }()
                items.append(.dateTime(occurrence.recurrenceKey))
                updated[property] = .array(items)
            }
            invocation.bumpSequence(&updated, entity)
            let result = updated
            let overrideID = occurrence.record.id != master.id ? occurrence.record.id : nil
            return .plan(Plan(kind: .delete, target: master, spanText: "only the occurrence on \(presenter.when(occurrence.start, end: nil))", changed: []) { recorder in
                if let overrideID { try recorder.delete(entity.name, id: overrideID) }
                try recorder.save(result)
                return PlanOutput(record: nil)
            })
        }
        if occurrence.recurrenceKey.sortKey <= (rules.start(master)?.sortKey ?? .min) {
            let overrides = try overrides(of: master)
            return .plan(Plan(kind: .delete, target: master, spanText: "all occurrences", changed: []) { recorder in
                for override in overrides { try recorder.delete(entity.name, id: override.id) }
                try invocation.deleteCascading(master)
                return PlanOutput(record: nil)
            })
        }
        let split = try SeriesSplit(master: master, at: occurrence.recurrenceKey, rules: rules, entity: entity)
        let doomed = try overrides(of: master).filter { override in
            guard let property = fields.recurrenceID, case .dateTime(let original)? = override[property] else { return false }
            return original.sortKey >= occurrence.recurrenceKey.sortKey
        }
        let oldSeries = split.oldSeries
        return .plan(Plan(kind: .delete, target: master, spanText: "this and future occurrences, from \(presenter.when(occurrence.start, end: nil))", changed: []) { recorder in
            for override in doomed { try recorder.delete(entity.name, id: override.id) }
            try recorder.save(oldSeries)
            return PlanOutput(record: nil)
        })
    }
}

enum Weekdays {
    static func of(_ date: CalendarDate) -> RecurrenceRule.Weekday {
        let order: [RecurrenceRule.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]
        return order[date.weekdayIndex]
    }
}
