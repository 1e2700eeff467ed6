import Foundation
import CometText

/// Validation and JSON conversion of values, driven by the registry's types.
extension Registry {
    // MARK: Validation

    /// Checks that `value` is a valid value of `type` (optionality aside: a present value must
    /// fit the non-optional type). The error's path points inside nested values.
    public func validate(_ value: Value, as type: TypeExpression) throws(ValueError) {
        if type.isArray {
            guard case .array(let items) = value else { throw mismatch(value, type) }
            for (index, item) in items.enumerated() {
                do throws(ValueError) {
                    try validate(item, as: type.element)
                } catch {
                    throw error.nested(in: "[\(index)]")
                }
            }
            return
        }
        switch (type.base, value) {
        case (.builtin(.string), .string), (.builtin(.int), .int), (.builtin(.double), .double),
             (.builtin(.bool), .bool), (.builtin(.date), .date), (.builtin(.url), .url), (.builtin(.uuid), .uuid):
            return
        case (.builtin(.duration), .duration(let duration)):
            // Values built in code: the sign is `isNegative`; a negative part has no RFC 5545 spelling.
            guard [duration.weeks, duration.days, duration.hours, duration.minutes, duration.seconds].allSatisfy({ $0 >= 0 }) else {
                throw ValueError(.invalidDuration, "a duration's weeks, days, hours, minutes and seconds must not be negative; negate the whole duration instead (\(duration.isNegative ? "-" : "")P…)")
            }
        case (.builtin(.recurrence), .recurrence(let rule)):
            // Rules built in code get the checks a parsed rule gets (ranges, FREQ combinations).
            try rule.validate()
        case (.builtin(.dateTime), .dateTime(let dateTime)):
            // A zoned value built in code (or read from storage) must name a zone tzdata knows:
            // an unknown zone would otherwise be read as UTC without a word (DESIGN.md "Time").
            if let identifier = dateTime.timeZoneIdentifier { _ = try TimeZones.zone(identifier) }
        case (.builtin(.double), .int):
            return
        case (.builtin(.person), .person(let person)):
            try validate(person)
        case (.builtin(.place), .place(let place)):
            try validate(place)
        case (.enumeration(let name), .enumCase(let caseName)):
            guard let definition = enumeration(name) else { throw mismatch(value, type) }
            guard definition.enumCase(caseName) != nil else {
                throw unknownCase(caseName, of: definition)
            }
        case (.union(let name), .union(let caseName, let payload)):
            guard let definition = union(name) else { throw mismatch(value, type) }
            guard let unionCase = definition.unionCase(caseName) else {
                let names = definition.cases.map(\.name)
                throw ValueError(.unknownUnionCase, "'\(caseName)' is not a case of union '\(name.name)' (cases: \(names.joined(separator: ", ")))",
                                 suggestion: EditDistance.closest(to: caseName, among: names))
            }
            do throws(ValueError) {
                try validate(payload, as: unionCase.type)
            } catch {
                throw error.nested(in: caseName)
            }
        case (.entity(let name), .reference):
            guard let definition = entity(name), definition.kind == .indexed else { throw mismatch(value, type) }
        case (.entity(let name), .object(let properties)):
            guard let definition = entity(name), definition.kind == .transient else { throw mismatch(value, type) }
            try validateObject(properties, of: definition)
        default:
            throw mismatch(value, type)
        }
    }

    /// Checks a transient entity's (or an entity record's) properties: no unknown names,
    /// every required property present (or defaulted), every value of its type.
    public func validateObject(_ properties: [String: Value], of entity: EntityDefinition) throws(ValueError) {
        // The first unknown name in order, found without sorting every record's keys.
        if let key = properties.keys.filter({ entity.property($0) == nil }).min() {
            throw ValueError(.unknownProperty, "'\(key)' is not a property of \(entity.name.name)",
                             suggestion: EditDistance.closest(to: key, among: entity.properties.map(\.name)))
        }
        for property in entity.properties {
            guard let value = properties[property.name] else {
                if property.isRequired, property.defaultValue == nil, !(entity.kind == .indexed && property.name == "id") {
                    throw ValueError(.missingProperty, "\(entity.name.name) needs a value for '\(property.name)'", path: property.name)
                }
                continue
            }
            do throws(ValueError) {
                try validate(value, as: property.type)
            } catch {
                throw error.nested(in: property.name)
            }
        }
    }

