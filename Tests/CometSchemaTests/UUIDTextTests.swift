import Testing
import Foundation
import CometSchema

/// The store's own UUID parsing and formatting agree with Foundation's, which they replace on
/// the hot paths (every stored record and index row names its id as text).
@Suite("UUID text")
struct UUIDTextTests {
    @Test("parsing, lower-case text and the ordering key agree with Foundation for random ids")
    func agreesWithFoundation() throws {
        var ids = (0..<2_000).map { _ in UUID() }
        ids += [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for id in ids {
            #expect(id.lowercasedText == id.uuidString.lowercased())
            #expect(UUID(parsing: id.lowercasedText) == id)
            #expect(UUID(parsing: id.uuidString) == id)
        }
        let byKey = ids.sorted { $0.orderingKey < $1.orderingKey }
        let byText = ids.sorted { $0.uuidString < $1.uuidString }
        #expect(byKey == byText)
    }

    /// Stricter than Foundation's `sscanf`-based parse, which takes " 123e4567-…-42661417400"
    /// (a leading space and 31 digits).
    @Test("text that is not a canonical UUID is refused", arguments: [
        "", "not a uuid", "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000",
        "123e4567e89b-12d3-a456-426614174000-", "123e4567-e89b-12d3-a456_426614174000", "123e4567-e89b-12d3-a456-42661417400g",
        "{123e4567-e89b-12d3-a456-426614174000}", " 123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740é",
    ])
    func refusals(_ text: String) {
        #expect(UUID(parsing: text) == nil)
    }

    @Test("spaces and tabs are trimmed as Foundation's .whitespaces trims them", arguments: [
        "", " ", "\t", "a", " a ", "\ta b\t", "\u{00A0}x\u{2003}", "\u{3000} y", "x\n", "\n x \n", "é ", "  ",
    ])
    func trimming(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text[...].trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
    }
}
