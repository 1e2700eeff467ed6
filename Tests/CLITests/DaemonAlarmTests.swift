import Foundation
import Testing
import CometSchema

/// Alarms on the real clock: on time, on a series' next occurrence, never twice across a
/// kill -9, and an alarm missed while the daemon was down fires once, late.
@Suite("cometcald alarms", .serialized)
struct DaemonAlarmTests {
    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    /// "2026-…T…-07:00[America/Los_Angeles]" for a moment `seconds` from now, whole seconds.
    private func zoned(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
        return formatter.string(from: date) + "[America/Los_Angeles]"
    }

    private func create(_ client: RPCClient, title: String, start: Date, repeats: Bool = false, alarm: String = "-PT1S") throws -> String {
        var parameters: [(String, JSONValue)] = [("title", .string(title)), ("startDate", .string(zoned(start))),
                                                 ("alarms", .array([object([("relative", .string(alarm))])]))]
        if repeats { parameters.append(("recurrence", "FREQ=DAILY")) }
        let result = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object(parameters))]))
        #expect(result["outcome"] == "done", "\(result)")
        return result["entity"]?["id"]?.stringValue ?? ""
    }

    private func alarms(_ client: RPCClient, for seconds: Double) -> [JSONValue] {
        var found: [JSONValue] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let message = try? client.notification(timeout: max(0.05, deadline.timeIntervalSinceNow)) else { break }
            if message["method"] == "alarm" { found.append(message) }
        }
        return found
    }

    @Test("a repeating event's alarm fires at its next occurrence, once, and not again after kill -9")
    func seriesAndRestart() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        _ = try client.call("subscribe", object([("topics", ["alarms"])]))
        // It started yesterday at this time of day plus 4 s: the next occurrence is today's.
        let nextStart = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4).rounded(.down))
        let id = try create(client, title: "Daily Check", start: nextStart.addingTimeInterval(-86_400), repeats: true)
        let fired = alarms(client, for: 8)
        #expect(fired.count == 1, "\(fired)")
        #expect(fired.first?["params"]?["event"] == .string(id))
        #expect(fired.first?["params"]?["late"] == false)
        let occurrence = try #require(fired.first?["params"]?["occurrence"]?.stringValue)
        #expect(occurrence.hasPrefix(String(zoned(nextStart).prefix(19))), "\(occurrence) is today's occurrence")

        daemon.signal(SIGKILL)
        daemon.process.waitUntilExit()
        let again = try DaemonHarness(directory: daemon.directory)
        let second = try again.client()
        _ = try second.call("subscribe", object([("topics", ["alarms"])]))
        #expect(alarms(second, for: 3).isEmpty, "nothing fires twice")
        again.stop()
    }

    @Test("an alarm missed while the daemon was down fires once when it starts again, marked late")
    func missedWhileDown() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        _ = try create(client, title: "Launch Window", start: Date().addingTimeInterval(4))
        usleep(600_000)
        daemon.signal(SIGKILL)
        daemon.process.waitUntilExit()
        sleep(8)  // the alarm's moment passes while no daemon runs
        let again = try DaemonHarness(directory: daemon.directory)
        let second = try again.client()
        _ = try second.call("subscribe", object([("topics", ["alarms"])]))
        let fired = alarms(second, for: 4)
        #expect(fired.count <= 1)
        // The subscription may come after the late alarm fired: then the store says it fired.
        if let alarm = fired.first {
            #expect(alarm["params"]?["late"] == true)
            #expect(alarm["params"]?["title"] == "Launch Window")
        } else {
            again.stop()
            #expect(again.logText.contains("msg=alarm event=\"Launch Window\""), "\(again.logText)")
            #expect(again.logText.contains("late=true"))
        }
        again.stop()
    }
}