    private func validate(_ person: PersonValue) throws(ValueError) {
        // Not blank: something other than spaces and tabs (CharacterSet.whitespaces), checked
        // without trimming copies: every attendee of an import passes here.
        let parts = [person.name, person.email, person.phone].compactMap { $0 }
        guard parts.contains(where: { part in
            part.unicodeScalars.contains { $0 != "\t" && $0.properties.generalCategory != .spaceSeparator }
        }) else {
            throw ValueError(.invalidPerson, "a person needs a name, an email address or a phone number")
        }
        if let email = person.email, !email.isEmpty {
            // Only what an address needs: a calendar user address is a URI that real files fill
            // with spaces and odd text (`hcabot@ example.com`), kept as written. An '@', and
            // something before the first and after the last (looked at without splitting the
            // address: every attendee of an import passes here).
            guard email.first != "@", email.last != "@", email.contains("@") else {
                throw ValueError(.invalidPerson, "'\(email)' is not an email address", path: "email")
            }
        }
    }

    private func validate(_ place: PlaceValue) throws(ValueError) {
        if (place.latitude == nil) != (place.longitude == nil) {
            throw ValueError(.invalidPlace, "a place needs both latitude and longitude, or neither")
        }
        if let latitude = place.latitude, !(-90.0...90.0).contains(latitude) {
            throw ValueError(.invalidPlace, "latitude \(latitude) is out of range (-90 to 90)", path: "latitude")
        }
        if let longitude = place.longitude, !(-180.0...180.0).contains(longitude) {
            throw ValueError(.invalidPlace, "longitude \(longitude) is out of range (-180 to 180)", path: "longitude")
        }
        let hasText = [place.name, place.address].contains { !($0?.trimmingSpaces().isEmpty ?? true) }
        if !hasText, place.latitude == nil {
            throw ValueError(.invalidPlace, "a place needs a name, an address or coordinates")
        }
    }

    private func mismatch(_ value: Value, _ type: TypeExpression) -> ValueError {
        ValueError(.typeMismatch, "expected \(describe(type)), found \(value.shapeName)")
    }

    private func unknownCase(_ caseName: String, of definition: EnumDefinition) -> ValueError {
        let names = definition.cases.map(\.name)
        return ValueError(.unknownEnumCase, "'\(caseName)' is not a case of enum '\(definition.name.name)' (cases: \(names.joined(separator: ", ")))",
                          suggestion: EditDistance.closest(to: caseName, among: names))
    }

    /// "a String", "an array of Attendee", "one of EventStatus's cases".
    func describe(_ type: TypeExpression) -> String {
        if type.isArray { return "an array of \(type.base.name)" }
        switch type.base {
        case .builtin(let builtin):
            switch builtin {
            case .date: return "a Date (2026-06-15)"
            case .dateTime: return "a DateTime (2026-06-15T08:00:00, with Z, an offset or [Zone/Name])"
            case .duration: return "a Duration (PT15M, -P1D)"
            case .recurrence: return "a Recurrence (an RRULE such as FREQ=WEEKLY;BYDAY=MO, or daily/weekly/weekdays/monthly/yearly)"
            case .int: return "an Int"
            case .uuid, .url: return "a \(builtin.rawValue)"
            default: return "a \(builtin.rawValue)"
            }
        case .entity(let name):
            return entity(name)?.kind == .transient ? "\(article(name.name)) \(name.name) object" : "\(article(name.name)) \(name.name) id"
        case .enumeration(let name):
            let cases = enumeration(name)?.cases.map(\.name).joined(separator: ", ") ?? ""
            return "one of \(name.name)'s cases (\(cases))"
        case .union(let name):
            let cases = union(name)?.cases.map(\.name).joined(separator: ", ") ?? ""
            return "\(article(name.name)) \(name.name) (one of: \(cases))"
        }
    }

    /// "an" before a declared name that starts with a vowel letter ("an Event", "an Alarm").
    private func article(_ name: String) -> String {
        guard let first = name.first else { return "a" }
        return "AEIOUaeiou".contains(first) ? "an" : "a"
    }
}
