import Testing
import Foundation

/// Properties a client keeps on a calendar that CometCal gives no meaning to (RFC 4918 dead
/// properties), such as Apple's calendar-order.
@Suite("CalDAV: properties clients keep on a calendar")
struct CalDAVDeadPropertyTests {
    static func patch(_ server: LiveServer, _ inner: String) throws -> LiveServer.Answer {
        try server.send("PROPPATCH", "/dav/calendars/alice/team/", body: """
            <D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:X="urn:example:x">\(inner)</D:propertyupdate>
            """, headers: ["Content-Type": "application/xml"])
    }

    static func find(_ server: LiveServer) throws -> String {
        try server.send("PROPFIND", "/dav/calendars/alice/team/", body: """
            <D:propfind xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:X="urn:example:x"><D:prop><A:calendar-order/><X:note/></D:prop></D:propfind>
            """, headers: ["Depth": "0"]).body
    }

    @Test("calendar-order and a property of a client's own namespace are kept, read back, replaced and removed; PROPFIND allprop lists them")
    func keptAndRemoved() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        #expect(try Self.patch(server, "<D:set><D:prop><A:calendar-order>12</A:calendar-order><X:note>blue &amp; green</X:note></D:prop></D:set>").status == 207)
        let found = try Self.find(server)
        #expect(found.contains(">12</"))
        #expect(found.contains(">blue &amp; green</"))
        #expect(!found.contains("404"))
        #expect(try server.send("PROPFIND", "/dav/calendars/alice/team/", body: "<D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>", headers: ["Depth": "0"]).body.contains(">12</"))
        _ = try Self.patch(server, "<D:set><D:prop><A:calendar-order>34</A:calendar-order></D:prop></D:set><D:remove><D:prop><X:note/></D:prop></D:remove>")
        let after = try Self.find(server)
        #expect(after.contains(">34</"))
        #expect(!after.contains("blue"))
        #expect(after.contains("404"))
    }

    @Test("a protected property refuses the whole PROPPATCH (403, the rest 424); so do elements inside a kept property (403) and a value over 4,096 bytes (507); nothing is kept")
    func refusals() throws {
        let server = try LiveServer()
        #expect(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        let protected = try Self.patch(server, "<D:set><D:prop><D:getetag>x</D:getetag><A:calendar-order>1</A:calendar-order></D:prop></D:set>")
        #expect(protected.body.contains("403"))
        #expect(protected.body.contains("424"))
        #expect(protected.body.contains("cannot-modify-protected-property"))
        let nested = try Self.patch(server, "<D:set><D:prop><X:note><X:b>bold</X:b></X:note><A:calendar-order>2</A:calendar-order></D:prop></D:set>")
        #expect(nested.body.contains("403"))
        #expect(nested.body.contains("424"))
        let long = try Self.patch(server, "<D:set><D:prop><X:note>" + String(repeating: "a", count: 4_097) + "</X:note></D:prop></D:set>")
        #expect(long.body.contains("507"))
        let found = try Self.find(server)
        #expect(!found.contains(">1</") && !found.contains(">2</") && !found.contains("aaaa"))
    }
}
