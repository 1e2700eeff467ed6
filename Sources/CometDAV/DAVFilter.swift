/// The filter of a calendar-query (RFC 4791 §9.7): a tree of component, property and parameter tests.
public struct DAVCompFilter: Hashable, Sendable {
    public enum Test: Hashable, Sendable {
        /// Matches when no component of this name is there (§9.7.1, CALDAV:is-not-defined).
        case isNotDefined
        /// Matches when some component of this name passes all of these (an empty one: it exists).
        case matches(timeRange: DAVTimeRange?, propFilters: [DAVPropFilter], compFilters: [DAVCompFilter])
    }

    /// The component name as iCalendar spells it (VCALENDAR, VEVENT, VTODO, VALARM …), upper-cased.
    public let name: String
    public let test: Test

    public init(name: String, test: Test) {
        self.name = name
        self.test = test
    }
}

public struct DAVPropFilter: Hashable, Sendable {
    public enum Test: Hashable, Sendable {
        case isNotDefined
        /// Matches when some instance of the property passes the time-range or text-match (if
        /// any) and every param-filter.
        case matches(timeRange: DAVTimeRange?, textMatch: DAVTextMatch?, paramFilters: [DAVParamFilter])
    }

    public let name: String
    public let test: Test

    public init(name: String, test: Test) {
        self.name = name
        self.test = test
    }
}

public struct DAVParamFilter: Hashable, Sendable {
    public enum Test: Hashable, Sendable {
        case isNotDefined
        /// Present, and when a text-match is given, some value of it matches.
        case matches(textMatch: DAVTextMatch?)
    }

    public let name: String
    public let test: Test

    public init(name: String, test: Test) {
        self.name = name
        self.test = test
    }
}

/// A substring test (RFC 4791 §9.7.5) under one of the two collations CalDAV requires.
public struct DAVTextMatch: Hashable, Sendable {
    public let text: String
    public let collation: DAVCollation
    /// negate-condition="yes": matches when the text is not found.
    public let negate: Bool

    public init(text: String, collation: DAVCollation = .asciiCasemap, negate: Bool = false) {
        self.text = text
        self.collation = collation
        self.negate = negate
    }
}

/// The collations this server supports (RFC 4791 §7.5.1 requires both). Any other is refused
/// with CALDAV:supported-collation when the filter is read.
public enum DAVCollation: String, Hashable, Sendable, CaseIterable {
    /// ASCII letters compared without case; every other byte as is (RFC 4790 §9.2).
    case asciiCasemap = "i;ascii-casemap"
    /// Bytes compared as they are (RFC 4790 §9.3).
    case octet = "i;octet"
}

extension DAVCompFilter {
    static func decode(_ element: DAVXMLElement) throws(DAVRequestError) -> DAVCompFilter {
        let name = try filterName(element)
        if let notDefined = try element.optionalSingleChild(.caldav("is-not-defined")) {
            guard element.children.count == 1 else {
                throw DAVRequestError("comp-filter \(name) has is-not-defined and other tests; is-not-defined must be alone", at: notDefined, precondition: .validFilter)
            }
            return DAVCompFilter(name: name, test: .isNotDefined)
        }
        let timeRange = try element.optionalSingleChild(.caldav("time-range")).map { (range) throws(DAVRequestError) in try DAVTimeRange.decode(range, bothRequired: false) }
        var propFilters: [DAVPropFilter] = []
        for child in element.children(named: .caldav("prop-filter")) { propFilters.append(try DAVPropFilter.decode(child)) }
        var compFilters: [DAVCompFilter] = []
        for child in element.children(named: .caldav("comp-filter")) { compFilters.append(try DAVCompFilter.decode(child)) }
        return DAVCompFilter(name: name, test: .matches(timeRange: timeRange, propFilters: propFilters, compFilters: compFilters))
    }
}

extension DAVPropFilter {
    static func decode(_ element: DAVXMLElement) throws(DAVRequestError) -> DAVPropFilter {
        let name = try filterName(element)
        if let notDefined = try element.optionalSingleChild(.caldav("is-not-defined")) {
            guard element.children.count == 1 else {
                throw DAVRequestError("prop-filter \(name) has is-not-defined and other tests; is-not-defined must be alone", at: notDefined, precondition: .validFilter)
            }
            return DAVPropFilter(name: name, test: .isNotDefined)
        }
        let timeRangeElement = try element.optionalSingleChild(.caldav("time-range"))
        let textMatchElement = try element.optionalSingleChild(.caldav("text-match"))
        if let timeRangeElement, textMatchElement != nil {
            throw DAVRequestError("prop-filter \(name) has both time-range and text-match; at most one is allowed", at: timeRangeElement, precondition: .validFilter)
        }
        let timeRange = try timeRangeElement.map { (range) throws(DAVRequestError) in try DAVTimeRange.decode(range, bothRequired: false) }
        let textMatch = try textMatchElement.map { (match) throws(DAVRequestError) in try DAVTextMatch.decode(match) }
        var paramFilters: [DAVParamFilter] = []
        for child in element.children(named: .caldav("param-filter")) { paramFilters.append(try DAVParamFilter.decode(child)) }
        return DAVPropFilter(name: name, test: .matches(timeRange: timeRange, textMatch: textMatch, paramFilters: paramFilters))
    }
}

extension DAVParamFilter {
    static func decode(_ element: DAVXMLElement) throws(DAVRequestError) -> DAVParamFilter {
        let name = try filterName(element)
        if let notDefined = try element.optionalSingleChild(.caldav("is-not-defined")) {
            guard element.children.count == 1 else {
                throw DAVRequestError("param-filter \(name) has is-not-defined and a text-match; is-not-defined must be alone", at: notDefined, precondition: .validFilter)
            }
            return DAVParamFilter(name: name, test: .isNotDefined)
        }
        let textMatch = try element.optionalSingleChild(.caldav("text-match")).map { (match) throws(DAVRequestError) in try DAVTextMatch.decode(match) }
        return DAVParamFilter(name: name, test: .matches(textMatch: textMatch))
    }
}

extension DAVTextMatch {
    static func decode(_ element: DAVXMLElement) throws(DAVRequestError) -> DAVTextMatch {
        var collation = DAVCollation.asciiCasemap
        if let name = element.attribute("collation") {
            guard let known = DAVCollation(rawValue: name) else {
                let supported = DAVCollation.allCases.map(\.rawValue).joined(separator: ", ")
                throw DAVRequestError("text-match asks for the collation \"\(name)\"; supported: \(supported)", at: element, precondition: .supportedCollation)
            }
            collation = known
        }
        var negate = false
        if let value = element.attribute("negate-condition") {
            switch value {
            case "yes": negate = true
            case "no": negate = false
            default:
                throw DAVRequestError("text-match has negate-condition=\"\(value)\"; it is \"yes\" or \"no\"", at: element, precondition: .validFilter)
            }
        }
        return DAVTextMatch(text: element.text, collation: collation, negate: negate)
    }
}

/// The name attribute of a comp-filter, prop-filter or param-filter, upper-cased as iCalendar
/// names compare without case (RFC 5545 §2).
private func filterName(_ element: DAVXMLElement) throws(DAVRequestError) -> String {
    guard let name = element.attribute("name"), !name.isEmpty else {
        throw DAVRequestError("\(element.name.local) has no name attribute", at: element, precondition: .validFilter)
    }
    return name.uppercased()
}
