import Testing
import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
@testable import CometIntents

/// The resource cache (`ResourceCache`) answers exactly what making every resource again would,
/// whatever changed the store in between and through whichever engine or process: the oracle in
/// each test is an engine with no cache on the same store file.
@Suite("Calendar resources kept between reads (ResourceCache)")
struct ResourceCacheTests {
    /// Everything a sync client can read of a calendar, by name: ETag, components and text.
    private func view(_ engine: IntentEngine, _ calendar: UUID) throws -> [String: String] {
        var seen: [String: String] = [:]
        for resource in try engine.resources(in: calendar) {
            seen[resource.name] = resource.etag + " " + resource.components.sorted().joined(separator: ",")
        }
        for (resource, text) in try engine.resourceTexts(in: calendar) {
            seen[resource.name, default: "(not listed)"] += "\n" + text
        }
        return seen
    }

    /// A second engine on the store file, as the CLI opens one beside the daemon, with no cache.
    private func uncached(_ fixture: TestStore) throws -> IntentEngine {
        IntentEngine(store: try SQLiteStore(path: fixture.path, registry: fixture.registry, now: Fixture.now), timeZone: Fixture.berlin, clock: { Fixture.now })
    }

    private func cached(_ fixture: TestStore) throws -> IntentEngine {
        let engine = try uncached(fixture)
        engine.resourceCache = ResourceCache()
        return engine
    }

    @Test("edits, a deletion, a new event, a move to another calendar, an undo and a redo made by another engine show in the cached engine's next read exactly as in an uncached one's")
    func followsEveryChange() throws {
        let fixture = try TestStore(label: "resource-cache")
        let work = try fixture.makeCalendar("Work")
        let home = try fixture.makeCalendar("Home")
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let lunch = try fixture.makeEvent("Lunch", start: "2026-06-14T12:00:00+02:00[Europe/Berlin]")
        let standup = try fixture.makeWeeklyStandup()
        let cachedEngine = try cached(fixture)
        let oracle = try uncached(fixture)
        #expect(try view(cachedEngine, work.id) == view(oracle, work.id))
        #expect(try view(cachedEngine, work.id).count == 3)

        let steps: [(String, () throws -> Void)] = [
            ("an edit", { try fixture.done("updateEvent", ["event": reference(picnic), "note": text("bring a rug")]) }),
            ("a deletion", { try fixture.done("deleteEvent", ["event": reference(lunch)]) }),
            ("a new event", { _ = try fixture.makeEvent("Dinner", start: "2026-06-15T19:00:00+02:00[Europe/Berlin]") }),
            ("a move to Home", { try fixture.done("updateEvent", ["event": reference(picnic), "calendar": reference(home)]) }),
            ("an undo", { _ = try requireDone(fixture.engine.undo()) }),
            ("a redo", { _ = try requireDone(fixture.engine.redo()) }),
            ("a series' one occurrence", { try fixture.done("updateEvent", ["event": reference(standup), "startDate": try at("2026-06-15T09:30:00+02:00[Europe/Berlin]"),
                                                                             "occurrence": try at("2026-06-15T09:00:00+02:00[Europe/Berlin]"), "span": span("this")]) }),
        ]
        for (label, step) in steps {
            try step()
            for calendar in [work.id, home.id] {
                #expect(try view(cachedEngine, calendar) == view(oracle, calendar), "after \(label)")
            }
        }
    }

