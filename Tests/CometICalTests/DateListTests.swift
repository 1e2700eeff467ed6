import Testing
@testable import CometICal

/// Which values the import reads as dates written without VALUE=DATE (docs/icalendar.md): every
/// comma-separated piece, blanks around it aside, exactly eight digits.
@Suite("Dates written without VALUE=DATE")
struct DateListTests {
    @Test("Eight digits, alone or in a list with blanks around them, are dates", arguments: [
        "20260301", " 20260301\t", "20260301,20260302", "20260301, 20260302", "20260301,,20260302", "",
    ])
    func dates(_ value: String) {
        #expect(ComponentPrepass.isDateList(value))
    }

    @Test("Anything else is not", arguments: [
        "20260301T100000", "2026030", "202603011", "2026 0301", "20260301, ", "20260301,x", "２０２６０３０１", "20260301Z",
    ])
    func notDates(_ value: String) {
        #expect(!ComponentPrepass.isDateList(value))
    }

    @Test("A date-time property with a date and no VALUE=DATE is read as that day, with a warning at its line")
    func rewritten() throws {
        let line = ContentLine(text: "DTSTART:20260301", line: 7)
        guard case .rewritten(let replacement, let warning) = ComponentPrepass.check(line, uid: "u") else {
            Issue.record("DTSTART:20260301 was not rewritten")
            return
        }
        #expect(replacement.text == "DTSTART;VALUE=DATE:20260301")
        #expect(warning.line == 7)
        guard case .fine = ComponentPrepass.check(ContentLine(text: "SUMMARY:20260301", line: 8), uid: "u") else {
            Issue.record("SUMMARY:20260301 was not left as it is")
            return
        }
    }
}
