/// Which properties of an entity carry its time, found through their iCalendar mapping so any
/// domain that maps DTSTART (events) gets an occurrence index with no Swift code of its own.
public struct TemporalFields: Sendable, Hashable {
    /// DTSTART: a DateTime.
    public let start: String
    /// DTEND: a DateTime.
    public let end: String?
    /// A Bool mapped to DTSTART;VALUE=DATE.
    public let isAllDay: String?
    /// A String mapped to DTSTART's TZID parameter: the zone the times are expressed in.
    public let timeZone: String?
    /// RRULE: a Recurrence.
    public let recurrence: String?
    /// Further RRULEs, and EXRULEs (RFC 2445): arrays of Recurrence.
    public let moreRules: String?
    public let exclusionRules: String?
    /// EXDATE and RDATE: arrays of DateTime.
    public let exclusions: String?
    public let additions: String?
    /// RECURRENCE-ID: a DateTime; set on a record that overrides one occurrence of a series.
    public let recurrenceID: String?
    /// UID: the series a master and its overrides share.
    public let uid: String?
}

extension TemporalFields {
    /// Nil when no DateTime property maps to DTSTART.
    static func find(in properties: [PropertyDefinition]) -> TemporalFields? {
        func property(mappedTo name: String, type: TypeExpression) -> String? {
            properties.first { property in
                guard let ical = property.ical, ical.firstString?.uppercased() == name, ical.string("param") == nil else { return false }
                return property.type.base == type.base && property.type.isArray == type.isArray
            }?.name
        }
        let dateTime = TypeExpression(.builtin(.dateTime))
        let dateTimes = TypeExpression(.builtin(.dateTime), isArray: true)
        guard let start = property(mappedTo: "DTSTART", type: dateTime) else { return nil }
        let allDay = properties.first { property in
            property.type.base == .builtin(.bool) && property.icalName == "DTSTART"
                && property.icalParameter == "VALUE"
        }?.name
        let zone = properties.first { property in
            property.type.base == .builtin(.string) && property.icalName == "DTSTART" && property.icalParameter == "TZID"
        }?.name
        return TemporalFields(
            start: start,
            end: property(mappedTo: "DTEND", type: dateTime),
            isAllDay: allDay,
            timeZone: zone,
            recurrence: property(mappedTo: "RRULE", type: TypeExpression(.builtin(.recurrence))),
            moreRules: property(mappedTo: "RRULE", type: TypeExpression(.builtin(.recurrence), isArray: true)),
            exclusionRules: property(mappedTo: "EXRULE", type: TypeExpression(.builtin(.recurrence), isArray: true)),
            exclusions: property(mappedTo: "EXDATE", type: dateTimes),
            additions: property(mappedTo: "RDATE", type: dateTimes),
            recurrenceID: property(mappedTo: "RECURRENCE-ID", type: dateTime),
            uid: property(mappedTo: "UID", type: TypeExpression(.builtin(.string)))
        )
    }

    /// The fields that make a record a series (its rules, EXDATEs and RDATEs): an override of one
    /// occurrence has none of them.
    public var seriesProperties: [String] {
        [recurrence, moreRules, exclusionRules, exclusions, additions].compactMap { $0 }
    }

    /// The further RRULEs and the EXRULEs of a record (empty when the schema has no such fields).
    public func extraRules(of values: [String: Value]) -> (more: [RecurrenceRule], exclusions: [RecurrenceRule]) {
        func rules(_ property: String?) -> [RecurrenceRule] {
            guard let property, case .array(let items)? = values[property] else { return [] }
            return items.compactMap { if case .recurrence(let rule) = $0 { return rule } else { return nil } }
        }
        return (rules(moreRules), rules(exclusionRules))
    }
}
