import Testing
import Foundation

/// calendar-query filters beyond a component's own time range (RFC 4791 §9.7, §9.9).
@Suite("CalDAV calendar-query: alarms and open ranges")
struct CalDAVQueryTests {
    static func hrefs(_ server: LiveServer, _ calendar: String, _ filter: String) throws -> [String] {
        let query = """
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
            <C:filter><C:comp-filter name="VCALENDAR">\(filter)</C:comp-filter></C:filter></C:calendar-query>
            """
        let answer = try server.send("REPORT", "/dav/calendars/alice/\(calendar)/", body: query, headers: ["Depth": "1"])
        #expect(answer.status == 207, "\(answer.body)")
        return answer.body.components(separatedBy: "<D:href>").dropFirst().map { String($0.prefix { $0 != "<" }) }.sorted()
    }

    static func alarmFilter(_ start: String, _ end: String) -> String {
        "<C:comp-filter name=\"VEVENT\"><C:comp-filter name=\"VALARM\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter></C:comp-filter>"
    }

    @Test("a time-range on VALARM finds the events whose alarm fires in it: each occurrence of a series, an override's own alarm in place of the series', absolute triggers and their repeats")
    func alarmTimeRange() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        // 09:00 Berlin weekly from 1 June (07:00Z), 15 minutes' warning; on 8 June moved to 10:00
        // Berlin (08:00Z) with 30 minutes' warning (07:30Z).
        let series = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260601T090000\r\nDTEND;TZID=Europe/Berlin:20260601T091500\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Standup\r\n"
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Standup\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260608T090000\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260608T100000\r\nDTEND;TZID=Europe/Berlin:20260608T101500\r\nSUMMARY:Standup (moved)\r\n"
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Standup\r\nTRIGGER:-PT30M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/team/standup.ics", body: series, headers: ["Content-Type": "text/calendar"]).status == 201)
        let once = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:launch\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART:20260701T120000Z\r\nDTEND:20260701T130000Z\r\nSUMMARY:Launch\r\n"
            + "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Launch\r\nTRIGGER;VALUE=DATE-TIME:20260701T100000Z\r\nREPEAT:2\r\nDURATION:PT10M\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/team/launch.ics", body: once, headers: ["Content-Type": "text/calendar"]).status == 201)
        let standup = ["/dav/calendars/alice/team/standup.ics"]
        let launch = ["/dav/calendars/alice/team/launch.ics"]
        // The third occurrence's alarm: 15 June 06:45Z.
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260615T064000Z", "20260615T065000Z")) == standup)
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260615T070000Z", "20260615T071000Z")).isEmpty)
        // 8 June: the override's alarm at 07:30Z, not the series' at 06:45Z.
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260608T064000Z", "20260608T065000Z")).isEmpty)
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260608T072500Z", "20260608T073500Z")) == standup)
        // After the last occurrence (22 June), nothing.
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260629T064000Z", "20260629T065000Z")).isEmpty)
        // The absolute trigger at 10:00Z repeats at 10:10 and 10:20, and no later.
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260701T101500Z", "20260701T102500Z")) == launch)
        #expect(try Self.hrefs(server, "team", Self.alarmFilter("20260701T102100Z", "20260701T110000Z")).isEmpty)
    }
}

