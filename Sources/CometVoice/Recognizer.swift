import Foundation
import CPocketSphinx

/// Where the decoder's models are: the acoustic model folder, and a language (a language model
/// with the dictionary that spells its words as phones).
public struct SpeechModels: Sendable, Hashable {
    /// Debian's pocketsphinx-en-us package.
    public static let debianFolder = "/usr/share/pocketsphinx/model/en-us"
    public let acousticModel: String

    public init(acousticModel: String = SpeechModels.debianFolder + "/en-us") { self.acousticModel = acousticModel }

    /// pocketsphinx's generic US English model and the whole CMU dictionary: the reference the
    /// compiled language is measured against.
    public static let generic = LanguageFiles(languageModel: debianFolder + "/en-us.lm.bin", dictionary: debianFolder + "/cmudict-en-us.dict")
    public static let cmudict = debianFolder + "/cmudict-en-us.dict"
}

/// A language model file, its dictionary, and the decoder settings it is heard with.
public struct LanguageFiles: Sendable, Hashable {
    public let languageModel: String
    public let dictionary: String
    public let settings: DecoderSettings

    public init(languageModel: String, dictionary: String, settings: DecoderSettings = .pocketsphinx) {
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.settings = settings
    }

    /// The same language with other decoder settings.
    public func with(_ settings: DecoderSettings) -> LanguageFiles {
        LanguageFiles(languageModel: languageModel, dictionary: dictionary, settings: settings)
    }
}

/// pocketsphinx options that differ from its defaults, as its own flags and values ("-lw",
/// "10"), applied in order when a language is loaded. pocketsphinx's defaults are tuned for
/// its generic model, a large vocabulary; a small compiled language is heard with its own
/// (`compiled`, docs/voice.md, "Decoder settings").
public struct DecoderSettings: Sendable, Hashable, CustomStringConvertible {
    public let flags: [[String]]

    public init(_ flags: [(String, String)]) { self.flags = flags.map { [$0.0, $0.1] } }

    /// pocketsphinx's own defaults: the generic model is heard with them.
    public static let pocketsphinx = DecoderSettings([])

    /// A compiled language's settings: pocketsphinx's defaults, since none of the settings the
    /// voice suite's tuning run tried did better on its half of the example dialogs
    /// (docs/voice.md, "Decoder settings").
    public static let compiled = DecoderSettings([])

    /// "-lw 10 -wip 0.2": pocketsphinx's command-line spelling, for logs and --json.
    public var description: String { flags.map { $0.joined(separator: " ") }.joined(separator: " ") }

    /// Settings from pocketsphinx's command-line spelling ("-lw 10 -wip 0.2"); nil when the
    /// words do not come in flag-value pairs.
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard words.count % 2 == 0 else { return nil }
        var pairs: [(String, String)] = []
        for index in stride(from: 0, to: words.count, by: 2) {
            guard words[index].hasPrefix("-") else { return nil }
            pairs.append((words[index], words[index + 1]))
        }
        self.init(pairs)
    }

    /// pocketsphinx's declaration of an option (its type and default), or nil for a flag it
    /// does not have.
    static func declaration(of flag: String) -> (type: Int32, defaultValue: String?)? {
        guard var option = ps_args() else { return nil }
        while let name = option.pointee.name {
            if String(cString: name) == flag { return (option.pointee.type & ~Int32(ARG_REQUIRED), option.pointee.deflt.map { String(cString: $0) }) }
            option += 1
        }
        return nil
    }

    /// The same flags with pocketsphinx's default values: what undoes these settings.
    var defaults: DecoderSettings {
        DecoderSettings(flags.compactMap { pair in DecoderSettings.declaration(of: pair[0])?.defaultValue.map { (pair[0], $0) } })
    }

    /// Sets each flag in a decoder configuration with the setter of its option's type (numbers
    /// and yes/no; the settings are for the search, not for files). A flag pocketsphinx does not
    /// have, a value that is not of its type, or a text option, is an error naming it.
    func apply(to config: OpaquePointer) throws(VoiceError) {
        for pair in flags {
            let (flag, value) = (pair[0], pair[1])
            guard let declared = DecoderSettings.declaration(of: flag) else {
                throw VoiceError(.decoder, place: flag, "pocketsphinx has no such option (decoder settings \(description))")
            }
            switch declared.type {
            case Int32(ARG_FLOATING):
                guard let number = Double(value) else { throw VoiceError(.decoder, place: flag, "\(value) is not a number") }
                cmd_ln_set_float_r(config, flag, number)
            case Int32(ARG_INTEGER):
                guard let number = Int(value) else { throw VoiceError(.decoder, place: flag, "\(value) is not a whole number") }
                cmd_ln_set_int_r(config, flag, number)
            case Int32(ARG_BOOLEAN):
                guard let on = ["yes": true, "no": false, "true": true, "false": false][value.lowercased()] else {
                    throw VoiceError(.decoder, place: flag, "\(value) is not yes or no")
                }
                cmd_ln_set_int_r(config, flag, on ? 1 : 0)
            default:
                throw VoiceError(.decoder, place: flag, "decoder settings take numbers and yes/no only, not this option")
            }
        }
    }
}

