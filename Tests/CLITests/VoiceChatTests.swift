import Foundation
import Testing
import CometSchema

/// `cometcal chat --voice`, with no person and no sound card: a private PulseAudio server
/// (a Unix socket and a FIFO source in a temporary folder) whose default input is what the test
/// writes into the FIFO: espeak-ng's speech between stretches of silence (docs/voice.md).
@Suite("cometcal chat --voice", .serialized)
struct VoiceChatTests {
    /// A PulseAudio server of the test's own, stopped when it goes. It runs as root here: it
    /// warns that it is not meant to, and works (no --system: that is the system-wide daemon,
    /// which needs its own user and refuses unix sockets of the caller's).
    ///
    /// Started with posix_spawn, not Foundation's `Process`: on Linux, Foundation reaps its
    /// children with a blocking wait4 per child it knows, so a server that keeps running stopped
    /// every other `Process` in this test process from ever being seen to exit. Every file
    /// descriptor past the standard three is closed in it, so it holds no other test's pipe open.
    final class PrivatePulse {
        let directory: URL
        private(set) var pid: pid_t = 0
        var socket: String { directory.appendingPathComponent("sock").path }
        var fifo: String { directory.appendingPathComponent("fifo").path }
        var server: String { "unix:" + socket }

        struct NotStarted: Error, CustomStringConvertible { let description: String }

