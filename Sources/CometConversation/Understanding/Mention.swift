import Foundation
import CometSchema

/// How an utterance names an entity: by pointing at what is in focus ("it", "this event"), by
/// its place in the last list ("that third event"), by when it happens ("the event happening
/// June 9th"), or by words from its title, note or people ("my crew lunch").
enum Mention: Sendable, Hashable {
    case focus
    /// 1-based; -1 is the last one.
    case ordinal(Int)
    case time(TemporalResolution, text: String)
    case text(String)
    /// Already resolved (a choice answered, a reference kept from an earlier turn), with the
    /// occurrence meant when the record repeats.
    case id(UUID, occurrence: DateTimeValue?)
    /// A description ("my meeting with John tonight", "the next appointment"): title words, a
    /// time, a person and which of the matches, found through the entity's search.
    case description(MentionDescription)
}

/// What a description says of the record it names. Words that only say the kind ("meeting"
/// for an event declared with that noun) are not title words: they match any record.
struct MentionDescription: Sendable, Hashable {
    enum Position: String, Sendable, Hashable {
        /// The one the words and time match; several are a question.
        case any
        /// The first from now ("my next meeting").
        case next
        /// The latest before now ("my last appointment").
        case last
    }

    /// Title words beyond the kind's nouns, as said; nil when the words only say the kind.
    var words: String?
    var time: TemporalResolution?
    var timeText: String?
    var person: String?
    var position: Position = .any
    /// "all my meetings this week": every match is meant.
    var all = false
}

enum MentionReader {
    static let determiners: Set<String> = ["the", "my", "our", "your", "that", "this", "a", "an", "those", "these"]
    static let pronouns: [[String]] = [["it"], ["this"], ["that"], ["them"], ["this", "one"], ["that", "one"], ["the", "same", "one"]]
    static let ordinals: [String: Int] = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
        "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6, "7th": 7, "8th": 8, "9th": 9, "10th": 10, "last": -1,
    ]
    static let timeLinks: Set<String> = ["happening", "on", "at", "scheduled", "for", "that's", "which", "is", "that", "starting", "taking", "place"]

    /// `nouns` are what the entity is called ("event"); `parseTime` reads a temporal expression.
    static func read(_ words: Utterance, nouns: Set<String>, parseTime: (String) -> TemporalResolution?) -> Mention? {
        let keys = words.keys
        guard !keys.isEmpty else { return nil }
        let bareNouns = nouns.union(["one"])
        // "it", "this", "this event", "that one".
        if pronouns.contains(keys) { return .focus }
        if keys.count == 2, ["this", "that", "the"].contains(keys[0]), nouns.contains(keys[1]) { return .focus }

        // "the third one", "that third event", "the last event", "number 3".
        if keys.count == 2, keys[0] == "number", let number = Int(keys[1]), number > 0 { return .ordinal(number) }
        let afterDeterminer = keys.first.map(determiners.contains) == true ? Array(keys.dropFirst()) : keys
        if let first = afterDeterminer.first, let position = ordinals[first],
           afterDeterminer.count == 1 || (afterDeterminer.count == 2 && bareNouns.contains(afterDeterminer[1])) {
            return .ordinal(position)
        }

        // "the event happening June 9th", "the one on Friday".
        if let first = afterDeterminer.first, bareNouns.contains(first), afterDeterminer.count > 1 {
            var rest = Array(words.words.suffix(afterDeterminer.count - 1))
            while let word = rest.first, timeLinks.contains(word.key) { rest.removeFirst() }
            let text = rest.map(\.text).joined(separator: " ")
            if !rest.isEmpty, let resolution = parseTime(text) {
                switch resolution {
                case .date, .instant, .range, .timeOfDay: return .time(resolution, text: text)
                default: break
                }
            }
        }

        // Words: without the determiners before them or the noun after them.
        var trimmed = words.droppingLeading(determiners)
        if trimmed.words.count > 1, let last = trimmed.words.last, nouns.contains(last.key) {
            trimmed = trimmed[0..<(trimmed.words.count - 1)]
        }
        guard !trimmed.isEmpty, !(trimmed.words.count == 1 && bareNouns.contains(trimmed.words[0].key)) else { return nil }
        return .text(trimmed.text)
    }
}
