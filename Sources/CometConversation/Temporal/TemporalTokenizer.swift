/// One word, number or sign of a temporal expression, with where it starts.
struct TemporalToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Letters in lower case, apostrophes kept ("o'clock", "don't"); "a.m." and "p.m."
        /// arrive as "am" and "pm".
        case word(String)
        /// Digits ("0930" has four, kept so a leading zero can mean a 24-hour clock) or a
        /// spelled number ("twenty four", digits 0).
        case number(Int, digits: Int)
        /// "15th", "third", "twenty-first".
        case ordinal(Int)
        /// Any other character that is not a space or a comma: `:`, `/`, `-`, `.`, `+`.
        case symbol(Character)
    }

    let kind: Kind
    /// 1-based column in characters of the text as given.
    let column: Int
    /// The text as written, for messages.
    let text: String

    var word: String? {
        if case .word(let word) = kind { return word }
        return nil
    }
}

/// Splits text into tokens: runs of letters, runs of digits, single symbols. Spelled numbers
/// are joined into one number token ("twenty four" is 24); commas separate nothing that spaces
/// do not, so they are dropped.
struct TemporalTokenizer {
    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        // Curly apostrophes are typed by phones ("don’t").
        characters = Array(text.replacingOccurrences(of: "\u{2019}", with: "'"))
    }

    static func tokens(_ text: String) throws(TemporalError) -> [TemporalToken] {
        joinSpelledNumbers(try rawTokens(text))
    }

    /// The tokens before spelled numbers are joined, so that the extractor can tokenize each
    /// word once and join the numbers of any run of words (`joinSpelledNumbers`).
    static func rawTokens(_ text: String) throws(TemporalError) -> [TemporalToken] {
        var tokenizer = TemporalTokenizer(text)
        return try tokenizer.run()
    }

    private mutating func run() throws(TemporalError) -> [TemporalToken] {
        var raw: [TemporalToken] = []
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace || character == "," || character == ";" {
                index += 1
            } else if character == "@" {
                // "tmrw @ 3pm": typed for "at".
                raw.append(TemporalToken(kind: .word("at"), column: index + 1, text: "@"))
                index += 1
            } else if character.isASCII, character.isNumber {
                raw += try digits()
            } else if character.isLetter {
                raw += letters()
            } else {
                raw.append(TemporalToken(kind: .symbol(character), column: index + 1, text: String(character)))
                index += 1
            }
        }
        return raw
    }

    /// Digits, and an ordinal suffix written right after them ("15th").
    private mutating func digits() throws(TemporalError) -> [TemporalToken] {
        let start = index
        while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        let text = String(characters[start..<index])
        // Nine digits are more than any date, time or count needs; more would overflow.
        guard text.count <= 9, let value = Int(text) else {
            throw TemporalError(.outOfRange, TemporalMessages.tooLarge, column: start + 1)
        }
        let suffix = peekLetters()
        if ["st", "nd", "rd", "th"].contains(suffix.lowercased()) {
            index += suffix.count
            return [TemporalToken(kind: .ordinal(value), column: start + 1, text: text + suffix)]
        }
        // "2moro", "2nite": shorthand that starts with a digit.
        if let word = TemporalLexicon.shorthand[(text + suffix).lowercased()] {
            index += suffix.count
            return [TemporalToken(kind: .word(word), column: start + 1, text: text + suffix)]
        }
        // "10a", "6p", "9:15a": a meridiem of one letter, written right after the digits (a
        // letter with a full stop after it is "a.m." and read as such).
        let letter = suffix.lowercased()
        if letter == "a" || letter == "p", !(index + 1 < characters.count && characters[index + 1] == ".") {
            index += 1
            return [TemporalToken(kind: .number(value, digits: text.count), column: start + 1, text: text),
                    TemporalToken(kind: .word(letter + "m"), column: start + 1 + text.count, text: suffix)]
        }
        return [TemporalToken(kind: .number(value, digits: text.count), column: start + 1, text: text)]
    }

    private func peekLetters() -> String {
        var end = index
        while end < characters.count, characters[end].isLetter { end += 1 }
        return String(characters[index..<end])
    }

    /// A run of letters (with inner apostrophes), read as "am"/"pm" when it is "a.m." or "p.m.",
    /// and split before "ish" when that marks an approximation ("noonish").
    private mutating func letters() -> [TemporalToken] {
        let start = index
        if let meridiem = dottedMeridiem() { return [meridiem] }
        while index < characters.count, characters[index].isLetter
                || (characters[index] == "'" && index + 1 < characters.count && characters[index + 1].isLetter && index > start) {
            index += 1
        }
        var text = String(characters[start..<index])
        var lower = text.lowercased()
        // "monday's", "tomorrow's": the day, not a word of its own.
        if lower.hasSuffix("'s"), TemporalLexicon.takesPossessive(TemporalLexicon.shorthand[String(lower.dropLast(2))] ?? String(lower.dropLast(2))) {
            lower = String(lower.dropLast(2))
            text = String(text.dropLast(2))
        }
        if let word = TemporalLexicon.shorthand[lower] {
            if index < characters.count, characters[index] == "." { index += 1 }
            return [TemporalToken(kind: .word(word), column: start + 1, text: text)]
        }
        // "wed.", "sept.": an abbreviation's full stop ends nothing.
        if index < characters.count, characters[index] == ".", TemporalLexicon.takesFullStop(lower) { index += 1 }
        if lower.count > 3, lower.hasSuffix("ish"), TemporalLexicon.takesIsh(String(lower.dropLast(3))) {
            let stem = String(text.dropLast(3))
            return [TemporalToken(kind: .word(String(lower.dropLast(3))), column: start + 1, text: stem),
                    TemporalToken(kind: .word("ish"), column: start + 1 + stem.count, text: String(text.suffix(3)))]
        }
        return [TemporalToken(kind: .word(lower), column: start + 1, text: text)]
    }

    /// "a.m.", "a.m", "p.m." (any case): one token.
    private mutating func dottedMeridiem() -> TemporalToken? {
        let start = index
        guard start + 2 < characters.count else { return nil }
        let first = Character(characters[start].lowercased())
        guard first == "a" || first == "p", characters[start + 1] == ".", characters[start + 2].lowercased() == "m" else { return nil }
        var end = start + 3
        if end < characters.count, characters[end].isLetter { return nil }
        if end < characters.count, characters[end] == "." { end += 1 }
        index = end
        return TemporalToken(kind: .word(first == "a" ? "am" : "pm"), column: start + 1, text: String(characters[start..<end]))
    }

    /// "twenty four" and "twenty-four" are 24, "thirty first" is the 31st; a lone spelled
    /// number is a number; "second" stays a word (see TemporalLexicon.ordinalUnits).
    static func joinSpelledNumbers(_ raw: [TemporalToken]) -> [TemporalToken] {
        var result: [TemporalToken] = []
        var position = 0
        func word(_ offset: Int) -> String? { position + offset < raw.count ? raw[position + offset].word : nil }
        while position < raw.count {
            let token = raw[position]
            guard let lower = token.word else {
                result.append(token)
                position += 1
                continue
            }
            // "twelve o clock": speech transcribed writes "o'clock" as two words.
            if lower == "o", word(1) == "clock" {
                result.append(joined(raw[position...(position + 1)], .word("o'clock")))
                position += 2
                continue
            }
            if let tens = TemporalLexicon.tens[lower] {
                // "twenty four", "twenty-four"
                let gap = raw.indices.contains(position + 1) && raw[position + 1].kind == .symbol("-") ? 2 : 1
                if let next = word(gap), let unit = TemporalLexicon.units[next], (1...9).contains(unit) {
                    result.append(joined(raw[position...(position + gap)], .number(tens + unit, digits: 0)))
                    position += gap + 1
                    continue
                }
                if let next = word(gap), let unit = TemporalLexicon.ordinalAfterTens[next], (1...9).contains(unit) {
                    result.append(joined(raw[position...(position + gap)], .ordinal(tens + unit)))
                    position += gap + 1
                    continue
                }
                result.append(TemporalToken(kind: .number(tens, digits: 0), column: token.column, text: token.text))
            } else if let unit = TemporalLexicon.units[lower] {
                result.append(TemporalToken(kind: .number(unit, digits: 0), column: token.column, text: token.text))
            } else if let ordinal = TemporalLexicon.ordinalUnits[lower] ?? TemporalLexicon.ordinalTens[lower] {
                result.append(TemporalToken(kind: .ordinal(ordinal), column: token.column, text: token.text))
            } else {
                result.append(token)
            }
            position += 1
        }
        return result
    }

    private static func joined(_ tokens: ArraySlice<TemporalToken>, _ kind: TemporalToken.Kind) -> TemporalToken {
        let first = tokens.first?.column ?? 1
        let text = tokens.map(\.text).joined(separator: " ")
        return TemporalToken(kind: kind, column: first, text: text)
    }
}
