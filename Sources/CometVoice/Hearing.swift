import CometSchema

/// What the recognizer heard in one turn: the words, each with its posterior probability from
/// the decoder's word lattice, and the turn's confidence, which is the weakest word's (a hearing
/// is as sure as its least sure word). Fillers (silence, breath, noise) are not words.
public struct Hearing: Sendable, Hashable {
    public struct Word: Sendable, Hashable {
        public let text: String
        /// The word's posterior probability in the lattice, 0…1.
        public let posterior: Double
        /// Where it was said, in seconds from the start of the turn's sound.
        public let start: Double
        public let end: Double
    }

    public let words: [Word]
    /// The length of the sound heard, in seconds.
    public let seconds: Double
    /// The decoder's next best readings of the same sound, best first, when the best one is
    /// unsure (`Recognizer.alternatives`).
    public let alternatives: [Hearing]
    /// Whether the recognizer put a faint noise floor under the sound before hearing it: it had
    /// digital silence, as a synthesizer writes (`Recognizer.withNoiseFloor`). Said, since the
    /// sound heard is not quite the one given.
    public let noiseFloorAdded: Bool

    public init(words: [Word], seconds: Double, alternatives: [Hearing] = [], noiseFloorAdded: Bool = false) {
        self.words = words
        self.seconds = seconds
        self.alternatives = alternatives
        self.noiseFloorAdded = noiseFloorAdded
    }

    /// The words as one line of text, as the conversation reads it.
    public var text: String { words.map(\.text).joined(separator: " ") }
    /// The weakest word's posterior; 0 when nothing was heard.
    public var confidence: Double { words.map(\.posterior).min() ?? 0 }
    public var isEmpty: Bool { words.isEmpty }

    /// {text, confidence, seconds, noiseFloorAdded, words: [{word, posterior, start, end}],
    /// alternatives: [{text, confidence}]}.
    public var json: JSONValue {
        .object(JSONObject([
            ("text", .string(text)), ("confidence", .double(Hearing.rounded(confidence))), ("seconds", .double(Hearing.rounded(seconds))),
            ("noiseFloorAdded", .bool(noiseFloorAdded)),
            ("words", .array(words.map { word in
                .object(JSONObject([("word", .string(word.text)), ("posterior", .double(Hearing.rounded(word.posterior))),
                                    ("start", .double(Hearing.rounded(word.start))), ("end", .double(Hearing.rounded(word.end)))]))
            })),
            ("alternatives", .array(alternatives.map { other in
                .object(JSONObject([("text", .string(other.text)), ("confidence", .double(Hearing.rounded(other.confidence)))]))
            })),
        ]))
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
