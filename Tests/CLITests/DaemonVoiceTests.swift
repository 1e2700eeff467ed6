import Foundation
import Testing
import CometSchema

/// `conversation.say` with `audio` over a real daemon: espeak-ng's speech heard with the
/// language compiled for the daemon's store, the reply spoken back with `speak` (docs/daemon.md,
/// docs/voice.md).
@Suite("cometcald hears audio", .serialized)
struct DaemonVoiceTests {
    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    /// `text` spoken by espeak-ng as a WAVE file at `rate` (16 kHz unless said), base64.
    static func speech(_ text: String, in directory: URL, name: String, rate: Int = 16_000) throws -> String {
        let raw = directory.appendingPathComponent(name + "-raw.wav").path
        let wave = directory.appendingPathComponent(name + ".wav").path
        try ListenCommandTests.tool("espeak-ng", ["-v", "en-us", "-s", "150", "-w", raw, text])
        try ListenCommandTests.tool("sox", [raw, "-r", String(rate), "-c", "1", "-b", "16", "-e", "signed-integer", wave])
        return try Data(contentsOf: URL(fileURLWithPath: wave)).base64EncodedString()
    }

    static func silence(in directory: URL) throws -> String {
        let wave = directory.appendingPathComponent("silence.wav").path
        try ListenCommandTests.tool("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", wave, "trim", "0", "2"])
        return try Data(contentsOf: URL(fileURLWithPath: wave)).base64EncodedString()
    }

    @Test("a spoken question is heard and answered, with what was heard and the reply as audio; a spoken delete and a spoken yes change the store; silence changes nothing")
    func spokenTurns() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        _ = try client.call("ical.import", object([("content", .string(DaemonTests.picnic))]))
        _ = try client.call("ical.import", object([("content", .string(DaemonVoiceTests.party))]))
        let session = try client.call("conversation.open", object([("now", "2026-06-08T09:00:00-07:00"), ("timeZone", "America/Los_Angeles")]))["session"] ?? .null
        func hear(_ audio: String, speak: Bool = false) throws -> JSONValue {
            try client.call("conversation.say", object([("session", session), ("audio", .string(audio)), ("speak", .bool(speak))]), timeout: 60)
        }
        func events() throws -> Int {
            guard case .array(let found)? = try client.call("entity.search", object([("entity", "Event")]))["entities"] else { return -1 }
            return found.count
        }

        let question = try hear(try DaemonVoiceTests.speech("Where is the picnic?", in: daemon.directory, name: "where"), speak: true)
        let heard = question["heard"]?["text"]?.stringValue ?? ""
        #expect(heard.hasPrefix("where is") && heard.hasSuffix("picnic"), "heard “\(heard)”: \(question)")
        #expect(question["reply"]?.stringValue?.contains("Dolores Park") == true, "\(question)")
        #expect(question["gate"]?["decision"]?.stringValue?.hasPrefix("passed") == true, "\(question)")
        // The spoken reply: a WAVE file whose header says espeak-ng's rate, with sound in it.
        let wave = Data(base64Encoded: question["audio"]?.stringValue ?? "") ?? Data()
        #expect(wave.count > 44 + 22_050, "at least half a second of speech: \(wave.count) bytes")
        #expect(String(decoding: wave.prefix(4), as: UTF8.self) == "RIFF")
        if wave.count > 28 { #expect(wave[24..<28].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) } == 22_050) }
        let before = try events()
        #expect(before == 2)

        // Silence: "I didn't catch that", nothing written.
        let silence = try hear(try DaemonVoiceTests.silence(in: daemon.directory))
        #expect(silence["reply"] == "I didn't catch that.", "\(silence)")
        #expect(silence["gate"]?["decision"] == "notCaught")
        #expect(silence["heard"]?["text"] == "")
        #expect(try events() == before)

        // A deletion asks (the engine's policy, or the gate's "Did you say …?"), and the yes does it.
        let delete = try hear(try DaemonVoiceTests.speech("Delete the meteor shower party", in: daemon.directory, name: "delete"))
        #expect(delete["outcome"] == "needsConfirmation", "\(delete)")
        #expect(try events() == before, "nothing is written before the yes")
        // A yes to each question: the gate's "Did you say …?" when the hearing was unsure, then the engine's.
        let yes = try DaemonVoiceTests.speech("yes", in: daemon.directory, name: "yes")
        var answer = try hear(yes)
        if answer["outcome"] == "needsConfirmation" { answer = try hear(yes) }
        #expect(answer["outcome"] == "done", "\(answer)")
        #expect(try events() == before - 1)
        let left = try client.call("entity.search", object([("entity", "Event"), ("text", "meteor")]))
        #expect(left["entities"] == .array([]), "\(left)")

        // The change starts a rebuild of the language in the background; the log says when it is done.
        let deadline = Date().addingTimeInterval(20)
        while !daemon.readLog().contains("voice: language rebuilt"), Date() < deadline { usleep(100_000) }
        #expect(daemon.logText.contains("voice: language compiled"))
        #expect(daemon.logText.contains("voice: language rebuilt"), "\(daemon.logText.suffix(2000))")
    }

    @Test("voice.language compiles the daemon's first language when asked, once, and answers its compile report; spoken turns then hear with it")
    func language() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        _ = try client.call("ical.import", object([("content", .string(DaemonVoiceTests.party))]))
        let first = try client.call("voice.language", nil, timeout: 60)
        #expect(first["compiledNow"] == .bool(true), "\(first)")
        guard case .int(let sentences)? = first["compiled"]?["sentences"] else { Issue.record("no compile report: \(first)"); return }
        #expect(sentences > 0)
        #expect(first["compiled"]?.objectValue?.keys == ["sentences", "words", "seconds", "unpronounceable", "respelled"])
        #expect(first["compiled"]?["unpronounceable"]?["appt"] != nil, "the calendar schemas' words cmudict lacks: \(first)")
        let second = try client.call("voice.language")
        #expect(second["compiledNow"] == .bool(false))
        #expect(second["compiled"] == first["compiled"], "the same language, not compiled again")
        let unknown = try client.call("voice.language", object([("now", "2026-06-08T09:00:00-07:00")]))
        #expect(unknown["code"] == .int(-32602), "\(unknown)")

        let session = try client.call("conversation.open", object([]))["session"] ?? .null
        let heard = try client.call("conversation.say", object([("session", session), ("audio", .string(try DaemonVoiceTests.silence(in: daemon.directory)))]))
        #expect(heard["reply"] == "I didn't catch that.", "\(heard)")
        daemon.readLog()
        #expect(daemon.logText.components(separatedBy: "voice: language compiled").count == 2, "compiled once: \(daemon.logText.suffix(2000))")
    }

    @Test("audio that is not base64, not a WAVE file or not 16 kHz is refused as invalid params, naming the field and what to do")
    func badAudio() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        let session = try client.call("conversation.open", object([]))["session"] ?? .null
        func say(_ params: [(String, JSONValue)]) throws -> JSONValue { try client.call("conversation.say", object([("session", session)] + params)) }

        let notBase64 = try say([("audio", "this is not base64!")])
        #expect(notBase64["code"] == .int(-32602))
        #expect(notBase64["message"]?.stringValue?.hasPrefix("audio: not base64") == true, "\(notBase64)")
        #expect(notBase64["data"]?["field"] == "audio")

        let notWave = try say([("audio", .string(Data("hello, not a wave".utf8).base64EncodedString()))])
        #expect(notWave["code"] == .int(-32602))
        #expect(notWave["message"]?.stringValue?.contains("not a WAVE file") == true, "\(notWave)")

        let eightKilohertz = try say([("audio", .string(try DaemonVoiceTests.speech("hello", in: daemon.directory, name: "narrow", rate: 8_000)))])
        #expect(eightKilohertz["code"] == .int(-32602))
        let message = eightKilohertz["message"]?.stringValue ?? ""
        #expect(message.hasPrefix("audio: ") && message.contains("8000 Hz") && message.contains("sox IN.wav -r 16000 -c 1 -b 16"), "\(message)")

        let both = try say([("audio", .string(try DaemonVoiceTests.silence(in: daemon.directory))), ("text", "hello")])
        #expect(both["code"] == .int(-32602))
        // Typed words may be answered aloud too.
        let typed = try say([("text", "where is the picnic"), ("speak", true)])
        #expect((typed["audio"]?.stringValue?.count ?? 0) > 1000, "\(typed)")
        #expect(typed["heard"] == nil, "nothing was heard: the words were typed")

        let neither = try say([])
        #expect(neither["code"] == .int(-32602))
        #expect(neither["message"]?.stringValue?.contains("'text' or 'audio' is required") == true)
    }

    static let party = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//test//EN
        BEGIN:VEVENT
        UID:party@test
        DTSTAMP:20260601T120000Z
        SUMMARY:Meteor Shower Party
        DTSTART;TZID=America/Los_Angeles:20260612T210000
        DTEND;TZID=America/Los_Angeles:20260612T230000
        END:VEVENT
        END:VCALENDAR

        """
}