/// sync-collection with DAV:limit (RFC 6578 §3.6).
@Suite("CalDAV sync-collection cut at DAV:limit")
struct CalDAVSyncLimitTests {
    static func sync(_ server: LiveServer, token: String, limit: Int) throws -> (hrefs: [String], cut: Bool, token: String) {
        let body = """
            <D:sync-collection xmlns:D="DAV:"><D:sync-token>\(token)</D:sync-token><D:sync-level>1</D:sync-level>
            <D:limit><D:nresults>\(limit)</D:nresults></D:limit><D:prop><D:getetag/></D:prop></D:sync-collection>
            """
        let answer = try server.send("REPORT", "/dav/calendars/alice/team/", body: body, headers: ["Depth": "1"])
        #expect(answer.status == 207, "\(answer.body)")
        let hrefs = answer.body.components(separatedBy: "<D:href>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        let next = answer.body.components(separatedBy: "<D:sync-token>").last.map { String($0.prefix { $0 != "<" }) } ?? ""
        let cut = answer.body.contains("number-of-matches-within-limits")
        return (hrefs.filter { $0.hasSuffix(".ics") }, cut, next)
    }

    @Test("a first sync over the limit is cut in the order the events changed, with a 507 on the calendar and a token that goes on; following the tokens lists every event once")
    func firstSyncInParts() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        for day in 1...5 {
            let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:e\(day)\r\nDTSTAMP:20260601T080000Z\r\n"
                + "DTSTART:2026060\(day)T090000Z\r\nDURATION:PT1H\r\nSUMMARY:Event \(day)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            #expect(try server.send("PUT", "/dav/calendars/alice/team/e\(day).ics", body: text, headers: ["Content-Type": "text/calendar"]).status == 201)
        }
        let first = try Self.sync(server, token: "", limit: 2)
        #expect(first.hrefs == ["/dav/calendars/alice/team/e1.ics", "/dav/calendars/alice/team/e2.ics"])
        #expect(first.cut)
        let second = try Self.sync(server, token: first.token, limit: 2)
        #expect(second.hrefs == ["/dav/calendars/alice/team/e3.ics", "/dav/calendars/alice/team/e4.ics"])
        #expect(second.cut)
        let third = try Self.sync(server, token: second.token, limit: 2)
        #expect(third.hrefs == ["/dav/calendars/alice/team/e5.ics"])
        #expect(!third.cut)
        #expect(try Self.sync(server, token: third.token, limit: 2).hrefs.isEmpty)
    }
}

/// To-dos with an RRULE, which the tasks schema keeps as written (RFC 4791 §9.9 applies to each
/// recurrence instance).
@Suite("CalDAV calendar-query: recurring to-dos")
struct CalDAVRecurringToDoTests {
    @Test("a time-range finds a monthly to-do by an occurrence after its first, in its own zone, and not between occurrences or after COUNT; expand gives its instances in the range")
    func monthly() throws {
        let server = try LiveServer()
        let todo = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VTODO\r\nUID:rent\r\nDTSTAMP:20260101T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260112T120000\r\nDUE;TZID=Europe/Berlin:20260112T130000\r\nRRULE:FREQ=MONTHLY;COUNT=3\r\nSUMMARY:Pay rent\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/tasks/rent.ics", body: todo, headers: ["Content-Type": "text/calendar"]).status == 201)
        func found(_ start: String, _ end: String) throws -> [String] {
            try CalDAVQueryTests.hrefs(server, "tasks", "<C:comp-filter name=\"VTODO\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter>")
        }
        let rent = ["/dav/calendars/alice/tasks/rent.ics"]
        // 12 February, 12:00–13:00 Berlin is 11:00–12:00Z.
        #expect(try found("20260212T000000Z", "20260213T000000Z") == rent)
        #expect(try found("20260212T120000Z", "20260212T130000Z").isEmpty)
        #expect(try found("20260215T000000Z", "20260310T000000Z").isEmpty)
        #expect(try found("20260312T000000Z", "20260313T000000Z") == rent)
        #expect(try found("20260412T000000Z", "20260413T000000Z").isEmpty)
        // Expanded (RFC 4791 §9.6.5): the instances in the range, each with its RECURRENCE-ID, in UTC.
        let query = """
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data>
            <C:expand start="20260201T000000Z" end="20260401T000000Z"/></C:calendar-data></D:prop>
            <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"><C:time-range start="20260201T000000Z" end="20260401T000000Z"/>
            </C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
            """
        let body = try server.send("REPORT", "/dav/calendars/alice/tasks/", body: query, headers: ["Depth": "1"]).body.replacingOccurrences(of: "&#13;", with: "\r")
        #expect(body.components(separatedBy: "BEGIN:VTODO").count - 1 == 2)
        #expect(body.contains("RECURRENCE-ID:20260212T110000Z\r\nDTSTART:20260212T110000Z\r\nDUE:20260212T120000Z\r\n"))
        #expect(body.contains("RECURRENCE-ID:20260312T110000Z\r\nDTSTART:20260312T110000Z\r\nDUE:20260312T120000Z\r\n"))
        #expect(!body.contains("RRULE"))
    }

