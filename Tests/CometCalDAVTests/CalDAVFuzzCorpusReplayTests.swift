import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometHTTP
import CometCalDAV

/// The caldav fuzzer's corpus (Tests/Fuzz/Corpus/caldav.tar.xz, kept by scripts/fuzz) and its
/// findings (Tests/Fuzz/Findings/caldav-*), replayed in the ordinary suite with the fuzz
/// target's checks (Tests/Fuzz/Targets/caldav.swift): each input is a request line, headers, an
/// empty line and a body, answered by the service over a store holding a calendar with a weekly
/// series and its override; never 500, a refusal leaves the journal as it was, and a change is
/// undone before the next input.
@Suite("The caldav fuzz corpus, replayed")
struct CalDAVFuzzCorpusReplayTests {
    static let fuzzFolder = LiveServer.repository.appendingPathComponent("Tests/Fuzz")

    static func inputs(in folder: URL) throws -> [URL] {
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xJf", fuzzFolder.appendingPathComponent("Corpus/caldav.tar.xz").path, "-C", folder.path]
        try tar.run()
        tar.waitUntilExit()
        try #require(tar.terminationStatus == 0, "tar could not unpack caldav.tar.xz (is xz-utils installed? scripts/bootstrap)")
        let corpus = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0) }
        let findingsFolder = fuzzFolder.appendingPathComponent("Findings")
        let findings = ((try? FileManager.default.contentsOfDirectory(atPath: findingsFolder.path)) ?? [])
            .filter { $0.hasPrefix("caldav-") }.sorted().map { findingsFolder.appendingPathComponent($0) }
        return corpus + findings
    }

    /// The request an input spells, read as the fuzz target reads it; nil without a request line.
    static func request(_ bytes: [UInt8]) -> HTTPRequest? {
        let headEnd = (0..<bytes.count).first { index in
            bytes[index] == 0x0A && (index + 1 < bytes.count && bytes[index + 1] == 0x0A
                || index + 2 < bytes.count && bytes[index + 1] == 0x0D && bytes[index + 2] == 0x0A)
        }
        let body = headEnd.map { end in Array(bytes[(end + (bytes[end + 1] == 0x0D ? 3 : 2))...]) } ?? []
        var lines = String(decoding: headEnd.map { bytes[..<$0] } ?? bytes[...], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
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
        let decoded = (rawPath.removingPercentEncoding ?? rawPath).split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return HTTPRequest(method: method, rawPath: rawPath, path: decoded, query: mark.map { String(target[target.index(after: $0)...]) },
                           version: "HTTP/1.1", headers: headers, body: body, remoteAddress: "127.0.0.1", user: "alice")
    }

    final class HeldEngine: @unchecked Sendable {
        let engine: IntentEngine
        init(_ engine: IntentEngine) { self.engine = engine }
    }

    /// A service for alice over a new in-memory store holding the calendar `work` with a weekly
    /// series and its override (`standup.ics`), made through the service itself.
    static func fixture(_ registry: Registry) throws -> (IntentEngine, CalDAVService) {
        let engine = IntentEngine(store: try SQLiteStore.opener.open(.memory, registry: registry), timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        let held = HeldEngine(engine)
        let service = CalDAVService(configuration: CalDAVService.Configuration(
            serve: { user, _, body in user == "alice" ? try body(held.engine) : nil }, anonymousUser: "alice", maximumResourceBytes: 64 * 1024))
        let series = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260601T090000\r\nDTEND;TZID=Europe/Berlin:20260601T091500\r\nRRULE:FREQ=WEEKLY;COUNT=8\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n"
            + "BEGIN:VEVENT\r\nUID:standup\r\nDTSTAMP:20260601T080000Z\r\nRECURRENCE-ID;TZID=Europe/Berlin:20260608T090000\r\n"
            + "DTSTART;TZID=Europe/Berlin:20260608T100000\r\nDTEND;TZID=Europe/Berlin:20260608T101500\r\nSUMMARY:Standup (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        for (method, path, body) in [("MKCALENDAR", "/dav/calendars/alice/work/", ""), ("PUT", "/dav/calendars/alice/work/standup.ics", series)] {
            let made = service.handle(HTTPRequest(method: method, rawPath: path, path: path, query: nil, version: "HTTP/1.1",
                                                  headers: ["Content-Type": method == "PUT" ? "text/calendar" : "application/xml"], body: Array(body.utf8),
                                                  remoteAddress: "127.0.0.1", user: "alice"))
            try #require(made.status == 201, "\(method) \(path): \(made.status)")
        }
        return (engine, service)
    }

    @Test("every input is answered with a status of 100–599 other than 500; a refused one leaves the journal as it was; a change is undone")
    func replay() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caldav-fuzz-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try Self.inputs(in: folder)
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        let registry = try Registry.load(paths: [LiveServer.repository.appendingPathComponent("Schemas").path])
        var (engine, service) = try Self.fixture(registry)
        func head() throws -> String {
            try engine.journalHeads(limit: 1).first.map { "\($0.sequence)\($0.undone ? " undone" : "")" } ?? "empty"
        }
        var refused = 0
        var changed = 0
        for file in inputs {
            guard let request = Self.request([UInt8](try Data(contentsOf: file))) else { continue }
            let before = try head()
            let answer = service.handle(request)
            #expect((100...599).contains(answer.status) && answer.status != 500, "\(file.lastPathComponent): \(answer.status) \(String(decoding: answer.body.prefix(500), as: UTF8.self))")
            let after = try head()
            if answer.status >= 400 {
                refused += 1
                #expect(after == before, "\(file.lastPathComponent): refused (\(answer.status)) but the journal moved")
            }
            if after != before {
                changed += 1
                #expect(engine.undo().isDone, "\(file.lastPathComponent)")
                // Undo brings the records back, not the URL a client gave a calendar: the next
                // input gets a store made afresh.
                (engine, service) = try Self.fixture(registry)
            }
        }
        // The corpus has both: requests refused and requests that change the store.
        #expect(refused > 0 && changed > 0, "\(refused) refused, \(changed) changed of \(inputs.count)")
    }
}
