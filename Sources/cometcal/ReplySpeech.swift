import Foundation
import CometSchema
import CometVoice

/// The replies said aloud, as `--speak` and `--speak-to DIR` ask (listen, chat): `--speak` plays
/// each on the default output; `--speak-to DIR` writes each as DIR/reply-N.wav instead (16-bit
/// mono at espeak-ng's own rate, which the header says). With neither, nothing is synthesized.
/// No output to play to is said once on standard error (and in --json's `speech.problem`), and
/// the conversation goes on in text: a turn never fails for want of a loudspeaker.
final class ReplySpeech {
    private let context: AppContext
    private let command: String
    private let folder: String?
    private let voice: ReplyVoice?
    private var told = false
    /// Why replies are not heard, when a reason came up (no output, the synthesizer failed).
    private(set) var problem: String?

    init(context: AppContext, command: String) throws {
        self.context = context
        self.command = command
        folder = context.parsed.value("speak-to")
        let playing = context.parsed.flag("speak")
        if playing, folder != nil {
            throw CommandFailure(code: .usage, message: "error: --speak plays the replies and --speak-to writes them to files: give one of them")
        }
        guard playing || folder != nil else {
            voice = nil
            return
        }
        if let folder {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw CommandFailure(code: .ioError, message: "error: --speak-to \(folder): cannot make the folder: \(error.localizedDescription)")
            }
        }
        do { voice = ReplyVoice(speaker: try Speaker()) } catch {
            throw CommandFailure(code: .noInput, message: "error: \(error.description)")
        }
    }

    /// Whether replies are to be spoken at all.
    var isOn: Bool { voice != nil }

    /// Speaks (or writes) one reply; what was done, for --json: {file, seconds, rate} or
    /// {played}. Nil when replies are not spoken.
    @discardableResult
    func speak(_ reply: String, turn: Int) -> JSONValue? {
        guard let voice else { return nil }
        if let folder {
            let path = (folder as NSString).appendingPathComponent("reply-\(turn).wav")
            do {
                let samples = try voice.speaker.synthesize(reply)
                try WAVFile.encode(samples, sampleRate: voice.speaker.sampleRate).write(to: URL(fileURLWithPath: path))
                return .object(JSONObject([("file", .string(path)), ("seconds", .double(Double(samples.count) / Double(voice.speaker.sampleRate))),
                                           ("rate", .int(voice.speaker.sampleRate))]))
            } catch {
                tell("\(path): the reply could not be written: \(error)")
                return .object(JSONObject([("file", .null), ("problem", .string(problem ?? ""))]))
            }
        }
        let played = voice.say(reply)
        if !played, let failure = voice.problem { tell(failure.description + "; the replies go on as text only") }
        return .object(JSONObject([("played", .bool(played))]))
    }

    /// {problem} for --json, when replies are spoken.
    var json: JSONValue? {
        guard voice != nil else { return nil }
        return .object(JSONObject([("to", .string(folder ?? "output")), ("problem", problem.map(JSONValue.string) ?? .null)]))
    }

    /// Says why replies are not heard, once, on standard error (and remembers it for --json).
    private func tell(_ message: String) {
        guard !told else { return }
        told = true
        problem = message
        context.terminal.err("\(command): \(message)")
    }
}
