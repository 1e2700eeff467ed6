import Foundation

/// A temporal expression found among other words: which words (indexes into the words given),
/// and what they mean.
public struct TemporalSpan: Sendable, Hashable {
    public let range: Range<Int>
    public let resolution: TemporalResolution
    /// As in `TemporalReading.notes`: a numeric date read by the date_order setting or against it.
    public let notes: [TemporalNote]
}

extension TemporalParser {
    /// The most words a span may have; the longest expression in the table has nine.
    static let longestSpan = 10

    /// The temporal expressions in a sentence, as Duckling finds them: left to right, each the
    /// longest run of words from where it starts that reads as a time, a date, a range, a
    /// duration, a repeat rule or "N minutes later", never overlapping. Words the grammar does
    /// not know end a span, so a title or a name is never swallowed. The rules for words that are
    /// temporal only sometimes are in docs/conversation.md ("Finding times in a sentence"):
    ///
    /// - a duration after a time is its own span ("tomorrow at 1pm" and "for an hour");
    /// - a bare number is not a time ("call the 3 kids"), nor a month name, "sat", "sun",
    ///   "wed", "tom" or "second" alone, nor a spelled ordinal day without "on" ("the first one");
    /// - "on" is not taken before "today", "tomorrow", "tonight" ("what's on tomorrow");
    /// - "never" and "once" are not a repeat rule unless "repeat" is said;
    /// - a span never starts with a verb or with the words for the event ("move it", "meeting").
    public func extract(from words: [String]) -> [TemporalSpan] {
        // Each word is tokenized once; a candidate span joins its words' tokens.
        let raw = words.map { (try? TemporalTokenizer.rawTokens($0)) ?? nil }
        let tokenized = raw.map { $0.map(TemporalTokenizer.joinSpelledNumbers) }
        let known = tokenized.map { tokens in tokens.map(TemporalExtraction.isKnown) ?? false }
        let lowered = words.map { $0.lowercased() }
        var spans: [TemporalSpan] = []
        var start = 0
        while start < words.count {
            guard known[start], TemporalExtraction.canStart(start, tokenized) else {
                start += 1
                continue
            }
            var runEnd = start
            while runEnd < words.count, runEnd - start < TemporalParser.longestSpan, known[runEnd] { runEnd += 1 }
            var found: TemporalSpan?
            for end in stride(from: runEnd, to: start, by: -1) where TemporalExtraction.canEnd(raw[end - 1]) {
                if let span = span(start..<end, words: lowered, raw: raw) {
                    found = span
                    break
                }
            }
            if let found {
                spans.append(found)
                start = found.range.upperBound
            } else {
                start += 1
            }
        }
        return spans
    }

    private func span(_ range: Range<Int>, words: [String], raw: [[TemporalToken]?]) -> TemporalSpan? {
        // The tokens of each word, with columns as if the words were joined by spaces, and
        // spelled numbers joined across words ("twenty four").
        var joined: [TemporalToken] = []
        var offset = 0
        for position in range {
            guard let tokens = raw[position] else { return nil }
            for token in tokens { joined.append(TemporalToken(kind: token.kind, column: token.column + offset, text: token.text)) }
            offset += words[position].count + 1
        }
        var grammar = TemporalGrammar(tokens: TemporalTokenizer.joinSpelledNumbers(joined), endColumn: offset)
        grammar.dateOrder = dateOrder
        grammar.readsLasting = false
        guard let syntax = grammar.parseWhole(),
              TemporalExtraction.standsAlone(syntax, tokens: grammar.tokens, words: Array(words[range])),
              let resolution = try? TemporalResolver(now: now, zone: timeZone).resolve(syntax) else { return nil }
        return TemporalSpan(range: range, resolution: resolution, notes: dateOrder.notes(grammar.tokens))
    }
}

/// The word checks that keep extraction fast and keep it from swallowing other words.
enum TemporalExtraction {
    /// Words that continue an expression but never begin one, verbs that begin a shift (the
    /// sentence's verb is the caller's), and the words for the event itself.
    static let neverStarts: Set<String> = [
        "to", "and", "of", "am", "pm", "ago", "past", "o'clock", "hundred", "ish", "it", "them", "that", "meeting", "event",
        "appointment", "one", "push", "move", "shift", "bump", "delay", "postpone", "put", "reschedule", "change", "make",
        "set", "slide", "bring", "pull", "back", "out", "up", "forward", "ahead", "through", "thru", "till", "til", "times",
        "hours", "hrs", "minutes", "mins", "days", "weeks", "time", "with", "whole", "entire", "any", "more", "longer",
        "further", "notice", "business", "close", "count", "right", "o", "clock", "thousand",
    ]

    /// Words that name a day and take no preposition: "on" before them is the sentence's ("what's on tomorrow").
    static let noPreposition: Set<String> = ["today", "tomorrow", "tonight", "yesterday"]

    /// Words that are temporal only with others: "may I", "the sun", "I sat", "with Tom", "wait a second".
    static let notAlone: Set<String> = ["sun", "sat", "wed", "tom", "second", "mar", "march"]

