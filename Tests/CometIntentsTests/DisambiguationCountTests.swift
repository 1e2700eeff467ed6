import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("Disambiguation says how many matched")
struct DisambiguationCountTests {
    @Test("more than ten matches: the prompt names ten and says how many more, the JSON has them all and the total")
    func manyCandidates() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        for index in 0..<14 {
            try fixture.makeEvent("Dentist \(index + 1)", start: "2026-06-\(String(format: "%02d", index + 11))T08:00:00+02:00[Europe/Berlin]")
        }
        let outcome = fixture.run("deleteEvent", references: ["event": "dentist"], confirmation: .confirmed)
        guard case .needsDisambiguation(_, let prompt, let candidates) = outcome else {
            Issue.record("expected needsDisambiguation, got \(describe(outcome))")
            return
        }
        #expect(candidates.count == 14, "every match is a candidate")
        let named = candidates.filter { prompt.contains("“\($0.title)”") }
        #expect(named.count == 10, "the prompt names ten: \(prompt)")
        #expect(prompt.hasSuffix(", and 4 more?"), "\(prompt)")
        let json = fixture.engine.json(outcome)
        #expect(json["total"] == 14)
        guard case .array(let items)? = json["candidates"] else {
            Issue.record("no candidates in the JSON")
            return
        }
        #expect(items.count == 14)
        #expect(try fixture.all().count == 14, "nothing was deleted")
    }

    @Test("ten or fewer matches: all are named and nothing more is claimed")
    func fewCandidates() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        try fixture.makeEvent("Dentist", start: "2026-06-16T08:00:00+02:00[Europe/Berlin]")
        try fixture.makeEvent("Dentist", start: "2026-07-16T08:00:00+02:00[Europe/Berlin]")
        let outcome = fixture.run("deleteEvent", references: ["event": "dentist"], confirmation: .confirmed)
        guard case .needsDisambiguation(_, let prompt, let candidates) = outcome else {
            Issue.record("expected needsDisambiguation, got \(describe(outcome))")
            return
        }
        #expect(candidates.count == 2)
        #expect(!prompt.contains("more"))
        #expect(fixture.engine.json(outcome)["total"] == 2)
    }

    @Test("an exact title is found however many partial matches rank before it")
    func exactTitleAmongMany() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        for index in 0..<40 {
            try fixture.makeEvent("Café \(index + 1)", start: "2026-06-16T18:00:00+02:00[Europe/Berlin]", ["note": text("café café café")])
        }
        let exact = try fixture.makeEvent("Café", start: "2026-06-17T18:00:00+02:00[Europe/Berlin]")
        let result = try fixture.done("openEvent", references: ["event": "café"])
        #expect(result.record?.id == exact.id)
    }
}
