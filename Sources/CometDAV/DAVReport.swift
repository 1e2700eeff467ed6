/// A REPORT body, by its root element.
public enum DAVReportRequest: Hashable, Sendable {
    case calendarQuery(DAVCalendarQuery)
    case calendarMultiget(DAVCalendarMultiget)
    case syncCollection(DAVSyncCollection)
    case freeBusyQuery(DAVFreeBusyQuery)
    /// A report this server does not know: answer 403 with DAV:supported-report (RFC 3253 §3.6).
    case unsupported(DAVName)

    public static func decode(body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVBodyError) -> DAVReportRequest {
        try decodeBody(body, limits: limits, decode(root:))
    }

    public static func decode(root: DAVXMLElement) throws(DAVRequestError) -> DAVReportRequest {
        switch root.name {
        case .caldav("calendar-query"): .calendarQuery(try DAVCalendarQuery.decode(root))
        case .caldav("calendar-multiget"): .calendarMultiget(try DAVCalendarMultiget.decode(root))
        case .dav("sync-collection"): .syncCollection(try DAVSyncCollection.decode(root))
        case .caldav("free-busy-query"): .freeBusyQuery(try DAVFreeBusyQuery.decode(root))
        default: .unsupported(root.name)
        }
    }

    /// The reports decoded here, for DAV:supported-report-set and the 403 of an unknown one.
    public static let supportedReports: [DAVName] = [
        .caldav("calendar-query"), .caldav("calendar-multiget"), .dav("sync-collection"), .caldav("free-busy-query"),
    ]
}

/// What a CALDAV:calendar-data element in DAV:prop asks for (RFC 4791 §9.6). Decoded so the
/// server can decide: it may refuse expand or limit-recurrence-set rather than ignore them.
public struct DAVCalendarDataRequest: Hashable, Sendable {
    /// content-type and version attributes, when given (text/calendar and 2.0 by default).
    public let contentType: String?
    public let version: String?
    /// A CALDAV:comp child asks for only some components or properties (§9.6.1).
    public let asksForPartialData: Bool
    public let expand: DAVTimeRange?
    public let limitRecurrenceSet: DAVTimeRange?
    public let limitFreebusySet: DAVTimeRange?

    public init(contentType: String? = nil, version: String? = nil, asksForPartialData: Bool = false,
                expand: DAVTimeRange? = nil, limitRecurrenceSet: DAVTimeRange? = nil, limitFreebusySet: DAVTimeRange? = nil) {
        self.contentType = contentType
        self.version = version
        self.asksForPartialData = asksForPartialData
        self.expand = expand
        self.limitRecurrenceSet = limitRecurrenceSet
        self.limitFreebusySet = limitFreebusySet
    }

    /// The calendar-data element of a report's DAV:prop, if it names one.
    static func decode(in parent: DAVXMLElement) throws(DAVRequestError) -> DAVCalendarDataRequest? {
        guard let prop = parent.child(named: .dav("prop")),
              let element = try prop.optionalSingleChild(.caldav("calendar-data")) else { return nil }
        func range(_ local: String) throws(DAVRequestError) -> DAVTimeRange? {
            guard let child = try element.optionalSingleChild(.caldav(local)) else { return nil }
            return try DAVTimeRange.decode(child, bothRequired: true)
        }
        return DAVCalendarDataRequest(
            contentType: element.attribute("content-type"), version: element.attribute("version"),
            asksForPartialData: element.child(named: .caldav("comp")) != nil,
            expand: try range("expand"), limitRecurrenceSet: try range("limit-recurrence-set"),
            limitFreebusySet: try range("limit-freebusy-set"))
    }
}

/// CALDAV:calendar-query (RFC 4791 §7.8, §9.5).
public struct DAVCalendarQuery: Hashable, Sendable {
    public let properties: DAVPropertySelection
    public let calendarData: DAVCalendarDataRequest?
    /// The filter's single comp-filter, on VCALENDAR.
    public let filter: DAVCompFilter
    /// The CALDAV:timezone text (a VCALENDAR with one VTIMEZONE) for floating times, when sent.
    public let timezone: String?

