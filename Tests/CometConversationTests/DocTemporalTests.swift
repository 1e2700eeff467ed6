import Foundation
import Testing
@testable import CometConversation

/// docs/conversation.md, "Temporal expressions": its tables of typed forms and of sentences are
/// what the parser and the extractor give, and its smaller claims hold.
@Suite("docs/conversation.md: temporal expressions")
struct DocTemporalTests {
    static let doc = (try? String(contentsOf: ConversationFixture.root.appendingPathComponent("docs/conversation.md"), encoding: .utf8)) ?? ""

    /// The rows of the table whose header line is `header`, split into cells.
    static func rows(under header: String) throws -> [[String]] {
        let start = try #require(doc.range(of: header + "\n"))
        var rows: [[String]] = []
        for line in doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
            rows.append(cells)
        }
        return rows
    }

    @Test("every typed form in the table reads as it says")
    func typedForms() throws {
        let rows = try Self.rows(under: "| typed | read as |")
        #expect(rows.count >= 20)
        for row in rows {
            #expect(TemporalTable.wednesday.reading(row[0]) == row[1], "\(row[0])")
        }
    }

    @Test("every sentence in the extraction table gives its spans")
    func sentences() throws {
        let rows = try Self.rows(under: "| sentence | spans |")
        #expect(rows.count >= 10)
        for row in rows {
            let expected = row[1].isEmpty ? [] : row[1].components(separatedBy: "; ")
            #expect(TemporalExtractionTests.found(row[0]) == expected, "\(row[0])")
        }
    }

    @Test("the tables hold more than 800 expressions on nine clocks")
    func tableSize() {
        let rows = TemporalTableTests.all.count + OtherClocks.fridayCases.count + OtherClocks.sundayCases.count
            + OtherClocks.newYearsEveCases.count + OtherClocks.berlinSpringCases.count + OtherClocks.berlinAutumnCases.count
            + OtherClocks.utcCases.count + OtherClocks.tokyoCases.count + TemporalTypedTableTests.all.count
            + TypedTable.dayFirstCases.count + TypedTable.eveningCases.count
        #expect(rows > 800)
        #expect(Self.doc.contains("more than 800 expressions on nine clocks"))
    }

    @Test("a weekday that disagrees with its date is an error naming the date's weekday")
    func weekdayDisagrees() throws {
        do {
            _ = try TemporalTable.wednesday.parser.parse("fri jun 3")
            Issue.record("read")
        } catch {
            #expect(error.message == "June 3, 2027 is a Thursday, not a Friday")
            #expect(Self.doc.contains("\"June 3, 2027 is a Thursday, not a Friday\""))
        }
    }

    @Test("a numeric date has a note only when the date order changes its reading")
    func notes() throws {
        let monthFirst = TemporalTable.wednesday.parser
        var dayFirst = monthFirst
        dayFirst.dateOrder = .dmy
        #expect(try monthFirst.read("6/6").notes.isEmpty)
        #expect(try dayFirst.read("6/6").notes.isEmpty)
        #expect(try monthFirst.read("6/15").notes.isEmpty)
        #expect(try monthFirst.read("03/05").notes.count == 1)
        #expect(try monthFirst.read("23/05").notes.map(\.message) == ["'23/05' is read as May 23, day first against the date_order setting (mdy): 23 cannot be a month"])
        #expect(try dayFirst.read("23/05").notes.isEmpty)
        #expect(try dayFirst.read("5/23").notes.map(\.message) == ["'5/23' is read as May 23, month first against the date_order setting (dmy): 23 cannot be a month"])
        // The default is month first.
        #expect(TemporalParser(now: monthFirst.now, timeZone: monthFirst.timeZone).dateOrder == .mdy)
    }
}
