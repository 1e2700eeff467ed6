import Foundation
import Testing
import CometSchema
import TestThreads

/// The example clients (Examples/clients) against a real daemon: the Python client as a command
/// (a method, params, an error, a dialog, watching another client's change), its framing and
/// default socket as a module, and the shell example.
@Suite("example clients", .serialized)
struct ExampleClientTests {
    static let clients = CLIRunner.repositoryRoot.appendingPathComponent("Examples/clients")
    static let python = clients.appendingPathComponent("cometcal_client.py").path
    static let hasSocat = ExampleClientTests.onPath("socat")

    static func onPath(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// A process started and read on its own threads, killed if it outlives its deadline.
    final class Child: @unchecked Sendable {
        let process = Process()
        let stdout = Locked(Data())
        let stderr = Locked(Data())
        private let readers = WorkerThreads()

        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["PYTHONDONTWRITEBYTECODE"] = "1"  // no __pycache__ in Examples/clients
            for (key, value) in environment { env[key] = value }
            process.environment = env
            process.currentDirectoryURL = CLIRunner.repositoryRoot
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            for (pipe, sink) in [(out, stdout), (err, stderr)] {
                readers.start {
                    while true {
                        let data = pipe.fileHandleForReading.availableData
                        if data.isEmpty { break }
                        sink.mutate { $0.append(data) }
                    }
                }
            }
        }

        var output: String { String(decoding: stdout.value, as: UTF8.self) }
        var errors: String { String(decoding: stderr.value, as: UTF8.self) }

        /// Waits until `text` shows in its stderr; false if it ends or the time is up first.
        func waitForStderr(_ text: String, seconds: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if errors.contains(text) { return true }
                if !process.isRunning { return errors.contains(text) }
                usleep(20_000)
            }
            return false
        }

