import Foundation
import CPulseSimple

/// The one owner of a PulseAudio simple-API stream (`pa_simple`), freed when it goes. The server
/// is the default one (`$PULSE_SERVER`, else the user's); as root, libpulse never starts one
/// itself, so "no server" is an error here, said with what to do.
final class PulseStream {
    let handle: OpaquePointer

    init(direction: pa_stream_direction_t, rate: Int, name: String) throws(VoiceError) {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(rate), channels: 1)
        var error: Int32 = 0
        guard let made = pa_simple_new(nil, "cometcal", direction, nil, name, &spec, nil, nil, &error) else {
            let what = direction == PA_STREAM_RECORD ? "record from" : "play to"
            throw VoiceError(.audioDevice, place: "PulseAudio", "no sound server or device to \(what) (\(PulseStream.message(error))); "
                             + "start PulseAudio (pulseaudio --start) or point PULSE_SERVER at one (PULSE_SERVER=unix:/run/user/1000/pulse/native)")
        }
        handle = made
    }

    deinit { pa_simple_free(handle) }

    static func message(_ error: Int32) -> String { String(cString: pa_strerror(error)) }
}

/// Plays 16-bit mono samples on the default output, blocking until each write is queued.
public final class AudioOutput {
    private let stream: PulseStream
    public let sampleRate: Int

    public init(sampleRate: Int) throws(VoiceError) {
        stream = try PulseStream(direction: PA_STREAM_PLAYBACK, rate: sampleRate, name: "reply")
        self.sampleRate = sampleRate
    }

    public func write(_ samples: [Int16]) throws(VoiceError) {
        guard !samples.isEmpty else { return }
        var error: Int32 = 0
        let status = samples.withUnsafeBytes { pa_simple_write(stream.handle, $0.baseAddress, $0.count, &error) }
        guard status == 0 else { throw VoiceError(.audioDevice, place: "pa_simple_write", "the sound server stopped taking sound: \(PulseStream.message(error))") }
    }

    /// Waits until everything written has been played.
    public func drain() throws(VoiceError) {
        var error: Int32 = 0
        guard pa_simple_drain(stream.handle, &error) == 0 else {
            throw VoiceError(.audioDevice, place: "pa_simple_drain", "the sound server stopped playing: \(PulseStream.message(error))")
        }
    }
}

/// Records 16 kHz mono 16-bit samples from the default input.
public final class AudioInput {
    private let stream: PulseStream
    public static let sampleRate = WAVFile.sampleRate

    public init() throws(VoiceError) {
        stream = try PulseStream(direction: PA_STREAM_RECORD, rate: AudioInput.sampleRate, name: "turn")
    }

    /// The next `count` samples, blocking until they are there.
    public func read(_ count: Int) throws(VoiceError) -> [Int16] {
        var samples = [Int16](repeating: 0, count: count)
        var error: Int32 = 0
        let status = samples.withUnsafeMutableBytes { pa_simple_read(stream.handle, $0.baseAddress, $0.count, &error) }
        guard status == 0 else { throw VoiceError(.audioDevice, place: "pa_simple_read", "the sound server stopped giving sound: \(PulseStream.message(error))") }
        return samples
    }

    /// Drops what was recorded and not read yet (the replies said aloud meanwhile).
    public func flush() {
        var error: Int32 = 0
        _ = pa_simple_flush(stream.handle, &error)
    }
}

/// Speaks replies aloud: synthesized by a `Speaker`, played on the default output. When there is
/// no output (no server, no device), the first reply says so once (`problem`) and every reply
/// after goes on as text only: a turn never fails for want of a loudspeaker.
public final class ReplyVoice {
    public let speaker: Speaker
    private var output: AudioOutput?
    /// Why replies are not heard, once there is a reason; nil while they play.
    public private(set) var problem: VoiceError?

    public init(speaker: Speaker) { self.speaker = speaker }

    /// Says `text` on the default output; false (and `problem` set) when it could not be played.
    /// `firstAudio` is called when the first samples have been handed to the output.
    @discardableResult
    public func say(_ text: String, firstAudio: (() -> Void)? = nil) -> Bool {
        if problem != nil { return false }
        do throws(VoiceError) {
            let output: AudioOutput
            if let existing = self.output { output = existing } else {
                output = try AudioOutput(sampleRate: speaker.sampleRate)
                self.output = output
            }
            var failure: VoiceError?
            var started = false
            _ = try speaker.synthesize(text) { piece in
                guard failure == nil else { return }
                do throws(VoiceError) { try output.write(piece) } catch { failure = error; return }
                if !started, !piece.isEmpty {
                    started = true
                    firstAudio?()
                }
            }
            if let failure { throw failure }
            try output.drain()
            return true
        } catch {
            problem = error
            output = nil
            return false
        }
    }
}
