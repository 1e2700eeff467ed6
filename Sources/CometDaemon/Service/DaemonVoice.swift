import Foundation
import CometSchema
import CometVoice

/// The daemon's ears and voice for `conversation.say` with `audio` (docs/daemon.md, voice.md):
/// one recognizer, hearing with the language compiled from the daemon's schemas and store; one
/// speaker for `"speak": true`.
///
/// The language is compiled the first time audio comes (that turn waits for it: a daemon that
/// never hears anything never compiles), or when a client asks for it first (`language()`).
/// After that, every committed change (or a schema reload) starts a rebuild in the background,
/// which reads the store's words there too and compiles only when the titles, people or places
/// differ from the last language's; the next turn after it finished takes it. A turn never waits for a rebuild. One decoder hears one turn
/// at a time (the daemon's turns are played one at a time on its writer anyway).
final class DaemonVoice: @unchecked Sendable {
    /// The registry and the store's words, read through the daemon's readers.
    private let source: @Sendable () throws(VoiceError) -> (Registry, StoreWords)
    private let folder: URL
    private let lock = NSLock()
    /// Held while a turn is heard: the decoder is not shared between threads.
    private let hearingLock = NSLock()
    private var compiler: LanguageCompiler?
    /// The decoder and the report of the language it hears with.
    private var loaded: (recognizer: Recognizer, report: LanguageReport)?
    private var current: (language: CompiledLanguage, words: StoreWords, registry: Registry)?
    /// A rebuild finished and not taken yet.
    private var finished: (language: CompiledLanguage, words: StoreWords, registry: Registry)?
    private var rebuilding = false
    /// A change came while a rebuild ran: another follows it.
    private var changedAgain = false
    /// The schemas were reloaded since the last rebuild began.
    private var schemasChanged = false
    /// Where compiles and rebuilds are told (the daemon's log).
    var log: @Sendable (String, [(String, String)]) -> Void = { _, _ in }
    private var speaker: Speaker?

    init(source: @escaping @Sendable () throws(VoiceError) -> (Registry, StoreWords)) {
        self.source = source
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcald-voice-\(UUID().uuidString)")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// What `samples` (16 kHz mono) say, with the newest language finished.
    func hear(_ samples: [Int16]) throws(VoiceError) -> Hearing {
        hearingLock.lock()
        defer { hearingLock.unlock() }
        return try ready().recognizer.hear(samples)
    }

    /// The report of the language the next turn hears with, and whether this call compiled it:
    /// a daemon that has heard nothing yet compiles its first language here (the call waits for
    /// it), as the first audio would (`voice.language`, docs/daemon.md).
    func language() throws(VoiceError) -> (report: LanguageReport, compiledNow: Bool) {
        hearingLock.lock()
        defer { hearingLock.unlock() }
        let had = loaded != nil
        return (try ready().report, !had)
    }

    /// The recognizer with the newest finished language, and that language's report: the first
    /// compile is made here.
    private func ready() throws(VoiceError) -> (recognizer: Recognizer, report: LanguageReport) {
        if let loaded {
            if let fresh = lock.withLock({ () -> (language: CompiledLanguage, words: StoreWords, registry: Registry)? in
                defer { finished = nil }
                return finished
            }) {
                do {
                    try loaded.recognizer.use(fresh.language.files)
                    let old = lock.withLock { () -> LanguageFiles? in
                        defer { current = fresh }
                        return current?.language.files
                    }
                    if let old { try? FileManager.default.removeItem(atPath: (old.languageModel as NSString).deletingLastPathComponent) }
                    self.loaded = (loaded.recognizer, fresh.language.report)
                    return (loaded.recognizer, fresh.language.report)
                } catch {
                    log("voice: the rebuilt language could not be loaded; the previous one is kept", [("problem", error.description)])
                }
            }
            return loaded
        }
        let made: LanguageCompiler
        if let known = lock.withLock({ compiler }) { made = known } else { made = LanguageCompiler(pronunciations: try Pronunciations()) }
        let (registry, words) = try source()
        let language = try made.compile(registry: registry, store: words, folder: nextFolder())
        let recognizer = try Recognizer(language: language.files)
        lock.withLock {
            compiler = made
            current = (language, words, registry)
        }
        loaded = (recognizer, language.report)
        log("voice: language compiled", [("sentences", String(language.report.sentences)), ("words", String(language.report.words)),
                                         ("seconds", String(format: "%.2f", language.report.seconds))])
        return (recognizer, language.report)
    }

    private func nextFolder() -> String { folder.appendingPathComponent(UUID().uuidString).path }

    /// The store or the schemas changed: rebuild in the background, if the daemon has heard
    /// anything yet (else there is no language to keep up to date). At most one rebuild runs;
    /// changes during it make one more after it.
    func changed(schemas: Bool = false) {
        let starting: LanguageCompiler? = lock.withLock {
            if schemas { schemasChanged = true }
            guard let known = self.compiler, current != nil else { return nil }
            if rebuilding {
                changedAgain = true
                return nil
            }
            rebuilding = true
            return known
        }
        guard let compiler = starting else { return }
        // A thread of its own, not Dispatch's pool: a compile takes about a second of one core.
        let thread = Thread { [self] in rebuild(compiler) }
        thread.name = "cometcald.voice.rebuild"
        thread.start()
    }

    private func rebuild(_ compiler: LanguageCompiler) {
        while true {
            do {
                let (registry, words) = try source()
                let (last, newSchemas) = lock.withLock { () -> (StoreWords?, Bool) in
                    defer { schemasChanged = false }
                    return ((finished ?? current)?.words, schemasChanged)
                }
                // Only what can be heard matters: titles, people, places, and the schemas.
                if words != last || newSchemas {
                    let started = Date()
                    let language = try compiler.compile(registry: registry, store: words, folder: nextFolder())
                    lock.withLock {
                        if let stale = finished { try? FileManager.default.removeItem(atPath: (stale.language.files.languageModel as NSString).deletingLastPathComponent) }
                        finished = (language, words, registry)
                    }
                    log("voice: language rebuilt", [("words", String(language.report.words)), ("seconds", String(format: "%.2f", Date().timeIntervalSince(started)))])
                }
            } catch {
                log("voice: the language could not be rebuilt; the previous one is kept", [("problem", error.description)])
            }
            let again = lock.withLock { () -> Bool in
                defer { changedAgain = false }
                if !changedAgain { rebuilding = false }
                return changedAgain
            }
            if !again { return }
        }
    }

    /// A reply as a WAVE file's bytes (16-bit mono at espeak-ng's rate).
    func speak(_ text: String) throws(VoiceError) -> (wave: Data, seconds: Double, rate: Int) {
        let opened: Result<Speaker, VoiceError> = lock.withLock {
            if let known = self.speaker { return .success(known) }
            do throws(VoiceError) {
                let made = try Speaker()
                self.speaker = made
                return .success(made)
            } catch {
                return .failure(error)
            }
        }
        let speaker = try opened.get()
        let samples = try speaker.synthesize(text)
        return (WAVFile.encode(samples, sampleRate: speaker.sampleRate), Double(samples.count) / Double(speaker.sampleRate), speaker.sampleRate)
    }
}