/// The one owner of a pocketsphinx decoder (`ps_decoder_t`), freed when the recognizer goes. Not
/// `Sendable`: a decoder is used by one thread at a time; make one per worker.
///
/// Each turn is decoded as a whole utterance (`full_utt`), so its cepstral mean is the turn's
/// own (the model's `-cmn batch`); the noise estimate of `-remove_noise` is not, and carries
/// over from turn to turn: the same turns in the same order are heard the same.
public final class Recognizer {
    private let decoder: OpaquePointer
    public private(set) var language: LanguageFiles
    /// How many other readings of each turn to keep beside the best (`Hearing.alternatives`);
    /// 0 keeps none. The voice gate reads them when the best one reads as nothing.
    var alternatives = Recognizer.defaultAlternatives
    static let defaultAlternatives = 10
    /// How many of the A* search's paths are read per alternative wanted (many differ only in
    /// fillers, pronunciations or timing, not in words).
    static let pathsPerAlternative = 5
    /// Alternatives are looked for only when the best reading's confidence is under this (the
    /// gate's threshold): a sure hearing is never read again.
    var alternativesBelow = VoiceConversation.defaultThreshold
    /// Frames per second of the acoustic features (pocketsphinx's default `-frate`).
    static let frameRate = 100.0

    /// `quiet` sends the library's log to /dev/null (commands); otherwise it goes to stderr.
    /// `removeNoise` is pocketsphinx's spectral noise subtraction (on by default): its noise
    /// estimate carries over from one turn to the next, so a turn's hearing depends on the turns
    /// before it; off, turns are independent but heard worse (docs/voice.md, "Measured").
    public init(models: SpeechModels = SpeechModels(), language: LanguageFiles, quiet: Bool = true, removeNoise: Bool = true) throws(VoiceError) {
        for (path, what) in [(models.acousticModel + "/mdef", "the acoustic model"), (language.languageModel, "the language model"),
                             (language.dictionary, "the dictionary")] where !FileManager.default.fileExists(atPath: path) {
            throw VoiceError(.missingModel, place: path, "\(what) is not there; install it with scripts/bootstrap (Debian's pocketsphinx-en-us)")
        }
        if quiet { err_set_logfp(nil) }
        guard let config = cometcal_ps_config(models.acousticModel, language.languageModel, language.dictionary, quiet ? "/dev/null" : nil,
                                              removeNoise ? "yes" : "no") else {
            throw VoiceError(.decoder, place: "cmd_ln_init", "pocketsphinx refused the configuration (model \(models.acousticModel))")
        }
        do { try language.settings.apply(to: config) } catch {
            cmd_ln_free_r(config)
            throw error
        }
        let made = ps_init(config)
        cmd_ln_free_r(config)
        guard let made else {
            throw VoiceError(.decoder, place: "ps_init", "pocketsphinx could not load \(models.acousticModel) with \(language.languageModel) and \(language.dictionary); run without quiet to see its log")
        }
        decoder = made
        self.language = language
    }

