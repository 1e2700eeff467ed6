import Foundation

/// The CMU pronouncing dictionary as pocketsphinx ships it: each word with its pronunciations
/// (`read`, `read(2)`), read once and shared. A compiled language's dictionary is the lines of
/// the words it uses.
public final class Pronunciations: Sendable {
    /// Word → its lines in the dictionary ("read R EH D", "read(2) R IY D").
    private let lines: [String: [String]]
    public let path: String

    public init(path: String = SpeechModels.cmudict) throws(VoiceError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw VoiceError(.missingModel, place: path, "the pronouncing dictionary is not there; install it with scripts/bootstrap (Debian's pocketsphinx-en-us)")
        }
        var lines: [String: [String]] = [:]
        lines.reserveCapacity(140_000)
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            var word = line[..<space]
            if let open = word.firstIndex(of: "("), word.hasSuffix(")") { word = word[..<open] }
            lines[String(word), default: []].append(String(line))
        }
        self.lines = lines
    }

    public func contains(_ word: String) -> Bool { lines[word] != nil }

    /// The dictionary lines of `word`, every pronunciation.
    func entries(_ word: String) -> [String] { lines[word] ?? [] }

    /// How a word with no entry of its own can still be said: lower case, its parts around
    /// hyphens or slashes, a possessive's stem with "'s" said as /Z/, digits spelled, or two
    /// known words it is made of ("stargazing" is "star gazing"). Nil when none works: the
    /// caller reports the word.
    func spelling(of word: String) -> [String]? {
        if contains(word) { return [word] }
        let lower = word.lowercased()
        if lower != word, contains(lower) { return [lower] }
        let parts = lower.split(whereSeparator: { "-/_&+".contains($0) }).map(String.init)
        if parts.count > 1 {
            let spelled = parts.map { spelling(of: $0) }
            if spelled.allSatisfy({ $0 != nil }) { return spelled.flatMap { $0 ?? [] } }
        }
        if lower.allSatisfy(\.isNumber), let number = Int(lower), number < 100 { return NumberWords.spell(number) }
        if lower.count >= 6 {
            // The split with the longest first part that leaves a known word of three letters or more.
            let characters = Array(lower)
            for cut in stride(from: characters.count - 3, through: 3, by: -1) {
                let head = String(characters[..<cut]), tail = String(characters[cut...])
                if contains(head), contains(tail) { return [head, tail] }
            }
        }
        return nil
    }
}

/// Numbers under a hundred as words, for titles with digits in them ("Gate 7").
enum NumberWords {
    static let units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    static func spell(_ number: Int) -> [String] {
        if number < 20 { return [units[number]] }
        return [tens[number / 10]] + (number % 10 == 0 ? [] : [units[number % 10]])
    }
}
