import Foundation
import CometSchema

/// DATE and DATE-TIME values, and start, end and DURATION read together as RFC 5545 means them.
extension ComponentDecoder {
    /// RDATE;VALUE=PERIOD adds occurrences with their own end. The RDATE field holds starts, so
    /// a period whose length differs from the event's becomes an override of that occurrence
    /// carrying the period's end: nothing of the period is lost, and the export says the same
    /// with an RDATE and an override.
    func periodOverrides(_ values: [String: Value], properties: [LibicalProperty]) -> [(values: [String: Value], line: Int)] {
        guard let fields = entity.temporalFields, let endField = fields.end, let recurrenceField = fields.recurrenceID,
              case .dateTime(let start)? = values[fields.start] else { return [] }
        let length: Int64 = { if case .dateTime(let end)? = values[endField] { return end.sortKey - start.sortKey } else { return 0 } }()
        var result: [(values: [String: Value], line: Int)] = []
        for property in properties where property.name == "RDATE" && property.parameter("VALUE")?.uppercased() == "PERIOD" {
            let parts = property.text.split(separator: "/").map(String.init)
            guard parts.count == 2, var periodStart = try? dateTime(parts[0], from: property) else { continue }
            var periodEnd: DateTimeValue
            if let duration = DurationValue(parsing: parts[1]) {
                guard let end = try? periodStart.adding(duration) else { continue }
                periodEnd = end
            } else if let end = try? dateTime(parts[1], from: property) {
                periodEnd = end
            } else {
                continue
            }
            guard periodEnd.sortKey - periodStart.sortKey != length else { continue }
            if let zone = start.timeZoneIdentifier {
                periodStart = DateTimeValue(kind: .zoned(epochSeconds: periodStart.sortKey, timeZone: zone))
                periodEnd = DateTimeValue(kind: .zoned(epochSeconds: periodEnd.sortKey, timeZone: zone))
            }
            var override = values
            for name in fields.seriesProperties {
                override[name] = entity.property(name)?.defaultValue
            }
            override[recurrenceField] = .dateTime(periodStart)
            override[fields.start] = .dateTime(periodStart)
            override[endField] = .dateTime(periodEnd)
            result.append((override, property.source?.line ?? 0))
        }
        return result
    }

    /// Outlook writes an all-day event as midnight to midnight in its zone, with
    /// X-MICROSOFT-CDO-ALLDAYEVENT:TRUE: that is the date, or dates, it covers.
    func outlookAllDay(_ fields: TemporalFields, _ values: inout [String: Value], properties: [LibicalProperty],
                               warn: (String, String, LibicalProperty?) -> Void) {
        guard let marker = properties.first(where: { $0.name == "X-MICROSOFT-CDO-ALLDAYEVENT" }), marker.text.uppercased() == "TRUE",
              let allDayField = fields.isAllDay, values[allDayField] != .bool(true),
              case .dateTime(let start)? = values[fields.start], !start.isFloating else { return }
        let startWall = start.localTime
        guard startWall.hour == 0, startWall.minute == 0, startWall.second == 0, let startDay = LocalDateTime(date: startWall.date, hour: 0, minute: 0) else { return }
        var endDay: LocalDateTime?
        if let endField = fields.end, case .dateTime(let end)? = values[endField] {
            let endWall = end.wallTime(in: start.expansionZone)
            guard endWall.hour == 0, endWall.minute == 0, endWall.second == 0, endWall.date > startWall.date else { return }
            endDay = LocalDateTime(date: endWall.date, hour: 0, minute: 0)
        }
        values[fields.start] = .dateTime(.floating(startDay))
        if let endField = fields.end { values[endField] = endDay.map { .dateTime(.floating($0)) } }
        values[allDayField] = .bool(true)
        if let zoneField = entity.properties.first(where: { $0.icalParameter == "TZID" }) { values[zoneField.name] = nil }
        warn("X-MICROSOFT-CDO-ALLDAYEVENT", "Outlook's all-day event, written as midnight to midnight: read as the date\(endDay.map { $0.date.dayNumber - startWall.date.dayNumber > 1 ? "s from \(startWall.date) to \(LocalDateTime(wallSeconds: $0.wallSeconds - 86_400).date)" : " \(startWall.date)" } ?? " \(startWall.date)")", marker)
    }

