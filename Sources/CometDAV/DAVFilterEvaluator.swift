/// Evaluates a calendar-query filter (RFC 4791 §9.7) against a calendar object. Time ranges
/// are the caller's: they need recurrence expansion and time zones, which the engine owns.
public struct DAVFilterEvaluator {
    /// Whether a component (a VEVENT with its recurrence set, a VTODO, a VALARM …) overlaps the
    /// range per RFC 4791 §9.9. `ancestors` runs from the VCALENDAR down to the component's parent.
    public var componentOverlaps: (_ component: DAVComponent, _ ancestors: [DAVComponent], _ range: DAVTimeRange) throws -> Bool
    /// Whether a date-time property (DTSTAMP, COMPLETED, a DTSTART …) lies in the range (§9.9).
    public var propertyOverlaps: (_ property: DAVComponentProperty, _ component: DAVComponent, _ range: DAVTimeRange) throws -> Bool

    public init(
        componentOverlaps: @escaping (_ component: DAVComponent, _ ancestors: [DAVComponent], _ range: DAVTimeRange) throws -> Bool,
        propertyOverlaps: @escaping (_ property: DAVComponentProperty, _ component: DAVComponent, _ range: DAVTimeRange) throws -> Bool
    ) {
        self.componentOverlaps = componentOverlaps
        self.propertyOverlaps = propertyOverlaps
    }

    /// Whether the calendar object `calendar` (its VCALENDAR) passes the filter. Errors are the
    /// time-range closures' own.
    public func matches(_ filter: DAVCompFilter, calendar: DAVComponent) throws -> Bool {
        // The outermost comp-filter applies to the object itself, not to a child of it.
        switch filter.test {
        case .isNotDefined:
            return calendar.name.uppercased() != filter.name
        case .matches:
            guard calendar.name.uppercased() == filter.name else { return false }
            return try passes(filter, component: calendar, ancestors: [])
        }
    }

    /// §9.7.1: a comp-filter on the children of `parent`.
    func matches(_ filter: DAVCompFilter, in parent: DAVComponent, ancestors: [DAVComponent]) throws -> Bool {
        let candidates = parent.components.filter { $0.name.uppercased() == filter.name }
        switch filter.test {
        case .isNotDefined:
            return candidates.isEmpty
        case .matches:
            for candidate in candidates where try passes(filter, component: candidate, ancestors: ancestors + [parent]) {
                return true
            }
            return false
        }
    }

    private func passes(_ filter: DAVCompFilter, component: DAVComponent, ancestors: [DAVComponent]) throws -> Bool {
        guard case .matches(let timeRange, let propFilters, let compFilters) = filter.test else { return false }
        if let timeRange, try !componentOverlaps(component, ancestors, timeRange) { return false }
        for propFilter in propFilters where try !matches(propFilter, in: component) { return false }
        for compFilter in compFilters where try !matches(compFilter, in: component, ancestors: ancestors) { return false }
        return true
    }

    /// §9.7.2: some instance of the property passes every test given.
    func matches(_ filter: DAVPropFilter, in component: DAVComponent) throws -> Bool {
        let instances = component.properties.filter { $0.name.uppercased() == filter.name }
        switch filter.test {
        case .isNotDefined:
            return instances.isEmpty
        case .matches(let timeRange, let textMatch, let paramFilters):
            instanceLoop: for property in instances {
                if let timeRange, try !propertyOverlaps(property, component, timeRange) { continue }
                if let textMatch, !textMatch.matches(property.value) { continue }
                for paramFilter in paramFilters where !paramFilter.matches(property) { continue instanceLoop }
                return true
            }
            return false
        }
    }
}

extension DAVParamFilter {
    /// §9.7.3: the parameter is absent (is-not-defined), or present and, with a text-match,
    /// some value of it matches.
    func matches(_ property: DAVComponentProperty) -> Bool {
        let parameters = property.parameters.filter { $0.name.uppercased() == name }
        switch test {
        case .isNotDefined:
            return parameters.isEmpty
        case .matches(let textMatch):
            guard let textMatch else { return !parameters.isEmpty }
            return parameters.contains { $0.values.contains { textMatch.matches($0) } }
        }
    }
}

extension DAVTextMatch {
    /// §9.7.5: whether `value` contains the text under the collation, negated when asked.
    public func matches(_ value: String) -> Bool {
        let found: Bool
        switch collation {
        case .octet:
            found = Self.contains(Array(value.utf8), Array(text.utf8))
        case .asciiCasemap:
            found = Self.contains(Self.foldedASCII(value), Self.foldedASCII(text))
        }
        return found != negate
    }

    /// Upper-case ASCII letters to lower case, every other byte (UTF-8 included) untouched.
    static func foldedASCII(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        if needle.count > haystack.count { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
