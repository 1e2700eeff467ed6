import Foundation
import Testing
import CometSchema

/// Snooze and dismiss: intents of the calendar schema (`@alarmAction`), reachable from
/// `intent run`, the daemon's `intent.perform` and the conversation.
@Suite("snooze and dismiss")
struct AlarmActionTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    private func at(_ now: String, _ arguments: [String], stdin: String? = nil, expect status: Int32 = 0) throws -> CLIResult {
        var env = environment
        env["COMETCAL_NOW"] = now
        let result = try CLIRunner.run(arguments, environment: env, stdin: stdin)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)")
        return result
    }

    @Test("a snooze is a one-shot alarm for the occurrence whose reminder went off, listed, kept in the store, and goes off once")
    func snooze() throws {
        // 12:30 in Berlin is 10:30Z; its reminder is at 10:15Z.
        try run(["event", "add", "Standup", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        _ = try at("2026-06-10T10:00:00Z", ["remind", "--once"])
        #expect(try at("2026-06-10T10:15:01Z", ["remind", "--once"]).stdout.contains("Standup"))
        let snoozed = try at("2026-06-10T10:16:00Z", ["intent", "run", "snoozeAlarm", "event=Standup", "duration=10m"])
        #expect(snoozed.stdout.contains("I'll remind you of “Standup” (Wed Jun 10 12:30) again at 12:26, in 10 minutes."), "\(snoozed.stdout)")
        let listed = try at("2026-06-10T10:17:00Z", ["alarms"]).stdout
        #expect(listed.contains("Wed Jun 10 12:26  Standup  (starts Wed Jun 10 12:30; snoozed)"), "\(listed)")
        let rang = try at("2026-06-10T10:26:01Z", ["remind", "--once", "--json"]).stdout
        let notice = try JSONParser.parse(rang)
        #expect(notice["title"] == "Standup")
        #expect(notice["alarm"] == "snoozed")
        #expect(notice["late"] == false)
        #expect(try at("2026-06-10T10:40:00Z", ["remind", "--once"]).stdout.isEmpty, "a snooze goes off once")
        #expect(try at("2026-06-10T10:16:00Z", ["intent", "run", "snoozeAlarm", "event=Standup", "duration=0m"], expect: 65).stderr
            .contains("error: duration: a snooze must be for some time (5m, 10 minutes), not 0 minutes"))
    }

    @Test("dismiss marks the reminders of the next occurrence with one to come as gone off, without a word from remind")
    func dismiss() throws {
        try run(["event", "add", "Review", "--start", "2026-06-10 14:00", "--alarm", "30m", "--alarm", "10m"])
        _ = try at("2026-06-10T10:00:00Z", ["remind", "--once"])
        let dismissed = try at("2026-06-10T10:30:00Z", ["intent", "run", "dismissAlarm", "event=Review"])
        #expect(dismissed.stdout.contains("Dismissed its 2 reminders for “Review” (Wed Jun 10 14:00): they won't go off."), "\(dismissed.stdout)")
        #expect(try at("2026-06-10T10:31:00Z", ["alarms"]).stdout.hasPrefix("No alarms"))
        #expect(try at("2026-06-10T13:00:00Z", ["remind", "--once"]).stdout.isEmpty)
        let again = try at("2026-06-10T13:00:00Z", ["intent", "run", "dismissAlarm", "event=Review", "occurrence=2026-06-10 14:00"])
        #expect(again.stdout.contains("“Review” (Wed Jun 10 14:00) has no reminder left to dismiss."), "\(again.stdout)")
        // Not journaled: the history holds the event's creation alone.
        guard case .array(let entries) = try json(["history"]) else { Issue.record("no history"); return }
        #expect(entries.count == 1)
    }

    @Test("in a conversation: 'snooze it for 10 minutes', then 'dismiss the reminder'")
    func conversation() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        _ = try at("2026-06-10T10:00:00Z", ["remind", "--once"])
        _ = try at("2026-06-10T10:15:01Z", ["remind", "--once"])
        let chat = try at("2026-06-10T10:16:00Z", ["chat"], stdin: "when is standup?\nsnooze it for 10 minutes\ndismiss the reminder\n")
        let replies = chat.stdout.split(separator: "\n").map(String.init)
        #expect(replies.contains("I'll remind you of “Standup” (Wed Jun 10 12:30) again at 12:26, in 10 minutes."), "\(chat.stdout)")
        #expect(replies.contains("Dismissed its reminder for “Standup” (Wed Jun 10 12:30): it won't go off."), "\(chat.stdout)")
        #expect(try at("2026-06-10T10:30:00Z", ["remind", "--once"]).stdout.isEmpty, "the snooze was dismissed")
    }

    @Test("the daemon's intent.perform snoozes, and alarms.list shows the snooze")
    func throughTheDaemon() throws {
        let daemon = try DaemonHarness(directory: directory, store: environment["COMETCAL_DB"])
        let client = try daemon.client()
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
        func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
        let created = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
            ("title", "Burn"), ("startDate", .string(DateTimeValue.utc(start).description)), ("alarms", .array([object([("relative", "-PT15M")])])),
        ]))]))
        #expect(created["outcome"] == "done", "\(created)")
        let snoozed = try client.call("intent.perform", object([("intent", "snoozeAlarm"), ("parameters", object([("event", "Burn"), ("duration", "PT10M")]))]))
        #expect(snoozed["outcome"] == "done", "\(snoozed)")
        #expect(snoozed["dialog"]?["full"]?.stringValue?.contains("again at") == true, "\(snoozed)")
        let now = Date()
        let listed = try client.call("alarms.list", object([("from", .string(DateTimeValue.utc(now).description)),
                                                           ("to", .string(DateTimeValue.utc(now.addingTimeInterval(1200)).description))]))
        guard case .array(let alarms)? = listed["alarms"] else { Issue.record("\(listed)"); return }
        #expect(alarms.count == 1)
        #expect(alarms.first?["alarm"] == "snoozed")
        daemon.stop()
    }

    @Test("cometcal snooze EVENT DURATION and cometcal dismiss EVENT run the same intents")
    func friendlyCommands() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        _ = try at("2026-06-10T10:00:00Z", ["remind", "--once"])
        _ = try at("2026-06-10T10:15:01Z", ["remind", "--once"])
        #expect(try at("2026-06-10T10:16:00Z", ["snooze", "Standup", "5m"]).stdout
            .contains("I'll remind you of “Standup” (Wed Jun 10 12:30) again at 12:21, in 5 minutes."))
        #expect(try at("2026-06-10T10:17:00Z", ["dismiss", "Standup"]).stdout.contains("Dismissed its reminder for “Standup” (Wed Jun 10 12:30): it won't go off."))
        #expect(try at("2026-06-10T10:30:00Z", ["remind", "--once"]).stdout.isEmpty)
        #expect(try at("2026-06-10T10:16:00Z", ["snooze", "Standup", "soon"], expect: 64).stderr.contains("duration"))
    }
}
