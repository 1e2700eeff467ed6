import Testing
import Foundation
import CometSchema

/// The config's time_format, followed by every front end: replies, cards, confirmation prompts,
/// error messages, chat, `when` and the daemon's conversation (issue 20, item 12).
@Suite("time_format everywhere")
struct TimeFormatCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]
    /// The same store with `time_format = %-I:%M %p` in the config file.
    let twelveHour: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
        let folder = scratch.url.appendingPathComponent("config/cometcal")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "time_format = %-I:%M %p\n".write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        twelveHour = environment.merging(["XDG_CONFIG_HOME": scratch.url.appendingPathComponent("config").path]) { $1 }
    }

    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    @discardableResult
    func run12(_ arguments: [String], expect status: Int32 = 0, stdin: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try CLIRunner.run(arguments, environment: twelveHour, stdin: stdin)
        #expect(result.status == status, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test("with time_format %-I:%M %p, the reply of event add and the card of event show say 12-hour times")
    func replyAndCard() throws {
        let added = try run12(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "2026-06-11 15:30"])
        #expect(added.stdout.hasPrefix("Created “Review” for Thu Jun 11 2:00 PM–3:30 PM."), "\(added.stdout)")
        #expect(!added.stdout.contains("14:00"), "\(added.stdout)")
        let card = try run12(["event", "show", "Review"])
        #expect(card.stdout.contains("Thu Jun 11 2:00 PM–3:30 PM"), "\(card.stdout)")
    }

    @Test("with time_format %-I:%M %p, a move's confirmation prompt and an end-before-start error say 12-hour times")
    func promptAndError() throws {
        try run12(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "+1h", "--attendee", "Ada <ada@example.org>"])
        let refused = try run12(["event", "update", "Review", "--start", "2026-06-11 16:00", "--end", "2026-06-11 17:00"], expect: 64)
        #expect(refused.stderr.contains("Move “Review” to Thu Jun 11 4:00 PM–5:00 PM? It has 1 attendee,"), "\(refused.stderr)")
        let backwards = try run12(["event", "add", "Backwards", "--start", "2026-06-11 14:00", "--end", "2026-06-11 13:00"], expect: 65)
        #expect(backwards.stderr.contains("the end (Thu Jun 11 2026 1:00 PM) is before the start (Thu Jun 11 2026 2:00 PM"), "\(backwards.stderr)")
    }

    @Test("with time_format %-I:%M %p, chat replies say 12-hour times")
    func chat() throws {
        try run12(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "+1h"])
        let session = try run12(["chat"], stdin: "when is review?\n")
        #expect(session.stdout.contains("2:00 PM–3:00 PM"), "\(session.stdout)")
        #expect(!session.stdout.contains("14:00"), "\(session.stdout)")
    }

    @Test("with time_format %-I:%M %p, cometcal when says 12-hour times and keeps ISO 8601 beside them")
    func when() throws {
        let instant = try run12(["when", "tomorrow at 3pm"])
        #expect(instant.stdout.contains("Thursday, June 11, 2026, 3:00 PM (2026-06-11T15:00:00+02:00"), "\(instant.stdout)")
        let clock = try run12(["when", "at 9:30pm"])
        #expect(clock.stdout.contains("9:30 PM"), "\(clock.stdout)")
        let range = try run12(["when", "tomorrow from 9am to 5pm"])
        #expect(range.stdout.contains("9:00 AM to 5:00 PM ("), "\(range.stdout)")
    }

    @Test("--json keeps ISO 8601 whatever time_format says")
    func jsonKeepsISO() throws {
        let created = try JSONParser.parse(try run12(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "+1h", "--json"]).stdout)
        #expect(created["entity"]?["startDate"] == "2026-06-11T14:00:00+02:00[Europe/Berlin]")
        let when = try JSONParser.parse(try run12(["when", "tomorrow at 3pm", "--json"]).stdout)
        #expect(when["value"]?.stringValue?.hasPrefix("2026-06-11T15:00:00") == true, "\(when)")
    }

    @Test("without a time_format, replies, cards and when say 24-hour times as before")
    func defaultUnchanged() throws {
        let added = try run(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "2026-06-11 15:30"])
        #expect(added.stdout.contains("Thu Jun 11 14:00–15:30"), "\(added.stdout)")
        #expect(try run(["event", "show", "Review"]).stdout.contains("Thu Jun 11 14:00–15:30"))
        #expect(try run(["when", "tomorrow at 3pm"]).stdout.contains("Thursday, June 11, 2026, 15:00 ("))
    }

    @Test("with time_format %-I:%M %p, a snooze's reply says 12-hour times")
    func snooze() throws {
        func at(_ now: String, _ arguments: [String]) throws -> CLIResult {
            let result = try CLIRunner.run(arguments, environment: twelveHour.merging(["COMETCAL_NOW": now]) { $1 })
            #expect(result.status == 0, "cometcal \(arguments.joined(separator: " ")) → \(result.status)\n\(result.stdout)\n\(result.stderr)")
            return result
        }
        _ = try at("2026-06-10T10:00:00Z", ["event", "add", "Standup", "--start", "2026-06-10 12:30", "--alarm", "15m"])
        _ = try at("2026-06-10T10:00:00Z", ["remind", "--once"])
        _ = try at("2026-06-10T10:15:01Z", ["remind", "--once"])
        let snoozed = try at("2026-06-10T10:16:00Z", ["snooze", "Standup", "5m"])
        #expect(snoozed.stdout.contains("I'll remind you of “Standup” (Wed Jun 10 12:30 PM) again at 12:21 PM, in 5 minutes."), "\(snoozed.stdout)")
    }

    @Test("with time_format %-I:%M %p, history writes when each change was made in 12-hour time")
    func history() throws {
        try run12(["event", "add", "Review", "--start", "2026-06-11 14:00", "--end", "+1h"])
        // COMETCAL_NOW is 10:00 UTC, 12:00 in Berlin.
        let listed = try run12(["history"])
        #expect(listed.stdout.contains("   1  2026-06-10 12:00 PM  Created event “Review”"), "\(listed.stdout)")
        #expect(try run(["history"]).stdout.contains("   1  2026-06-10 12:00  Created event “Review”"))
    }

    @Test("conversation scripts keep 24-hour times whatever time_format says")
    func scriptsKeepTwentyFourHour() throws {
        // This script expects the exact reply "Move “Picnic” to Sat Jun 13 15:00–17:00? …".
        let script = CLIRunner.repositoryRoot.appendingPathComponent("Examples/conversations/people-01-shift-picnic-three.convo").path
        let result = try run12(["converse", script])
        #expect(result.stdout.hasSuffix("1 passed, 0 failed\n"), "\(result.stdout)")
    }

    @Test("the daemon's conversation.say follows the time_format of the daemon's config file")
    func daemonConversation() throws {
        let daemon = try DaemonHarness(environment: ["XDG_CONFIG_HOME": scratch.url.appendingPathComponent("config").path])
        let client = try daemon.client()
        let session = try client.call("conversation.open", object([("now", "2026-06-08T09:00:00-07:00"), ("timeZone", "America/Los_Angeles")]))["session"] ?? .null
        let reply = try client.call("conversation.say", object([("session", session), ("text", "schedule Stargazing for Friday at 9pm")]))
        #expect(reply["outcome"] == "done", "\(reply)")
        #expect(reply["reply"]?.stringValue?.contains("9:00 PM") == true, "\(reply)")
    }

    @Test("the daemon's intent.perform replies follow the time_format of the daemon's config file")
    func daemonIntent() throws {
        let daemon = try DaemonHarness(environment: ["XDG_CONFIG_HOME": scratch.url.appendingPathComponent("config").path])
        let created = try daemon.client().call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
            ("title", "Burn"), ("startDate", "2026-06-12T21:00:00-07:00[America/Los_Angeles]"), ("endDate", "2026-06-12T22:00:00-07:00[America/Los_Angeles]"),
        ]))]))
        #expect(created["outcome"] == "done", "\(created)")
        #expect(created["dialog"]?["full"]?.stringValue?.contains("9:00 PM–10:00 PM") == true, "\(created)")
        #expect(created["entity"]?["startDate"] == "2026-06-12T21:00:00-07:00[America/Los_Angeles]", "\(created)")
    }

    @Test("without a time_format, the daemon's replies say 24-hour times")
    func daemonDefault() throws {
        let daemon = try DaemonHarness()
        let created = try daemon.client().call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
            ("title", "Burn"), ("startDate", "2026-06-12T21:00:00-07:00[America/Los_Angeles]"), ("endDate", "2026-06-12T22:00:00-07:00[America/Los_Angeles]"),
        ]))]))
        #expect(created["dialog"]?["full"]?.stringValue?.contains("21:00–22:00") == true, "\(created)")
    }

    @Test("a bad time_format stops the daemon at start, naming the line, exit 78")
    func daemonRefusesBadFormat() throws {
        let folder = scratch.url.appendingPathComponent("bad/cometcal")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "time_format = %H:%Q\n".write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let result = try CLIRunner.run(["--db", scratch.url.appendingPathComponent("d.sqlite").path, "--socket", scratch.url.appendingPathComponent("daemon-run/d.sock").path],
                                       environment: ["XDG_CONFIG_HOME": scratch.url.appendingPathComponent("bad").path], program: "cometcald")
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("cometcald: "), "\(result.stderr)")
        #expect(result.stderr.contains("config:1:15: error: time_format: '%Q' is not a format directive"), "\(result.stderr)")
    }
}
