import Testing
@testable import CometConversation

/// One sentence and the spans found in it, each written "words → reading" as the table reads it.
struct ExtractionCase: Sendable, CustomTestStringConvertible {
    let sentence: String
    let spans: [String]

    init(_ sentence: String, _ spans: [String]) {
        self.sentence = sentence
        self.spans = spans
    }

    var testDescription: String { "\"\(sentence)\"" }
}

/// `TemporalParser.extract(from:)`: the temporal expressions inside a request, found without
/// taking the words around them. Said on Wednesday, June 10th, 2026, 09:00 in Los Angeles.
@Suite("Temporal expressions found in a sentence")
struct TemporalExtractionTests {
    static let clock = TemporalTable.wednesday

    static func found(_ sentence: String, clock: TemporalClock = clock) -> [String] {
        let words = sentence.split(separator: " ").map(String.init)
        return clock.parser.extract(from: words).map { span in
            words[span.range].joined(separator: " ") + " → " + TemporalClock.render(span.resolution)
        }
    }

    static let sentences: [ExtractionCase] = [
        .init("remind me to call the bank at four pm", ["at four pm → time 16:00"]),
        .init("cancel my meeting on the fourteenth", ["on the fourteenth → date 2026-06-14"]),
        .init("what's on tomorrow afternoon", ["tomorrow afternoon → range 2026-06-11T12:00:00-07:00 2026-06-11T17:00:00-07:00"]),
        // Policy: a duration after a time is a span of its own.
        .init("lunch with bob tomorrow at 1pm for an hour", ["tomorrow at 1pm → instant 2026-06-11T13:00:00-07:00", "for an hour → duration PT1H"]),
        .init("book a call with Priya at ten am on Monday", ["at ten am on Monday → instant 2026-06-15T10:00:00-07:00"]),
        .init("put a bike ride on my calendar Sunday at 8am for two hours",
              ["Sunday at 8am → instant 2026-06-14T08:00:00-07:00", "for two hours → duration PT2H"]),
        .init("add yoga every Monday and Wednesday at 7pm", ["every Monday and Wednesday → rrule FREQ=WEEKLY;BYDAY=MO,WE", "at 7pm → time 19:00"]),
        .init("move the standup on Friday to 10", ["on Friday → date 2026-06-12"]),
        // Policy: "tom" alone is a name; a bare number is not a time.
        .init("lunch with tom tomorrow", ["tomorrow → date 2026-06-11"]),
        .init("buy 3 apples", []),
        .init("may I see my schedule for next week", ["next week → days 2026-06-15 2026-06-21"]),
        // Policy: a month name alone is not taken ("june" is also a name); "in june" is.
        .init("dinner with june in june", ["in june → days 2026-06-01 2026-06-30"]),
        // Policy: a spelled ordinal day needs "on" or a month ("the first one" is a list's).
        .init("cancel the first one", []),
        .init("the second meeting", []),
        // Policy: "never" and "once" are not a repeat rule unless "repeat" is said.
        .init("never mind", []),
        .init("stop repeating the standup", ["stop repeating → rrule none"]),
        .init("set a reminder every day at nine am", ["every day → rrule FREQ=DAILY", "at nine am → time 09:00"]),
        .init("am I free saturday afternoon", ["saturday afternoon → range 2026-06-13T12:00:00-07:00 2026-06-13T17:00:00-07:00"]),
        .init("what do I have this weekend", ["this weekend → days 2026-06-13 2026-06-14"]),
        // Policy: a span never starts with a verb; "back" is the caller's to read.
        .init("push the review back 30 minutes", ["30 minutes → duration PT30M"]),
        .init("meet at the cafe at 3:30", ["at 3:30 → time 15:30"]),
        .init("dentist wed jun 17 @ 9:15a", ["wed jun 17 @ 9:15a → instant 2026-06-17T09:15:00-07:00"]),
        .init("send the report by eod", ["by eod → time 17:00"]),
        .init("team offsite from june 22 to 24", ["from june 22 to 24 → days 2026-06-22 2026-06-24"]),
        .init("call mom in half an hour", ["in half an hour → instant 2026-06-10T09:30:00-07:00"]),
        .init("the 3pm one", ["3pm → time 15:00"]),
        .init("anything booked for 23/05?", ["23/05? → date 2027-05-23"]),
        .init("coffee with Sam on fri, jun 5", ["on fri, jun 5 → date 2026-06-05"]),
        .init("gym every other tues until july", ["every other tues until july → rrule FREQ=WEEKLY;UNTIL=20260630;INTERVAL=2;BYDAY=TU"]),
        .init("standup weekdays at 9:30", ["weekdays → rrule FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "at 9:30 → time 09:30"]),
        .init("dinner tonight", ["tonight → range 2026-06-10T18:00:00-07:00 2026-06-11T00:00:00-07:00"]),
        .init("show my upcoming events", ["upcoming → range 2026-06-10T09:00:00-07:00 2026-06-17T09:00:00-07:00"]),
        .init("delete all my meetings for the rest of the week", ["the rest of the week → range 2026-06-10T09:00:00-07:00 2026-06-15T00:00:00-07:00"]),
        .init("what time is the recital on Sunday", ["on Sunday → date 2026-06-14"]),
        .init("remind me three days before the anniversary dinner", ["three days → duration P3D"]),
        .init("move it to 11:30 instead", ["11:30 → time 11:30"]),
        .init("second thoughts, make it 2:30", ["2:30 → time 14:30"]),
        .init("schedule a sync in 2 wks at 10a", ["in 2 wks at 10a → instant 2026-06-24T10:00:00-07:00"]),
        .init("i sat down at noon", ["at noon → time 12:00"]),
        .init("ping me 2moro morning", ["2moro morning → range 2026-06-11T06:00:00-07:00 2026-06-11T12:00:00-07:00"]),
        .init("call me at 3", ["at 3 → time 15:00"]),
        .init("see you in a couple of days", ["in a couple of days → date 2026-06-12"]),
        .init("rent is due on the first", ["on the first → date 2026-07-01"]),
        .init("once you are done", []),
        .init("friday 3 people can come", ["friday → date 2026-06-12"]),
        .init("next Monday's meeting", ["next Monday's → date 2026-06-15"]),
        .init("reschedule tomorrow's 1:1 to thursday", ["tomorrow's → date 2026-06-11", "thursday → date 2026-06-11"]),
    ]

    @Test("the longest spans, left to right, and nothing else", arguments: sentences)
    func sentence(_ row: ExtractionCase) {
        #expect(Self.found(row.sentence) == row.spans)
    }

    @Test("a span's range indexes the words given, and its notes say how a numeric date was read")
    func rangesAndNotes() throws {
        let words = ["lunch", "on", "03/05", "at", "noon"]
        let spans = Self.clock.parser.extract(from: words)
        let span = try #require(spans.first)
        #expect(spans.count == 1)
        #expect(span.range == 1..<5)
        #expect(span.notes.map(\.message) == ["'03/05' is read as March 5, month first by the date_order setting (mdy); with dmy it would be May 3"])
        let dayFirst = TemporalClock("2026-06-10T09:00:00-07:00", "America/Los_Angeles", dateOrder: .dmy)
        #expect(Self.found("lunch on 03/05", clock: dayFirst) == ["on 03/05 → date 2027-05-03"])
    }

    @Test("every word of every expression the tables read is one the extractor knows, so none ends a span early")
    func vocabularyIsComplete() throws {
        let rows = TemporalTableTests.all + TemporalTypedTableTests.all + TypedTable.dayFirstCases + OtherClocks.fridayCases
            + OtherClocks.sundayCases + OtherClocks.newYearsEveCases
        var unknown: Set<String> = []
        // The forms programs write (ISO 8601, RRULE) are read whole by `parse`, not by the grammar.
        for row in rows where !row.expected.hasPrefix("error") && !row.text.contains("=") && !(row.text.hasPrefix("P") && row.text.dropFirst().first.map { $0.isNumber || $0 == "T" } == true) {
            for word in row.text.split(separator: " ") {
                let tokens = TemporalTokenizer.joinSpelledNumbers(try TemporalTokenizer.rawTokens(String(word)))
                if !TemporalExtraction.isKnown(tokens) { unknown.insert(String(word)) }
            }
        }
        #expect(unknown.isEmpty, "\(unknown.sorted())")
    }

    @Test("no words, or none temporal, find nothing")
    func nothing() {
        #expect(Self.clock.parser.extract(from: []).isEmpty)
        #expect(Self.found("hello there general kenobi").isEmpty)
    }
}
