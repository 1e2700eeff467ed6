import Testing
@testable import CometICal

/// A line's parameter is the first of that name, its name compared upper-cased, its value
/// unquoted: the same as looking it up among all the line's parameters.
@Suite("One parameter of a content line")
struct ContentLineParameterTests {
    static let lines = [
        "DTSTART;TZID=Europe/Berlin:20260301T100000",
        "DTSTART;tzid=Europe/Berlin;VALUE=DATE-TIME:20260301T100000",
        "ATTENDEE;CN=\"Doe; Jane: Ltd\";PARTSTAT=ACCEPTED;ROLE=CHAIR:mailto:jane@example.org",
        "ATTENDEE;CN=\"\";RSVP=TRUE:mailto:x@example.org",
        "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS=\"Uferweg 7\\n10557 Berlin\";X-TITLE=Canal Kitchen:geo:52.5,13.4",
        "SUMMARY;LANGUAGE=de;LANGUAGE=en:Hallo",
        "DESCRIPTION;ALTREP=\"cid:part1\":Text",
        "GEO;X-Ä=1;X-ä=2:1;2",
        "SUMMARY;NOEQUALS;VALUE=TEXT:x",
        "SUMMARY:plain",
    ]

    @Test("Each parameter found alone is the first of its name among all of them", arguments: lines)
    func sameAsAll(_ text: String) {
        let line = ContentLine(text: text, line: 1)
        let all = ContentLine.parameters(of: line.head)
        for name in Set(all.map(\.name)).union(["VALUE", "TZID", "CN", "MISSING", "X-Ä", "X-ä"]) {
            #expect(line.parameter(name) == all.first { $0.name == name }?.value, "\(name) in \(text)")
        }
    }

    @Test("Quotes are taken off, a lower-case name matches, the first of two is read")
    func examples() {
        #expect(ContentLine(text: "ATTENDEE;CN=\"Doe; Jane: Ltd\";PARTSTAT=ACCEPTED:mailto:j@example.org", line: 1).parameter("CN") == "Doe; Jane: Ltd")
        #expect(ContentLine(text: "DTSTART;tzid=Europe/Berlin:20260301T100000", line: 1).parameter("TZID") == "Europe/Berlin")
        #expect(ContentLine(text: "SUMMARY;LANGUAGE=de;LANGUAGE=en:Hallo", line: 1).parameter("LANGUAGE") == "de")
        #expect(ContentLine(text: "SUMMARY:plain", line: 1).parameter("VALUE") == nil)
    }
}
