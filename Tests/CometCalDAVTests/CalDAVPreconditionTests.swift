import Testing
import Foundation

/// Each precondition the server answers with (RFC 4791 §5.3.2.1, §7; RFC 4918; RFC 6578), from a
/// request that breaks it, with the store unchanged.
@Suite("CalDAV preconditions: each refusal names its rule")
struct CalDAVPreconditionTests {
    static func event(_ uid: String, summary: String = "Standup", extra: String = "") -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\(extra)BEGIN:VEVENT\r\nUID:\(uid)\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART:20260610T090000Z\r\nDURATION:PT1H\r\nSUMMARY:\(summary)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    static func put(_ server: LiveServer, _ path: String, _ text: String, headers: [String: String] = [:]) throws -> LiveServer.Answer {
        try server.send("PUT", path, body: text, headers: ["Content-Type": "text/calendar"].merging(headers) { $1 })
    }

    static func made(_ calendars: String...) throws -> LiveServer {
        let server = try LiveServer(maximumResourceBytes: 4_096)
        for calendar in calendars { #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/\(calendar)/").status == 201) }
        return server
    }

    @Test("C:valid-calendar-object-resource (403): two UIDs in one resource, or an iTIP message (METHOD:CANCEL)")
    func validObjectResource() throws {
        let server = try Self.made("work")
        let two = Self.event("a").replacingOccurrences(of: "END:VCALENDAR\r\n", with: "")
            + "BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260611T090000Z\r\nSUMMARY:B\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let refused = try Self.put(server, "/dav/calendars/alice/work/a.ics", two)
        #expect(refused.status == 403)
        #expect(refused.body.contains("<C:valid-calendar-object-resource/>"))
        let message = try Self.put(server, "/dav/calendars/alice/work/c.ics", Self.event("c", extra: "METHOD:CANCEL\r\n"))
        #expect(message.status == 403)
        #expect(message.body.contains("<C:valid-calendar-object-resource/>"))
        #expect(message.body.contains("METHOD"))
        #expect(try server.engine.resources(in: try #require(server.engine.calendarCollections().first?.id)).isEmpty)
    }

    @Test("C:max-resource-size (403): a resource over the calendar's max-resource-size, which PROPFIND tells")
    func maxResourceSize() throws {
        let server = try Self.made("work")
        let found = try server.send("PROPFIND", "/dav/calendars/alice/work/", body: "<D:propfind xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><C:max-resource-size/></D:prop></D:propfind>", headers: ["Depth": "0"])
        #expect(found.body.contains(">4096</"))
        let big = try Self.put(server, "/dav/calendars/alice/work/big.ics", Self.event("big", summary: String(repeating: "x", count: 5_000)))
        #expect(big.status == 403)
        #expect(big.body.contains("<C:max-resource-size/>"))
    }

    @Test("C:no-uid-conflict (409): a UID another calendar's resource has, naming it; a PUT that changes a resource's UID")
    func noUIDConflict() throws {
        let server = try Self.made("work", "home")
        #expect(try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a")).status == 201)
        let elsewhere = try Self.put(server, "/dav/calendars/alice/home/a.ics", Self.event("a"))
        #expect(elsewhere.status == 409)
        #expect(elsewhere.body.contains("<C:no-uid-conflict>"))
        #expect(elsewhere.body.contains("/dav/calendars/alice/work/a.ics"))
        let renamed = try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("other"))
        #expect(renamed.status == 409)
        #expect(renamed.body.contains("no-uid-conflict"))
    }

    @Test("C:supported-filter (403): a time-range on a property whose value is not a time")
    func supportedFilter() throws {
        let server = try Self.made("work")
        #expect(try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a")).status == 201)
        let query = """
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
            <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:prop-filter name="SUMMARY"><C:time-range start="20260601T000000Z" end="20260701T000000Z"/>
            </C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
            """
        let refused = try server.send("REPORT", "/dav/calendars/alice/work/", body: query, headers: ["Depth": "1"])
        #expect(refused.status == 403)
        #expect(refused.body.contains("<C:supported-filter/>"))
    }

    @Test("DAV:resource-must-be-null (405): MKCALENDAR where a calendar already is")
    func resourceMustBeNull() throws {
        let server = try Self.made("work")
        let again = try server.send("MKCALENDAR", "/dav/calendars/alice/work/")
        #expect(again.status == 405)
        #expect(again.body.contains("resource-must-be-null"))
    }

    @Test("DAV:valid-sync-token (403): a token this calendar never gave")
    func validSyncToken() throws {
        let server = try Self.made("work")
        let body = """
            <D:sync-collection xmlns:D="DAV:"><D:sync-token>urn:example:not-ours</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>
            """
        let refused = try server.send("REPORT", "/dav/calendars/alice/work/", body: body, headers: ["Depth": "1"])
        #expect(refused.status == 403)
        #expect(refused.body.contains("<D:valid-sync-token/>"))
    }

    @Test("C:supported-calendar-data (415): a PUT that is not text/calendar")
    func supportedCalendarData() throws {
        let server = try Self.made("work")
        let refused = try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a"), headers: ["Content-Type": "application/json"])
        #expect(refused.status == 415)
        #expect(refused.body.contains("<C:supported-calendar-data/>"))
    }

    @Test("412 when If-Match names another ETag or If-None-Match: * finds the resource; the stored event is unchanged")
    func conditionalWrites() throws {
        let server = try Self.made("work")
        let created = try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a"))
        #expect(created.status == 201)
        #expect(try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a", summary: "Moved"), headers: ["If-Match": "\"stale\""]).status == 412)
        #expect(try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a", summary: "Moved"), headers: ["If-None-Match": "*"]).status == 412)
        #expect(try server.send("DELETE", "/dav/calendars/alice/work/a.ics", headers: ["If-Match": "\"stale\""]).status == 412)
        #expect(try server.send("GET", "/dav/calendars/alice/work/a.ics").body.contains("SUMMARY:Standup"))
    }

    @Test("MOVE, COPY, LOCK, UNLOCK, ACL and POST are 405 with the URL's Allow, on a calendar and on an event, and change nothing")
    func methodsNotServed() throws {
        let server = try Self.made("work")
        #expect(try Self.put(server, "/dav/calendars/alice/work/a.ics", Self.event("a")).status == 201)
        for path in ["/dav/calendars/alice/work/", "/dav/calendars/alice/work/a.ics"] {
            let allow = try server.send("OPTIONS", path).headers["allow"]
            for method in ["MOVE", "COPY", "LOCK", "UNLOCK", "ACL", "POST"] {
                let answer = try server.send(method, path, headers: ["Destination": "http://127.0.0.1/dav/calendars/alice/work/b.ics"])
                #expect(answer.status == 405, "\(method) \(path)")
                #expect(answer.headers["allow"] == allow)
            }
        }
        #expect(try server.send("GET", "/dav/calendars/alice/work/b.ics").status == 404)
        #expect(try server.send("GET", "/dav/calendars/alice/work/a.ics").status == 200)
    }
}
