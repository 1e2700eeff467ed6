import Foundation
import Testing
import CometSchema
import TestThreads

/// The real daemon, over its socket (docs/daemon.md).
@Suite("cometcald", .serialized)
struct DaemonTests {
    static let picnic = """
        BEGIN:VCALENDAR
        VERSION:2.0
        PRODID:-//test//EN
        X-WR-CALNAME:Personal
        BEGIN:VEVENT
        UID:picnic@test
        DTSTAMP:20260601T120000Z
        SUMMARY:Picnic
        DTSTART;TZID=America/Los_Angeles:20260613T140000
        DTEND;TZID=America/Los_Angeles:20260613T160000
        LOCATION:Dolores Park
        DESCRIPTION:Bring a chocolate cake
        ATTENDEE;CN=Ada Lovelace;PARTSTAT=ACCEPTED:mailto:ada@example.org
        END:VEVENT
        END:VCALENDAR

        """

    private func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

    @Test("every method answers; value state in JSON: absent is unset, null clears, a value sets")
    func everyMethod() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        let health = try client.call("health")
        #expect(health["status"] == "ok")
        #expect(health["store"] == .string(daemon.store))
        #expect(try client.call("schema")["domains"] != nil)

        let imported = try client.call("ical.import", object([("content", .string(DaemonTests.picnic))]))
        #expect(imported["added"] == .int(1), "\(imported)")
        let found = try client.call("entity.search", object([("entity", "Event"), ("text", "picnic")]))
        guard case .array(let entities)? = found["entities"], case .string(let id)? = entities.first?["id"] else { Issue.record("\(found)"); return }
        let got = try client.call("entity.get", object([("entity", "Event"), ("id", .string(id))]))
        #expect(got["entity"]?["title"] == "Picnic")

        // Set the note, clear the location, leave the rest.
        let updated = try client.call("intent.perform", object([("intent", "updateEvent"), ("confirmed", true),
            ("parameters", object([("event", "Picnic"), ("note", "Bring two cakes"), ("location", .null)]))]))
        #expect(updated["outcome"] == "needsConfirmation" || updated["outcome"] == "done", "\(updated)")
        let after = try client.call("entity.get", object([("entity", "Event"), ("id", .string(id))]))["entity"]
        #expect(after?["note"] == "Bring two cakes")
        #expect(after?["location"] == nil)
        #expect(after?["startDate"] == got["entity"]?["startDate"], "unset stays")

        let shared = try client.call("intent.perform", object([("intent", "updateEvent"), ("parameters", object([("event", "Picnic"), ("startDate", "2026-06-13T11:30:00-07:00")]))]))
        #expect(shared["outcome"] == "needsConfirmation", "a shared event asks first")
        let confirmed = try client.call("intent.perform", object([("intent", "updateEvent"), ("confirmed", true), ("parameters", object([("event", "Picnic"), ("startDate", "2026-06-13T11:30:00-07:00")]))]))
        #expect(confirmed["outcome"] == "done")

        let agenda = try client.call("agenda", object([("from", "2026-06-13T00:00:00-07:00"), ("to", "2026-06-14T00:00:00-07:00")]))
        guard case .array(let occurrences)? = agenda["occurrences"] else { Issue.record("\(agenda)"); return }
        #expect(occurrences.count == 1)
        let exported = try client.call("ical.export", object([("calendar", "Personal")]))
        #expect(exported["content"]?.stringValue?.contains("SUMMARY:Picnic") == true)
        let history = try client.call("history", object([("limit", 5)]))
        guard case .array(let entries)? = history["entries"] else { Issue.record("\(history)"); return }
        #expect(entries.count == 3, "the import and the two updates")
        #expect(entries.last?["intent"] == "ical.import")
        #expect(try client.call("undo")["outcome"] == "done")
        #expect(try client.call("redo")["outcome"] == "done")

