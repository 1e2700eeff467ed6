/// A calendar component as the filter sees it, neutral to any iCalendar library: the caller
/// builds it from its own model (the lead from the engine's component).
public struct DAVComponent: Hashable, Sendable {
    /// VCALENDAR, VEVENT, VTODO, VALARM …
    public let name: String
    public let properties: [DAVComponentProperty]
    public let components: [DAVComponent]

    public init(name: String, properties: [DAVComponentProperty] = [], components: [DAVComponent] = []) {
        self.name = name
        self.properties = properties
        self.components = components
    }
}

public struct DAVComponentProperty: Hashable, Sendable {
    public let name: String
    /// The value as iCalendar text, unescaped (SUMMARY's text, not its escaped form).
    public let value: String
    public let parameters: [DAVComponentParameter]

    public init(name: String, value: String, parameters: [DAVComponentParameter] = []) {
        self.name = name
        self.value = value
        self.parameters = parameters
    }
}

public struct DAVComponentParameter: Hashable, Sendable {
    public let name: String
    /// Each value of a multi-valued parameter (MEMBER, DELEGATED-TO) on its own.
    public let values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}
