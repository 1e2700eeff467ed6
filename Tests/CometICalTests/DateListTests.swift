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

/// Each piece of a date or date-time list is checked, and the first that is no value of its
/// type is quoted.
@Suite("Pieces of a date list")
struct DateListPieceTests {
    @Test("A value is cut at each comma, empty pieces kept, whether it is ASCII or not")
    func pieces() {
        #expect(ComponentPrepass.pieces(of: "a,,b,") == ["a", "", "b", ""])
        #expect(ComponentPrepass.pieces(of: "") == [""])
        #expect(ComponentPrepass.pieces(of: "é,b") == ["é", "b"])
        // A comma with a combining mark is one character, not a comma.
        #expect(ComponentPrepass.pieces(of: "a,\u{301}b,c") == ["a,\u{301}b", "c"])
    }

    @Test("The first bad piece of an EXDATE is quoted at the line")
    func firstBadPiece() {
        let line = ContentLine(text: "EXDATE:20260301T100000,2026-03-02,20260303T100000", line: 12)
        guard case .problem(let problem) = ComponentPrepass.check(line, uid: "u") else {
            Issue.record("the EXDATE was not refused")
            return
        }
        #expect(problem.line == 12)
        #expect(problem.message.hasPrefix("EXDATE '2026-03-02' "))
    }
}
