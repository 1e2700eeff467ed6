import Foundation
import Synchronization
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometConversation

/// One event edited at once from every side CometCal has: calendar clients over CalDAV (a PUT
/// with If-Match after a GET, again after a 412), the CLI (an engine of its own on the same
/// store file, as `cometcal event update` opens one) and a conversation (another engine and a
/// `Conversation`). Each side changes the event's note to a value of its own, so every
/// acknowledged change can be found afterwards.
@Suite("CalDAV: concurrent edits of one event", .serialized)
struct CalDAVConcurrencyTests {
    static let path = "/dav/calendars/alice/team/comet-sync.ics"

    static func event(note: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:comet-sync\r\nDTSTAMP:20260601T080000Z\r\n"
            + "DTSTART;TZID=Europe/Berlin:20270310T100000\r\nDTEND;TZID=Europe/Berlin:20270310T110000\r\nSUMMARY:Comet sync\r\nDESCRIPTION:\(note)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    }

    /// A server with the calendar `team` holding the event "Comet sync".
    static func server() throws -> LiveServer {
        let server = try LiveServer()
        try #require(try server.send("MKCALENDAR", "/dav/calendars/alice/team/").status == 201)
        try #require(try server.send("PUT", path, body: event(note: "first"), headers: ["Content-Type": "text/calendar"]).status == 201)
        return server
    }

    /// An engine of its own on the server's store file: what the CLI opens next to a daemon.
    static func ownEngine(_ server: LiveServer) throws -> IntentEngine {
        let store = try SQLiteStore.opener.open(.file(server.folder.appendingPathComponent("store.sqlite").path), registry: server.engine.registry)
        return IntentEngine(store: store, timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
    }

    /// `cometcal event update "Comet sync" --note NOTE`, as the engine is asked it.
    static func cliUpdate(_ engine: IntentEngine, note: String) -> IntentOutcome {
        engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings(["note": .set(.string(note))]),
                                     references: ["event": "Comet sync"], confirmation: .confirmed))
    }

    /// A conversation whose clock is before the event, in its zone.
    static func conversation(_ engine: IntentEngine) throws -> Conversation {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let day = try #require(CalendarDate(year: 2027, month: 3, day: 8))
        let now = try #require(LocalDateTime(date: day, hour: 9, minute: 0)?.dateTime(in: zone).instant)
        return Conversation(engine: engine, now: now, timeZone: zone)
    }

