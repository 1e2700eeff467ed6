import Foundation
import CEspeakNG

/// Text to speech with espeak-ng's library, offline: the samples of a reply, in memory, at the
/// synthesizer's own rate (`sampleRate`, 22050 Hz with Debian's espeak-ng; a WAVE file written
/// from them says that rate in its header: nothing is resampled).
///
/// espeak-ng keeps one synthesizer per process (global state, one voice, one callback), so every
/// `Speaker` shares it behind one lock: two replies are synthesized one after the other.
public final class Speaker: Sendable {
    /// Samples per second of what `synthesize` returns.
    public let sampleRate: Int
    /// The espeak-ng voice ("en-us") and speed (words a minute).
    public let voice: String
    public let wordsPerMinute: Int

    public static let defaultVoice = "en-us"

    /// Opens the synthesizer (once per process) with `voice`. Fails with `.missingModel` when
    /// espeak-ng's data is not installed.
    public init(voice: String = Speaker.defaultVoice, wordsPerMinute: Int = 175) throws(VoiceError) {
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        sampleRate = try Synthesizer.shared.open()
    }

    /// The samples of `text` said aloud. `chunk` gets each piece as soon as the synthesizer has
    /// made it (the first one is the reply's first audio), on the calling thread, before this
    /// returns.
    public func synthesize(_ text: String, chunk: (([Int16]) -> Void)? = nil) throws(VoiceError) -> [Int16] {
        try Synthesizer.shared.synthesize(text, voice: voice, wordsPerMinute: wordsPerMinute, chunk: chunk)
    }

    /// `text` as a WAVE file's bytes (16-bit mono PCM at `sampleRate`).
    public func wave(_ text: String) throws(VoiceError) -> Data {
        WAVFile.encode(try synthesize(text), sampleRate: sampleRate)
    }
}

/// The process's one espeak-ng synthesizer, opened on first use, used under a lock.
final class Synthesizer: @unchecked Sendable {
    static let shared = Synthesizer()
    private let lock = NSLock()
    private var rate: Int?
    private var openProblem: VoiceError?

    /// What one `espeak_Synth` call gathers: espeak-ng hands it back in every event's `user_data`.
    final class Gathered {
        var samples: [Int16] = []
        var chunk: (([Int16]) -> Void)?
        init(chunk: (([Int16]) -> Void)?) { self.chunk = chunk }
    }

    /// The sample rate; the synthesizer is initialized the first time.
    func open() throws(VoiceError) -> Int {
        let result: Result<Int, VoiceError> = lock.withLock {
            if let rate { return .success(rate) }
            if let openProblem { return .failure(openProblem) }
            // DONT_EXIT: without its data espeak-ng would end the process; it returns -1 instead.
            let made = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
            guard made > 0 else {
                let problem = VoiceError(.missingModel, place: "espeak_Initialize",
                                         "espeak-ng could not start (no espeak-ng-data?); install it with scripts/bootstrap (Debian's libespeak-ng-dev and espeak-ng-data)")
                openProblem = problem
                return .failure(problem)
            }
            espeak_SetSynthCallback { samples, count, events in
                guard let events, let context = events.pointee.user_data else { return 0 }
                let gathered = Unmanaged<Gathered>.fromOpaque(context).takeUnretainedValue()
                if let samples, count > 0 {
                    let piece = Array(UnsafeBufferPointer(start: samples, count: Int(count)))
                    gathered.samples += piece
                    gathered.chunk?(piece)
                }
                return 0
            }
            rate = Int(made)
            return .success(Int(made))
        }
        return try result.get()
    }

    func synthesize(_ text: String, voice: String, wordsPerMinute: Int, chunk: (([Int16]) -> Void)?) throws(VoiceError) -> [Int16] {
        _ = try open()
        let result: Result<[Int16], VoiceError> = lock.withLock {
            guard espeak_SetVoiceByName(voice) == EE_OK else {
                return .failure(VoiceError(.missingModel, place: "espeak_SetVoiceByName", "espeak-ng has no voice '\(voice)'; espeak-ng --voices lists them"))
            }
            _ = espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0)
            let gathered = Gathered(chunk: chunk)
            let context = Unmanaged.passRetained(gathered)
            defer { context.release() }
            let status = text.withCString { pointer in
                espeak_Synth(pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, context.toOpaque())
            }
            guard status == EE_OK else {
                return .failure(VoiceError(.synthesizer, place: "espeak_Synth", "espeak-ng could not synthesize the reply (error \(status.rawValue))"))
            }
            return .success(gathered.samples)
        }
        return try result.get()
    }
}
