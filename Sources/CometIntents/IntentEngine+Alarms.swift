import Foundation
import CometSchema
import CometStore

/// An alarm due at a moment: which record, which occurrence, and when it triggers.
public struct DueAlarm: Sendable, Hashable {
    public let entity: QualifiedName
    public let record: UUID
    public let title: String
    /// The occurrence's start, as the occurrence has it.
    public let occurrence: DateTimeValue
    public let trigger: Date
    /// The alarm as the record holds it: a case of the alarm union and its value.
    public let alarm: Value

    public var key: AlarmKey {
        AlarmKey(record: record, occurrence: DueAlarm.occurrenceKey(occurrence), trigger: Int64(trigger.timeIntervalSince1970.rounded(.down)))
    }

    /// An occurrence as the store's alarm tables name it: its instant in seconds, or for a
    /// floating one its wall time's sort key.
    static func occurrenceKey(_ occurrence: DateTimeValue) -> Int64 {
        Int64(occurrence.instant?.timeIntervalSince1970.rounded(.down) ?? Double(occurrence.sortKey))
    }

    /// What a snoozed alarm holds in place of the record's own alarm value.
    static let snoozed = Value.string("snoozed")
}

extension IntentEngine {
    /// How far from its occurrence an alarm is looked for: triggers set further before (or
    /// after) their occurrence than this are not found.
    public static let alarmReach: TimeInterval = 30 * 86_400

    /// Alarms that trigger in [from, to): every occurrence of every entity that maps VALARM (a
    /// start-relative duration, or an absolute moment, which a series fires once, at its first
    /// occurrence), not fired already. A read: it never takes the write lock.
    public func dueAlarms(from: Date, to: Date) throws -> [DueAlarm] {
        try store.readTransaction { try dueAlarms(in: $0, from: from, to: to) }
    }

    /// The same inside a transaction already open (an intent that dismisses alarms).
    func dueAlarms(in transaction: any StoreReader, from: Date, to: Date) throws -> [DueAlarm] {
        var due: [DueAlarm] = []
        var alarmEntities: [EntityDefinition] = []
        for entity in registry.allEntities where entity.kind == .indexed {
            guard entity.temporalFields != nil,
                  let property = entity.properties.first(where: { $0.icalName == "VALARM" && $0.type.isArray }),
                  case .union(let unionName) = property.type.base, let union = registry.union(unionName) else { continue }
            alarmEntities.append(entity)
            let absoluteCases = Set(union.cases.filter { $0.type.base == .builtin(.dateTime) }.map(\.name))
            let occurrences = try transaction.occurrences(entity.name, from: from.addingTimeInterval(-Self.alarmReach),
                                                          to: to.addingTimeInterval(Self.alarmReach), zone: timeZone, matching: [])
            var firstOccurrence: [UUID: Int64] = [:]
            for occurrence in occurrences where firstOccurrence[occurrence.record.id] == nil {
                firstOccurrence[occurrence.record.id] = occurrence.start.sortKey
            }
            for occurrence in occurrences {
                guard case .array(let alarms)? = occurrence.record[property.name], !alarms.isEmpty,
                      let start = instant(of: occurrence.start) else { continue }
                for alarm in alarms {
                    guard case .union(let caseName, let payload) = alarm else { continue }
                    let trigger: Date
                    if absoluteCases.contains(caseName) {
                        guard case .dateTime(let moment) = payload, let at = instant(of: moment),
                              firstOccurrence[occurrence.record.id] == occurrence.start.sortKey else { continue }
                        trigger = at
                    } else if case .duration(let offset) = payload {
                        if occurrence.start.isFloating {
                            // A floating start (an all-day event's midnight) has no instant of
                            // its own: its alarm is a wall time too, so PT9H is 09:00 even on
                            // the day the clocks change, when 9 hours after midnight is not.
                            let wall = LocalDateTime(wallSeconds: occurrence.start.localTime.wallSeconds + Int64(offset.approximateSeconds))
                            guard let at = instant(of: .floating(wall)) else { continue }
                            trigger = at
                        } else {
                            trigger = start.addingTimeInterval(TimeInterval(offset.approximateSeconds))
                        }
                    } else {
                        continue
                    }
                    guard trigger >= from, trigger < to else { continue }
                    let item = DueAlarm(entity: entity.name, record: occurrence.record.id, title: registry.title(of: occurrence.record),
                                        occurrence: occurrence.start, trigger: trigger, alarm: alarm)
                    if try !transaction.alarmFired(item.key) { due.append(item) }
                }
            }
        }
        // Snoozed alarms: one moment each, for the occurrence they were snoozed on.
        for (key, occurrenceText) in try transaction.snoozedAlarms(from: Int64(from.timeIntervalSince1970.rounded(.up)),
                                                                   to: Int64(to.timeIntervalSince1970.rounded(.up))) {
            guard let occurrence = try? DateTimeValue(parsing: occurrenceText) else { continue }
            for entity in alarmEntities {
                guard let record = try transaction.fetch(entity.name, id: key.record) else { continue }
                let item = DueAlarm(entity: entity.name, record: key.record, title: registry.title(of: record), occurrence: occurrence,
                                    trigger: Date(timeIntervalSince1970: TimeInterval(key.trigger)), alarm: DueAlarm.snoozed)
                if try !transaction.alarmFired(item.key) { due.append(item) }
                break
            }
        }
        return due.sorted { ($0.trigger, $0.record.uuidString) < ($1.trigger, $1.record.uuidString) }
    }

    /// Records the alarm as fired before anyone hears of it; false when it was already.
    public func markFired(_ alarm: DueAlarm, at moment: Date, late: Bool) throws -> Bool {
        try store.transaction { try $0.recordAlarm(alarm.key, firedAt: moment, late: late) }
    }

    /// A fact the store keeps for a front end (the daemon's `alarms.checkedUntil`).
    public func storedFact(_ key: String) throws -> String? {
        try store.readTransaction { try $0.meta(key) }
    }

    public func storeFact(_ key: String, _ value: String) throws {
        try store.transaction { try $0.setMeta(key, value) }
    }

    private func instant(of value: DateTimeValue) -> Date? {
        value.instant ?? Date(timeIntervalSince1970: TimeInterval(value.localTime.dateTime(in: timeZone).sortKey))
    }
}