    @Test("EXDATE leaves an occurrence out and RDATE adds one, in their own zones, for time ranges and expand")
    func exceptions() throws {
        let server = try LiveServer()
        let todo = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VTODO\r\nUID:water\r\nDTSTAMP:20260101T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260105T090000\r\nDUE;TZID=Europe/Berlin:20260105T093000\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\n"
            + "EXDATE:20260112T080000Z\r\nRDATE;TZID=Europe/Berlin:20260115T090000\r\nSUMMARY:Water the plants\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/tasks/water.ics", body: todo, headers: ["Content-Type": "text/calendar"]).status == 201)
        func found(_ start: String, _ end: String) throws -> [String] {
            try CalDAVQueryTests.hrefs(server, "tasks", "<C:comp-filter name=\"VTODO\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter>")
        }
        #expect(try found("20260112T000000Z", "20260113T000000Z").isEmpty)
        #expect(try found("20260115T000000Z", "20260116T000000Z") == ["/dav/calendars/alice/tasks/water.ics"])
        #expect(try found("20260119T000000Z", "20260120T000000Z") == ["/dav/calendars/alice/tasks/water.ics"])
    }
}

/// calendar-multiget and free-busy-query (RFC 4791 §7.9, §7.10).
@Suite("CalDAV multiget and free-busy")
struct CalDAVMultigetFreeBusyTests {
    static func event(_ uid: String, _ start: String, extra: String = "") -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:\(start)\r\nDURATION:PT1H\r\nSUMMARY:\(uid)\r\n\(extra)END:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    @Test("multiget answers each href asked: the event's data, or 404 for one that is not there")
    func multiget() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        #expect(try server.send("PUT", "/dav/calendars/alice/work/a.ics", body: Self.event("a", "20260610T090000Z"), headers: ["Content-Type": "text/calendar"]).status == 201)
        let body = """
            <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>
            <D:href>/dav/calendars/alice/work/a.ics</D:href><D:href>/dav/calendars/alice/work/gone.ics</D:href></C:calendar-multiget>
            """
        let answer = try server.send("REPORT", "/dav/calendars/alice/work/", body: body, headers: ["Depth": "1"])
        #expect(answer.status == 207)
        let responses = answer.body.components(separatedBy: "<D:response>").dropFirst()
        let found = try #require(responses.first { $0.contains("/work/a.ics") })
        #expect(found.contains("UID:a"))
        let missing = try #require(responses.first { $0.contains("/work/gone.ics") })
        #expect(missing.contains("404"))
    }

    @Test("free-busy-query: a VFREEBUSY with the busy times of the range (RFC 4791 §7.10): tentative ones BUSY-TENTATIVE, all-day ones busy, transparent and cancelled ones left out")
    func freeBusy() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        for (uid, start, extra) in [("busy", "20260610T090000Z", ""), ("free", "20260610T120000Z", "TRANSP:TRANSPARENT\r\n"),
                                    ("off", "20260610T150000Z", "STATUS:CANCELLED\r\n"), ("maybe", "20260611T090000Z", "STATUS:TENTATIVE\r\n"),
                                    ("later", "20260720T090000Z", "")] {
            #expect(try server.send("PUT", "/dav/calendars/alice/work/\(uid).ics", body: Self.event(uid, start, extra: extra), headers: ["Content-Type": "text/calendar"]).status == 201)
        }
        let allDay = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:trip\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART;VALUE=DATE:20260615\r\nDTEND;VALUE=DATE:20260616\r\nSUMMARY:Trip\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/work/trip.ics", body: allDay, headers: ["Content-Type": "text/calendar"]).status == 201)
        let answer = try server.send("REPORT", "/dav/calendars/alice/work/", body: """
            <C:free-busy-query xmlns:C="urn:ietf:params:xml:ns:caldav"><C:time-range start="20260601T000000Z" end="20260701T000000Z"/></C:free-busy-query>
            """, headers: ["Depth": "1"])
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"]?.hasPrefix("text/calendar") == true)
        let busy = answer.body.components(separatedBy: "\r\n").filter { $0.hasPrefix("FREEBUSY") }
        #expect(busy == ["FREEBUSY;FBTYPE=BUSY:20260610T090000Z/20260610T100000Z", "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20260611T090000Z/20260611T100000Z",
                         // The date in the server's zone (Europe/Berlin, summer time).
                         "FREEBUSY;FBTYPE=BUSY:20260614T220000Z/20260615T220000Z"])
    }
}

