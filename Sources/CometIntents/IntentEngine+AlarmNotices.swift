import Foundation
import CometSchema
import CometStore

/// What a person is told when an alarm fires: the alarm, whether it is late, what it says, and
/// the record's own values by property name (references by their title), so a notify command
/// can show any of them without the engine knowing what an event is.
public struct AlarmNotice: Sendable {
    public let alarm: DueAlarm
    public let late: Bool
    /// "15 minutes before the start", "at the start", "at 2026-12-08T09:00:00Z".
    public let description: String
    /// The record's single values, as people read them, in the schema's order; the fields of
    /// the record's time (its series start, end, rule) are left out: `start` is the occurrence's.
    public let fields: [Field]

    public struct Field: Sendable, Hashable {
        public let name: String
        public let text: String
    }

    /// COMETCAL_SOME_NAME for a property `someName`.
    static func environmentName(_ property: String) -> String {
        var name = "COMETCAL_"
        for character in property {
            if character.isUppercase { name += "_" }
            name += character.uppercased()
        }
        return name
    }

    /// The variables a notify command gets, besides the inherited environment (docs/daemon.md).
    public var environment: [String: String] {
        var variables: [String: String] = [:]
        for field in fields { variables[AlarmNotice.environmentName(field.name)] = field.text }
        variables["COMETCAL_ENTITY"] = alarm.entity.name
        variables["COMETCAL_ID"] = alarm.record.uuidString.lowercased()
        variables["COMETCAL_TITLE"] = alarm.title
        variables["COMETCAL_START"] = alarm.occurrence.description
        variables["COMETCAL_TRIGGER"] = DateTimeValue.utc(alarm.trigger).description
        variables["COMETCAL_LATE"] = late ? "1" : "0"
        variables["COMETCAL_ALARM_DESCRIPTION"] = description
        return variables
    }

    /// The same as one JSON object, for the command's standard input.
    public var json: JSONValue {
        .object(JSONObject([
            ("entity", .string(alarm.entity.name)), ("id", .string(alarm.record.uuidString.lowercased())),
            ("title", .string(alarm.title)), ("start", .string(alarm.occurrence.description)),
            ("trigger", .string(DateTimeValue.utc(alarm.trigger).description)), ("late", .bool(late)),
            ("alarm", .string(description)),
            ("fields", .object(JSONObject(fields.map { ($0.name, JSONValue.string($0.text)) }))),
        ]))
    }
}

extension IntentEngine {
    /// The notice for an alarm that fires: one read of its record (and of the records it refers
    /// to, for their titles). A record deleted meanwhile gives the alarm's own facts alone.
    public func notice(for alarm: DueAlarm, late: Bool) throws -> AlarmNotice {
        let description = AlarmNotice.describe(alarm.alarm)
        guard let entity = registry.entity(alarm.entity) else {
            return AlarmNotice(alarm: alarm, late: late, description: description, fields: [])
        }
        let temporal = entity.temporalFields.map { fields in
            Set([fields.start, fields.end, fields.isAllDay, fields.timeZone, fields.recurrence, fields.moreRules, fields.exclusionRules,
                 fields.exclusions, fields.additions, fields.recurrenceID, fields.uid].compactMap { $0 })
        } ?? []
        let fields = try store.readTransaction { transaction -> [AlarmNotice.Field] in
            guard let record = try transaction.fetch(alarm.entity, id: alarm.record) else { return [] }
            var fields: [AlarmNotice.Field] = []
            for property in entity.properties where !property.type.isArray && !temporal.contains(property.name) {
                guard let value = record[property.name] else { continue }
                if case .entity(let target) = property.type.base, case .reference(let id) = value {
                    guard let referenced = try transaction.fetch(target, id: id) else { continue }
                    fields.append(AlarmNotice.Field(name: property.name, text: registry.title(of: referenced)))
                } else {
                    fields.append(AlarmNotice.Field(name: property.name, text: registry.displayText(value)))
                }
            }
            return fields
        }
        return AlarmNotice(alarm: alarm, late: late, description: description, fields: fields)
    }
}

extension DueAlarm {
    /// What the alarm is, as the notify command's COMETCAL_ALARM_DESCRIPTION says it.
    public var alarmDescription: String { AlarmNotice.describe(alarm) }

    /// One alarm to come, as `cometcal alarms --json` and the daemon's `alarms.list` give it.
    public var listing: JSONValue {
        .object(JSONObject([
            ("entity", .string(entity.name)), ("id", .string(record.uuidString.lowercased())), ("title", .string(title)),
            ("start", .string(occurrence.description)), ("trigger", .string(DateTimeValue.utc(trigger).description)),
            ("alarm", .string(alarmDescription)),
        ]))
    }
}

extension AlarmNotice {
    static func describe(_ alarm: Value) -> String {
        if case .string(let text) = alarm { return text }  // a snooze
        guard case .union(_, let payload) = alarm else { return "" }
        switch payload {
        case .duration(let offset):
            if offset.approximateSeconds == 0 { return "at the start" }
            let magnitude = DurationText.describe(offset)
            return offset.isNegative ? "\(magnitude) before the start" : "\(magnitude) after the start"
        case .dateTime(let moment):
            return "at \(moment.description)"
        default:
            return ""
        }
    }
}