        let unknownParameter = try client.call("intent.perform", object([("intent", "updateEvent"), ("parameters", object([("event", "Picnic"), ("titel", "x")]))]))
        #expect(unknownParameter["outcome"] == "failed")
        #expect(unknownParameter["error"]?["code"] == "unknown_parameter")
        let badParams = try client.call("agenda", object([("from", "yesterday"), ("to", "2026-06-14T00:00:00Z")]))
        #expect(badParams["code"] == .int(-32602))
        let badMethod = try client.call("agnda")
        #expect(badMethod["code"] == .int(-32601))
        #expect(badMethod["message"]?.stringValue?.contains("did you mean 'agenda'") == true)
    }

    @Test("a conversation held over conversation.say, with a confirmation and a correction")
    func conversation() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        _ = try client.call("ical.import", object([("content", .string(DaemonTests.picnic))]))
        let session = try client.call("conversation.open", object([("now", "2026-06-08T09:00:00-07:00"), ("timeZone", "America/Los_Angeles")]))["session"]
        func say(_ text: String) throws -> JSONValue { try client.call("conversation.say", object([("session", session ?? .null), ("text", .string(text))])) }
        #expect(try say("Who's coming to my picnic?")["reply"]?.stringValue?.contains("Ada Lovelace (accepted)") == true)
        let move = try say("Move it to noon")
        #expect(move["outcome"] == "needsConfirmation")
        #expect(move["interpretation"]?["action"] == "update")
        guard case .array(let slots)? = move["interpretation"]?["slots"] else { Issue.record("no slots: \(move)"); return }
        #expect(slots.last?["raw"] == "noon")
        let corrected = try say("actually 11:30 am")
        #expect(corrected["interpretation"]?["kind"] == "answer")
        #expect(corrected["outcome"] == "needsConfirmation")
        #expect(corrected["reply"]?.stringValue?.contains("11:30") == true)
        let done = try say("sounds good, thanks")
        #expect(done["outcome"] == "done")
        #expect(done["snippet"]?["title"] == "Picnic")
        #expect(try client.call("conversation.close", object([("session", session ?? .null)]))["closed"] == true)
        #expect(try say("hello")["code"] == .int(-32602), "a closed session is gone")
    }

    @Test("intent.perform: a blank title fails naming the parameter as JSON spells it; an event with a start and no end lasts an hour (issue 20, items 7 and 8)")
    func blankTitleAndDefaultLength() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        let blank = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([("title", "  "), ("startDate", "2026-06-12T21:00:00-07:00")]))]))
        #expect(blank["outcome"] == "failed", "\(blank)")
        #expect(blank["error"]?["code"] == "invalid_value")
        #expect(blank["error"]?["parameter"] == "title")
        #expect(blank["error"]?["message"] == "a title must have something in it")
        let created = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([("title", "Stargazing"), ("startDate", "2026-06-12T21:00:00-07:00")]))]))
        #expect(created["outcome"] == "done", "\(created)")
        // A time with an offset and no zone is an instant: stored in UTC, the end an hour later.
        #expect(created["entity"]?["startDate"] == "2026-06-13T04:00:00Z", "\(created)")
        #expect(created["entity"]?["endDate"] == "2026-06-13T05:00:00Z", "\(created)")
    }

    @Test("ical.import is one journal entry named by its label (else its file's name), and undo takes it back")
    func importIsJournaled() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        let labelled = try client.call("ical.import", object([("content", .string(DaemonTests.picnic)), ("name", "picnic.ics"), ("label", "the folder cals")]))
        #expect(labelled["journal"] == .int(1), "\(labelled)")
        let history = try client.call("history", object([("limit", 1)]))
        guard case .array(let entries)? = history["entries"] else { Issue.record("\(history)"); return }
        #expect(entries.first?["summary"] == "Imported 1 event from the folder cals")
        #expect(entries.first?["intent"] == "ical.import")
        let undone = try client.call("undo")
        #expect(undone["outcome"] == "done", "\(undone)")
        let found = try client.call("entity.search", object([("entity", "Event"), ("text", "picnic")]))
        #expect(found["entities"] == .array([]), "\(found)")
        _ = try client.call("ical.import", object([("content", .string(DaemonTests.picnic)), ("name", "picnic.ics")]))
        let named = try client.call("history", object([("limit", 1)]))
        guard case .array(let latest)? = named["entries"] else { Issue.record("\(named)"); return }
        #expect(latest.first?["summary"] == "Imported 1 event from picnic.ics")
    }

    @Test("one client subscribes and sees another's changes, imports, undo and redo")
    func subscriptions() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.client()
        let writer = try daemon.client()
        #expect(try watcher.call("subscribe", object([("topics", ["changes"])]))["topics"] == ["changes"])
        _ = try writer.call("ical.import", object([("content", .string(DaemonTests.picnic))]))
        let importNote = try watcher.notification()
        #expect(importNote["method"] == "changed")
        #expect(importNote["params"]?["intent"] == "ical.import")
        #expect(importNote["params"]?["journal"] == .int(1), "an import is a journal entry")
        _ = try writer.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([("title", "Stargazing"), ("startDate", "2026-06-12T21:00:00-07:00")]))]))
        let created = try watcher.notification()
        #expect(created["params"]?["intent"] == "calendar.createEvent")
        guard case .array(let changes)? = created["params"]?["changes"] else { Issue.record("\(created)"); return }
        #expect(changes.first?["change"] == "created")
        #expect(created["params"]?["journal"] == .int(2))
        _ = try writer.call("undo")
        let undone = try watcher.notification()
        #expect(undone["params"]?["intent"] == "undo")
        guard case .array(let undoChanges)? = undone["params"]?["changes"] else { Issue.record("\(undone)"); return }
        #expect(undoChanges.first?["change"] == "deleted", "undoing a create deletes")
        _ = try watcher.call("unsubscribe")
        _ = try writer.call("redo")
        #expect(throws: (any Error).self) { try watcher.notification(timeout: 0.5) }
    }

    @Test("a client that sends its requests and ends its input still gets every answer; a frame cut off by the end is answered with an error")
    func halfClose() throws {
        let daemon = try DaemonHarness()
        for _ in 0..<20 {
            let client = try daemon.client()
            client.sendFrame(object([("jsonrpc", "2.0"), ("id", 1), ("method", "health")]))
            shutdown(client.fd, Int32(SHUT_WR))
            #expect(try client.receive(timeout: 10)["result"]?["status"] == "ok")
        }
        let cut = try daemon.client()
        cut.sendRaw(Array("Content-Length: 50\r\n\r\n{\"jsonrpc\"".utf8))
        shutdown(cut.fd, Int32(SHUT_WR))
        #expect(try cut.receive(timeout: 10)["error"]?["code"] == .int(-32700))
    }

    @Test("“undo that” in a conversation is announced like the undo method")
    func conversationUndoAnnounced() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.client()
        let talker = try daemon.client()
        _ = try watcher.call("subscribe", object([("topics", ["changes"])]))
        let session = try talker.call("conversation.open", object([("now", "2026-06-08T09:00:00-07:00"), ("timeZone", "America/Los_Angeles")]))["session"] ?? .null
        #expect(try talker.call("conversation.say", object([("session", session), ("text", "schedule Stargazing for Friday at 9pm")]))["outcome"] == "done")
        #expect(try watcher.notification()["params"]?["intent"] == "calendar.createEvent")
        #expect(try talker.call("conversation.say", object([("session", session), ("text", "undo that")]))["outcome"] == "done")
        let undone = try watcher.notification()
        #expect(undone["params"]?["intent"] == "undo")
        guard case .array(let changes)? = undone["params"]?["changes"] else { Issue.record("\(undone)"); return }
        #expect(changes.contains { $0["change"] == "deleted" })
    }

    @Test("a change made beside the daemon, by a cometcal on the same store, is announced too")
    func changesBesideTheDaemon() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.client()
        _ = try watcher.call("subscribe", object([("topics", ["changes"])]))
        let added = try CLIRunner.run(["event", "add", "Stargazing", "--start", "2026-06-12 21:00"], environment: ["COMETCAL_DB": daemon.store])
        #expect(added.status == 0, "\(added.stderr)")
        let note = try watcher.notification(timeout: 10)
        #expect(note["params"]?["intent"] == "calendar.createEvent")
    }

    @Test("32 clients writing at once: every write lands once")
    func concurrentWriters() throws {
        let daemon = try DaemonHarness()
        let setup = try daemon.client()
        _ = try setup.call("ical.import", object([("content", .string(DaemonTests.picnic))]))
        let failures = Locked(0)
        WorkerThreads.run(32) { index in
            do {
                let client = try daemon.client()
                for step in 0..<5 {
                    let result = try client.call("intent.perform", object([("intent", "createEvent"), ("parameters", object([
                        ("title", .string("Load \(index)-\(step)")), ("startDate", "2026-07-01T09:00:00-07:00"), ("calendar", "Personal")]))]))
                    if result["outcome"] != "done" { failures.mutate { $0 += 1 } }
                }
            } catch {
                failures.mutate { $0 += 1 }
            }
        }
        #expect(failures.value == 0)
        let all = try setup.call("entity.search", object([("entity", "Event"), ("text", "Load")]))
        guard case .array(let events)? = all["entities"] else { Issue.record("\(all)"); return }
        #expect(events.count == 160)
        #expect(Set(events.compactMap { $0["title"]?.stringValue }).count == 160, "no duplicate")
    }

    @Test("a half frame, garbage and an oversized request: the right errors, and everyone else goes on")
    func badClients() throws {
        let daemon = try DaemonHarness(arguments: ["--max-request", "4096"])
        let silent = try daemon.client()
        silent.sendRaw(Array("Content-Length: 100\r\n\r\n{\"jsonrpc\"".utf8))  // and stops
        let other = try daemon.client()
        #expect(try other.call("health")["status"] == "ok", "a silent client holds up nobody")

        let garbage = try daemon.client()
        garbage.sendRaw(Array("\u{00}\u{FF}nonsense\r\n\r\n".utf8))
        let parseError = try garbage.receive()
        #expect(parseError["error"]?["code"] == .int(-32700))
        garbage.sendRaw(Array("Content-Length: 5\r\n\r\n{oops".utf8))
        #expect(try garbage.receive()["error"]?["code"] == .int(-32700))
        #expect(try garbage.call("health")["status"] == "ok", "the connection goes on")

        let big = String(repeating: "x", count: 10_000)
        garbage.sendFrame(object([("jsonrpc", "2.0"), ("id", 9), ("method", "ical.import"), ("params", object([("content", .string(big))]))]))
        let tooLarge = try garbage.receive()
        #expect(tooLarge["error"]?["code"] == .int(-32001))
        #expect(tooLarge["error"]?["data"]?["limit"] == .int(4096))
        #expect(try garbage.call("health")["status"] == "ok")
    }

    @Test("a frame not complete 30 seconds after its first byte is answered with -32002 and its connection is closed")
    func frameDeadline() throws {
        let daemon = try DaemonHarness()
        let slow = try daemon.client()
        let started = Date()
        slow.sendRaw(Array("Content-Length: 100\r\n\r\n{\"jsonrpc\"".utf8))  // and stops
        let answer = try slow.receive(timeout: 45)
        let waited = Date().timeIntervalSince(started)
        #expect(answer["error"]?["code"] == .int(-32002), "\(answer)")
        #expect(answer["error"]?["message"]?.stringValue?.contains("within 30 s") == true, "\(answer)")
        #expect(waited >= 30 && waited < 40, "answered after \(waited) s")
        var closed = false
        do { _ = try slow.receive(timeout: 5) } catch DaemonHarness.HarnessError.closed { closed = true }
        #expect(closed, "then the connection is closed")
        #expect(try daemon.client().call("health")["status"] == "ok")
    }

    @Test("one daemon per store: a second start says who holds it")
    func lockFile() throws {
        let first = try DaemonHarness()
        let second = Process()
        second.executableURL = try CLIRunner.binary("cometcald")
        second.arguments = ["--db", first.store, "--socket", first.directory.appendingPathComponent("other.sock").path]
        let err = Pipe()
        second.standardError = err
        try second.run()
        second.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(second.terminationStatus == 75)
        #expect(message.contains("another cometcald serves this store (pid \(first.process.processIdentifier), socket \(first.socket))"), "\(message)")
    }

    @Test("SIGHUP with a broken schema keeps the old registry and logs why; SIGTERM removes the socket")
    func reloadAndStop() throws {
        let schemas = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: schemas) }
        for name in try FileManager.default.contentsOfDirectory(atPath: CLIRunner.repositoryRoot.appendingPathComponent("Schemas/calendar").path) {
            try FileManager.default.copyItem(at: CLIRunner.repositoryRoot.appendingPathComponent("Schemas/calendar/\(name)"), to: schemas.appendingPathComponent(name))
        }
        let daemon = try DaemonHarness(schemas: schemas.path)
        let client = try daemon.client()
        try "domain calendar\nindexed entity Broken { id: UUID\n title: Strng }\n".write(to: schemas.appendingPathComponent("broken.cal"), atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        // Reloading compiles the schemas and opens the store five times: slow on a busy machine.
        let deadline = Date().addingTimeInterval(30)
        while !daemon.readLog().contains("reload refused"), Date() < deadline { usleep(50_000) }
        #expect(daemon.logText.contains("reload refused; the old schemas stay"))
        #expect(daemon.logText.contains("unknown type 'Strng'"))
        #expect(try client.call("health")["status"] == "ok")
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        #expect(daemon.logText.contains("msg=stopped"))
    }
}

/// A value shared by concurrent test code.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
