/// A precondition or postcondition element of a DAV:error body (RFC 4918 §16, RFC 4791 §1.3),
/// with whatever it carries (an href for no-uid-conflict).
public struct DAVPrecondition: Hashable, Sendable {
    public let name: DAVName
    public let children: [DAVXMLElement]

    public init(_ name: DAVName, children: [DAVXMLElement] = []) {
        self.name = name
        self.children = children
    }

    public static let validCalendarData = DAVPrecondition(.caldav("valid-calendar-data"))
    public static let validCalendarObjectResource = DAVPrecondition(.caldav("valid-calendar-object-resource"))
    public static let supportedCalendarData = DAVPrecondition(.caldav("supported-calendar-data"))
    public static let supportedCalendarComponent = DAVPrecondition(.caldav("supported-calendar-component"))
    public static let calendarCollectionLocationOK = DAVPrecondition(.caldav("calendar-collection-location-ok"))
    public static let maxResourceSize = DAVPrecondition(.caldav("max-resource-size"))
    public static let validFilter = DAVPrecondition(.caldav("valid-filter"))
    public static let supportedFilter = DAVPrecondition(.caldav("supported-filter"))
    public static let supportedCollation = DAVPrecondition(.caldav("supported-collation"))
    public static let validSyncToken = DAVPrecondition(.dav("valid-sync-token"))
    public static let numberOfMatchesWithinLimits = DAVPrecondition(.dav("number-of-matches-within-limits"))
    public static let resourceMustBeNull = DAVPrecondition(.dav("resource-must-be-null"))
    public static let needPrivileges = DAVPrecondition(.dav("need-privileges"))

    /// The resource that already holds this UID (RFC 4791 §5.3.2.1).
    public static func noUIDConflict(href: String) -> DAVPrecondition {
        DAVPrecondition(.caldav("no-uid-conflict"), children: [DAVXMLElement(name: .dav("href"), text: href)])
    }

    /// The reports a resource does support, for a REPORT it does not (RFC 3253 §3.6).
    public static func supportedReport(_ reports: [DAVName] = []) -> DAVPrecondition {
        DAVPrecondition(.dav("supported-report"), children: reports.map { DAVXMLElement(name: $0) })
    }
}