        /// Its exit status; killed (and 'nil') when it runs past the deadline.
        func finish(seconds: Double = 60) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            let timedOut = process.isRunning
            if timedOut { process.terminate() }
            process.waitUntilExit()
            readers.wait()
            return timedOut ? nil : process.terminationStatus
        }
    }

    /// Runs the Python client to its end.
    func client(_ daemon: DaemonHarness, _ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try Child(["python3", ExampleClientTests.python, "--socket", daemon.socket] + arguments)
        let status = child.finish()
        return (status, child.output, child.errors)
    }

    static func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }
    static func json(_ pairs: [(String, JSONValue)]) -> String { JSONWriter.compact(object(pairs)) }

    static func picnicICS() throws -> String {
        try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("Examples/conversations/picnic.ics"), encoding: .utf8)
    }

    @Test("python: health, and a method with params (createEvent in a zone) that another client sees")
    func pythonMethods() throws {
        let daemon = try DaemonHarness()
        let health = try client(daemon, ["health"])
        #expect(health.status == 0, "\(health.stderr)")
        let status = try JSONParser.parse(health.stdout)
        #expect(status["status"] == "ok")
        #expect(status["store"] == .string(daemon.store))

        let params = ExampleClientTests.json([("intent", "createEvent"), ("parameters", ExampleClientTests.object([
            ("title", "Picnic"), ("startDate", "2026-06-13T12:00:00-07:00[America/Los_Angeles]"), ("note", "Bring a chocolate cake")]))])
        let created = try client(daemon, ["intent.perform", params])
        #expect(created.status == 0, "\(created.stderr)")
        let outcome = try JSONParser.parse(created.stdout)
        #expect(outcome["outcome"] == "done", "\(created.stdout)")
        #expect(outcome["dialog"]?["full"]?.stringValue?.contains("Created “Picnic” for Sat Jun 13 12:00") == true, "\(created.stdout)")
        #expect(outcome["journal"] == .int(1))

        let found = try daemon.client().call("entity.search", ExampleClientTests.object([("entity", "Event"), ("text", "picnic")]))
        guard case .array(let events)? = found["entities"] else { Issue.record("\(found)"); return }
        #expect(events.count == 1)
        #expect(events.first?["startDate"] == "2026-06-13T12:00:00-07:00[America/Los_Angeles]", "\(found)")
        #expect(events.first?["note"] == "Bring a chocolate cake")
    }

    @Test("python: a JSON-RPC error exits 1 with the code and message; bad params and no daemon have their own exits")
    func pythonErrors() throws {
        let daemon = try DaemonHarness()
        let unknown = try client(daemon, ["agnda"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("error -32601: no method is called 'agnda'; did you mean 'agenda'?"), "\(unknown.stderr)")

        let badParams = try client(daemon, ["agenda", ExampleClientTests.json([("from", "yesterday"), ("to", "2026-06-14T00:00:00Z")])])
        #expect(badParams.status == 1)
        #expect(badParams.stderr.contains("error -32602"), "\(badParams.stderr)")

        let notJSON = try client(daemon, ["health", "{oops"])
        #expect(notJSON.status == 64)
        #expect(notJSON.stderr.contains("the parameters are not JSON"), "\(notJSON.stderr)")
        let positional = try client(daemon, ["health", "[1]"])
        #expect(positional.status == 64)
        #expect(positional.stderr.contains("must be a JSON object"), "\(positional.stderr)")

        let noText = try client(daemon, ["say", "--now", "2026-06-08T09:00:00-07:00"])
        #expect(noText.status == 64)
        #expect(noText.stderr.contains("the following arguments are required: TEXT"), "\(noText.stderr)")

        let nowhere = try Child(["python3", ExampleClientTests.python, "--socket", daemon.directory.appendingPathComponent("none.sock").path, "health"])
        #expect(nowhere.finish() == 69)
        #expect(nowhere.errors.contains("cannot connect to cometcald at"), "\(nowhere.errors)")
        #expect(try daemon.client().call("health")["status"] == "ok", "the daemon is still fine")
    }

    @Test("python say: a dialog over seeded data, with a confirmation, that changes the store and closes its session")
    func pythonSay() throws {
        let daemon = try DaemonHarness()
        let imported = try client(daemon, ["ical.import", ExampleClientTests.json([("content", .string(try ExampleClientTests.picnicICS()))])])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try JSONParser.parse(imported.stdout)["added"] == .int(2), "\(imported.stdout)")

        let dialog = try client(daemon, ["say", "--now", "2026-06-08T09:00:00-07:00", "--time-zone", "America/Los_Angeles",
                                         "who's coming to my picnic?", "move it to noon", "yes"])
        #expect(dialog.status == 0, "\(dialog.stderr)")
        let turns = dialog.stdout.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(turns.count == 3, "\(dialog.stdout)")
        guard turns.count == 3 else { return }
        #expect(turns[0].hasPrefix("> who's coming to my picnic?\n"))
        #expect(turns[0].contains("Ada Lovelace (accepted), Grace Hopper (tentative) and Alan Turing (needs action)"), "\(turns[0])")
        #expect(turns[1].hasPrefix("> move it to noon\n"))
        #expect(turns[1].contains("Move “Picnic” to Sat Jun 13 12:00"), "a guest list asks first: \(turns[1])")
        #expect(turns[2].hasPrefix("> yes\n"))
        #expect(turns[2].contains("Moved “Picnic”"), "\(turns[2])")

        let rpc = try daemon.client()
        let found = try rpc.call("entity.search", ExampleClientTests.object([("entity", "Event"), ("text", "picnic")]))
        guard case .array(let events)? = found["entities"] else { Issue.record("\(found)"); return }
        #expect(events.first?["startDate"]?.stringValue?.hasPrefix("2026-06-13T12:00:00-07:00") == true, "\(found)")
        #expect(try rpc.call("health")["conversations"] == .int(0), "say closes its conversation")

        let json = try client(daemon, ["say", "--json", "--now", "2026-06-08T09:00:00-07:00", "When is the picnic?"])
        #expect(json.status == 0, "\(json.stderr)")
        let turn = try JSONParser.parse(json.stdout)
        #expect(turn["outcome"] == "done")
        #expect(turn["understood"] == true)
        #expect(turn["reply"]?.stringValue?.contains("Sat Jun 13 12:00") == true, "\(json.stdout)")
    }

    @Test("python watch --count 1: sees a change another client makes, then stops by itself")
    func pythonWatch() throws {
        let daemon = try DaemonHarness()
        let watcher = try Child(["python3", ExampleClientTests.python, "--socket", daemon.socket, "watch", "--count", "1", "--wait", "20"])
        #expect(watcher.waitForStderr("watching changes on \(daemon.socket)"), "\(watcher.errors)")
        let writer = try daemon.client()
        let created = try writer.call("intent.perform", ExampleClientTests.object([("intent", "createEvent"), ("parameters", ExampleClientTests.object([
            ("title", "Stargazing"), ("startDate", "2026-06-12T21:00:00-07:00[America/Los_Angeles]")]))]))
        #expect(created["outcome"] == "done", "\(created)")
        #expect(watcher.finish() == 0, "\(watcher.errors)")
        let lines = watcher.output.split(separator: "\n")
        #expect(lines.count == 1, "\(watcher.output)")
        let note = try JSONParser.parse(String(lines.first ?? ""))
        #expect(note["method"] == "changed")
        #expect(note["params"]?["intent"] == "calendar.createEvent")
        #expect(note["params"]?["journal"] == .int(1))
        guard case .array(let changes)? = note["params"]?["changes"] else { Issue.record("\(note)"); return }
        #expect(changes.contains { $0["entity"] == "Event" && $0["change"] == "created" }, "\(changes)")

        // With nothing coming, --wait ends it with 75.
        let idle = try Child(["python3", ExampleClientTests.python, "--socket", daemon.socket, "watch", "--wait", "0.5"])
        #expect(idle.finish() == 75)
        #expect(idle.errors.contains("no notification within 0.5 s"), "\(idle.errors)")
    }

    @Test("python module: frames split anywhere or several in one read; notifications kept apart; the daemon's default socket")
    func pythonModule() throws {
        let daemon = try DaemonHarness()
        let script = """
            import json, os, sys
            from cometcal_client import Client, FrameReader, RPCError, default_socket_path, frame

            def first(body):
                return [frame({"jsonrpc": "2.0", "id": 1, "result": {"text": body}}), frame({"jsonrpc": "2.0", "method": "changed", "params": {}})]
            stream = b"".join(first("cake \\u00e9\\u263a") * 3)
            one_by_one = FrameReader()
            got = []
            for index in range(len(stream)):
                one_by_one.feed(stream[index:index + 1])
                got.extend(one_by_one.messages())
            whole = FrameReader()
            whole.feed(b"\\r\\n" + stream)
            assert list(whole.messages()) == got and len(got) == 6, got
            assert got[0]["result"]["text"] == "cake \\u00e9\\u263a" and got[1]["method"] == "changed"
            lower = FrameReader()
            lower.feed(b'content-length: 2\\r\\nContent-Type: application/json\\r\\n\\r\\n{}')
            assert list(lower.messages()) == [{}]

            assert default_socket_path({"XDG_RUNTIME_DIR": "/run/user/7", "XDG_DATA_HOME": "/d"}) == "/run/user/7/cometcal/cometcald.sock"
            assert default_socket_path({"XDG_DATA_HOME": "/d"}) == "/d/cometcal/cometcald.sock"
            assert default_socket_path({"XDG_RUNTIME_DIR": ""}) == os.path.expanduser("~/.local/share/cometcal/cometcald.sock")

            with Client(sys.argv[1], timeout=20) as watcher, Client(sys.argv[1], timeout=20) as writer:
                assert watcher.call("subscribe", topics=["changes"]) == {"topics": ["changes"]}
                writer.call("intent.perform", intent="createEvent", parameters={"title": "Yoga", "startDate": "2026-06-13T08:00:00-07:00"})
                assert watcher.call("health")["status"] == "ok"
                note = watcher.next_notification(timeout=20)
                assert note["method"] == "changed" and note["params"]["intent"] == "calendar.createEvent", note
                assert watcher.next_notification(timeout=0.2) is None
                try:
                    writer.call("conversation.say", session="nope", text="hi")
                    raise SystemExit("no error")
                except RPCError as error:
                    assert error.code == -32602 and "no conversation has the session 'nope'" in error.message, error
            print("ok")
            """
        let child = try Child(["python3", "-c", script, daemon.socket], environment: ["PYTHONPATH": ExampleClientTests.clients.path])
        #expect(child.finish() == 0, "\(child.errors)")
        #expect(child.output == "ok\n", "\(child.output)\(child.errors)")
    }

    @Test("health.sh: one framed health request through socat, the answer's body printed",
          .enabled(if: ExampleClientTests.hasSocat, "socat is not installed; scripts/bootstrap installs it (apt-get install socat)"))
    func shellHealth() throws {
        let daemon = try DaemonHarness()
        let script = ExampleClientTests.clients.appendingPathComponent("health.sh").path
        // Every time, not only when the timing is kind: a client that closes its side right after
        // sending may lose its answer (the daemon closes before it counts the request in flight).
        for _ in 0..<20 {
            let health = try Child(["bash", script, daemon.socket])
            #expect(health.finish(seconds: 30) == 0, "\(health.errors)")
            let answer = try JSONParser.parse(health.output)
            #expect(answer["id"] == .int(1))
            #expect(answer["result"]?["status"] == "ok", "\(health.output)")
            #expect(answer["result"]?["store"] == .string(daemon.store))
        }
        let missing = try Child(["bash", script, daemon.directory.appendingPathComponent("none.sock").path])
        #expect(missing.finish(seconds: 30) == 69)
        #expect(missing.errors.contains("no socket at"), "\(missing.errors)")
    }
}
