import Foundation
import Testing
import CometSchema
import CometStore

/// Text as any store keeps it: every character, a NUL included (a C string would end there).
@Suite("Store conformance: text values")
struct TextConformanceTests {
    @Test("a text holding NUL, carriage return and escape characters is fetched as it was saved, and a filter on it finds it", arguments: StoreFactory.all)
    func controlCharactersKept(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work\u{0}shop")
        let title = "Stand\u{0}up\r\u{0}\u{0}\u{1B}[2J"
        let standup = try fixture.event(title, in: work, start: "2026-06-13T12:00:00Z", ["note": .string("\u{0}")])
        try fixture.save(work, standup)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: standup.id) } == standup)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
        let found = try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [.equals("title", .string(title))], limit: nil) }
        #expect(found.map(\.id) == [standup.id])
        let cut = try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [.equals("title", .string("Stand"))], limit: nil) }
        #expect(cut.isEmpty)
    }
}
