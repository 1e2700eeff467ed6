import Testing
@testable import CometDAV

func report(_ body: String) throws -> DAVReportRequest {
    try DAVReportRequest.decode(body: utf8(body))
}

func calendarQuery(_ body: String) throws -> DAVCalendarQuery {
    guard case .calendarQuery(let query) = try report(body) else {
        Issue.record("not a calendar-query")
        throw CancellationError()
    }
    return query
}

func time(_ text: String) throws -> DAVUTCTime {
    try #require(DAVUTCTime(text))
}

let calendarQueryHead = """
    <?xml version="1.0" encoding="utf-8" ?>
    <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
    """

@Suite("REPORT bodies: calendar-query, calendar-multiget, sync-collection, free-busy-query")
struct DAVReportDecodingTests {
    @Test("RFC 4791 §7.8.1: partial retrieval by time range, the comp selection noted as partial")
    func partialRetrievalByTimeRange() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:D="DAV:"
                          xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop>
                <D:getetag/>
                <C:calendar-data>
                  <C:comp name="VCALENDAR">
                    <C:prop name="VERSION"/>
                    <C:comp name="VEVENT">
                      <C:prop name="SUMMARY"/>
                      <C:prop name="UID"/>
                      <C:prop name="DTSTART"/>
                      <C:prop name="DTEND"/>
                      <C:prop name="DURATION"/>
                      <C:prop name="RRULE"/>
                      <C:prop name="RDATE"/>
                      <C:prop name="EXRULE"/>
                      <C:prop name="EXDATE"/>
                      <C:prop name="RECURRENCE-ID"/>
                    </C:comp>
                    <C:comp name="VTIMEZONE"/>
                  </C:comp>
                </C:calendar-data>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:time-range start="20060104T000000Z"
                                  end="20060105T000000Z"/>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        #expect(query.properties == .prop([.dav("getetag"), .caldav("calendar-data")]))
        #expect(query.calendarData?.asksForPartialData == true)
        let range = DAVTimeRange(start: try time("20060104T000000Z"), end: try time("20060105T000000Z"))
        #expect(query.filter == DAVCompFilter(name: "VCALENDAR", test: .matches(timeRange: nil, propFilters: [], compFilters: [
            DAVCompFilter(name: "VEVENT", test: .matches(timeRange: range, propFilters: [], compFilters: [])),
        ])))
    }

    @Test("RFC 4791 §7.8.3: expand in calendar-data is decoded for the server to honour or refuse")
    func expandedRetrieval() throws {
        let query = try calendarQuery(calendarQueryHead + """
              <D:prop>
                <C:calendar-data>
                  <C:expand start="20060103T000000Z"
                            end="20060105T000000Z"/>
                </C:calendar-data>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:time-range start="20060103T000000Z"
                                  end="20060105T000000Z"/>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        #expect(query.calendarData == DAVCalendarDataRequest(expand: DAVTimeRange(start: try time("20060103T000000Z"), end: try time("20060105T000000Z"))))
    }

    @Test("RFC 4791 §7.8.4: limit-recurrence-set is decoded")
    func limitRecurrenceSet() throws {
        let query = try calendarQuery(calendarQueryHead + """
              <D:prop>
                <C:calendar-data>
                  <C:limit-recurrence-set start="20060103T000000Z"
                                          end="20060105T000000Z"/>
                </C:calendar-data>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:time-range start="20060103T000000Z"
                                  end="20060105T000000Z"/>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        #expect(query.calendarData?.limitRecurrenceSet?.end == (try time("20060105T000000Z")))
        #expect(query.calendarData?.expand == nil)
    }

    @Test("RFC 4791 §7.8.5: to-dos by alarm time range, a comp-filter three deep")
    func todosByAlarm() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop xmlns:D="DAV:">
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VTODO">
                    <C:comp-filter name="VALARM">
                      <C:time-range start="20060106T100000Z"
                                    end="20060107T100000Z"/>
                    </C:comp-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        guard case .matches(_, _, let calendarChildren) = query.filter.test,
              case .matches(_, _, let todoChildren) = try #require(calendarChildren.first).test else {
            Issue.record("unexpected filter \(query.filter)")
            return
        }
        #expect(calendarChildren.first?.name == "VTODO")
        #expect(todoChildren == [DAVCompFilter(name: "VALARM", test: .matches(
            timeRange: DAVTimeRange(start: try time("20060106T100000Z"), end: try time("20060107T100000Z")), propFilters: [], compFilters: []))])
        #expect(query.calendarData == DAVCalendarDataRequest())
    }

    @Test("RFC 4791 §7.8.6: an event by UID, text-match with i;octet")
    func eventByUID() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop xmlns:D="DAV:">
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:prop-filter name="UID">
                      <C:text-match collation="i;octet"
                      >DC6C50A017428C5216A2F1CD@example.com</C:text-match>
                    </C:prop-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        let uidFilter = DAVPropFilter(name: "UID", test: .matches(timeRange: nil, textMatch: DAVTextMatch(text: "DC6C50A017428C5216A2F1CD@example.com", collation: .octet), paramFilters: []))
        #expect(query.filter == DAVCompFilter(name: "VCALENDAR", test: .matches(timeRange: nil, propFilters: [], compFilters: [
            DAVCompFilter(name: "VEVENT", test: .matches(timeRange: nil, propFilters: [uidFilter], compFilters: [])),
        ])))
    }

    @Test("RFC 4791 §7.8.7: events by PARTSTAT, a param-filter under a prop-filter")
    func eventsByPartstat() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop xmlns:D="DAV:">
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT">
                    <C:prop-filter name="ATTENDEE">
                      <C:text-match collation="i;ascii-casemap"
                       >mailto:lisa@example.com</C:text-match>
                      <C:param-filter name="PARTSTAT">
                        <C:text-match collation="i;ascii-casemap"
                         >NEEDS-ACTION</C:text-match>
                      </C:param-filter>
                    </C:prop-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        let attendee = DAVPropFilter(name: "ATTENDEE", test: .matches(
            timeRange: nil, textMatch: DAVTextMatch(text: "mailto:lisa@example.com"),
            paramFilters: [DAVParamFilter(name: "PARTSTAT", test: .matches(textMatch: DAVTextMatch(text: "NEEDS-ACTION")))]))
        guard case .matches(_, _, let children) = query.filter.test else {
            Issue.record("unexpected filter \(query.filter)")
            return
        }
        #expect(children == [DAVCompFilter(name: "VEVENT", test: .matches(timeRange: nil, propFilters: [attendee], compFilters: []))])
    }

    @Test("RFC 4791 §7.8.8: events only, an empty comp-filter")
    func eventsOnly() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop xmlns:D="DAV:">
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VEVENT"/>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        #expect(query.filter == DAVCompFilter(name: "VCALENDAR", test: .matches(timeRange: nil, propFilters: [], compFilters: [
            DAVCompFilter(name: "VEVENT", test: .matches(timeRange: nil, propFilters: [], compFilters: [])),
        ])))
    }

    @Test("RFC 4791 §7.8.9: pending to-dos, is-not-defined and negate-condition")
    func pendingTodos() throws {
        let query = try calendarQuery("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop xmlns:D="DAV:">
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VTODO">
                    <C:prop-filter name="COMPLETED">
                      <C:is-not-defined/>
                    </C:prop-filter>
                    <C:prop-filter name="STATUS">
                      <C:text-match
                         negate-condition="yes">CANCELLED</C:text-match>
                    </C:prop-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """)
        let todo = DAVCompFilter(name: "VTODO", test: .matches(timeRange: nil, propFilters: [
            DAVPropFilter(name: "COMPLETED", test: .isNotDefined),
            DAVPropFilter(name: "STATUS", test: .matches(timeRange: nil, textMatch: DAVTextMatch(text: "CANCELLED", negate: true), paramFilters: [])),
        ], compFilters: []))
        #expect(query.filter == DAVCompFilter(name: "VCALENDAR", test: .matches(timeRange: nil, propFilters: [], compFilters: [todo])))
    }

    @Test("RFC 4791 §7.9.1: calendar-multiget's properties and hrefs, in order")
    func multiget() throws {
        let request = try report("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-multiget xmlns:D="DAV:"
                             xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop>
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <D:href>/bernard/work/abcd1.ics</D:href>
              <D:href>/bernard/work/mtg1.ics</D:href>
            </C:calendar-multiget>
            """)
        #expect(request == .calendarMultiget(DAVCalendarMultiget(
            properties: .prop([.dav("getetag"), .caldav("calendar-data")]), calendarData: DAVCalendarDataRequest(),
            hrefs: ["/bernard/work/abcd1.ics", "/bernard/work/mtg1.ics"])))
    }

    @Test("RFC 4791 §7.10.1: free-busy-query's time range")
    func freeBusy() throws {
        let request = try report("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav">
              <C:time-range start="20060104T140000Z"
                            end="20060105T220000Z"/>
            </C:free-busy-query>
            """)
        #expect(request == .freeBusyQuery(DAVFreeBusyQuery(timeRange: DAVTimeRange(start: try time("20060104T140000Z"), end: try time("20060105T220000Z")))))
    }

    @Test("RFC 6578 §3.8: an initial sync-collection, empty token, level 1")
    func initialSync() throws {
        let request = try report("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:sync-collection xmlns:D="DAV:">
              <D:sync-token/>
              <D:sync-level>1</D:sync-level>
              <D:prop xmlns:R="urn:ns.example.com:boxschema">
                <D:getetag/>
                <R:bigbox/>
              </D:prop>
            </D:sync-collection>
            """)
        #expect(request == .syncCollection(DAVSyncCollection(
            syncToken: "", level: .one, limit: nil,
            properties: .prop([.dav("getetag"), DAVName("urn:ns.example.com:boxschema", "bigbox")]), calendarData: nil)))
    }

    @Test("RFC 6578 §3.9: a sync-collection with the token of an earlier one")
    func syncWithToken() throws {
        let request = try report("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:sync-collection xmlns:D="DAV:">
              <D:sync-token
                >http://example.com/ns/sync/1234</D:sync-token>
              <D:sync-level>1</D:sync-level>
              <D:prop xmlns:R="urn:ns.example.com:boxschema">
                <D:getetag/>
                <R:bigbox/>
              </D:prop>
            </D:sync-collection>
            """)
        guard case .syncCollection(let sync) = request else {
            Issue.record("not a sync-collection: \(request)")
            return
        }
        #expect(sync.syncToken == "http://example.com/ns/sync/1234")
    }

    @Test("RFC 6578 §3.10: a sync-collection with DAV:limit")
    func syncWithLimit() throws {
        let request = try report("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:sync-collection xmlns:D="DAV:">
              <D:sync-token/>
              <D:sync-level>infinite</D:sync-level>
              <D:limit>
                <D:nresults>100</D:nresults>
              </D:limit>
              <D:prop>
                <D:getetag/>
              </D:prop>
            </D:sync-collection>
            """)
        #expect(request == .syncCollection(DAVSyncCollection(syncToken: "", level: .infinite, limit: 100, properties: .prop([.dav("getetag")]), calendarData: nil)))
    }

    @Test("sync-collection refuses a bad level, a bad nresults, and a missing token, level or prop")
    func syncRefusals() throws {
        func refused(_ inner: String) throws -> DAVRequestError {
            try requestError { () throws(DAVBodyError) in try DAVReportRequest.decode(body: utf8("<D:sync-collection xmlns:D=\"DAV:\">\(inner)</D:sync-collection>")) }
        }
        #expect(try refused("<D:sync-token/><D:sync-level>2</D:sync-level><D:prop/>").element == .dav("sync-level"))
        #expect(try refused("<D:sync-token/><D:sync-level>1</D:sync-level><D:limit><D:nresults>0</D:nresults></D:limit><D:prop/>").element == .dav("nresults"))
        #expect(try refused("<D:sync-token/><D:sync-level>1</D:sync-level><D:limit><D:nresults>x</D:nresults></D:limit><D:prop/>").element == .dav("nresults"))
        #expect(try refused("<D:sync-level>1</D:sync-level><D:prop/>").message.contains("sync-token"))
        #expect(try refused("<D:sync-token/><D:prop/>").message.contains("sync-level"))
        #expect(try refused("<D:sync-token/><D:sync-level>1</D:sync-level>").element == .dav("sync-collection"))
    }

    @Test("An unknown report is a value naming it, for a 403 with DAV:supported-report")
    func unknownReport() throws {
        let request = try report("<D:expand-property xmlns:D=\"DAV:\"><D:property name=\"owner\"/></D:expand-property>")
        #expect(request == .unsupported(.dav("expand-property")))
        let body = DAVErrorBody(.supportedReport(DAVReportRequest.supportedReports)).document().text
        #expect(body.contains("<D:supported-report><C:calendar-query/><C:calendar-multiget/><D:sync-collection/><C:free-busy-query/></D:supported-report>"))
    }

    @Test("A time that is not YYYYMMDDTHHMMSSZ is an error naming the element and the value, with C:valid-filter")
    func invalidTimes() throws {
        for bad in ["20060104T000000", "20060104", "20060230T000000Z", "20061304T000000Z", "20060104T240000Z", "20060104T000060Z", "2006-01-04T00:00:00Z"] {
            let error = try requestError { () throws(DAVBodyError) in
                try DAVReportRequest.decode(body: utf8(calendarQueryHead + """
                    <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
                    <C:time-range start="\(bad)"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
                    """))
            }
            #expect(error.element == .caldav("time-range"))
            #expect(error.message.contains(bad))
            #expect(error.precondition == .validFilter)
        }
    }

    @Test("A time-range needs a start or an end; expand needs both")
    func timeRangeSides() throws {
        let neither = try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8("<C:free-busy-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:time-range/></C:free-busy-query>"))
        }
        #expect(neither.element == .caldav("time-range"))
        let openEnded = try report("<C:free-busy-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:time-range start=\"20060104T140000Z\"/></C:free-busy-query>")
        #expect(openEnded == .freeBusyQuery(DAVFreeBusyQuery(timeRange: DAVTimeRange(start: try time("20060104T140000Z"), end: nil))))
        let halfExpand = try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8(calendarQueryHead + """
                <D:prop><C:calendar-data><C:expand start="20060103T000000Z"/></C:calendar-data></D:prop>
                <C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>
                """))
        }
        #expect(halfExpand.element == .caldav("expand"))
    }

    @Test("An unsupported collation is refused with C:supported-collation")
    func unsupportedCollation() throws {
        let error = try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8(calendarQueryHead + """
                <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
                <C:prop-filter name="SUMMARY"><C:text-match collation="i;unicode-casemap">x</C:text-match></C:prop-filter>
                </C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
                """))
        }
        #expect(error.precondition == .supportedCollation)
        #expect(error.message.contains("i;unicode-casemap"))
    }

    @Test("A filter that is not one VCALENDAR comp-filter, or mixes is-not-defined with tests, is refused with C:valid-filter")
    func invalidFilters() throws {
        func refused(_ filter: String) throws -> DAVRequestError {
            try requestError { () throws(DAVBodyError) in
                try DAVReportRequest.decode(body: utf8(calendarQueryHead + "<C:filter>\(filter)</C:filter></C:calendar-query>"))
            }
        }
        #expect(try refused("").precondition == .validFilter)
        #expect(try refused("<C:comp-filter name=\"VEVENT\"/>").precondition == .validFilter)
        #expect(try refused("<C:comp-filter name=\"VCALENDAR\"/><C:comp-filter name=\"VCALENDAR\"/>").precondition == .validFilter)
        #expect(try refused("<C:comp-filter/>").message.contains("name"))
        let mixed = try refused("""
            <C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:prop-filter name="SUMMARY">
            <C:is-not-defined/><C:text-match>x</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter>
            """)
        #expect(mixed.precondition == .validFilter)
        #expect(mixed.element == .caldav("is-not-defined"))
        let badNegate = try refused("""
            <C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:prop-filter name="SUMMARY">
            <C:text-match negate-condition="maybe">x</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter>
            """)
        #expect(badNegate.element == .caldav("text-match"))
        #expect(try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8(calendarQueryHead + "</C:calendar-query>"))
        }.message.contains("filter"))
    }

    @Test("A multiget without hrefs, or with an empty one, is refused")
    func multigetRefusals() throws {
        let none = try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8("<C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop/></C:calendar-multiget>"))
        }
        #expect(none.element == .caldav("calendar-multiget"))
        let empty = try requestError { () throws(DAVBodyError) in
            try DAVReportRequest.decode(body: utf8("<C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:href> </D:href></C:calendar-multiget>"))
        }
        #expect(empty.element == .dav("href"))
    }

    @Test("UTC times convert to seconds since 1970, leap days included")
    func utcSeconds() throws {
        #expect(try time("19700101T000000Z").secondsSince1970 == 0)
        #expect(try time("20060104T000000Z").secondsSince1970 == 1_136_332_800)
        #expect(try time("20000229T120000Z").secondsSince1970 == 951_825_600)
        #expect(try time("19691231T235959Z").secondsSince1970 == -1)
        #expect(try time("20060104T000000Z").description == "20060104T000000Z")
        #expect(DAVUTCTime("19000229T000000Z") == nil)
    }
}
