import Testing
import Foundation

/// The live properties each kind of URL answers with (docs/caldav.md, "Reference").
@Suite("CalDAV properties: what each URL tells a client")
struct CalDAVPropertyTests {
    static func find(_ server: LiveServer, _ path: String, _ names: String) throws -> String {
        let body = """
            <D:propfind xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/"><D:prop>\(names)</D:prop></D:propfind>
            """
        let answer = try server.send("PROPFIND", path, body: body, headers: ["Depth": "0"])
        #expect(answer.status == 207)
        #expect(!answer.body.contains("404 Not Found"), "\(path): a property is missing: \(answer.body)")
        return answer.body
    }

    @Test("a principal: principal-URL, calendar-home-set, displayname, current-user-principal, owner")
    func principal() throws {
        let server = try LiveServer()
        let body = try Self.find(server, "/dav/principals/alice/", "<D:principal-URL/><C:calendar-home-set/><D:displayname/><D:current-user-principal/><D:owner/><D:resourcetype/>")
        #expect(body.contains("<D:principal-URL><D:href>/dav/principals/alice/</D:href></D:principal-URL>"))
        #expect(body.contains("<C:calendar-home-set><D:href>/dav/calendars/alice/</D:href></C:calendar-home-set>"))
        #expect(body.contains("<D:principal/>"))
    }

    @Test("a calendar: displayname, colour and description as set; the component and data it holds; max-resource-size; the reports it serves; read and write privileges; a ctag that is the sync-token and moves with a change")
    func calendar() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        _ = try server.send("PROPPATCH", "/dav/calendars/alice/work/", body: """
            <D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/"><D:set><D:prop>
            <D:displayname>Work</D:displayname><A:calendar-color>#FF8800</A:calendar-color><C:calendar-description>Office</C:calendar-description></D:prop></D:set></D:propertyupdate>
            """, headers: ["Content-Type": "application/xml"])
        let names = "<D:displayname/><A:calendar-color/><C:calendar-description/><C:supported-calendar-component-set/><C:supported-calendar-data/>"
            + "<C:max-resource-size/><D:supported-report-set/><D:current-user-privilege-set/><CS:getctag/><D:sync-token/><D:resourcetype/>"
        let body = try Self.find(server, "/dav/calendars/alice/work/", names)
        #expect(body.contains(">Work</D:displayname>"))
        #expect(body.contains(">#FF8800</"))
        #expect(body.contains(">Office</C:calendar-description>"))
        #expect(body.contains("<C:comp name=\"VEVENT\"/>"))
        #expect(body.contains("content-type=\"text/calendar\""))
        #expect(body.contains("<C:max-resource-size>10485760</C:max-resource-size>"))
        for report in ["C:calendar-query", "C:calendar-multiget", "D:sync-collection", "C:free-busy-query"] {
            #expect(body.contains("<D:report><\(report)/></D:report>"), "\(report) not in supported-report-set")
        }
        #expect(body.contains("<D:read/>") && body.contains("<D:write/>"))
        #expect(body.contains("<C:calendar/>"))
        func tags(_ body: String) -> (ctag: String, token: String) {
            (String(body.components(separatedBy: "<CS:getctag>")[1].prefix { $0 != "<" }), String(body.components(separatedBy: "<D:sync-token>")[1].prefix { $0 != "<" }))
        }
        let before = tags(body)
        #expect(before.ctag == before.token)
        let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260610T090000Z\r\nDURATION:PT1H\r\nSUMMARY:A\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(try server.send("PUT", "/dav/calendars/alice/work/a.ics", body: event, headers: ["Content-Type": "text/calendar"]).status == 201)
        let after = tags(try Self.find(server, "/dav/calendars/alice/work/", "<CS:getctag/><D:sync-token/>"))
        #expect(after.ctag == after.token)
        #expect(after.ctag != before.ctag)
    }

    @Test("an event: getetag as the PUT answered it, getcontenttype text/calendar, getcontentlength the bytes GET returns")
    func event() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260610T090000Z\r\nDURATION:PT1H\r\nSUMMARY:Ünïcode\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let put = try server.send("PUT", "/dav/calendars/alice/work/a.ics", body: event, headers: ["Content-Type": "text/calendar"])
        let etag = try #require(put.headers["etag"])
        let body = try Self.find(server, "/dav/calendars/alice/work/a.ics", "<D:getetag/><D:getcontenttype/><D:getcontentlength/>")
        // Quotes are escaped in XML text (DAVWriterTests: escaping).
        #expect(body.contains("<D:getetag>\(etag.replacingOccurrences(of: "\"", with: "&quot;"))</D:getetag>"))
        #expect(body.contains("<D:getcontenttype>text/calendar"))
        let length = try server.send("GET", "/dav/calendars/alice/work/a.ics").body.utf8.count
        #expect(body.contains("<D:getcontentlength>\(length)</D:getcontentlength>"))
    }
}

@Suite("CalDAV DELETE")
struct CalDAVDeleteTests {
    @Test("DELETE of an event is 204 and then 404; DELETE of a calendar takes it and its events in one journal entry, which one undo brings back")
    func deletes() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        for uid in ["a", "b"] {
            let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260610T090000Z\r\nDURATION:PT1H\r\nSUMMARY:\(uid)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            #expect(try server.send("PUT", "/dav/calendars/alice/work/\(uid).ics", body: event, headers: ["Content-Type": "text/calendar"]).status == 201)
        }
        #expect(try server.send("DELETE", "/dav/calendars/alice/work/a.ics").status == 204)
        #expect(try server.send("GET", "/dav/calendars/alice/work/a.ics").status == 404)
        let journal = try server.engine.history(limit: 1_000).count
        #expect(try server.send("DELETE", "/dav/calendars/alice/work/").status == 204)
        #expect(try server.send("PROPFIND", "/dav/calendars/alice/work/", headers: ["Depth": "0"]).status == 404)
        #expect(try server.engine.history(limit: 1_000).count == journal + 1)
        _ = server.engine.undo()
        #expect(try server.send("GET", "/dav/calendars/alice/work/b.ics").status == 200)
    }
}