    deinit { ps_free(decoder) }

    /// Listens to another language without loading the acoustic model again: its dictionary
    /// replaces the words, its model the search, and its settings are the new search's.
    public func use(_ language: LanguageFiles) throws(VoiceError) {
        if language.settings != self.language.settings {
            guard let config = ps_get_config(decoder) else { throw VoiceError(.decoder, place: "ps_get_config", "the decoder has no configuration") }
            // The options the new search reads; ones this language leaves alone go back to
            // pocketsphinx's defaults.
            try self.language.settings.defaults.apply(to: config)
            try language.settings.apply(to: config)
        }
        guard ps_load_dict(decoder, language.dictionary, nil, nil) == 0 else {
            throw VoiceError(.decoder, place: language.dictionary, "pocketsphinx could not load this dictionary")
        }
        let name = "lm-\(UUID().uuidString)"
        guard ps_set_lm_file(decoder, name, language.languageModel) == 0, ps_set_search(decoder, name) == 0 else {
            throw VoiceError(.decoder, place: language.languageModel, "pocketsphinx could not load this language model")
        }
        self.language = language
    }

    /// The floor's level: uniform noise of this amplitude, about −51 dBFS RMS, a quiet room
    /// through an ordinary microphone.
    static let noiseFloorAmplitude: Int32 = 160
    /// A recording whose quietest tenth of 10 ms frames is under this RMS (about −70 dBFS) has
    /// no room noise at all: it comes from a synthesizer or another digital source.
    static let digitalQuietRMS = 10.0

    /// `samples` with a faint noise floor when they have none. A microphone always hears its
    /// room, and the acoustic model was trained on such recordings; a synthesizer's pauses are
    /// near digital zero, and the decoder, which sets its noise and level estimates from the
    /// quiet frames, then misjudges the speech. Measured by hand on six espeak-ng utterances
    /// (docs/voice.md, "Digital silence"): as given, 1 of 6 heard exactly ("where is my picnic"
    /// as "where is the"); with white noise at this level mixed in, 4 of 6, the other two one
    /// word off. Recordings with a noise floor of their own are left as they are. The noise is
    /// the same for the same samples (a fixed seed), so a hearing is repeatable.
    static func withNoiseFloor(_ samples: [Int16]) -> [Int16] { floored(samples).samples }

    /// `withNoiseFloor`, and whether it added one.
    static func floored(_ samples: [Int16]) -> (samples: [Int16], added: Bool) {
        let frame = WAVFile.sampleRate / 100
        guard samples.count >= frame else { return (samples, false) }
        var energies: [Double] = []
        for start in stride(from: 0, through: samples.count - frame, by: frame) {
            var sum = 0.0
            for sample in samples[start..<(start + frame)] { sum += Double(sample) * Double(sample) }
            energies.append((sum / Double(frame)).squareRoot())
        }
        energies.sort()
        guard energies[energies.count / 10] < digitalQuietRMS else { return (samples, false) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (samples.map { sample in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int32(truncatingIfNeeded: state >> 33) % (2 * noiseFloorAmplitude + 1) - noiseFloorAmplitude
            return Int16(clamping: Int32(sample) + noise)
        }, true)
    }

    /// What was said in `samples` (16 kHz mono), as one utterance, with the decoder's next best
    /// readings when the best one is unsure (`alternatives`).
    public func hear(_ samples: [Int16]) throws(VoiceError) -> Hearing {
        let seconds = Double(samples.count) / Double(WAVFile.sampleRate)
        guard ps_start_utt(decoder) == 0 else { throw VoiceError(.decoder, place: "ps_start_utt", "the decoder could not start an utterance") }
        let (samples, floorAdded) = Recognizer.floored(samples)
        let processed = samples.withUnsafeBufferPointer { buffer in
            ps_process_raw(decoder, buffer.baseAddress, buffer.count, 0, 1)
        }
        guard ps_end_utt(decoder) == 0, processed >= 0 else {
            throw VoiceError(.decoder, place: "ps_process_raw", "the decoder failed on \(samples.count) samples")
        }
        var score: Int32 = 0
        guard ps_get_hyp(decoder, &score) != nil else { return Hearing(words: [], seconds: seconds, noiseFloorAdded: floorAdded) }
        var words: [Hearing.Word] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            if let raw = ps_seg_word(current), let word = Recognizer.spoken(String(cString: raw)) {
                var acoustic: Int32 = 0, language: Int32 = 0, backoff: Int32 = 0
                let posterior = cometcal_ps_linear(decoder, ps_seg_prob(current, &acoustic, &language, &backoff))
                var first: Int32 = 0, last: Int32 = 0
                ps_seg_frames(current, &first, &last)
                words.append(Hearing.Word(text: word, posterior: min(1, max(0, posterior)),
                                          start: Double(first) / Recognizer.frameRate, end: Double(last + 1) / Recognizer.frameRate))
            }
            segment = ps_seg_next(current)
        }
        let sure = words.map(\.posterior).min() ?? 0 >= alternativesBelow
        let others = alternatives > 0 && !sure ? otherReadings(than: words.map(\.text).joined(separator: " "), seconds: seconds) : []
        return Hearing(words: words, seconds: seconds, alternatives: others, noiseFloorAdded: floorAdded)
    }

