import CometText

/// A recursive-descent grammar over tokens, with backtracking between alternatives. The first
/// reading of the whole text wins, trying in order: a repeat rule, a series end, a shift, the
/// ranges ("all day", "this week", "June 15 to 18", "from 2 to 3", "at 3 for an hour"), a time
/// from now, a duration, a date and/or time. When none reads the whole text, the
/// error points at the farthest token any reading reached, with what it expected there.
///
/// The productions live in extensions by topic: points (dates and times), spans (durations,
/// ranges, shifts) and recurrence.
struct TemporalGrammar {
    let tokens: [TemporalToken]
    /// One past the last character, for "the text stops too early".
    let endColumn: Int
    var index = 0
    /// Off while reading the start of "from 10 to 5", where "to" ends the start: there "ten to
    /// five" is a range, not 16:50.
    var readsMinutesTo = true
    /// How "3/5" is read: month first (US) or day first.
    var dateOrder = TemporalDateOrder.mdy
    /// Off when extracting: "tomorrow at 1pm for an hour" is then a time and a duration, two
    /// spans, so the caller sees the length as said rather than folded into a range's end.
    var readsLasting = true
    private var farthest = 0
    private var expected: [String] = []
    /// Noted where a reading of everything before ends, rather than a thing that could follow.
    private static let complete = ""

    init(tokens: [TemporalToken], endColumn: Int) {
        // A sentence may end with a full stop or a question mark; neither means anything here.
        var tokens = tokens
        while let last = tokens.last, case .symbol(let symbol) = last.kind, ".!?".contains(symbol) { tokens.removeLast() }
        self.tokens = tokens
        self.endColumn = endColumn
    }

    mutating func parse() throws(TemporalError) -> TemporalSyntax {
        guard !tokens.isEmpty else { throw TemporalError(.empty, TemporalMessages.empty, column: 1) }
        if let syntax = parseWhole() { return syntax }
        throw failure()
    }

    /// The first reading of every token, or nil; what was expected is noted for `failure()`.
    mutating func parseWhole() -> TemporalSyntax? {
        guard !tokens.isEmpty else { return nil }
        let alternatives: [(inout TemporalGrammar) -> TemporalSyntax?] = [
            { $0.recurrence().map(TemporalSyntax.recurrence) },
            { $0.seriesEnd().map(TemporalSyntax.recurrenceEnd) },
            { $0.shift().map(TemporalSyntax.shift) },
            { $0.allDayRange().map(TemporalSyntax.range) },
            { $0.namedRange().map(TemporalSyntax.range) },
            { $0.daysOfMonthRange().map(TemporalSyntax.range) },
            { $0.spanRange().map(TemporalSyntax.range) },
            { $0.untilRange().map(TemporalSyntax.range) },
            { $0.readsLasting ? $0.lastingRange().map(TemporalSyntax.range) : nil },
            { $0.partOfDayRange().map(TemporalSyntax.range) },
            { $0.fromNow() },
            { $0.duration(allowFor: true).map(TemporalSyntax.duration) },
            { $0.point().map(TemporalSyntax.point) },
        ]
        for alternative in alternatives {
            index = 0
            guard let syntax = alternative(&self) else { continue }
            if atEnd { return syntax }
            // A reading of the words so far: the next word is where the text stops making sense.
            expect(TemporalGrammar.complete)
        }
        return nil
    }

    /// The error for the farthest point reached.
    private func failure() -> TemporalError {
        guard farthest < tokens.count else {
            return TemporalError(.incomplete, TemporalMessages.incomplete(expected: expected.filter { $0 != TemporalGrammar.complete }), column: endColumn)
        }
        let token = tokens[farthest]
        // At the first word every reading was possible: the examples say more than the list.
        let expected = farthest == 0 ? [] : expected.filter { $0 != TemporalGrammar.complete }
        let completeBefore = self.expected.contains(TemporalGrammar.complete)
        var suggestion: String?
        if let word = token.word, !TemporalLexicon.vocabulary.contains(word), word.count > 3 {
            suggestion = EditDistance.closest(to: word, among: TemporalLexicon.vocabulary.filter { $0.count > 3 })
        }
        let before = tokens[..<farthest].map(\.text).joined(separator: " ")
        return TemporalError(.notUnderstood, TemporalMessages.notUnderstood(token.text, expected: expected, after: completeBefore ? before : nil),
                             column: token.column, suggestion: suggestion)
    }

    // MARK: Reading tokens

    var atEnd: Bool { index >= tokens.count }

    var current: TemporalToken? { index < tokens.count ? tokens[index] : nil }

    func peekWord(_ offset: Int = 0) -> String? {
        index + offset < tokens.count ? tokens[index + offset].word : nil
    }

    var column: Int { current?.column ?? endColumn }

    /// Notes what would have been understood at the current token, for the error message.
    mutating func expect(_ description: String) {
        if index > farthest {
            farthest = index
            expected = [description]
        } else if index == farthest, !expected.contains(description) {
            expected.append(description)
        }
    }

    /// Takes the word if it is next.
    mutating func word(_ word: String) -> Bool {
        guard peekWord() == word else { return false }
        index += 1
        return true
    }

    /// Takes the words if they are next, all of them or none.
    mutating func words(_ sequence: String...) -> Bool {
        for (offset, word) in sequence.enumerated() where peekWord(offset) != word { return false }
        index += sequence.count
        return true
    }

    /// Takes the next word if it is one of `choices`, and returns it. The lists written in the
    /// productions are short: a scan costs less than building a set on every call.
    mutating func word(in choices: [String]) -> String? {
        guard let next = peekWord(), choices.contains(next) else { return nil }
        index += 1
        return next
    }

    /// Takes the next word if it is one of `choices`, and returns it.
    mutating func word(in choices: Set<String>) -> String? {
        guard let next = peekWord(), choices.contains(next) else { return nil }
        index += 1
        return next
    }

    mutating func symbol(_ character: Character) -> Bool {
        guard let current, current.kind == .symbol(character) else { return false }
        index += 1
        return true
    }

    /// A number written in digits or words: its value, digit count (0 when spelled) and token.
    mutating func number() -> (value: Int, digits: Int, token: TemporalToken)? {
        guard let current, case .number(let value, let digits) = current.kind else { return nil }
        index += 1
        return (value, digits, current)
    }

    /// "15th", "third", and "second" where an ordinal is the only reading.
    mutating func ordinal() -> (value: Int, column: Int)? {
        guard let current else { return nil }
        if case .ordinal(let value) = current.kind {
            index += 1
            return (value, current.column)
        }
        if current.word == "second" {
            index += 1
            return (2, current.column)
        }
        return nil
    }

    /// Runs `body`; if it reads nothing, puts the cursor back where it was.
    mutating func attempt<T>(_ body: (inout TemporalGrammar) -> T?) -> T? {
        let saved = index
        if let value = body(&self) { return value }
        index = saved
        return nil
    }

    /// Pronouns and nouns for the event being talked about: "it", "this", "the meeting".
    mutating func eventReference() -> Bool {
        if word(in: ["it", "them"]) != nil { return true }
        if let determiner = word(in: ["this", "that", "the"]) {
            if word(in: ["event", "meeting", "one", "appointment"]) != nil { return true }
            if determiner == "the" { index -= 1; return false }
            return true
        }
        return false
    }
}
