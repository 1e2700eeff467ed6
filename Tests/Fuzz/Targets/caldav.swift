import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometHTTP
import CometCalDAV

/// CalDAV requests as the service reads them: the input is a request line (`METHOD PATH`), header
/// lines (`Name: value`) up to an empty line, and the body, which `CalDAVService.handle` routes
/// and decodes (the path's segments, Depth, If-Match and If-None-Match, Content-Type, the
/// PROPFIND, PROPPATCH, MKCALENDAR and REPORT bodies, the iCalendar of a PUT) against a store
/// holding one calendar with a weekly series and its override. Any input is answered, never a
/// crash or a hang, and:
/// - never with 500 (a failure nobody foresaw) or a status outside 100–599;
/// - a refused request (4xx, 5xx) leaves the journal as it was;
/// - a change that went through can be undone; then the store is made afresh, so every input
///   meets the same store.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalDAV(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let request = FuzzedRequest.read(FuzzSupport.bytes(data, size)) else { return 0 }
    let fixture = CalDAVFuzzFixture.current.fixture
    let engine = fixture.engine
    let before = CalDAVFuzzFixture.journalHead(engine)
    let response = fixture.service.handle(request)
    guard (100...599).contains(response.status), response.status != 500 else {
        fatalError("\(request.method) \(request.rawPath) answered \(response.status): \(String(decoding: response.body.prefix(2000), as: UTF8.self))")
    }
    let after = CalDAVFuzzFixture.journalHead(engine)
    if response.status >= 400, after != before {
        fatalError("\(request.method) \(request.rawPath) was refused (\(response.status)) but the journal moved from \(before) to \(after)")
    }
    if after != before {
        if case .failed(let error) = engine.undo() {
            fatalError("\(request.method) \(request.rawPath) changed the store (\(response.status)) and undo failed: \(error.message)")
        }
        // Undo brings the records back, not the URL a client gave a calendar: the next input
        // gets a store made afresh.
        CalDAVFuzzFixture.current.fixture = CalDAVFuzzFixture()
    }
    return 0
}

/// The request a fuzz input spells: nil when it has no request line.
enum FuzzedRequest {
    static func read(_ bytes: [UInt8]) -> HTTPRequest? {
        let headEnd = (0..<bytes.count).first { index in
            bytes[index] == 0x0A && (index + 1 < bytes.count && bytes[index + 1] == 0x0A
                || index + 2 < bytes.count && bytes[index + 1] == 0x0D && bytes[index + 2] == 0x0A)
        }
        let headBytes = headEnd.map { bytes[..<$0] } ?? bytes[...]
        let body = headEnd.map { end in Array(bytes[(end + (bytes[end + 1] == 0x0D ? 3 : 2))...]) } ?? []
        var lines = String(decoding: headBytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 1).map(String.init)
        guard let method = requestLine.first, !method.isEmpty else { return nil }
        let target = requestLine.count > 1 ? requestLine[1] : "/dav/calendars/alice/work/"
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let mark = target.firstIndex(of: "?")
        let rawPath = mark.map { String(target[..<$0]) } ?? target
        let query = mark.map { String(target[target.index(after: $0)...]) }
        // As libmicrohttpd hands it over: percent-decoded, a NUL ending it.
        let decoded = (rawPath.removingPercentEncoding ?? rawPath).split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return HTTPRequest(method: method, rawPath: rawPath, path: decoded, query: query, version: "HTTP/1.1", headers: headers, body: body,
                           remoteAddress: "127.0.0.1", user: "alice")
    }
}

/// An in-memory store served to alice: the calendar `work` with a weekly series
/// and an override of one of its Mondays (`standup.ics`), made through the service itself.
final class CalDAVFuzzFixture: @unchecked Sendable {
    /// The fixture the next input meets.
    final class Current: @unchecked Sendable {
        // libFuzzer runs inputs one after another on one thread: nothing here is shared.
        var fixture = CalDAVFuzzFixture()
    }
    static let current = Current()
    let engine: IntentEngine
    let service: CalDAVService

    init() {
        do {
            let store = try SQLiteStore.opener.open(.memory, registry: FuzzSupport.registry)
            let engine = IntentEngine(store: store, timeZone: TimeZone(identifier: "Europe/Berlin") ?? .current)
            self.engine = engine
            let held = HeldEngine(engine)
            service = CalDAVService(configuration: CalDAVService.Configuration(
                serve: { user, _, body in user == "alice" ? try body(held.engine) : nil }, anonymousUser: "alice", maximumResourceBytes: 64 * 1024))
        } catch {
            fatalError("fuzz: the in-memory store did not open: \(error)")
        }
        let series = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260601T090000\r\nDTEND;TZID=Europe/Berlin:20260601T091500\r\nRRULE:FREQ=WEEKLY;COUNT=8\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260608T090000\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260608T100000\r\nDTEND;TZID=Europe/Berlin:20260608T101500\r\nSUMMARY:Standup (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        for (method, path, body) in [("MKCALENDAR", "/dav/calendars/alice/work/", ""), ("PUT", "/dav/calendars/alice/work/standup.ics", series)] {
            let request = HTTPRequest(method: method, rawPath: path, path: path, query: nil, version: "HTTP/1.1",
                                      headers: ["Content-Type": method == "PUT" ? "text/calendar" : "application/xml"], body: Array(body.utf8),
                                      remoteAddress: "127.0.0.1", user: "alice")
            let answer = service.handle(request)
            guard answer.status == 201 else { fatalError("fuzz: \(method) \(path) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))") }
        }
    }

    /// The engine as the service's closure holds it (inputs run one at a time, on one thread).
    private final class HeldEngine: @unchecked Sendable {
        let engine: IntentEngine
        init(_ engine: IntentEngine) { self.engine = engine }
    }

    /// The journal's newest entry and whether it is undone: what a change moves.
    static func journalHead(_ engine: IntentEngine) -> String {
        do {
            return try engine.journalHeads(limit: 1).first.map { "\($0.sequence)\($0.undone ? " undone" : "")" } ?? "empty"
        } catch {
            fatalError("fuzz: the journal cannot be read: \(error)")
        }
    }
}
