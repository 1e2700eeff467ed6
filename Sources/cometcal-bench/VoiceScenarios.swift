import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometSQLiteStore
import CometVoice

/// Issue 24's latency figures (docs/voice.md, "Latency"): a spoken question of about three
/// seconds, synthesized by espeak-ng and resampled to 16 kHz by sox when the run starts, heard
/// and answered on a small store of its own (the picnic example's seed); beside it, the same turn
/// typed. Opt-in (`--scenario voice` and the two below): they need espeak-ng and sox.
///
/// - `voice`: from the end of the utterance's samples to the reply text (decoding the whole
///   utterance, the voice gate, the turn). In `chat --voice` the endpointer's 0.5 s hangover
///   comes before this: it is how the end of speech is known.
/// - `voice-first-audio`: the same, then espeak-ng until its first samples of the reply.
/// - `voice-rebuild`: a title changed, then the store's words read and the language compiled
///   again (what runs in the background, off the turn's path).
enum VoiceScenarios {
    static let all: [Scenario] = [voice, firstAudio, rebuild]
    static let references: [Reference] = [typed]

    static let voice = Scenario(
        name: "voice", summary: "a spoken question (about 3 s, espeak-ng) heard with the compiled language and answered: end of speech to the reply text",
        referenceName: "voice-typed", targetP50: 300, comparesRows: false, inDefaultRun: false
    ) { run in
        let bench = try run.shared("voice") { try VoiceBench(run: run) }
        return { measurement in try bench.spokenTurn(&measurement, firstAudio: false) }
    }

    static let firstAudio = Scenario(
        name: "voice-first-audio", summary: "the same spoken question: end of speech to espeak-ng's first samples of the spoken reply",
        referenceName: "voice-typed", targetP50: nil, comparesRows: false, inDefaultRun: false
    ) { run in
        let bench = try run.shared("voice") { try VoiceBench(run: run) }
        return { measurement in try bench.spokenTurn(&measurement, firstAudio: true) }
    }

    static let rebuild = Scenario(
        name: "voice-rebuild", summary: "the language compiled again after a title changed (the store's words read, the trigram and dictionary written)",
        referenceName: nil, targetP50: 1000, comparesRows: false, inDefaultRun: false
    ) { run in
        let bench = try run.shared("voice") { try VoiceBench(run: run) }
        return { measurement in try bench.rebuildLanguage(&measurement) }
    }

    static let typed = Reference(
        name: "voice-typed", label: "the same turn typed",
        summary: "Conversation.say of the words the utterance says, on the same store, a fresh conversation each time",
        group: "the same question typed: text in, reply out, on the voice scenarios' store"
    ) { run in
        let bench = try run.shared("voice") { try VoiceBench(run: run) }
        return { measurement in bench.typedTurn(&measurement) }
    }
}

/// The voice scenarios' store, utterance, language and decoder, made once per run.
final class VoiceBench {
    static let question = "where is the picnic on saturday afternoon"
    let engine: IntentEngine
    let samples: [Int16]
    let recognizer: Recognizer
    let compiler: LanguageCompiler
    let speaker: Speaker
    let folder: URL
    private var rebuilds = 0

    init(run: BenchRun) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-bench-voice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let seed = try String(contentsOf: root.appendingPathComponent("Examples/conversations/picnic.ics"), encoding: .utf8)
        let now = Date(timeIntervalSince1970: 1_780_930_800) // 2026-06-08 09:00 America/Los_Angeles
        let zone = TimeZone(identifier: "America/Los_Angeles") ?? .current
        let store = try SQLiteStore.opener.open(.file(folder.appendingPathComponent("store").path), registry: run.registry, now: now)
        engine = IntentEngine(store: store, timeZone: zone, clock: { now })
        let report = engine.importCalendars([ImportSource(name: "picnic.ics", text: seed, registry: run.registry)])
        guard report.written else { throw BenchError("voice: the picnic seed was not imported") }

