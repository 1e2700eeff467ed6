import Foundation
import CometSchema
import CometText

/// Calendar rules for entities with a start time (found through their DTSTART mapping): the
/// zone property follows the start, all-day times are whole days, a moved start keeps the
/// length, and nothing ends before it starts.
struct TemporalRules {
    let fields: TemporalFields
    /// The String property mapped to DTSTART's TZID parameter.
    let timeZoneProperty: String?

    init?(entity: EntityDefinition) {
        guard let fields = entity.temporalFields else { return nil }
        self.fields = fields
        timeZoneProperty = fields.timeZone
        let properties = entity.properties
        busyProperty = properties.first { $0.type.base == .builtin(.bool) && $0.icalName == "TRANSP" && $0.icalParameter == nil }?.name
        entityLength = { name in
            properties.first { $0.name == name }?.annotations.first(named: "defaultLength")?.firstString.flatMap(DurationValue.init(parsing:))
        }
    }

    /// The end's `@defaultLength`: how long a new record with a timed start and no end lasts.
    var defaultLength: DurationValue? {
        guard let end = fields.end else { return nil }
        return entityLength(end)
    }
    private let entityLength: (String) -> DurationValue?

    /// The properties that say when (start, end, all day, zone): a change of only these is a move.
    var timeProperties: Set<String> {
        Set([fields.start, fields.end, fields.isAllDay, timeZoneProperty].compactMap { $0 })
    }

    func start(_ record: EntityRecord) -> DateTimeValue? {
        if case .dateTime(let value)? = record[fields.start] { return value }
        return nil
    }

    func end(_ record: EntityRecord) -> DateTimeValue? {
        guard let property = fields.end, case .dateTime(let value)? = record[property] else { return nil }
        return value
    }

    func isAllDay(_ record: EntityRecord) -> Bool {
        guard let property = fields.isAllDay, case .bool(let flag)? = record[property] else { return false }
        return flag
    }

    /// The Bool mapped to TRANSP (true: OPAQUE), when the entity has one.
    let busyProperty: String?

    /// Whether the record takes up its time, by the one rule free/busy uses everywhere (the
    /// conversation's "am I free", `cometcal free`, the overlap sentence): a timed record that is
    /// not marked transparent. All-day records do not, as in Google Calendar: a holiday or a
    /// birthday leaves the day free.
    func blocksTime(_ record: EntityRecord) -> Bool { freeReason(record) == nil }

    /// Why a record leaves its time free ("all day", "marked free"); nil when it is busy.
    func freeReason(_ record: EntityRecord) -> String? {
        if isAllDay(record) { return "all day" }
        if let property = busyProperty, case .bool(false)? = record[property] { return "marked free" }
        return nil
    }

    func isSeries(_ record: EntityRecord) -> Bool {
        guard !isOverride(record) else { return false }
        if let property = fields.recurrence, record[property] != nil { return true }
        if let property = fields.additions, case .array(let items)? = record[property], !items.isEmpty { return true }
        return false
    }

    func isOverride(_ record: EntityRecord) -> Bool {
        guard let property = fields.recurrenceID else { return false }
        return record[property] != nil
    }

    func uid(_ record: EntityRecord) -> String? {
        guard let property = fields.uid, case .string(let text)? = record[property] else { return nil }
        return text
    }

    /// A new record given a timed start and no end lasts the schema's `@defaultLength` (all-day
    /// records have their own rule: a day). Imports never come here: RFC 5545 ends a DTSTART
    /// without DTEND or DURATION at its start.
    func fillDefaultEnd(_ record: inout EntityRecord) throws {
        guard let endProperty = fields.end, record[endProperty] == nil, !isAllDay(record),
              let start = start(record), let length = defaultLength else { return }
        do {
            record[endProperty] = .dateTime(try start.adding(length))
        } catch {
            throw IntentError(.invalidValue, error.message, parameter: fields.start)
        }
    }

