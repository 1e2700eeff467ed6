import Foundation

/// An utterance cut into words, each kept twice: as matched (lower case, plain apostrophes, no
/// punctuation around it) and as written (so a title keeps its capitals). Pauses ("…", "...")
/// and commas are remembered, since a correction follows one ("noon… actually 11:30").
struct Utterance: Sendable, Hashable {
    struct Word: Sendable, Hashable {
        /// As matched: "11:30", "what's", "june".
        let key: String
        /// As written, without surrounding punctuation: "Zero", "June".
        let text: String
        /// A pause or a comma comes right after the word.
        var pauseAfter: Bool
    }

    var words: [Word]

    init(words: [Word]) { self.words = words }

    init(_ raw: String) {
        var words: [Word] = []
        let spaced = raw.replacingOccurrences(of: "…", with: " … ").replacingOccurrences(of: "...", with: " … ")
            .replacingOccurrences(of: "—", with: " … ").replacingOccurrences(of: " - ", with: " … ")
        for piece in spaced.split(whereSeparator: { $0.isWhitespace }) {
            if piece == "…" {
                if !words.isEmpty { words[words.count - 1].pauseAfter = true }
                continue
            }
            var text = String(piece).replacingOccurrences(of: "’", with: "'").replacingOccurrences(of: "‘", with: "'")
            var pause = false
            while let last = text.last, ",;:!?.\"“”)".contains(last) {
                if last != "." || !Utterance.keepsTrailingDot(text) {
                    if last == "," || last == ";" || last == ":" || last == "." || last == "!" || last == "?" { pause = true }
                    text.removeLast()
                } else {
                    break
                }
            }
            while let first = text.first, "\"“”(".contains(first) { text.removeFirst() }
            guard !text.isEmpty else {
                if pause, !words.isEmpty { words[words.count - 1].pauseAfter = true }
                continue
            }
            words.append(Word(key: text.lowercased(), text: text, pauseAfter: pause))
        }
        self.words = words
    }

    /// "a.m." and "p.m." keep their final dot.
    private static func keepsTrailingDot(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower == "a.m." || lower == "p.m."
    }

    var isEmpty: Bool { words.isEmpty }
    var keys: [String] { words.map(\.key) }
    /// The words as written, joined by spaces.
    var text: String { words.map(\.text).joined(separator: " ") }
    var keyText: String { keys.joined(separator: " ") }

    subscript(range: Range<Int>) -> Utterance { Utterance(words: Array(words[range])) }

    /// Drops leading words while they are in `set` (single words or word pairs).
    /// The words after the leading ones in `set`, stopping where one of `kept` begins ("let me
    /// know about" is a verb, though "let me" alone is a filler).
    func droppingLeading(_ set: Set<String>, keeping kept: [[String]] = []) -> Utterance {
        var start = 0
        while start < words.count {
            if kept.contains(where: { phrase in
                start + phrase.count <= words.count && zip(phrase, words[start...]).allSatisfy { $0 == $1.key }
            }) { break }
            if start + 1 < words.count, set.contains(words[start].key + " " + words[start + 1].key) { start += 2; continue }
            if set.contains(words[start].key) { start += 1; continue }
            break
        }
        return self[start..<words.count]
    }

    func droppingTrailing(_ set: Set<String>) -> Utterance {
        var end = words.count
        while end > 0 {
            if end >= 2, set.contains(words[end - 2].key + " " + words[end - 1].key) { end -= 2; continue }
            if set.contains(words[end - 1].key) { end -= 1; continue }
            break
        }
        return self[0..<end]
    }

    /// Whether the utterance starts with the words of `phrase` ("never mind").
    func starts(with phrase: [String]) -> Bool {
        phrase.count <= words.count && zip(phrase, words).allSatisfy { $0 == $1.key }
    }

    func dropping(first count: Int) -> Utterance { self[min(count, words.count)..<words.count] }
}

/// The words people put around what they mean: greetings, hedges, thanks.
enum Fillers {
    /// Said before a request or an answer, and meaning nothing to it.
    static let leading: Set<String> = [
        "hey", "hi", "siri", "hey siri", "cometcal", "oh", "um", "uh", "hmm", "so", "well", "ok so", "okay so", "also", "and",
        "please", "can you", "could you", "would you", "will you", "i want to", "i'd like to", "i would like to", "let's", "let me",
        "i need to", "go ahead and", "now", "then", "and then", "actually", "oh actually", "ok actually",
        // What people call their assistant before speaking to it.
        "alexa", "hey alexa", "ok google", "okay google", "hey google", "google", "cortana", "hey cortana", "olly", "hey olly",
        "computer", "assistant", "hey cometcal", "ugh", "wait", "oops", "hmm ok", "yo",
    ]
    /// Said after: thanks and politeness.
    static let trailing: Set<String> = ["please", "thanks", "thank you", "thx", "again", "for me", "then", "now", "instead"]
}
