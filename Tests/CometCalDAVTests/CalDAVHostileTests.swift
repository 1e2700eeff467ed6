import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents
import CometHTTP

/// Requests meant to hurt, against a live server holding one calendar with one event: each
/// gets a clear status and a body saying why, and the store neither loses nor gains anything
/// (`StoreCensus` before and after).
@Suite("CalDAV: hostile requests", .serialized)
struct CalDAVHostileTests {
    static let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:secret-meeting\r\nDTSTAMP:20260601T080000Z\r\n"
        + "DTSTART:20260608T080000Z\r\nDTEND:20260608T090000Z\r\nSUMMARY:Secret meeting\r\nLOCATION:Room 101\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    /// A server whose alice has the calendar `work` with the event `secret-meeting.ics`.
    static func serverWithAnEvent() throws -> LiveServer {
        let server = try LiveServer()
        try #require(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        try #require(try server.send("PUT", "/dav/calendars/alice/work/secret-meeting.ics", body: event, headers: ["Content-Type": "text/calendar"]).status == 201)
        return server
    }

    @Test("path traversal (.., %2e%2e, an encoded / inside a segment, an encoded NUL, a . segment) is 400 naming what is wrong with the path, for reads and writes; a raw NUL ends the path, so what follows it goes nowhere; nothing changes")
    func pathTraversal() throws {
        let server = try Self.serverWithAnEvent()
        let before = try StoreCensus(of: server)
        let paths: [(path: String, why: String)] = [
            ("/dav/calendars/alice/../bob/", "\"..\" segment"),
            ("/dav/calendars/alice/work/../../bob/work/x.ics", "\"..\" segment"),
            ("/dav/calendars/alice/%2e%2e/bob/", "\"..\" segment"),
            ("/dav/calendars/alice/%2E%2E/%2E%2E/", "\"..\" segment"),
            ("/dav/calendars/alice/work/.%2e/secret-meeting.ics", "\"..\" segment"),
            ("/dav/calendars/alice/./work/", "\".\" segment"),
            ("/dav/calendars/alice/work%2f..%2f..%2fbob/", "encoded \"/\""),
            ("/dav/calendars/alice/work/secret-meeting%2Fx.ics", "encoded \"/\""),
            ("/dav/calendars/alice/work/a%00b.ics", "encoded NUL"),
            ("/dav/calendars/alice//work/", "empty segment"),
            ("/dav/calendars/alice/work/%zz.ics", "hexadecimal"),
        ]
        for (path, why) in paths {
            for method in ["GET", "PROPFIND", "PUT", "DELETE"] {
                let body = method == "PUT" ? Array(Self.event.replacingOccurrences(of: "secret-meeting", with: "intruder").utf8) : []
                let answer = try HostileClient.exchange(port: server.server.port, "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Depth: 1\r\nContent-Length: \(body.count)\r\n"
                    + (method == "PUT" ? "Content-Type: text/calendar\r\n" : ""), body: body)
                #expect(answer.status == 400, "\(method) \(path): \(answer.status) \(answer.body)")
                #expect(answer.body.contains("The path cannot be read"), "\(method) \(path): \(answer.body)")
                #expect(answer.body.contains(why), "\(method) \(path): \(answer.body)")
                #expect(!answer.body.contains("Secret meeting"), "\(method) \(path)")
            }
        }
        // A NUL byte itself in the request line: libmicrohttpd 0.9.75 hands the path over as a C
        // string, so it ends there, and the request acts on the path before the NUL, which the
        // client spelled out itself: a ".." after it goes nowhere.
        let afterNul = try HostileClient.exchange(port: server.server.port, "GET /dav/calendars/alice/work/secret-meeting.ics\u{0}/../../../bob/ HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)")
        #expect(afterNul.status == 200)
        #expect(afterNul.body.contains("SUMMARY:Secret meeting"))
        let otherUser = try HostileClient.exchange(port: server.server.port, "PROPFIND /dav/calendars/bob\u{0}/../alice/ HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Depth: 1\r\n")
        #expect(otherUser.status == 403)
        #expect(!otherUser.body.contains("Secret meeting"))
        #expect(try StoreCensus(of: server) == before)
        #expect(try server.send("GET", "/dav/calendars/alice/work/secret-meeting.ics").body.contains("SUMMARY:Secret meeting"))
    }