    /// Start, end and DURATION together, as RFC 5545 means them: both times of one kind, an end
    /// after the start, a DURATION that agrees, a start skipped by DST keeping its length.
    func reconcileTimes(_ fields: TemporalFields, _ values: inout [String: Value], properties: [LibicalProperty],
                                problem: (String, String, LibicalProperty?) -> Void, warn: (String, String, LibicalProperty?) -> Void) {
        let startProperty = properties.first { $0.name == "DTSTART" }
        let endProperty = properties.first { $0.name == "DTEND" }
        let durationProperty = properties.first { $0.name == "DURATION" }
        guard case .dateTime(var startValue)? = values[fields.start] else { return }
        let isDate = startProperty?.parameter("VALUE")?.uppercased() == "DATE"
        // An all-day occurrence is named by its date: a RECURRENCE-ID written as a zoned midnight
        // (as some producers do) is that date, or it would miss the occurrence it replaces.
        if isDate, let recurrenceField = fields.recurrenceID, case .dateTime(let original)? = values[recurrenceField], !original.isFloating,
           let midnight = LocalDateTime(date: original.localTime.date, hour: 0, minute: 0) {
            values[recurrenceField] = .dateTime(.floating(midnight))
            let property = properties.first { $0.name == "RECURRENCE-ID" }
            warn("RECURRENCE-ID", "RECURRENCE-ID is a date-time on an all-day event; read as its date, \(original.localTime.date)", property)
        }
        if let endField = fields.end, case .dateTime(var endValue)? = values[endField] {
            // A floating time beside a zoned one: RFC 5545 wants both of one kind; the zone the
            // other names is the only one the producer can have meant.
            if !isDate, startValue.isFloating, let zone = endValue.timeZoneIdentifier, let timeZone = TimeZone(identifier: zone) {
                startValue = startValue.localTime.dateTime(in: timeZone)
                values[fields.start] = .dateTime(startValue)
                if let zoneField = entity.properties.first(where: { $0.icalParameter == "TZID" }) { values[zoneField.name] = .string(zone) }
                warn("DTSTART", "DTSTART is a floating time but DTEND is in \(zone); the start is read in \(zone) too", startProperty)
            } else if !isDate, endValue.isFloating, let zone = startValue.timeZoneIdentifier, let timeZone = TimeZone(identifier: zone) {
                endValue = endValue.localTime.dateTime(in: timeZone)
                values[endField] = .dateTime(endValue)
                warn("DTEND", "DTEND is a floating time but DTSTART is in \(zone); the end is read in \(zone) too", endProperty)
            }
            // A start that does not exist (02:30 on the day clocks skip 02:00–03:00) is placed
            // after the gap (§3.3.5); its end moves with it, so the event keeps the length it was
            // written with.
            if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier, !endValue.isFloating,
               endValue.timeZoneIdentifier == zone || endValue.timeZoneIdentifier == nil {
                // The end as read on the start zone's clocks (an end in UTC too).
                let length = endValue.recurrenceWallTime(in: startValue.expansionZone).wallSeconds - nominal.wallSeconds
                if length >= 0, let moved = try? startValue.checkedAdding(seconds: length) {
                    endValue = moved
                    values[endField] = .dateTime(endValue)
                }
                let series = properties.contains { $0.name == "RRULE" || $0.name == "RDATE" }
                    ? "; the other occurrences keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))" : ""
                warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so the event starts at \(startValue.localTime) (RFC 5545 §3.3.5) and keeps its length, ending at \(endValue.localTime)\(series)", startProperty)
            } else if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier {
                warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so this occurrence is at \(startValue.localTime) (RFC 5545 §3.3.5); the others keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))", startProperty)
            }
            // An all-day event ending on its own start day means that one day (the end of a date
            // is exclusive, so some producers' inclusive end would otherwise last no time).
            if isDate, endValue.sortKey == startValue.sortKey, let nextDay = try? startValue.adding(DurationValue(days: 1)) {
                endValue = nextDay
                values[endField] = .dateTime(nextDay)
                warn("DTEND", "DTEND equals DTSTART on an all-day event: read as that one day (DTEND is the day after)", endProperty)
            }
            if endValue.sortKey < startValue.sortKey {
                problem("DTEND", "DTEND (\(endValue)) is before DTSTART (\(startValue)); fix the end, or remove it for an event without length", endProperty)
            }
            if let durationProperty, let duration = DurationValue(parsing: durationProperty.writtenValue) {
                if let implied = try? startValue.adding(duration), implied.sortKey != endValue.sortKey {
                    // RFC 5545 allows one of the two; DTEND is the one producers keep in sync.
                    warn("DURATION", "both DTEND and DURATION are given and they disagree (\(durationProperty.writtenValue) from the start is \(implied), DTEND is \(endValue)): DTEND is kept and DURATION left out", durationProperty)
                } else {
                    warn("DURATION", "both DTEND and DURATION are given (RFC 5545 allows one); they agree, so DTEND is kept and DURATION left out", durationProperty)
                }
            }
            // An end written in UTC (as exports do for the repeated hour) belongs to the start's zone.
            if case .utc(let seconds) = endValue.kind, let zone = startValue.timeZoneIdentifier {
                values[endField] = .dateTime(DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: zone)))
            }
            return
        }
        if let nominal = startValue.nominal, let zone = startValue.timeZoneIdentifier {
            warn("DTSTART", "\(nominal) does not exist in \(zone) (the clocks skip that hour), so this occurrence is at \(startValue.localTime) (RFC 5545 §3.3.5); the others keep \(String(format: "%02d:%02d", nominal.hour, nominal.minute))", startProperty)
        }
        // DURATION stands for DTEND when there is none.
        guard let endField = fields.end, let durationProperty else { return }
        do {
            // As written: libical wraps a huge DURATION around to another length.
            let duration = try DurationValue(validating: durationProperty.writtenValue)
            values[endField] = .dateTime(try startValue.adding(duration))
        } catch {
            problem("DURATION", "DURATION \(error.message)", durationProperty)
        }
    }

    /// DATE, DATE-TIME (UTC, with TZID, or floating) → DateTimeValue. Dates become floating
    /// midnights; floating times take the calendar's X-WR-TIMEZONE when it has one.
    func dateTime(_ text: String, from source: LibicalProperty) throws -> DateTimeValue {
        let trimmed = text.trimmedBlanks
        if source.parameter("VALUE")?.uppercased() == "DATE" || trimmed.count == 8 {
            guard let date = CalendarDate(parsing: String(trimmed.prefix(8))), let midnight = LocalDateTime(date: date, hour: 0, minute: 0) else {
                throw DecodeError(message: "\(source.name) '\(text)' is not a date")
            }
            return .floating(midnight)
        }
        let isUTC = trimmed.uppercased().hasSuffix("Z")
        guard let local = LocalDateTime(parsing: isUTC ? String(trimmed.dropLast()) : trimmed) else {
            throw DecodeError(message: "\(source.name) '\(text)' is not a date-time")
        }
        if isUTC { return local.dateTime(in: TimeZone(identifier: "UTC")) }
        if let tzid = source.parameter("TZID") {
            switch zones.resolve(tzid) {
            case .zoned(let identifier): return local.dateTime(in: TimeZone(identifier: identifier))
            case .offsets(let converter): return DateTimeValue(kind: .utc(epochSeconds: converter(local)))
            case nil:
                throw DecodeError(message: zones.unresolvedReason(tzid))
            }
        }
        if let defaultZone { return local.dateTime(in: TimeZone(identifier: defaultZone)) }
        return .floating(local)
    }

    /// COUNT together with UNTIL never reaches here: `QuirkNormalizer` resolves it before libical.
    func recurrence(_ text: String, source: LibicalProperty) throws -> RecurrenceRule {
        do {
            return try RecurrenceRule(parsing: text)
        } catch {
            throw DecodeError(message: "RRULE: \(error.message)")
        }
    }

    /// Of two rules that differ only in their end, the one whose series ends first.
    static func earlierEnding(_ countRule: RecurrenceRule, _ untilRule: RecurrenceRule, start: LocalDateTime? = nil) -> RecurrenceRule {
        guard case .count(let count) = countRule.end else { return countRule }
        // From the event's start (UTC is close enough to compare with a UTC UNTIL): does UNTIL
        // stop the series before COUNT occurrences?
        let start = start ?? LocalDateTime(wallSeconds: 0)
        let produced = RecurrenceSet(start: start, timeZone: nil, rule: untilRule, additions: [], exclusions: [], isAllDay: false)
            .occurrences(limit: count + 1).count
        return produced < count ? untilRule : countRule
    }


    /// Seconds from the settled start to the settled end (after DURATION, the DST gap and the
    /// other readings): else (RFC 5545 §3.6.1) a day for an all-day event and none for a timed one.
    func settledEventLength(_ values: [String: Value], isAllDay: Bool) -> Int64? {
        guard let fields = entity.temporalFields, case .dateTime(let start)? = values[fields.start] else { return nil }
        if let endField = fields.end, case .dateTime(let end)? = values[endField] { return end.sortKey - start.sortKey }
        return isAllDay ? 86_400 : 0
    }
}
