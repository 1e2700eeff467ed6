import Foundation
import Testing
import CometSchema
import CometStore

/// Records and queries, as any store keeps and finds them.
@Suite("Store conformance: records and queries")
struct RecordConformanceTests {
    @Test("a saved record is fetched as it was, replaced by a save with its id, and gone after a delete", arguments: StoreFactory.all)
    func saveFetchDelete(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00+02:00[Europe/Berlin]", ["note": .string("bring bread")])
        try fixture.save(work, picnic)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == picnic)
        var renamed = picnic
        renamed["title"] = .string("Lunch in the park")
        try fixture.save(renamed)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == renamed)
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event) } == 1)
        try fixture.store.transaction { try $0.delete(ConformanceStore.event, id: picnic.id) }
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == nil)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.calendar, id: work.id) } == work)
    }

    @Test("referencing finds what refers to a record; deleting a record still referred to, or saving one that breaks the schema, is refused", arguments: StoreFactory.all)
    func references(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let home = fixture.calendar("Home")
        let picnic = try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z")
        try fixture.save(work, home, picnic)
        let found = try fixture.store.readTransaction { try $0.referencing(ConformanceStore.calendar, id: work.id) }
        #expect(found.map(\.record.id) == [picnic.id])
        #expect(found.map(\.property) == ["calendar"])
        #expect(try fixture.store.readTransaction { try $0.referencing(ConformanceStore.calendar, id: home.id) }.isEmpty)
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.transaction { try $0.delete(ConformanceStore.calendar, id: work.id) }
        }
        #expect(refused?.code == .constraint)
        var broken = picnic
        broken["title"] = nil
        let invalid = #expect(throws: StoreError.self) { try fixture.save(broken) }
        #expect(invalid?.code == .invalidData)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: picnic.id) } == picnic)
    }

    @Test("a save that refers to nothing fails the write as a constraint, even when a read after it in the write was let fail; nothing of the write is kept",
          arguments: StoreFactory.all)
    func orphanFailsTheWrite(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let kept = try fixture.event("Kept", in: work, start: "2026-06-13T12:00:00Z")
        let orphan = try fixture.event("Orphan", in: fixture.calendar("Never saved"), start: "2026-06-14T12:00:00Z")
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.transaction { writer in
                try writer.save(kept)
                try writer.save(orphan)
                // A caller that reads on after a failure it did not see (the PostgreSQL store
                // sends writes with the next read): the write must still fail, as the save.
                _ = try? writer.fetch(ConformanceStore.event, id: kept.id)
                try writer.save(kept)
            }
        }
        #expect(refused?.code == .constraint)
        #expect(refused?.message.contains("refers to something that does not exist") == true)
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event) } == 0)
        try fixture.save(kept)
        #expect(try fixture.store.readTransaction { try $0.fetch(ConformanceStore.event, id: kept.id) } == kept)
    }

    @Test("filters select exactly, count agrees, and the order is by title (then id)", arguments: StoreFactory.all)
    func filtersAndOrder(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let home = fixture.calendar("Home")
        try fixture.save(work, home)
        for (title, calendar) in [("Standup", work), ("Budget review", work), ("Dentist", home), ("Alpha sync", work)] {
            try fixture.save(try fixture.event(title, in: calendar, start: "2026-06-15T09:00:00Z"))
        }
        let atWork = [RecordFilter.equals("calendar", .reference(work.id))]
        let titles = try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: atWork, limit: nil) }.map(fixture.title)
        #expect(titles == ["Alpha sync", "Budget review", "Standup"])
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event, matching: atWork, text: nil) } == 3)
        let noNote = [RecordFilter.equals("note", nil)]
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event, matching: noNote, text: nil) } == 4)
    }

    @Test("text search finds the records with the word in a searchable property, best match first, and nothing else", arguments: StoreFactory.all)
    func textSearch(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let strong = try fixture.event("Lunch lunch lunch", in: work, start: "2026-06-15T12:00:00Z", ["note": .string("lunch")])
        let weak = try fixture.event("Team meeting", in: work, start: "2026-06-15T09:00:00Z",
                                     ["note": .string("an agenda of many words and among them, once, lunch, then more words to make it long")])
        let none = try fixture.event("Dentist", in: work, start: "2026-06-16T09:00:00Z")
        try fixture.save(strong, weak, none)
        let found = try fixture.store.readTransaction { try $0.search(ConformanceStore.event, text: "lunch", limit: 10) }
        #expect(found.map(\.id) == [strong.id, weak.id])
        #expect(try fixture.store.readTransaction { try $0.count(ConformanceStore.event, matching: [], text: "lunch") } == 2)
    }

    @Test("limit and offset page a list and a text search without overlap or gap", arguments: StoreFactory.all)
    func paging(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            for number in 0..<23 {
                // Some titles repeat: the order must still be total (by id after the title).
                try writer.save(try fixture.event("Review \(number % 7)", in: work, start: "2026-06-15T09:00:00Z", ["note": .string("quarterly numbers")]))
            }
        }
        for text in [nil, "quarterly"] as [String?] {
            let whole = try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [], text: text, limit: nil, offset: 0) }
            #expect(whole.count == 23)
            var paged: [EntityRecord] = []
            for offset in stride(from: 0, to: 30, by: 5) {
                paged += try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: [], text: text, limit: 5, offset: offset) }
            }
            #expect(paged.map(\.id) == whole.map(\.id), "text: \(text ?? "none")")
        }
    }

    @Test("a page carries the total that count gives, on every page, past the last, with a filter and for a search that matches nothing",
          arguments: StoreFactory.all)
    func pageTotals(_ factory: StoreFactory) throws {
        let fixture = try ConformanceStore(factory)
        let work = fixture.calendar("Work")
        let home = fixture.calendar("Home")
        try fixture.save(work, home)
        try fixture.store.transaction { (writer: any StoreWriter) throws in
            for number in 0..<13 {
                let note = number % 3 == 0 ? "quarterly numbers" : "weekly sync"
                try writer.save(try fixture.event("Review \(number)", in: number % 2 == 0 ? work : home, start: "2026-06-15T09:00:00Z",
                                                  ["note": .string(note)]))
            }
        }
        let atWork = [RecordFilter.equals("calendar", .reference(work.id))]
        for (filters, text) in [([], nil), ([], "quarterly"), ([], "weekly"), (atWork, "weekly"), (atWork, nil), ([], "nothingmatches")] as [([RecordFilter], String?)] {
            let total = try fixture.store.readTransaction { try $0.count(ConformanceStore.event, matching: filters, text: text) }
            let whole = try fixture.store.readTransaction { try $0.fetchAll(ConformanceStore.event, matching: filters, text: text, limit: nil, offset: 0) }
            for (limit, offset) in [(nil, 0), (2, 0), (2, 2), (3, total - 1), (3, total), (3, total + 4), (0, 0)] as [(Int?, Int)] where offset >= 0 {
                let page = try fixture.store.readTransaction { try $0.page(ConformanceStore.event, matching: filters, text: text, limit: limit, offset: offset) }
                let expected = Array(whole.dropFirst(offset).prefix(limit ?? Int.max))
                #expect(page.total == total, "text \(text ?? "none"), \(filters.count) filters, limit \(limit.map(String.init) ?? "none"), offset \(offset)")
                #expect(page.records.map(\.id) == expected.map(\.id), "text \(text ?? "none"), limit \(limit.map(String.init) ?? "none"), offset \(offset)")
            }
        }
    }
}