/// Filters that ask only which components a resource holds are answered from the resources'
/// component names, without parsing each text (`Context.componentTest`); these check that those
/// answers are the filter's, on an events calendar and a to-do collection, and that a change made
/// beside the server (the CLI's own engine) shows in the next answer though the server keeps
/// resources between requests.
@Suite("CalDAV calendar-query: filters on components alone")
struct CalDAVComponentFilterTests {
    static func event(_ uid: String, _ day: Int) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART:202606\(day)T090000Z\r\nDTEND:202606\(day)T100000Z\r\nSUMMARY:\(uid)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    @Test("VCALENDAR alone, VEVENT, VTODO, is-not-defined and VEVENT with a time-range give the events or to-dos they name, before and after the CLI's engine deletes one and adds one")
    func componentFilters() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        for (uid, day) in [("picnic", 10), ("lunch", 12), ("dinner", 20)] {
            #expect(try server.send("PUT", "/dav/calendars/alice/team/\(uid).ics", body: Self.event(uid, day), headers: ["Content-Type": "text/calendar"]).status == 201)
        }
        let todo = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VTODO\r\nUID:rent\r\nDTSTAMP:20260101T080000Z\r\nSUMMARY:Pay rent\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/tasks/rent.ics", body: todo, headers: ["Content-Type": "text/calendar"]).status == 201)
        let team = "/dav/calendars/alice/team/"
        let midJune = "<C:comp-filter name=\"VEVENT\"><C:time-range start=\"20260611T000000Z\" end=\"20260615T000000Z\"/></C:comp-filter>"
        #expect(try CalDAVQueryTests.hrefs(server, "team", "") == [team + "dinner.ics", team + "lunch.ics", team + "picnic.ics"])
        #expect(try CalDAVQueryTests.hrefs(server, "team", "<C:comp-filter name=\"VEVENT\"/>") == [team + "dinner.ics", team + "lunch.ics", team + "picnic.ics"])
        #expect(try CalDAVQueryTests.hrefs(server, "team", "<C:comp-filter name=\"VTODO\"/>") == [])
        #expect(try CalDAVQueryTests.hrefs(server, "team", "<C:comp-filter name=\"VEVENT\"><C:is-not-defined/></C:comp-filter>") == [])
        #expect(try CalDAVQueryTests.hrefs(server, "team", "<C:comp-filter name=\"VTODO\"><C:is-not-defined/></C:comp-filter>").count == 3)
        #expect(try CalDAVQueryTests.hrefs(server, "team", midJune) == [team + "lunch.ics"])
        #expect(try CalDAVQueryTests.hrefs(server, "tasks", "<C:comp-filter name=\"VTODO\"/>") == ["/dav/calendars/alice/tasks/rent.ics"])
        #expect(try CalDAVQueryTests.hrefs(server, "tasks", "<C:comp-filter name=\"VEVENT\"/>") == [])
        #expect(try CalDAVQueryTests.hrefs(server, "tasks", "<C:comp-filter name=\"VEVENT\"><C:is-not-defined/></C:comp-filter>") == ["/dav/calendars/alice/tasks/rent.ics"])

