import Testing
@testable import CometICal

/// Export folds each content line at 75 octets (RFC 5545 §3.1), never inside a UTF-8 character
/// nor between a letter and its combining mark, each physical line ending in CRLF.
@Suite("Folding content lines")
struct FoldingTests {
    @Test("A line of 75 octets stays whole; one of 76 is folded after the 75th")
    func boundary() {
        let fits = "SUMMARY:" + String(repeating: "a", count: 67)
        #expect(ICalText.fold(fits) == fits + "\r\n")
        let over = fits + "b"
        #expect(ICalText.fold(over) == fits + "\r\n b\r\n")
    }

    @Test("A long line is cut into physical lines of at most 75 octets, a continuation's space counted")
    func longLine() {
        let line = "DESCRIPTION:" + String(repeating: "0123456789", count: 20)
        let folded = ICalText.fold(line)
        let physical = folded.split(separator: "\r\n", omittingEmptySubsequences: true)
        #expect(physical.allSatisfy { $0.utf8.count <= 75 })
        #expect(physical.count == 3)
        #expect(physical.enumerated().map { $0.offset == 0 ? String($0.element) : String($0.element.dropFirst()) }.joined() == line)
    }

    @Test("A two-octet character and a letter with its combining mark are never split")
    func characters() {
        // 74 octets, then "é" (2 octets): it would end at 76, so it starts the next line.
        let line = "SUMMARY:" + String(repeating: "a", count: 66) + "é" + "z"
        #expect(ICalText.fold(line) == "SUMMARY:" + String(repeating: "a", count: 66) + "\r\n éz\r\n")
        // "e" and U+0301 are one character of three octets.
        let combining = "SUMMARY:" + String(repeating: "a", count: 66) + "e\u{301}"
        #expect(ICalText.fold(combining) == "SUMMARY:" + String(repeating: "a", count: 66) + "\r\n e\u{301}\r\n")
    }
}
