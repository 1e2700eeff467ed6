import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometVoice

/// `cometcal chat --voice`: records from the default input through PulseAudio (16 kHz mono
/// 16-bit), finds each stretch of speech (`Endpointer`), hears it with the language compiled
/// from the schemas and the store, and plays it through the voice gate as a turn of one
/// conversation, as `listen` does with files. `--speak` says the replies aloud; what was
/// recorded while a reply played is dropped, so the reply is not heard as a turn. Ends with
/// Ctrl-C, or after `--turns N` utterances.
struct VoiceChat {
    let context: AppContext

    func run() throws -> ExitCode {
        let terminal = context.terminal
        guard let engine = context.localEngine else {
            throw CommandFailure(code: .usage, message: "error: chat --voice hears on this machine's store; use it without --connect")
        }
        var limit: Int?
        if let text = context.parsed.value("turns") {
            guard let number = Int(text), number >= 1 else { throw CommandFailure(code: .usage, message: "error: --turns takes a number of turns, 1 or more, not '\(text)'") }
            limit = number
        }
        let speech = try ReplySpeech(context: context, command: "chat")
        // The input first: with no sound server or device, nothing else is worth doing.
        let input: AudioInput
        do { input = try AudioInput() } catch {
            throw CommandFailure(code: .unavailable, message: "error: chat --voice: \(error.description)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-chat-voice-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiler: LanguageCompiler
        let recognizer: Recognizer
        do {
            compiler = LanguageCompiler(pronunciations: try Pronunciations())
            let language = try compiler.compile(registry: engine.registry, store: try StoreWords.read(engine), folder: folder.appendingPathComponent("0").path)
            if !language.report.unpronounceable.isEmpty, !context.wantsJSON {
                terminal.err("chat: \(language.report.unpronounceable.count) word(s) have no pronunciation and cannot be heard: " + language.report.unpronounceable.keys.sorted().joined(separator: ", "))
            }
            recognizer = try Recognizer(language: language.files)
        } catch let error as VoiceError {
            throw CommandFailure(code: error.code == .missingModel ? .noInput : .internalError, message: "error: \(error.description)")
        }
        // Said once the language is ready (scripts and tests wait for it); recording began before.
        terminal.err("chat: listening on the default input (PulseAudio); speak, and Ctrl-C to leave")

        let voice = VoiceConversation(conversation: Conversation(engine: engine, timeZone: context.zone))
        let rebuild = LanguageRebuild()
        var endpointer = Endpointer()
        var turns = 0
        while limit.map({ turns < $0 }) ?? true {
            let samples: [Int16]
            do { samples = try input.read(Endpointer.frameSamples * 10) } catch {
                throw CommandFailure(code: .ioError, message: "error: chat --voice: \(error.description)")
            }
            for utterance in endpointer.feed(samples) where limit.map({ turns < $0 }) ?? true {
                turns += 1
                switch rebuild.take() {
                case .success(let fresh)?:
                    do { try recognizer.use(fresh.files) } catch { terminal.err("chat: the rebuilt language could not be loaded (\(error.description)); the previous one is kept") }
                case .failure(let error)?:
                    terminal.err("chat: the language could not be rebuilt after the change (\(error.description)); the previous one is kept")
                case nil:
                    break
                }
                if utterance.cut { terminal.err("chat: an utterance ran past \(Int(endpointer.maximumSeconds)) s and was cut there; the rest is heard as the next turn") }
                let hearing: Hearing
                do { hearing = try recognizer.hear(utterance.samples) } catch {
                    throw CommandFailure(code: .internalError, message: "error: \(error.description)")
                }
                let turn = voice.hear(hearing)
                if context.wantsJSON {
                    var object = JSONObject([("seconds", .double((utterance.seconds * 1000).rounded() / 1000)), ("cut", .bool(utterance.cut))])
                    if case .object(let fields) = turn.json(threshold: voice.threshold) { for (key, value) in fields { object[key] = value } }
                    if let spoken = speech.speak(turn.reply, turn: turns) { object["spoken"] = spoken }
                    if let problem = speech.problem { object["speechProblem"] = .string(problem) }
                    terminal.out(JSONWriter.compact(.object(object)))
                } else {
                    let heard = hearing.isEmpty ? "nothing" : "“\(Terminal.printable(hearing.text))”"
                    terminal.out(terminal.style("heard \(heard) (confidence \(String(format: "%.2f", hearing.confidence)); \(turn.decision.rawValue)\(hearing.floorNote))", .dim))
                    terminal.out(Terminal.printable(turn.reply))
                    if let snippet = turn.turn?.snippet, terminal.isInteractive { OutcomePrinter(context: context).card(snippet) }
                    speech.speak(turn.reply, turn: turns)
                }
                // A reply said aloud was recorded too: it is not a turn.
                if speech.isOn { input.flush() }
                if turn.outcome == .done, let words = try? StoreWords.read(engine) {
                    rebuild.start(compiler, registry: engine.registry, store: words, folder: folder.appendingPathComponent(UUID().uuidString).path)
                }
            }
        }
        return .success
    }
}