    /// Every word the grammar reads, beyond names, numbers and units.
    static let grammarWords: Set<String> = [
        "a", "about", "after", "afternoon", "ago", "ahead", "all", "am", "an", "and", "annually", "any", "anymore", "appointment",
        "approx", "approximately", "around", "at", "back", "before", "between", "biweekly", "bring", "bump", "business", "by",
        "change", "close", "coming", "couple", "daily", "day", "days", "delay", "do", "does", "doesn't", "doesnt", "don't", "dont", "during",
        "each", "earlier", "end", "ending", "ends", "entire", "eod", "evening", "event", "every", "few", "for", "forever",
        "fortnight", "fortnightly", "fortnights", "forward", "from", "further", "half", "hour", "hourly", "hours", "hundred",
        "in", "indefinitely", "ish", "it", "just", "last", "lasting", "later", "longer", "lunch", "lunchtime", "make", "meeting",
        "midday", "midnight", "month", "monthly", "months", "more", "morning", "move", "never", "next", "night", "no", "noon",
        "not", "notice", "now", "o'clock", "occurrences", "of", "on", "once", "one", "only", "other", "out", "over", "past",
        "pm", "postpone", "pull", "push", "put", "quarter", "recur", "recurrence", "recurring", "recurs", "repeat", "repeated",
        "repeating", "repeats", "repetition", "reschedule", "rest", "right", "roughly", "second", "set", "shift", "slide",
        "sooner", "stop", "that", "the", "them", "this", "through", "thru", "til", "till", "time", "times", "to", "today",
        "tomorrow", "tonight", "until", "up", "upcoming", "week", "weekday", "weekdays", "weekend", "weekends", "weekly",
        "weeks", "whole", "with", "year", "yearly", "years", "yesterday", "t", "o", "clock", "thousand", "remainder", "current",
        "within",
    ]

    static func isKnown(_ tokens: [TemporalToken]) -> Bool {
        !tokens.isEmpty && tokens.allSatisfy { token in
            guard let word = token.word else { return true }
            return grammarWords.contains(word) || TemporalLexicon.months[word] != nil || TemporalLexicon.weekdays[word] != nil
                || TemporalLexicon.unitWords[word] != nil || TemporalLexicon.ordinalAfterTens[word] != nil
                || TemporalLexicon.units[word] != nil || TemporalLexicon.tens[word] != nil || TemporalLexicon.ordinalTens[word] != nil
                || TemporalLexicon.shorthand.values.contains(word) || word == "ish"
        }
    }

    /// Words that need more after them: a span never ends on one, so no reading is tried there.
    static let neverEnds: Set<String> = [
        "a", "an", "the", "at", "on", "in", "for", "by", "from", "to", "and", "of", "this", "next", "last", "coming", "every",
        "each", "until", "till", "til", "between", "around", "about", "approximately", "roughly", "after", "before", "over",
        "during", "with", "all", "half", "quarter", "past", "end", "close", "rest", "do", "does", "not", "no", "just", "only",
        "lasting", "through", "thru", "right", "o", "remainder", "current", "within",
    ]

    /// Whether a span may end with this word (its raw tokens).
    static func canEnd(_ tokens: [TemporalToken]?) -> Bool {
        guard let last = tokens?.last else { return false }
        guard let word = last.word else { return true }
        return !neverEnds.contains(word)
    }

    /// Whether the word at `index` can begin an expression.
    static func canStart(_ index: Int, _ tokenized: [[TemporalToken]?]) -> Bool {
        guard let first = tokenized[index]?.first else { return false }
        guard let word = first.word else {
            if case .symbol = first.kind { return false }
            return true
        }
        let next = index + 1 < tokenized.count ? tokenized[index + 1]?.first : nil
        // "up coming": "upcoming" as speech is transcribed.
        if word == "up", next?.word == "coming" { return true }
        if neverStarts.contains(word) { return false }
        if word == "on", let next = next?.word, noPreposition.contains(next) { return false }
        // "for" begins only a length ("for an hour", "for 2 days", "for 5 times"): "for the bank" is not tried.
        if word == "for" {
            guard let next else { return false }
            if case .number = next.kind { return true }
            return ["a", "an", "half", "few", "couple"].contains(next.word ?? "")
        }
        return true
    }

    /// Words before a number that make it a time: "at 3", "around 3", "by 3".
    static let timeLeads: Set<String> = ["at", "around", "about", "approximately", "roughly", "by", "from", "until", "till", "til"]

    /// A time read from a number alone, with nothing that marks it as a time: no "at" before
    /// it, no am/pm, no minutes, no part of the day ("the first one", "friday 3 people").
    static func isBareNumber(_ time: TimeSyntax, tokens: [TemporalToken]) -> Bool {
        guard time.meridiem == nil, time.period == nil, let position = tokens.firstIndex(where: { $0.column == time.column }),
              case .number(_, let digits) = tokens[position].kind, digits <= 2 else { return false }
        if position + 1 < tokens.count {
            let next = tokens[position + 1]
            if next.kind == .symbol(":") || next.kind == .symbol(".") { return false }
            if let word = next.word, ["o'clock", "hundred", "noon", "midnight"].contains(word) { return false }
        }
        if position > 0, let before = tokens[position - 1].word, timeLeads.contains(before) { return false }
        return true
    }

    /// Whether a reading of these words is a temporal expression on its own, not a word that is
    /// temporal only sometimes (see `TemporalParser.extract`).
    static func standsAlone(_ syntax: TemporalSyntax, tokens: [TemporalToken], words: [String]) -> Bool {
        if tokens.count == 1 {
            if case .number = tokens[0].kind { return false }
            if let word = tokens[0].word, notAlone.contains(word) || notAlone.contains(tokens[0].text.lowercased()) { return false }
        }
        switch syntax {
        case .range(.namedMonth(_, nil)):
            // "june" alone is a name as often as a month; "in june" is the month.
            return tokens.count > 1
        case .point(let point):
            if let time = point.time, isBareNumber(time, tokens: tokens) { return false }
            if point.time == nil, case .dayOfMonth = point.date, words.first != "on",
               tokens.contains(where: { token in
                   if case .ordinal = token.kind { return token.text.first?.isNumber == false }
                   return token.word == "second"
               }) {
                return false
            }
            return true
        case .recurrence(nil):
            return words.contains { $0.hasPrefix("repeat") || $0.hasPrefix("recur") }
        default:
            return true
        }
    }
}
