import Testing
@testable import CometICal
@testable import CometSchema

/// What a reader keeps per entity for decoding: it must say what the mapping says.
@Suite("The decoder's tables of an entity's mapping")
struct DecoderTablesTests {
    @Test("Aliases are upper-cased names split at commas and spaces; a field without one has none")
    func aliases() throws {
        let event = try #require(Corpus.registry.allEntities.first { $0.annotations.first(named: "ical")?.firstString == "VEVENT" })
        let tables = ComponentDecoder.Tables(event)
        #expect(tables.aliases["virtualLocation"] == ["X-GOOGLE-CONFERENCE", "X-MICROSOFT-SKYPETEAMSMEETINGURL"])
        #expect(tables.aliases["title"] == nil)
        #expect(tables.overflowing == ComponentDecoder.overflowingNames(event))
    }
}
