import Foundation
import CometSchema
import CometIntents
import CometConversation
import CometVoice

/// `cometcal chat --voice`: records from the default input through PulseAudio (16 kHz mono
/// 16-bit), finds each stretch of speech (`Endpointer`), hears it with the language compiled
/// from the schemas and the store, and plays it through the voice gate as a turn of one
/// conversation, as `listen` does with files; with `--connect`, each stretch is sent to the
/// daemon as a WAVE file and heard there, on one of its conversations. `--speak` says the
/// replies aloud (on this machine, either way); what was recorded while a reply played is
/// dropped, so the reply is not heard as a turn. Ends with Ctrl-C, or after `--turns N`
/// utterances.
struct VoiceChat {
    let context: AppContext

    func run() throws -> ExitCode {
        let terminal = context.terminal
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
        let ears: SpokenConversation
        var heardBy = ""
        if let engine = context.localEngine {
            ears = try LocalSpokenConversation(engine: engine, context: context, generic: false, command: "chat")
        } else if let remote = context.backend as? RemoteBackend {
            let daemon = try DaemonSpokenConversation(remote: remote)
            if let note = daemon.compileNote(command: "chat") { terminal.err(note) }
            ears = daemon
            heardBy = ", heard by the daemon at \(remote.client.path)"
        } else {
            throw CommandFailure(code: .internalError, message: "error: no conversation is possible here")
        }
        if !context.wantsJSON { ears.tellUnpronounceable(terminal, command: "chat") }
        // Said once the language is ready (scripts and tests wait for it); recording began before.
        terminal.err("chat: listening on the default input (PulseAudio)\(heardBy); speak, and Ctrl-C to leave")

        var endpointer = Endpointer()
        var turns = 0
        while limit.map({ turns < $0 }) ?? true {
            let samples: [Int16]
            do { samples = try input.read(Endpointer.frameSamples * 10) } catch {
                throw CommandFailure(code: .ioError, message: "error: chat --voice: \(error.description)")
            }
            for utterance in endpointer.feed(samples) where limit.map({ turns < $0 }) ?? true {
                turns += 1
                if utterance.cut { terminal.err("chat: an utterance ran past \(Int(endpointer.maximumSeconds)) s and was cut there; the rest is heard as the next turn") }
                let turn = try ears.hear(utterance.samples, place: nil)
                if context.wantsJSON {
                    var object = turn.json(leading: [("seconds", .double((utterance.seconds * 1000).rounded() / 1000)), ("cut", .bool(utterance.cut))])
                    if let spoken = speech.speak(turn.reply, turn: turns) { object["spoken"] = spoken }
                    if let problem = speech.problem { object["speechProblem"] = .string(problem) }
                    terminal.out(JSONWriter.compact(.object(object)))
                } else {
                    terminal.out(terminal.style(turn.heardLine(place: nil), .dim))
                    terminal.out(Terminal.printable(turn.reply))
                    if let snippet = turn.snippet, terminal.isInteractive { OutcomePrinter(context: context).card(snippet) }
                    speech.speak(turn.reply, turn: turns)
                }
                // A reply said aloud was recorded too: it is not a turn.
                if speech.isOn { input.flush() }
            }
        }
        return .success
    }
}