        init() throws {
            // Short: a Unix socket's path is limited to 108 bytes.
            directory = URL(fileURLWithPath: "/tmp/cometcal-pa-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("runtime"), withIntermediateDirectories: true)
            let config = """
                load-module module-native-protocol-unix socket=\(socket) auth-anonymous=1
                load-module module-pipe-source source_name=fifo file=\(fifo) format=s16le rate=16000 channels=1
                load-module module-null-sink sink_name=nowhere
                set-default-source fifo
                set-default-sink nowhere

                """
            let configPath = directory.appendingPathComponent("default.pa").path
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            let arguments = ["/usr/bin/pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-F", configPath]
            var environment = ProcessInfo.processInfo.environment
            // Its runtime folder and cookie in the test's folder, not the user's.
            environment["PULSE_RUNTIME_PATH"] = directory.appendingPathComponent("runtime").path
            environment["HOME"] = directory.path
            environment.removeValue(forKey: "XDG_RUNTIME_DIR")
            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc module
            // leaves out: found by name.
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
                throw NotStarted(description: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
            }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            let status = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
            guard status == 0 else { throw NotStarted(description: "posix_spawn pulseaudio: \(String(cString: strerror(status)))") }
            let deadline = Date().addingTimeInterval(10)
            while !(FileManager.default.fileExists(atPath: socket) && FileManager.default.fileExists(atPath: fifo)) {
                var exit: Int32 = 0
                guard waitpid(pid, &exit, WNOHANG) == 0, Date() < deadline else {
                    throw NotStarted(description: "pulseaudio did not make its socket and FIFO within 10 s")
                }
                usleep(20_000)
            }
        }

        deinit {
            kill(pid, SIGTERM)
            var exit: Int32 = 0
            waitpid(pid, &exit, 0)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// 16 kHz samples of `text` spoken by espeak-ng.
    private func speech(_ text: String, in directory: URL, name: String) throws -> Data {
        let path = try ListenCommandTests().speech(text, in: directory, name: name)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return bytes.dropFirst(44) // the canonical 44-byte header sox writes
    }

    /// `cometcal chat --voice` with `arguments`, recording from the private server, its standard
    /// error in a file; returned once it says it listens (after its language is compiled): from
    /// then on, what is written to the FIFO is heard.
    private func listening(_ arguments: [String], before global: [String] = [], environment: [String: String], pulse: PrivatePulse,
                           directory: URL) throws -> (process: Process, out: Pipe, errors: URL) {
        let process = Process()
        process.executableURL = try CLIRunner.binary()
        process.arguments = global + ["chat", "--voice"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        for (key, value) in environment { env[key] = value }
        env["PULSE_SERVER"] = pulse.server
        process.environment = env
        let errors = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("listening"), process.isRunning, Date() < deadline { usleep(50_000) }
        return (process, out, errors)
    }

    private func silence(_ seconds: Double) -> Data { Data(count: Int(seconds * 16_000) * 2) }

    /// Speaks `spoken` into the private server's FIFO for a chat started by `listening`, each
    /// after a pause; waits for the chat to end (it is stopped after 40 s rather than waited
    /// for, if the utterances were not found), and gives its exit status, standard output and
    /// error, and the JSON lines of its output.
    private func spoken(_ spoken: [Data], to chat: (process: Process, out: Pipe, errors: URL),
                        pulse: PrivatePulse) throws -> (status: Int32, output: String, stderr: String, lines: [JSONValue]) {
        let fifo = try FileHandle(forWritingTo: URL(fileURLWithPath: pulse.fifo))
        fifo.write(silence(0.5))
        for turn in spoken { fifo.write(turn + silence(0.8)) }
        let end = Date().addingTimeInterval(40)
        while chat.process.isRunning, Date() < end { usleep(50_000) }
        if chat.process.isRunning { chat.process.terminate() }
        let output = String(decoding: chat.out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        chat.process.waitUntilExit()
        try? fifo.close()
        let stderr = (try? String(contentsOf: chat.errors, encoding: .utf8)) ?? ""
        return (chat.process.terminationStatus, output, stderr, output.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) })
    }

    @Test("spoken turns are recorded from the default input, cut at their silences, heard and played: a question, a delete and the yes")
    func recorded() throws {
        let pulse = try PrivatePulse()
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let turns = [try speech("Where is the picnic?", in: directory, name: "where"),
                     try speech("Delete the meteor shower watch party", in: directory, name: "delete"),
                     try speech("yes", in: directory, name: "yes")]
        // A yes to each question: the gate's "Did you say …?" when the hearing was unsure, then the engine's.
        let spoken = turns + [turns[2]]

        // Four utterances end it.
        let chat = try listening(["--turns", "4", "--json"], environment: environment, pulse: pulse, directory: directory)
        let (status, output, stderr, lines) = try self.spoken(spoken, to: chat, pulse: pulse)
        #expect(status == 0, "\(stderr)")
        #expect(lines.count == 4, "\(output)\n\(stderr)")
        guard lines.count == 4 else { return }
        let first = lines[0]["heard"]?["text"]?.stringValue ?? ""
        #expect(first.hasPrefix("where is") && first.hasSuffix("picnic"), "heard “\(first)”")
        #expect(lines[0]["reply"]?.stringValue?.contains("Dolores Park") == true)
        #expect(lines[1]["outcome"] == "needsConfirmation", "\(lines[1])")
        #expect(lines[2]["outcome"] == "done" || lines[3]["outcome"] == "done", "\(lines[2])\n\(lines[3])")
        let listed = try CLIRunner.run(["export"], environment: environment).stdout
        #expect(listed.contains("SUMMARY:Picnic"))
        #expect(!listed.contains("Meteor Shower"), "the party was deleted by voice")
    }

    @Test("chat --voice --connect records here and the daemon hears: a question, a delete and the yes, on the daemon's store")
    func recordedThroughDaemon() throws {
        let pulse = try PrivatePulse()
        let daemon = try ListenConnectTests.seededDaemon()
        let directory = daemon.directory
        let turns = [try speech("Where is the picnic?", in: directory, name: "where"),
                     try speech("Delete the meteor shower watch party", in: directory, name: "delete"),
                     try speech("yes", in: directory, name: "yes")]
        // A yes to each question: the gate's "Did you say …?" when the hearing was unsure, then the engine's.
        let spoken = turns + [turns[2]]

        let chat = try listening(["--turns", "4", "--json"], before: ["--connect", daemon.socket], environment: ListenConnectTests.clock,
                                 pulse: pulse, directory: directory)
        let (status, output, stderr, lines) = try self.spoken(spoken, to: chat, pulse: pulse)
        #expect(status == 0, "\(stderr)")
        // The daemon had heard nothing before: it compiled its language before the first turn, and that was said.
        #expect(stderr.contains("chat: the daemon at \(daemon.socket) had no language yet and compiled one"), "\(stderr)")
        #expect(stderr.contains("chat: listening on the default input (PulseAudio), heard by the daemon at \(daemon.socket)"), "\(stderr)")
        #expect(lines.count == 4, "\(output)\n\(stderr)")
        guard lines.count == 4 else { return }
        #expect(lines[0].objectValue?.keys == ["seconds", "cut", "heard", "gate", "reply", "outcome", "understood", "interpretation"], "\(lines[0])")
        let first = lines[0]["heard"]?["text"]?.stringValue ?? ""
        #expect(first.hasPrefix("where is") && first.hasSuffix("picnic"), "heard “\(first)”")
        #expect(lines[0]["reply"]?.stringValue?.contains("Dolores Park") == true)
        #expect(lines[1]["outcome"] == "needsConfirmation", "\(lines[1])")
        #expect(lines[2]["outcome"] == "done" || lines[3]["outcome"] == "done", "\(lines[2])\n\(lines[3])")
        let listed = try ListenConnectTests.exported(daemon)
        #expect(listed.contains("SUMMARY:Picnic"))
        #expect(!listed.contains("Meteor Shower"), "the party was deleted by voice, on the daemon's store")
    }

    @Test("chat --voice --connect ends with the daemon's reason when it refuses the sound (65)")
    func refusedByDaemon() throws {
        let pulse = try PrivatePulse()
        // This daemon takes requests of 4 KiB at most: an utterance is more.
        let daemon = try DaemonHarness(arguments: ["--max-request", "4096"])
        let directory = daemon.directory
        let question = try speech("Where is the picnic?", in: directory, name: "where")
        let chat = try listening(["--turns", "2"], before: ["--connect", daemon.socket], environment: ListenConnectTests.clock,
                                 pulse: pulse, directory: directory)
        let (status, output, stderr, _) = try spoken([question], to: chat, pulse: pulse)
        #expect(status == 65, "\(stderr)")
        #expect(stderr.contains("error: the daemon did not hear it: ") && stderr.contains("the limit is 4096 bytes"), "\(stderr)")
        #expect(output.isEmpty, "\(output)")
    }

    @Test("chat --voice --connect ends with exit 74, saying so, when the daemon has gone away before a turn")
    func daemonGone() throws {
        let pulse = try PrivatePulse()
        let daemon = try DaemonHarness()
        let directory = daemon.directory
        let question = try speech("Where is the picnic?", in: directory, name: "where")
        let chat = try listening(["--turns", "1"], before: ["--connect", daemon.socket], environment: ListenConnectTests.clock,
                                 pulse: pulse, directory: directory)
        // It listens; the daemon stops; then it hears someone speak.
        #expect(daemon.stop() == 0)
        let (status, output, stderr, _) = try spoken([question], to: chat, pulse: pulse)
        #expect(status == 74, "\(stderr)")
        #expect(stderr.contains("error: the daemon at \(daemon.socket) did not answer: "), "\(stderr)")
        #expect(output.isEmpty, "\(output)")
    }

    @Test("listen --speak plays each reply on the sound server's default output, and says no problem")
    func played() throws {
        let pulse = try PrivatePulse()
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wave = try ListenCommandTests().speech("Where is the picnic?", in: directory, name: "where")
        var served = environment
        served["PULSE_SERVER"] = pulse.server
        let result = try CLIRunner.run(["listen", wave, "--speak", "--json"], environment: served)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let json = try JSONParser.parse(result.stdout)
        #expect(json["speech"]?["problem"] == .null)
        #expect(json["speech"]?["to"] == "output")
        guard case .array(let turns)? = json["turns"] else { Issue.record("no turns: \(result.stdout)"); return }
        #expect(turns.first?["spoken"]?["played"] == true)
        #expect(turns.first?["reply"]?.stringValue?.contains("Dolores Park") == true)
    }

    @Test("chat --voice --speak answers a recorded question aloud on the default output")
    func answeredAloud() throws {
        let pulse = try PrivatePulse()
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        let question = try speech("Where is the picnic?", in: directory, name: "where")
        let (process, out, errors) = try listening(["--speak", "--turns", "1", "--json"], environment: environment, pulse: pulse, directory: directory)
        let fifo = try FileHandle(forWritingTo: URL(fileURLWithPath: pulse.fifo))
        fifo.write(silence(0.5) + question + silence(0.8))
        let end = Date().addingTimeInterval(30)
        while process.isRunning, Date() < end { usleep(50_000) }
        if process.isRunning { process.terminate() }
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? fifo.close()
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "\(stderr)")
        let line = try JSONParser.parse(output.split(separator: "\n").first.map(String.init) ?? "")
        #expect(line["reply"]?.stringValue?.contains("Dolores Park") == true, "\(output)")
        #expect(line["spoken"]?["played"] == true, "\(output)\n\(stderr)")
        #expect(line["speechProblem"] == nil)
    }

    @Test("with no sound server, chat --voice fails at once, saying what to do (exit 69)")
    func noServer() throws {
        let (directory, environment) = try ListenCommandTests().seededStore()
        defer { try? FileManager.default.removeItem(at: directory) }
        var nowhere = environment
        nowhere["PULSE_SERVER"] = "unix:" + directory.appendingPathComponent("no-such-socket").path
        let result = try CLIRunner.run(["chat", "--voice"], environment: nowhere)
        #expect(result.status == 69)
        #expect(result.stderr.contains("no sound server or device to record from") && result.stderr.contains("PULSE_SERVER"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