    /// The next best readings of the utterance just decoded, best first, each different in its
    /// words from the best one and from each other (at most `alternatives`, from the first
    /// `pathsPerAlternative × alternatives` paths of the decoder's A* search over its word
    /// lattice, `ps_nbest`).
    /// pocketsphinx gives no posterior for an N-best path's words, so each word's is its
    /// lattice node's (`ps_latnode_prob`: the word said there, whatever follows it).
    private func otherReadings(than best: String, seconds: Double) -> [Hearing] {
        guard let lattice = ps_get_lattice(decoder), let logmath = ps_lattice_get_logmath(lattice) else { return [] }
        var posteriors: [String: Double] = [:]
        var nodes = ps_latnode_iter(lattice)
        while let iterator = nodes {
            if let node = ps_latnode_iter_node(iterator), let raw = ps_latnode_word(lattice, node) {
                var firstEnd: Int16 = 0, lastEnd: Int16 = 0
                let start = ps_latnode_times(node, &firstEnd, &lastEnd)
                var link: OpaquePointer?
                let posterior = logmath_exp(logmath, ps_latnode_prob(lattice, node, &link))
                posteriors[String(cString: raw) + "@\(start)"] = min(1, max(0, posterior))
            }
            nodes = ps_latnode_iter_next(iterator)
        }
        var seen: Set<String> = [best]
        var readings: [Hearing] = []
        var paths = 0
        var nbest = ps_nbest(decoder)
        while let current = nbest, readings.count < alternatives, paths < Recognizer.pathsPerAlternative * alternatives {
            paths += 1
            var words: [Hearing.Word] = []
            var segment = ps_nbest_seg(current)
            while let piece = segment {
                if let raw = ps_seg_word(piece), let word = Recognizer.spoken(String(cString: raw)) {
                    var first: Int32 = 0, last: Int32 = 0
                    ps_seg_frames(piece, &first, &last)
                    words.append(Hearing.Word(text: word, posterior: posteriors[String(cString: raw) + "@\(first)"] ?? 0,
                                              start: Double(first) / Recognizer.frameRate, end: Double(last + 1) / Recognizer.frameRate))
                }
                segment = ps_seg_next(piece)
            }
            let text = words.map(\.text).joined(separator: " ")
            if !words.isEmpty, seen.insert(text).inserted { readings.append(Hearing(words: words, seconds: seconds)) }
            nbest = ps_nbest_next(current)
        }
        if let nbest { ps_nbest_free(nbest) }
        return readings
    }

    /// A word as said, or nil for the decoder's fillers: `<s>`, `</s>`, `<sil>`, `[NOISE]`,
    /// `++BREATH++`. An alternative pronunciation's mark is dropped ("read(2)" is "read").
    static func spoken(_ word: String) -> String? {
        if word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("+") { return nil }
        if let open = word.firstIndex(of: "("), word.hasSuffix(")") { return String(word[..<open]) }
        return word
    }
}
