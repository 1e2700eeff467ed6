import Foundation
import CPocketSphinx

/// The words English speakers say most, by pocketsphinx's generic language model: its unigrams
/// in order of probability. A compiled language takes the first few thousand as the words a
/// new title can be made of ("dinner with sam", "swim practice"), since a record that does not
/// exist yet has no title in the store to compile from (docs/voice.md, "New titles").
public enum CommonWords {
    private static let cache = CommonWordsCache()

    /// The `count` most probable words of the model at `path` (pocketsphinx's generic model by
    /// default) that are plain words: letters, perhaps with an apostrophe inside; no sentence
    /// marks. Read once per model and count, and kept.
    public static func read(count: Int, model path: String = SpeechModels.generic.languageModel) throws(VoiceError) -> [String] {
        if let known = cache.get(path) { return Array(known.prefix(count)) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw VoiceError(.missingModel, place: path, "the generic language model is not there; install it with scripts/bootstrap (Debian's pocketsphinx-en-us)")
        }
        guard let logmath = logmath_init(1.0001, 0, 0) else { throw VoiceError(.decoder, place: "logmath_init", "sphinxbase could not make a log table") }
        defer { logmath_free(logmath) }
        guard let model = ngram_model_read(nil, path, NGRAM_AUTO, logmath) else {
            throw VoiceError(.decoder, place: path, "sphinxbase could not read this language model")
        }
        defer { ngram_model_free(model) }
        guard let counts = ngram_model_get_counts(model) else { throw VoiceError(.decoder, place: path, "the language model has no unigrams") }
        var scored: [(word: String, score: Int32)] = []
        for wid in 0..<Int32(counts[0]) {
            guard let raw = ngram_word(model, wid) else { continue }
            let word = String(cString: raw)
            guard let first = word.first, first.isLetter, word.allSatisfy({ $0.isLetter || $0 == "'" }) else { continue }
            var used: Int32 = 0
            scored.append((word, ngram_ng_score(model, wid, nil, 0, &used)))
        }
        // Most probable first; ties in the word's order, so every read gives the same list.
        let words = scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.word < $1.word }.map(\.word)
        cache.set(path, words)
        return Array(words.prefix(count))
    }
}

private final class CommonWordsCache: @unchecked Sendable {
    private let lock = NSLock()
    private var lists: [String: [String]] = [:]
    func get(_ path: String) -> [String]? { lock.withLock { lists[path] } }
    func set(_ path: String, _ words: [String]) { lock.withLock { lists[path] = words } }
}
