import Foundation
import CometSchema
import CometStore

/// The alarm actions an intent declares with `@alarmAction` (docs/engine.md): a snooze puts
/// the alarm of one occurrence off to a moment from now, as a one-shot alarm kept in the store
/// until it fires (a restart keeps it); a dismissal marks the alarms of one occurrence that
/// have not gone off as fired, so none of them does. Neither changes the record, so neither is
/// in the undo journal.
extension Invocation {
    func performAlarmAction(_ annotation: Annotation) throws -> IntentOutcome {
        guard let entity, case .name(let kind)? = annotation.positional.first else {
            throw IntentError(.invalidValue, "\(intent.name.name) is an alarm action of no entity or of no kind")
        }
        let record = try targetRecord(entity)
        let title = registry.title(of: record)
        let now = engine.clock()
        let occurrence = try alarmOccurrence(entity, record: record, now: now)
        let when = presenter.when(occurrence, end: nil)
        let dialog: Dialog
        switch kind {
        case "snooze":
            guard let parameter = intent.parameters.first(where: { $0.type.base == .builtin(.duration) && !$0.type.isArray }),
                  case .set(.duration(let length)) = bindings[parameter.name] else {
                throw IntentError(.invalidValue, "\(intent.name.name) snoozes for a Duration parameter, and has none set")
            }
            guard length.approximateSeconds > 0 else {
                throw IntentError(.invalidValue, "a snooze must be for some time (5m, 10 minutes), not \(DurationText.describe(length))", parameter: parameter.name)
            }
            let moment = now.addingTimeInterval(TimeInterval(length.approximateSeconds))
            let key = AlarmKey(record: record.id, occurrence: DueAlarm.occurrenceKey(occurrence), trigger: Int64(moment.timeIntervalSince1970.rounded(.down)))
            try recorder.addSnoozedAlarm(key, occurrence: occurrence.description)
            let at = DateTimeValue.utc(moment).wallTime(in: engine.timeZone)
            let clock = engine.timeFormat.text(at)
            dialog = Dialog(full: "I'll remind you of “\(title)” (\(when)) again at \(clock), in \(DurationText.describe(length)).",
                            supporting: "Snoozed “\(title)” until \(clock)")
        case "dismiss":
            let start = occurrenceInstant(occurrence)
            let pending = try engine.dueAlarms(in: transaction, from: start.addingTimeInterval(-IntentEngine.alarmReach),
                                               to: start.addingTimeInterval(IntentEngine.alarmReach))
                .filter { $0.record == record.id && DueAlarm.occurrenceKey($0.occurrence) == DueAlarm.occurrenceKey(occurrence) }
            for alarm in pending { _ = try recorder.recordAlarm(alarm.key, firedAt: now, late: false) }
            if pending.isEmpty {
                dialog = Dialog(full: "“\(title)” (\(when)) has no reminder left to dismiss.", supporting: "No reminder to dismiss")
            } else {
                let count = pending.count == 1 ? "its reminder" : "its \(pending.count) reminders"
                dialog = Dialog(full: "Dismissed \(count) for “\(title)” (\(when)): \(pending.count == 1 ? "it" : "they") won't go off.",
                                supporting: "Dismissed \(pending.count == 1 ? "1 reminder" : "\(pending.count) reminders")")
            }
        default:
            throw IntentError(.invalidValue, "\(intent.name.name): '\(kind)' is not an alarm action (snooze, dismiss)")
        }
        return .done(IntentResult(intent: intent.name, action: intent.action, record: record, records: [], occurrences: [],
                                  dialog: dialog, snippet: nil, journalSequence: nil))
    }

    /// The occurrence acted on: the one given (`@role(occurrence)`); else the one whose alarm
    /// went off last (what "snooze it" is said of); else the next one with an alarm to come.
    private func alarmOccurrence(_ entity: EntityDefinition, record: EntityRecord, now: Date) throws -> DateTimeValue {
        if let parameter = intent.parameters.first(where: { $0.role == .occurrence }), case .set(.dateTime(let given)) = bindings[parameter.name] {
            return given
        }
        if let key = try transaction.lastFiredOccurrence(of: record.id) {
            let moment = Date(timeIntervalSince1970: TimeInterval(key))
            let around = try transaction.occurrences(entity.name, from: moment.addingTimeInterval(-86_400), to: moment.addingTimeInterval(86_400),
                                                     zone: engine.timeZone, matching: [])
            if let found = around.first(where: { $0.record.id == record.id && DueAlarm.occurrenceKey($0.start) == key }) { return found.start }
            return DateTimeValue.utc(moment)
        }
        if let next = try engine.dueAlarms(in: transaction, from: now, to: now.addingTimeInterval(IntentEngine.alarmReach)).first(where: { $0.record == record.id }) {
            return next.occurrence
        }
        throw IntentError(.notFound, "“\(registry.title(of: record))” has no reminder that went off or is to come; say which occurrence",
                          parameter: intent.parameters.first { $0.role == .occurrence }?.name)
    }

    private func occurrenceInstant(_ occurrence: DateTimeValue) -> Date {
        occurrence.instant ?? Date(timeIntervalSince1970: TimeInterval(occurrence.localTime.dateTime(in: engine.timeZone).sortKey))
    }
}