    /// Applies the rules to a record after a create or an update. `changed` names the properties
    /// the request set or cleared; `previous` is the record before an update.
    /// `timeFormat` writes the times of an error message.
    func normalize(_ record: inout EntityRecord, previous: EntityRecord?, changed: Set<String>, timeFormat: TimeFormat) throws {
        if let uidProperty = fields.uid, record[uidProperty] == nil {
            record[uidProperty] = .string(record.id.lowercasedText)
        }
        // A rule set or cleared by the user is the whole rule of the series: further RRULEs and
        // EXRULEs an import brought go with the rule they were beside.
        if let ruleProperty = fields.recurrence, changed.contains(ruleProperty) {
            for property in [fields.moreRules, fields.exclusionRules].compactMap({ $0 }) where !changed.contains(property) {
                record[property] = .array([])
            }
        }
        guard var start = start(record) else { return }
        var end = end(record)

        // A moved start keeps the event's length unless the end moved too.
        if let previous, changed.contains(fields.start), let endProperty = fields.end, !changed.contains(endProperty),
           let oldStart = self.start(previous), let oldEnd = self.end(previous) {
            end = start.adding(seconds: oldEnd.sortKey - oldStart.sortKey)
        }

        if let zoneProperty = timeZoneProperty {
            if changed.contains(zoneProperty) {
                if case .string(let identifier)? = record[zoneProperty] {
                    let zone: TimeZone
                    do { zone = try TimeZones.zone(identifier) } catch {
                        throw IntentError(.unknownTimeZone, error.message, parameter: zoneProperty)
                    }
                    start = reexpress(start, in: zone)
                    end = end.map { reexpress($0, in: zone) }
                } else {
                    start = .floating(start.localTime)
                    end = end.map { .floating($0.localTime) }
                }
            }
            record[zoneProperty] = start.timeZoneIdentifier.map(Value.string)
        }

        if isAllDay(record) {
            start = .floating(LocalDateTime(date: start.localTime.date, hour: 0, minute: 0) ?? start.localTime)
            if let value = end {
                let endLocal = value.localTime
                let day = endLocal.hour == 0 && endLocal.minute == 0 && endLocal.second == 0 ? endLocal.date : (LocalDateTime(wallSeconds: endLocal.wallSeconds + 86_400).date)
                end = .floating(LocalDateTime(date: day, hour: 0, minute: 0) ?? endLocal)
            }
            if end == nil || (end?.sortKey ?? 0) <= start.sortKey { end = start.adding(days: 1) }
            if let zoneProperty = timeZoneProperty { record[zoneProperty] = nil }
        }

        if let end, end.sortKey < start.sortKey, !(end.isFloating != start.isFloating) {
            let zone = start.timeZoneIdentifier ?? (start.isFloating ? nil : "UTC")
            let endZone = end.timeZoneIdentifier ?? (end.isFloating ? nil : "UTC")
            let endText = TemporalRules.shown(end, timeFormat: timeFormat) + (endZone != zone ? endZone.map { " (\($0))" } ?? "" : "")
            throw IntentError(.endBeforeStart, "the end (\(endText)) is before the start (\(TemporalRules.shown(start, timeFormat: timeFormat))\(zone.map { " (\($0))" } ?? "")); give an end after the start, or move the start",
                              parameter: fields.end)
        }
        record[fields.start] = .dateTime(start)
        if let endProperty = fields.end { record[endProperty] = end.map(Value.dateTime) }
    }

    /// A moment as the agenda shows it, in its own zone: "Wed Dec 2 2026 10:00".
    static func shown(_ value: DateTimeValue, timeFormat: TimeFormat) -> String {
        let local = value.localTime
        let date = local.date
        return "\(Presenter.weekdays[date.weekdayIndex].prefix(3)) \(Presenter.months[date.month - 1].prefix(3)) \(date.day) \(date.year) "
            + timeFormat.text(local)
    }

    /// A floating wall time placed in `zone`; an instant shown in `zone`.
    private func reexpress(_ value: DateTimeValue, in zone: TimeZone) -> DateTimeValue {
        if value.isFloating { return value.localTime.dateTime(in: zone) }
        guard let instant = value.instant else { return value }
        return DateTimeValue(kind: .zoned(epochSeconds: Int64(instant.timeIntervalSince1970), timeZone: zone.identifier))
    }
}