    static func decode(_ root: DAVXMLElement) throws(DAVRequestError) -> DAVCalendarQuery {
        let properties = try DAVPropertySelection.decode(in: root, required: false)
        let filterElement = try root.requiredSingleChild(.caldav("filter"))
        let compFilters = filterElement.children(named: .caldav("comp-filter"))
        guard compFilters.count == 1, let top = compFilters.first else {
            throw DAVRequestError("filter has \(compFilters.count) comp-filter elements; it needs exactly one, for VCALENDAR", at: filterElement, precondition: .validFilter)
        }
        let filter = try DAVCompFilter.decode(top)
        guard filter.name == "VCALENDAR" else {
            throw DAVRequestError("the filter's comp-filter is for \(filter.name); the outermost one is for VCALENDAR", at: top, precondition: .validFilter)
        }
        return DAVCalendarQuery(
            properties: properties, calendarData: try DAVCalendarDataRequest.decode(in: root), filter: filter,
            timezone: try root.optionalSingleChild(.caldav("timezone"))?.text)
    }
}

/// CALDAV:calendar-multiget (RFC 4791 §7.9, §9.10).
public struct DAVCalendarMultiget: Hashable, Sendable {
    public let properties: DAVPropertySelection
    public let calendarData: DAVCalendarDataRequest?
    /// As sent, in order (turn each into a path with `DAVHref.path(fromHref:)`).
    public let hrefs: [String]

    static func decode(_ root: DAVXMLElement) throws(DAVRequestError) -> DAVCalendarMultiget {
        let hrefs = root.children(named: .dav("href")).map(\.trimmedText)
        if hrefs.isEmpty {
            throw DAVRequestError("calendar-multiget has no href; at least one is required", at: root)
        }
        if let empty = root.children(named: .dav("href")).first(where: { $0.trimmedText.isEmpty }) {
            throw DAVRequestError("calendar-multiget has an empty href", at: empty)
        }
        return DAVCalendarMultiget(
            properties: try DAVPropertySelection.decode(in: root, required: false),
            calendarData: try DAVCalendarDataRequest.decode(in: root), hrefs: hrefs)
    }
}

/// DAV:sync-collection (RFC 6578 §3.2, §6.1).
public struct DAVSyncCollection: Hashable, Sendable {
    public enum Level: Hashable, Sendable {
        case one
        case infinite
    }

    /// Empty for an initial sync; otherwise a token this server gave (check it: DAV:valid-sync-token).
    public let syncToken: String
    public let level: Level
    /// DAV:limit/DAV:nresults: at most this many responses; when more changed, the server answers
    /// 507 on the request-URI (or truncates with a 507 response, §3.6).
    public let limit: Int?
    public let properties: DAVPropertySelection
    public let calendarData: DAVCalendarDataRequest?

    static func decode(_ root: DAVXMLElement) throws(DAVRequestError) -> DAVSyncCollection {
        let token = try root.requiredSingleChild(.dav("sync-token")).trimmedText
        let levelElement = try root.requiredSingleChild(.dav("sync-level"))
        let level: Level
        switch levelElement.trimmedText {
        case "1": level = .one
        case "infinite": level = .infinite
        default:
            throw DAVRequestError("sync-level is \"\(levelElement.trimmedText)\"; it is 1 or infinite", at: levelElement)
        }
        var limit: Int?
        if let limitElement = try root.optionalSingleChild(.dav("limit")) {
            let results = try limitElement.requiredSingleChild(.dav("nresults"))
            guard let count = Int(results.trimmedText), count > 0 else {
                throw DAVRequestError("nresults is \"\(results.trimmedText)\"; it is a positive whole number", at: results)
            }
            limit = count
        }
        // RFC 6578 §6.1 requires DAV:prop.
        let properties = try DAVPropertySelection.decode(in: root, required: true)
        return DAVSyncCollection(syncToken: token, level: level, limit: limit, properties: properties,
                                 calendarData: try DAVCalendarDataRequest.decode(in: root))
    }
}

/// CALDAV:free-busy-query (RFC 4791 §7.10, §9.11).
public struct DAVFreeBusyQuery: Hashable, Sendable {
    public let timeRange: DAVTimeRange

    static func decode(_ root: DAVXMLElement) throws(DAVRequestError) -> DAVFreeBusyQuery {
        let element = try root.requiredSingleChild(.caldav("time-range"))
        return DAVFreeBusyQuery(timeRange: try DAVTimeRange.decode(element, bothRequired: false))
    }
}