    @Test("a second read makes no text again; a change makes again only the resource it touched")
    func makesOnlyWhatChanged() throws {
        let fixture = try TestStore(label: "resource-cache-made")
        let work = try fixture.makeCalendar("Work")
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        for day in 14...20 { _ = try fixture.makeEvent("Event \(day)", start: "2026-06-\(day)T12:00:00+02:00[Europe/Berlin]") }
        let engine = try cached(fixture)
        let cache = try #require(engine.resourceCache)
        _ = try engine.resourceTexts(in: work.id)
        #expect(cache.textsMade == 8)
        _ = try engine.resourceTexts(in: work.id)
        _ = try engine.resources(in: work.id)
        _ = try engine.resourceTexts(in: work.id, named: ["missing.ics"])
        #expect(cache.textsMade == 8)
        try fixture.done("updateEvent", ["event": reference(picnic), "note": text("bring a rug")])
        let texts = try engine.resourceTexts(in: work.id)
        #expect(cache.textsMade == 9)
        #expect(texts.count == 8)
        #expect(texts.contains { $0.text.contains("bring a rug") })
    }

    @Test("filling the cache (as a daemon does at start) makes every text once; the reads after it make none")
    func filledAtStart() throws {
        let fixture = try TestStore(label: "resource-cache-fill")
        let work = try fixture.makeCalendar("Work")
        let home = try fixture.makeCalendar("Home")
        _ = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        _ = try fixture.makeEvent("Lunch", start: "2026-06-14T12:00:00+02:00[Europe/Berlin]", ["calendar": reference(home)])
        let engine = try cached(fixture)
        let cache = try #require(engine.resourceCache)
        #expect(try engine.fillResourceCache() == 2)
        #expect(cache.textsMade == 2)
        #expect(try engine.resourceTexts(in: work.id).count == 1)
        #expect(try engine.resourceTexts(in: home.id).count == 1)
        #expect(cache.textsMade == 2)
        #expect(try uncached(fixture).fillResourceCache() == 0)
    }

    @Test("what a front end made of a resource is kept for at most 4 kinds, given back only while the resource is unchanged, and gone after a change")
    func renderingsKept() throws {
        let fixture = try TestStore(label: "resource-cache-renderings")
        let work = try fixture.makeCalendar("Work")
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let engine = try cached(fixture)
        let resource = try #require(try engine.resources(in: work.id).first)
        for kind in 1...(ResourceCache.renderingsKept + 1) { engine.keepRendering([UInt8(kind)], of: resource, in: work.id, key: "kind \(kind)") }
        for kind in 1...ResourceCache.renderingsKept {
            #expect(engine.keptRendering(of: resource, in: work.id, key: "kind \(kind)") == [UInt8(kind)])
        }
        #expect(engine.keptRendering(of: resource, in: work.id, key: "kind \(ResourceCache.renderingsKept + 1)") == nil)
        try fixture.done("updateEvent", ["event": reference(picnic), "note": text("bring a rug")])
        let changed = try #require(try engine.resources(in: work.id).first)
        #expect(changed.etag != resource.etag)
        #expect(engine.keptRendering(of: changed, in: work.id, key: "kind 1") == nil)
        #expect(engine.keptRendering(of: resource, in: work.id, key: "kind 1") == nil)
    }

    @Test("a bulk change larger than the cache follows (an import of 2,001 events) empties it, and the next read is whole")
    func bulkChangeStartsOver() throws {
        let fixture = try TestStore(label: "resource-cache-bulk")
        let work = try fixture.makeCalendar("Work")
        _ = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let engine = try cached(fixture)
        let cache = try #require(engine.resourceCache)
        _ = try engine.resourceTexts(in: work.id)
        #expect(cache.count == 1)
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\n"
        for index in 0...ResourceCache.largestChangeFollowed {
            text += "BEGIN:VEVENT\r\nUID:bulk-\(index)\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260701T120000Z\r\nDURATION:PT1H\r\nSUMMARY:Bulk \(index)\r\nEND:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        let report = fixture.engine.importCalendars([ImportSource(name: "bulk.ics", text: text, registry: fixture.registry)], options: ImportOptions(calendar: "Work"))
        #expect(report.problems.isEmpty)
        _ = try engine.resources(in: work.id)
        #expect(cache.count == ResourceCache.largestChangeFollowed + 2)
        #expect(try engine.resourceTexts(in: work.id).count == ResourceCache.largestChangeFollowed + 2)
    }
}