    @Test("no password, a wrong one or an unknown user: 401 with the challenge and nothing of the calendar; another user reading or writing alice's calendars: 403 naming no event; MOVE or COPY into another user's calendars: 405; nothing changes")
    func otherUsers() throws {
        let server = try Self.serverWithAnEvent()
        let passwords = try PasswordFile(path: server.folder.appendingPathComponent("users").path, cost: 4, allowMissing: false)
        _ = try passwords.setPassword("hunter2", for: "bob")
        let before = try StoreCensus(of: server)
        let port = server.server.port
        let calendarPaths = ["/dav/calendars/alice/", "/dav/calendars/alice/work/", "/dav/calendars/alice/work/secret-meeting.ics"]
        let refusedCredentials = ["", "Authorization: Basic " + Data("alice:wrong".utf8).base64EncodedString() + "\r\n",
                                  "Authorization: Basic " + Data("mallory:secret".utf8).base64EncodedString() + "\r\n",
                                  "Authorization: Basic " + Data("alice".utf8).base64EncodedString() + "\r\n",
                                  "Authorization: Bearer secret\r\n"]
        for credentials in refusedCredentials {
            for path in calendarPaths {
                for method in ["GET", "PROPFIND", "DELETE"] {
                    let answer = try HostileClient.exchange(port: port, "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(credentials)Depth: 1\r\n")
                    #expect(answer.status == 401, "\(method) \(path) with \(credentials.debugDescription)")
                    #expect(answer.header("WWW-Authenticate")?.hasPrefix("Basic realm=") == true)
                    #expect(!answer.body.contains("secret-meeting") && !answer.body.contains("Secret meeting") && !answer.body.contains("work"))
                }
            }
        }
        let bob = "Authorization: Basic " + Data("bob:hunter2".utf8).base64EncodedString() + "\r\n"
        let event = Array(Self.event.replacingOccurrences(of: "Secret meeting", with: "Overwritten").utf8)
        let query = Array("<C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><C:calendar-data/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"/></C:filter></C:calendar-query>".utf8)
        let attempts: [(method: String, path: String, body: [UInt8])] = [
            ("PROPFIND", "/dav/calendars/alice/", []), ("PROPFIND", "/dav/calendars/alice/work/", []),
            ("PROPFIND", "/dav/principals/alice/", []), ("REPORT", "/dav/calendars/alice/work/", query),
            ("GET", "/dav/calendars/alice/work/secret-meeting.ics", []), ("PUT", "/dav/calendars/alice/work/secret-meeting.ics", event),
            ("PUT", "/dav/calendars/alice/work/new.ics", event), ("DELETE", "/dav/calendars/alice/work/secret-meeting.ics", []),
            ("DELETE", "/dav/calendars/alice/work/", []), ("MKCALENDAR", "/dav/calendars/alice/bobs/", []),
            ("PROPPATCH", "/dav/calendars/alice/work/", Array("<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><D:displayname>Bob's</D:displayname></D:prop></D:set></D:propertyupdate>".utf8)),
        ]
        for attempt in attempts {
            let answer = try HostileClient.exchange(port: port, "\(attempt.method) \(attempt.path) HTTP/1.1\r\nHost: x\r\n\(bob)Depth: 1\r\nContent-Length: \(attempt.body.count)\r\n"
                + (attempt.method == "PUT" ? "Content-Type: text/calendar\r\n" : ""), body: attempt.body)
            #expect(answer.status == 403, "\(attempt.method) \(attempt.path): \(answer.status) \(answer.body)")
            #expect(answer.body == "bob may not read or change alice's calendars.\n", "\(attempt.method) \(attempt.path)")
        }
        // Moving or copying alice's event into bob's calendars: neither method is served.
        for method in ["MOVE", "COPY"] {
            let answer = try HostileClient.exchange(port: port, "\(method) /dav/calendars/alice/work/secret-meeting.ics HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)"
                + "Destination: http://127.0.0.1:\(port)/dav/calendars/bob/work/secret-meeting.ics\r\nOverwrite: T\r\n")
            #expect(answer.status == 405, "\(method): \(answer.status) \(answer.body)")
            #expect(answer.header("Allow")?.contains(method) == false)
        }
        // Bob's own home: he has no store here, and is told so.
        let own = try HostileClient.exchange(port: port, "PROPFIND /dav/calendars/bob/ HTTP/1.1\r\nHost: x\r\n\(bob)Depth: 1\r\n")
        #expect(own.status == 404)
        #expect(own.body == "bob has no calendars here.\n")
        // Alice naming bob's resource in her own multiget: not an event of her calendar.
        let multiget = "<C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/></D:prop><D:href>/dav/calendars/bob/work/secret-meeting.ics</D:href><D:href>/dav/calendars/alice/work/../../bob/work/x.ics</D:href></C:calendar-multiget>"
        let mine = try server.send("REPORT", "/dav/calendars/alice/work/", body: multiget, headers: ["Depth": "1"])
        #expect(mine.status == 207)
        #expect(mine.body.components(separatedBy: "HTTP/1.1 404 Not Found").count - 1 == 2, "\(mine.body)")
        #expect(!mine.body.contains("getetag>\""))
        #expect(try StoreCensus(of: server) == before)
    }

    @Test("XML bodies: over the reader's 1 MiB is 413, nested past 64 is 400 with the line, and a DOCTYPE (billion laughs, an external entity) is 400 before any entity is read; nothing changes")
    func hostileXML() throws {
        let server = try Self.serverWithAnEvent()
        let before = try StoreCensus(of: server)
        let port = server.server.port
        func send(_ method: String, _ path: String, _ body: String) throws -> HostileClient.Answer {
            try HostileClient.exchange(port: port, "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Depth: 1\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)\r\n",
                                       body: Array(body.utf8))
        }
        // Two MiB of well-formed XML: under the HTTP limit (10 MiB), over what the XML reader takes.
        let hrefs = String(repeating: "<D:href>/dav/calendars/alice/work/secret-meeting.ics</D:href>", count: 2 * 1024 * 1024 / 60)
        let huge = "<C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/></D:prop>\(hrefs)</C:calendar-multiget>"
        let deep = "<D:propfind xmlns:D=\"DAV:\">\n" + String(repeating: "<D:prop>", count: 200) + String(repeating: "</D:prop>", count: 200) + "</D:propfind>"
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
            <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
            <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
            <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:displayname>&lol9;</D:displayname></D:prop></D:set></D:propertyupdate>
            """
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE x [<!ENTITY passwd SYSTEM "file:///etc/passwd">]>
            <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:displayname>&passwd;</D:displayname></D:prop></D:set></D:propertyupdate>
            """
        let externalDTD = "<?xml version=\"1.0\"?>\n<!DOCTYPE D:propfind SYSTEM \"http://127.0.0.1:1/evil.dtd\">\n<D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>"

        for (method, path) in [("REPORT", "/dav/calendars/alice/work/"), ("PROPFIND", "/dav/calendars/alice/work/")] {
            let answer = try send(method, path, huge)
            #expect(answer.status == 413, "\(method): \(answer.status) \(answer.body.prefix(300))")
            #expect(answer.body.contains("more than the 1048576 allowed"), "\(method): \(answer.body.prefix(300))")
        }
        for (method, path) in [("PROPFIND", "/dav/calendars/alice/work/"), ("PROPFIND", "/dav/")] {
            let answer = try send(method, path, deep)
            #expect(answer.status == 400, "\(method) \(path): \(answer.status)")
            #expect(answer.body.contains("nested more than 64 deep"), "\(answer.body)")
            #expect(answer.body.contains("line 2"), "\(answer.body)")
        }
        for (name, body) in [("billion laughs", laughs), ("external entity", external), ("external DTD", externalDTD)] {
            for (method, path) in [("PROPPATCH", "/dav/calendars/alice/work/"), ("MKCALENDAR", "/dav/calendars/alice/lolz/"), ("PROPFIND", "/dav/calendars/alice/work/"), ("REPORT", "/dav/principals/alice/")] {
                let answer = try send(method, path, body)
                #expect(answer.status == 400, "\(name) \(method): \(answer.status) \(answer.body)")
                #expect(answer.body.contains("a document type declaration (DOCTYPE) is not accepted"), "\(name) \(method): \(answer.body)")
                #expect(!answer.body.contains("lollol") && !answer.body.contains("root:"), "\(name) \(method)")
            }
        }
        #expect(try StoreCensus(of: server) == before)
        let titles = try server.engine.calendarCollections().map(\.title).sorted()
        #expect(titles == ["Tasks", "work"], "\(titles)")
    }

    @Test("a PUT declaring 50 MB is answered 413 before its body is sent, naming the limit; the server goes on serving and nothing changes")
    func fiftyMegabytePut() throws {
        let server = try Self.serverWithAnEvent()
        let before = try StoreCensus(of: server)
        let started = Date()
        let answer = try HostileClient.exchange(port: server.server.port,
                                                "PUT /dav/calendars/alice/work/big.ics HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Content-Type: text/calendar\r\nContent-Length: \(50 * 1024 * 1024)\r\n",
                                                sendBody: false)
        #expect(answer.status == 413)
        #expect(answer.body == "The request body is over this server's limit of 10485760 bytes.\n")
        #expect(Date().timeIntervalSince(started) < 5)
        // And with the 50 MB sent behind the head: the same answer, the rest never read.
        let body = Array(("BEGIN:VCALENDAR\r\n" + String(repeating: "X-FILL:" + String(repeating: "x", count: 64) + "\r\n", count: 50 * 1024 * 1024 / 73)).utf8)
        let sent = try HostileClient.exchange(port: server.server.port,
                                              "PUT /dav/calendars/alice/work/big.ics HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Content-Type: text/calendar\r\nContent-Length: \(body.count)\r\n",
                                              body: body)
        #expect(sent.status == 413)
        #expect(try StoreCensus(of: server) == before)
        #expect(try server.send("GET", "/dav/calendars/alice/work/secret-meeting.ics").status == 200)
    }

    @Test("broken HTTP carrying a PUT (a header line without a colon, a bad request line) is libmicrohttpd's 400, nothing is written, and the server goes on serving")
    func brokenHTTP() throws {
        let server = try Self.serverWithAnEvent()
        let before = try StoreCensus(of: server)
        let body = Array(Self.event.replacingOccurrences(of: "secret-meeting", with: "smuggled").utf8)
        for head in ["PUT /dav/calendars/alice/work/smuggled.ics HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)this is not a header\r\nContent-Length: \(body.count)\r\n",
                     "PUT /dav/calendars/alice/work/smuggled.ics HTTP/1.1 trailing\r\nHost: x\r\n\(HostileClient.alice)Content-Length: \(body.count)\r\n",
                     "PUT /dav/calendars/alice/work/smuggled.ics HTTP/1.1\r\nHost: x\r\n\(HostileClient.alice)Content-Length: 12, 34\r\n"] {
            let answer = try HostileClient.exchange(port: server.server.port, head, body: body)
            #expect(answer.status == 400, "\(head.debugDescription): \(answer.status) \(answer.body)")
        }
        #expect(try StoreCensus(of: server) == before)
        #expect(try server.send("GET", "/dav/calendars/alice/work/smuggled.ics").status == 404)
        #expect(try server.send("GET", "/dav/calendars/alice/work/secret-meeting.ics").status == 200)
    }

    @Test("a calendar-query, an expand and a free-busy-query over 100 years of a series repeating every minute with no end: answered in bounded time with a clear refusal naming the limit of 1,000,000 occurrences, never a silent partial answer")
    func minutelySeriesOverACentury() throws {
        let server = try LiveServer()
        try #require(try server.send("MKCALENDAR", "/dav/calendars/alice/work/").status == 201)
        // From a client, such a rule is refused by the importer, with its reason.
        let minutely = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:every-minute\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART:20260101T000000Z\r\nDTEND:20260101T000030Z\r\nRRULE:FREQ=MINUTELY\r\nSUMMARY:Tick\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let put = try server.send("PUT", "/dav/calendars/alice/work/every-minute.ics", body: minutely, headers: ["Content-Type": "text/calendar"])
        #expect(put.status == 403)
        #expect(put.body.contains("line 9: FREQ=MINUTELY with no end repeats 1440 times a day forever; give it a COUNT or UNTIL"), "\(put.body)")
        // The engine takes it (RFC 5545 allows it), saying it is seldom meant, as `cometcal event add --repeat` does.
        let made = server.engine.perform(IntentRequest(intent: "createEvent", parameters: ParameterBindings([
            "title": .set(.string("Tick")), "startDate": .set(.dateTime(try DateTimeValue(parsing: "2026-01-01T00:00:00Z"))),
            "endDate": .set(.dateTime(try DateTimeValue(parsing: "2026-01-01T00:00:30Z"))), "recurrence": .set(.recurrence(try RecurrenceRule(parsing: "FREQ=MINUTELY"))),
        ]), references: ["calendar": "work"], confirmation: .confirmed))
        guard case .done(let result) = made else {
            Issue.record("createEvent: \(made)")
            return
        }
        #expect(result.warnings.contains { $0.contains("repeats 1,440 times on 2026-01-01") }, "\(result.warnings)")
        let before = try StoreCensus(of: server)
        let range = "start=\"20260101T000000Z\" end=\"21260101T000000Z\""
        let query = "<C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range \(range)/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
        let expand = "<C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><C:calendar-data><C:expand \(range)/></C:calendar-data></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"/></C:filter></C:calendar-query>"
        let freeBusy = "<C:free-busy-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:time-range \(range)/></C:free-busy-query>"
        for (name, body) in [("calendar-query", query), ("expand", expand), ("free-busy-query", freeBusy)] {
            let started = Date()
            let answer = try server.send("REPORT", "/dav/calendars/alice/work/", body: body, headers: ["Depth": "1"])
            let seconds = Date().timeIntervalSince(started)
            #expect(seconds < 30, "\(name) took \(seconds) s")
            #expect(answer.status == 507, "\(name): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("number-of-matches-within-limits"), "\(name): \(answer.body)")
            #expect(answer.body.contains("more than 1,000,000 occurrences"), "\(name): \(answer.body)")
            #expect(!answer.body.contains("BEGIN:VEVENT") && !answer.body.contains("FREEBUSY;"), "\(name)")
        }
        // A year of it is answered: the event matches.
        let year = query.replacingOccurrences(of: "21260101T000000Z", with: "20270101T000000Z")
        let answer = try server.send("REPORT", "/dav/calendars/alice/work/", body: year, headers: ["Depth": "1"])
        #expect(answer.status == 207)
        #expect(answer.body.components(separatedBy: "<D:response>").count - 1 == 1, "\(answer.body)")
        #expect(answer.body.contains("HTTP/1.1 200 OK"))
        #expect(try StoreCensus(of: server) == before)
    }
}
