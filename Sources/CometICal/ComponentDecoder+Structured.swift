import Foundation
import CometSchema

/// People (ORGANIZER, ATTENDEE with their parameters), places (LOCATION with GEO or Apple's structured location) and alarms (VALARM).
extension ComponentDecoder {
    /// ORGANIZER/ATTENDEE: CN is the name; a mailto: value the email; anything else is kept as
    /// the address (some producers omit mailto:).
    func person(_ source: LibicalProperty) -> PersonValue {
        var address = source.text.trimmedBlanks
        if address.lowercased().hasPrefix(ICalWriter.namelessAddressPrefix) { return PersonValue(name: source.parameter("CN")) }
        if address.lowercased().hasPrefix("mailto:") { address = String(address.dropFirst(7)) }
        let name = source.parameter("CN")
        if address.utf8.contains(UInt8(ascii: "@")) { return PersonValue(name: name, email: address) }
        if address.lowercased().hasPrefix("tel:") { return PersonValue(name: name, phone: String(address.dropFirst(4))) }
        return PersonValue(name: name ?? (address.isEmpty ? nil : address), email: nil)
    }

    /// A transient entity from one property and its parameters (ATTENDEE;PARTSTAT=…;ROLE=…).
    func decodeTransient(_ definition: EntityDefinition, from source: LibicalProperty) throws -> [String: Value] {
        var values: [String: Value] = [:]
        var kept: [String] = []
        let mapped = Set(definition.properties.compactMap { $0.icalParameter }).union(["CN"])
        // Parameters no field holds, and values a field can only approximate (ROLE=CHAIR reads
        // as required, PARTSTAT=X-FOO as needs action), stay as written for export.
        if let line = source.source {
            for (name, raw) in ContentLine.rawParameters(of: line.head) {
                if !mapped.contains(name) {
                    kept.append("\(name)=\(raw)")
                } else if let property = definition.properties.first(where: { $0.icalParameter == name }),
                          !ComponentDecoder.isCanonical(ICalText.decodeParameter(raw), property: property, registry: registry) {
                    kept.append("\(name)=\(raw)")
                }
            }
        }
        for property in definition.properties {
            guard property.ical != nil else {
                if let value = property.defaultValue { values[property.name] = value }
                continue
            }
            if let param = property.icalParameter {
                if param == "*" {
                    // In name order, so that the export (which writes mapped parameters first)
                    // reads back the same.
                    let ordered = kept.enumerated().sorted { ($0.element.prefix { $0 != "=" }, $0.offset) < ($1.element.prefix { $0 != "=" }, $1.offset) }.map(\.element)
                    if !ordered.isEmpty { values[property.name] = .string(ordered.joined(separator: ";")) }
                    continue
                }
                guard let text = source.parameter(param) else {
                    if let value = property.defaultValue { values[property.name] = value }
                    continue
                }
                values[property.name] = ComponentDecoder.readsAs(text, property: property, registry: registry)
            } else if property.type.base == .builtin(.person) {
                values[property.name] = .person(person(source))
            } else {
                values[property.name] = .string(source.text)
            }
        }
        return values.compactMapValues { $0 }
    }

    /// What a field mapped to a parameter reads from its text: the Bool of `whenTrue`, the enum
    /// case of that name (else the field's default: RFC 5545 reads unknown PARTSTAT values as
    /// NEEDS-ACTION), or the text.
    static func readsAs(_ text: String, property: PropertyDefinition, registry: Registry) -> Value? {
        if property.type.base == .builtin(.bool), let whenTrue = property.ical?.string("whenTrue") {
            return .bool(text.uppercased() == whenTrue.uppercased())
        }
        if case .enumeration(let name) = property.type.base {
            let match = registry.enumeration(name)?.cases.first { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() }
            return match.map { .enumCase($0.name) } ?? property.defaultValue
        }
        return .string(text)
    }

    /// Whether export, writing the field, gives this parameter value back (up to case).
    static func isCanonical(_ text: String, property: PropertyDefinition, registry: Registry) -> Bool {
        guard let ical = property.ical else { return true }
        if property.type.base == .builtin(.bool) {
            return [ical.string("whenTrue"), ical.string("whenFalse")].compactMap { $0?.uppercased() }.contains(text.uppercased())
        }
        if case .enumeration(let name) = property.type.base {
            return registry.enumeration(name)?.cases.contains { ($0.annotations.first(named: "ical")?.firstString ?? $0.name).uppercased() == text.uppercased() } ?? false
        }
        return true
    }