        // Beside the server, as `cometcal` would: lunch deleted, brunch added on 13 June.
        let cli = try CalDAVConcurrencyTests.ownEngine(server)
        let calendar = try #require(try cli.calendarCollections().first { $0.title == "team" })
        guard case .success = cli.deleteResource(in: calendar.id, named: "lunch.ics") else { Issue.record("lunch was not deleted"); return }
        guard case .success = cli.putResource(in: calendar.id, named: "brunch.ics", text: Self.event("brunch", 13)) else { Issue.record("brunch was not added"); return }
        #expect(try CalDAVQueryTests.hrefs(server, "team", "<C:comp-filter name=\"VEVENT\"/>") == [team + "brunch.ics", team + "dinner.ics", team + "picnic.ics"])
        #expect(try CalDAVQueryTests.hrefs(server, "team", midJune) == [team + "brunch.ics"])
        let body = try server.send("GET", team + "brunch.ics").body
        #expect(body.contains("SUMMARY:brunch"))
    }
}

/// A resource's `<D:response>` is written once and given again while the resource is unchanged
/// (`IntentEngine.keptRendering`); these check that a kept response never outlives a change.
@Suite("CalDAV responses kept between queries")
struct CalDAVKeptResponseTests {
    static func query(_ server: LiveServer, _ properties: String) throws -> String {
        let body = """
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop>\(properties)</D:prop>
            <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"/></C:comp-filter></C:filter></C:calendar-query>
            """
        let answer = try server.send("REPORT", "/dav/calendars/alice/team/", body: body, headers: ["Depth": "1"])
        #expect(answer.status == 207, "\(answer.body)")
        return answer.body
    }

    @Test("the same query twice gives the same bytes; after the CLI's engine changes the event, a client renames it and another property set is asked, each answer is the event as it now is")
    func keptUntilChanged() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        #expect(try server.send("PUT", "/dav/calendars/alice/team/picnic.ics", body: CalDAVComponentFilterTests.event("picnic", 10), headers: ["Content-Type": "text/calendar"]).status == 201)
        let data = "<D:getetag/><C:calendar-data/>"
        let first = try Self.query(server, data)
        #expect(first.contains("SUMMARY:picnic"))
        #expect(try Self.query(server, data) == first)

        let cli = try CalDAVConcurrencyTests.ownEngine(server)
        let calendar = try #require(try cli.calendarCollections().first { $0.title == "team" })
        let moved = CalDAVComponentFilterTests.event("picnic", 11).replacingOccurrences(of: "SUMMARY:picnic", with: "SUMMARY:picnic in the park")
        guard case .success = cli.putResource(in: calendar.id, named: "picnic.ics", text: moved) else { Issue.record("the CLI's change was refused"); return }
        let changed = try Self.query(server, data)
        #expect(changed.contains("SUMMARY:picnic in the park"))
        #expect(changed.contains("20260611T090000Z"))
        #expect(!changed.contains("20260610T090000Z"))

        // A client's own name for a new event with the same text: its href is its own.
        #expect(try server.send("PUT", "/dav/calendars/alice/team/My%20Lunch.ics", body: CalDAVComponentFilterTests.event("lunch", 12), headers: ["Content-Type": "text/calendar"]).status == 201)
        let named = try Self.query(server, data)
        #expect(named.contains("/dav/calendars/alice/team/My%20Lunch.ics"))
        #expect(named.contains("SUMMARY:lunch"))

        let etagsOnly = try Self.query(server, "<D:getetag/>")
        #expect(!etagsOnly.contains("BEGIN:VCALENDAR"))
        #expect(etagsOnly.components(separatedBy: "<D:getetag>").count == 3)
    }
}
