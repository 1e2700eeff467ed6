import Foundation
import Testing
import CometSchema
import CometConversation

/// What the language is compiled from reads back as the conversation reads it.
@Suite("Spoken language")
struct SpokenLanguageTests {
    @Test("every spoken time expression the compiler uses reads as a time, every word of it")
    func timesRead() {
        let zone = TimeZone(identifier: "America/Los_Angeles")!
        let now = LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 8)!, hour: 9, minute: 0)!.dateTime(in: zone).instant!
        let parser = TemporalParser(now: now, timeZone: zone)
        var unread: [String] = []
        let expressions = SpokenLanguage.timeExpressions(count: 600, seed: 24)
        for words in expressions {
            let covered = parser.extract(from: words).reduce(into: Set<Int>()) { $0.formUnion($1.range) }
            if covered != Set(words.indices) { unread.append(words.joined(separator: " ")) }
        }
        #expect(unread.isEmpty, "\(unread.count) of \(expressions.count) not read whole: \(Set(unread).sorted().prefix(30).joined(separator: "; "))")
    }

    @Test("yes and no are read as the dialog reads answers")
    func answers() {
        #expect(SpokenLanguage.yesOrNo("yes") == true)
        #expect(SpokenLanguage.yesOrNo("yeah sure") == true)
        #expect(SpokenLanguage.yesOrNo("no") == false)
        #expect(SpokenLanguage.yesOrNo("never mind") == false)
        #expect(SpokenLanguage.yesOrNo("move the picnic to noon") == nil)
    }
}
