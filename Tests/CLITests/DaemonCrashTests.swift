import Foundation
import Testing
import CometSchema

/// Stopping and killing the daemon mid-work loses nothing and leaves nothing half done.
@Suite("cometcald under SIGTERM and kill -9", .serialized)
struct DaemonCrashTests {
    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    static func calendar(events: Int, prefix: String = "bulk") -> String {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nX-WR-CALNAME:Bulk\r\n"
        for index in 0..<events {
            let day = 1 + index % 28
            text += "BEGIN:VEVENT\r\nUID:\(prefix)-\(index)@test\r\nDTSTAMP:20260601T120000Z\r\nSUMMARY:Bulk \(index)\r\n"
                + String(format: "DTSTART;TZID=America/Los_Angeles:202607%02dT090000\r\n", day) + "DESCRIPTION:Number \(index)\r\nEND:VEVENT\r\n"
        }
        return text + "END:VCALENDAR\r\n"
    }

    private func count(_ client: RPCClient, _ text: String) throws -> Int {
        let found = try client.call("entity.search", object([("entity", "Event"), ("text", .string(text)), ("limit", 1)]))
        guard case .int(let total)? = found["total"] else { return -1 }
        return total
    }

    @Test("SIGTERM while two imports are in flight: both finish and are answered first, so after a restart both are whole")
    func termDuringImport() throws {
        // Room for both to finish on a loaded machine: what is tested is that they are waited
        // for and answered, not how fast a debug build imports.
        let daemon = try DaemonHarness(arguments: ["--stop-seconds", "300"])
        let first = try daemon.client(), second = try daemon.client()
        for (client, prefix) in [(first, "bulk"), (second, "more")] {
            client.sendFrame(object([("jsonrpc", "2.0"), ("id", 1), ("method", "ical.import"),
                                     ("params", object([("content", .string(DaemonCrashTests.calendar(events: 3_000, prefix: prefix)))]))]))
        }
        // The daemon logs each request as it starts working on it: both are in flight at the signal.
        let deadline = Date().addingTimeInterval(30)
        while daemon.readLog().components(separatedBy: "msg=received").count - 1 < 2, Date() < deadline { usleep(5_000) }
        #expect(daemon.logText.components(separatedBy: "msg=received").count - 1 == 2, "both imports were received: \(daemon.logText.suffix(600))")
        #expect(!daemon.logText.contains("msg=request"), "neither had finished before the signal")
        daemon.signal(SIGTERM)
        for client in [first, second] {
            let answer = try client.receive(timeout: 300)
            #expect(answer["result"]?["written"] == true, "each request in flight gets its answer: \(answer)")
        }
        #expect(daemon.stop() == 0)
        let again = try DaemonHarness(directory: daemon.directory)
        #expect(try count(try again.client(), "bulk") == 6_000, "both imports answered as written are whole")
    }

    @Test("kill -9 during a long import and during writes: after a restart the import is whole or absent, and every write answered is there")
    func killDuringWrites() throws {
        let daemon = try DaemonHarness()
        let importer = try daemon.client()
        importer.sendFrame(object([("jsonrpc", "2.0"), ("id", 1), ("method", "ical.import"), ("params", object([("content", .string(DaemonCrashTests.calendar(events: 3_000)))]))]))
        let writer = try daemon.client()
        var answered = 0
        let started = Date()
        while Date().timeIntervalSince(started) < 1.0 {
            let result = try writer.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
                ("title", .string("Write \(answered)")), ("startDate", "2026-07-01T09:00:00-07:00[America/Los_Angeles]")]))]))
            if result["outcome"] == "done" { answered += 1 }
        }
        daemon.signal(SIGKILL)
        daemon.process.waitUntilExit()
        let again = try DaemonHarness(directory: daemon.directory)
        let client = try again.client()
        let bulk = try count(client, "bulk")
        #expect(bulk == 0 || bulk == 3_000, "whole or absent: \(bulk)")
        let writes = try count(client, "write")
        #expect(writes >= answered, "\(writes) of \(answered) answered writes")
        #expect(writes <= answered + 1, "at most the one in flight besides")
        let history = try client.call("history", object([("limit", 10_000)]))
        guard case .array(let entries)? = history["entries"] else { Issue.record("\(history)"); return }
        // The import, when it landed, is one journal entry of its own.
        #expect(entries.count == writes + (bulk == 3_000 ? 1 : 0), "each write and its journal entry landed together")
        #expect(try client.call("health")["status"] == "ok")
    }

    @Test("a request that works on the store past --request-seconds is stopped, rolled back and said so")
    func timeLimit() throws {
        let first = try DaemonHarness()
        _ = try first.client().call("ical.import", object([("content", .string(DaemonCrashTests.calendar(events: 2_000)))]))
        #expect(first.stop() == 0)
        let strict = try DaemonHarness(arguments: ["--request-seconds", "0.0001"], directory: first.directory)
        let client = try strict.client()
        let answer = try client.call("agenda", object([("from", "2026-01-01T00:00:00Z"), ("to", "2027-01-01T00:00:00Z")]))
        let said = answer["error"]?["message"]?.stringValue ?? answer["message"]?.stringValue ?? ""
        #expect(said.contains("time limit") || said.contains("longer than"), "\(answer)")
        let imported = try client.call("ical.import", object([("content", .string(DaemonCrashTests.calendar(events: 2_500)))]))
        #expect(imported["written"] == false, "\(imported)")
        #expect(JSONWriter.compact(imported).contains("time limit"), "\(imported)")
        #expect(strict.stop() == 0)
        let again = try DaemonHarness(directory: first.directory)
        #expect(try count(try again.client(), "bulk") == 2_000, "the stopped import wrote nothing")
    }
}
