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