        let raw = folder.appendingPathComponent("question-espeak.wav").path
        let wave = folder.appendingPathComponent("question.wav").path
        try VoiceBench.tool("espeak-ng", ["-v", "en-us", "-s", "150", "-w", raw, VoiceBench.question])
        try VoiceBench.tool("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", wave])
        samples = try WAVFile(path: wave).samples
        compiler = LanguageCompiler(pronunciations: try Pronunciations())
        let language = try compiler.compile(registry: run.registry, store: try StoreWords.read(engine), folder: folder.appendingPathComponent("language").path)
        recognizer = try Recognizer(language: language.files)
        speaker = try Speaker()
        let heard = try recognizer.hear(samples)
        run.progress("voice: the utterance is " + String(format: "%.2f", Double(samples.count) / 16_000) + " s, heard as “\(heard.text)” (confidence "
                     + String(format: "%.2f", heard.confidence) + "); the language took " + String(format: "%.2f", language.report.seconds) + " s to compile")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static func tool(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + name)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw BenchError("voice: /usr/bin/\(name) could not run (\(error)); install it with scripts/bootstrap") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("voice: \(name) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)") }
    }

    /// Heard and answered; with `firstAudio`, until espeak-ng's first samples of the reply.
    func spokenTurn(_ measurement: inout Measurement, firstAudio: Bool) throws {
        let gate = VoiceConversation(conversation: Conversation(engine: engine, timeZone: engine.timeZone))
        var failure: Error?
        let cpuStart = Stopwatch.cpuNow()
        let start = Stopwatch.now()
        var end: UInt64 = 0, cpuEnd: UInt64 = 0
        do {
            let turn = gate.hear(try recognizer.hear(samples))
            if firstAudio {
                _ = try speaker.synthesize(turn.reply) { piece in
                    if end == 0, !piece.isEmpty {
                        end = Stopwatch.now()
                        cpuEnd = Stopwatch.cpuNow()
                    }
                }
            } else {
                end = Stopwatch.now()
                cpuEnd = Stopwatch.cpuNow()
            }
        } catch {
            failure = error
        }
        if let failure { throw BenchError("voice: the spoken turn failed: \(failure)") }
        guard end > 0 else { throw BenchError("voice: espeak-ng gave no samples for the reply") }
        measurement.add(Timing(wall: end - start, cpu: cpuEnd - cpuStart))
    }

    func typedTurn(_ measurement: inout Measurement) {
        let conversation = Conversation(engine: engine, timeZone: engine.timeZone)
        let (_, timing) = Stopwatch.time { conversation.say(VoiceBench.question) }
        measurement.add(timing)
    }

    /// A title changed (outside the clock), then the words read and the language compiled.
    func rebuildLanguage(_ measurement: inout Measurement) throws {
        rebuilds += 1
        let title = "Picnic \(rebuilds % 2 == 0 ? "lunch" : "supper")"
        let renamed = engine.perform(try renameRequest(to: title))
        guard case .done = renamed else { throw BenchError("voice: the picnic could not be renamed for the rebuild: \(renamed)") }
        let target = folder.appendingPathComponent("rebuild-\(rebuilds)").path
        let (result, timing) = Stopwatch.time { Result { try compiler.compile(registry: engine.registry, store: try StoreWords.read(engine), folder: target) } }
        _ = try result.get()
        try? FileManager.default.removeItem(atPath: target)
        measurement.add(timing)
    }

    /// updateEvent of the picnic (found by its title, whichever of the two it has now), confirmed.
    private func renameRequest(to title: String) throws -> IntentRequest {
        let event = QualifiedName(domain: "calendar", name: "Event")
        guard let picnic = try engine.records(event).first(where: { engine.registry.title(of: $0).hasPrefix("Picnic") }) else {
            throw BenchError("voice: the picnic is not in the store")
        }
        let parameters: [String: ParameterValue] = ["event": .set(.reference(picnic.id)), "title": .set(.string(title))]
        return IntentRequest(intent: "updateEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed)
    }
}