    /// The event's note as the store has it, and how many records carry its UID.
    static func stored(_ server: LiveServer) throws -> (note: String?, records: Int) {
        let engine = try ownEngine(server)
        let team = try #require(try engine.calendarCollections().first { $0.title == "team" })
        let resources = try engine.resources(in: team.id)
        let texts = try engine.resourceTexts(in: team.id, named: resources.map(\.name))
        let notes = texts.flatMap { $0.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("DESCRIPTION:") } }
        return (notes.first.map { String($0.dropFirst("DESCRIPTION:".count)) }, texts.flatMap { $0.text.components(separatedBy: "BEGIN:VEVENT").dropFirst() }.count)
    }

    @Test("a PUT whose If-Match is the ETag from before a CLI edit is 412 saying so, and the CLI's change stays")
    func staleETag() throws {
        let server = try Self.server()
        let read = try server.send("GET", Self.path)
        let etag = try #require(read.headers["etag"])
        let before = try StoreCensus(of: server)
        #expect(Self.cliUpdate(try Self.ownEngine(server), note: "from the cli").isDone)
        let stale = try server.send("PUT", Self.path, body: Self.event(note: "from a phone"), headers: ["Content-Type": "text/calendar", "If-Match": etag])
        #expect(stale.status == 412)
        #expect(stale.body.contains(etag), "\(stale.body)")
        let after = try StoreCensus(of: server)
        #expect(after.journal.count == before.journal.count + 1)
        #expect(after.records == before.records)
        #expect(try Self.stored(server).note == "from the cli")
        // With the ETag read now, the same PUT goes through.
        let fresh = try #require(try server.send("GET", Self.path).headers["etag"])
        #expect(try server.send("PUT", Self.path, body: Self.event(note: "from a phone"), headers: ["Content-Type": "text/calendar", "If-Match": fresh]).status == 204)
        #expect(try Self.stored(server).note == "from a phone")
    }

    @Test("two CalDAV clients (PUT with If-Match), the CLI's engine and a conversation edit one event at once for 6 rounds each: stale ETags get 412, every acknowledged change is the current state or in the journal, one event with the UID, one journal entry per acknowledged change")
    func concurrentEdits() throws {
        let server = try Self.server()
        let before = try StoreCensus(of: server)
        let rounds = 6
        struct Log {
            var acknowledged: [String] = []
            var stale = 0
            var problems: [String] = []
        }
        let log = Mutex(Log())
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let workers = 4
        func worker(_ body: @escaping @Sendable () throws -> Void) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                start.wait()
                do { try body() } catch { log.withLock { $0.problems.append("\(error)") } }
            }
        }
        for client in ["a", "b"] {
            worker {
                for round in 1...rounds {
                    var attempts = 0
                    while true {
                        attempts += 1
                        guard attempts <= 50 else {
                            log.withLock { $0.problems.append("caldav-\(client)-\(round): no PUT went through in 50 attempts") }
                            break
                        }
                        let read = try server.send("GET", Self.path)
                        guard read.status == 200, let etag = read.headers["etag"] else {
                            log.withLock { $0.problems.append("GET: \(read.status) \(read.body)") }
                            break
                        }
                        let note = "caldav-\(client)-\(round)"
                        let text = read.body.components(separatedBy: "\r\n").map { $0.hasPrefix("DESCRIPTION:") ? "DESCRIPTION:\(note)" : $0 }.joined(separator: "\r\n")
                        let put = try server.send("PUT", Self.path, body: text, headers: ["Content-Type": "text/calendar", "If-Match": etag])
                        if put.status == 204 {
                            log.withLock { $0.acknowledged.append(note) }
                            break
                        }
                        guard put.status == 412 else {
                            log.withLock { $0.problems.append("PUT \(note): \(put.status) \(put.body)") }
                            break
                        }
                        log.withLock { $0.stale += 1 }
                    }
                }
            }
        }
        worker {
            let engine = try Self.ownEngine(server)
            for round in 1...rounds {
                let note = "cli-\(round)"
                let outcome = Self.cliUpdate(engine, note: note)
                log.withLock { outcome.isDone ? $0.acknowledged.append(note) : $0.problems.append("cli \(note): \(outcome)") }
            }
        }
        worker {
            let conversation = try Self.conversation(try Self.ownEngine(server))
            for round in 1...rounds {
                let note = "chat-\(round)"
                let turn = conversation.say("change the note of the comet sync to \(note)")
                log.withLock { turn.outcome == .done ? $0.acknowledged.append(note) : $0.problems.append("chat \(note): \(turn.outcome.name): \(turn.reply)") }
            }
        }
        for _ in 0..<workers { start.signal() }
        #expect(group.wait(timeout: .now() + 300) == .success)
        let result = log.withLock { $0 }
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.acknowledged.count == 4 * rounds)

        // Nothing duplicated: one event (one VEVENT) with the UID, and no record more than before.
        let (note, events) = try Self.stored(server)
        #expect(events == 1)
        let after = try StoreCensus(of: server)
        #expect(after.records == before.records)
        // Every acknowledged change is one journal entry.
        #expect(after.journal.count - before.journal.count == result.acknowledged.count, "\(result.acknowledged.count) acknowledged, \(result.stale) stale")
        // Nothing lost: the last change is the current note, and each one is in the journal.
        let current = try #require(note)
        #expect(result.acknowledged.contains(current))
        let engine = try Self.ownEngine(server)
        var journaled = Set<String>()
        for entry in try engine.history(limit: 1_000) {
            guard let sequence = entry.sequence, let full = try engine.journalEntry(sequence: sequence) else { continue }
            for change in full.changes {
                for record in [change.before, change.after].compactMap({ $0 }) {
                    if case .string(let text)? = record["note"] { journaled.insert(text) }
                }
            }
        }
        let missing = result.acknowledged.filter { !journaled.contains($0) && $0 != current }
        #expect(missing.isEmpty, "acknowledged but neither current nor journaled: \(missing)")
    }
}

extension IntentOutcome {
    var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}