    /// LOCATION (text) or LOCATION with GEO (a place).
    func decodeUnion(_ union: UnionDefinition, name: String, sources: [LibicalProperty], properties: [LibicalProperty]) throws -> Value? {
        let text = sources.first?.text
        if let placeCase = union.cases.first(where: { $0.type.base == .builtin(.place) }),
           let geo = properties.first(where: { $0.name == "GEO" })?.text {
            let parts = geo.split(whereSeparator: { $0 == ";" || $0 == "," }).compactMap { Double($0.trimmedBlanks) }
            if parts.count == 2, (-90...90).contains(parts[0]), (-180...180).contains(parts[1]) {
                let lines = text?.split(separator: "\n", maxSplits: 1).map(String.init) ?? []
                return .union(placeCase.name, .place(PlaceValue(name: lines.first.flatMap { $0.isEmpty ? nil : $0 },
                                                                address: lines.count > 1 ? lines[1] : nil,
                                                                latitude: parts[0], longitude: parts[1])))
            }
            throw DecodeError(message: "GEO '\(geo)' is not latitude;longitude")
        }
        if let placeCase = union.cases.first(where: { $0.type.base == .builtin(.place) }), let place = ComponentDecoder.applePlace(properties) {
            return .union(placeCase.name, .place(place))
        }
        guard let text, !text.isEmpty, let textCase = union.cases.first(where: { $0.type.base == .builtin(.string) }) else { return nil }
        return .union(textCase.name, .string(text))
    }

    /// Apple's X-APPLE-STRUCTURED-LOCATION (`…;X-TITLE=…;X-ADDRESS=…:geo:52.5,13.4`): the place,
    /// when there is no GEO.
    static func applePlace(_ properties: [LibicalProperty]) -> PlaceValue? {
        guard let apple = properties.first(where: { $0.name == "X-APPLE-STRUCTURED-LOCATION" }) else { return nil }
        let value = apple.writtenValue
        guard value.lowercased().hasPrefix("geo:") else { return nil }
        let numbers = value.dropFirst(4).split(separator: ";").first?.split(separator: ",").compactMap { Double($0.trimmedBlanks) } ?? []
        guard numbers.count >= 2, (-90...90).contains(numbers[0]), (-180...180).contains(numbers[1]) else { return nil }
        // Apple writes the address's line breaks as `\n` inside the quoted parameter.
        let address = apple.parameter("X-ADDRESS").map { ICalText.unescape($0) }
        return PlaceValue(name: apple.parameter("X-TITLE"), address: address, latitude: numbers[0], longitude: numbers[1])
    }

    /// VALARM: TRIGGER as a duration (relative to the start, or to the end with RELATED=END,
    /// which is turned into one relative to the start) or an absolute DATE-TIME.
    func decodeUnionChild(_ union: UnionDefinition, _ child: LibicalNode, length: Int64?) throws -> Value? {
        // A VALARM without TRIGGER was left out before libical; one without it now had a
        // TRIGGER libical could not read, which is reported with its line already.
        guard let trigger = child.properties.first(where: { $0.name == "TRIGGER" }) else { return nil }
        let text = trigger.text
        if trigger.parameter("VALUE")?.uppercased() == "DATE-TIME" || (DurationValue(parsing: text) == nil && text.count >= 15) {
            guard let absolute = union.cases.first(where: { $0.type.base == .builtin(.dateTime) }) else { return nil }
            return .union(absolute.name, .dateTime(try dateTime(text, from: trigger)))
        }
        guard var duration = DurationValue(parsing: text), let relative = union.cases.first(where: { $0.type.base == .builtin(.duration) }) else {
            throw DecodeError(message: "TRIGGER '\(text)' is neither a duration nor a date-time")
        }
        if trigger.parameter("RELATED")?.uppercased() == "END", let length {
            duration = DurationValue(totalSeconds: duration.approximateSeconds + Int(length))
        }
        return .union(relative.name, .duration(duration))
    }
}
