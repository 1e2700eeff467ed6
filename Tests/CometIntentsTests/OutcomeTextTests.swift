import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometIntents

/// The daemon writes outcomes straight to text; `--json`, the conversation runner and the
/// tests read them as trees. Both come from one writer and must give the same bytes.
@Suite("Outcomes written straight to text")
struct OutcomeTextTests {
    static func requireSameBytes(_ outcome: IntentOutcome, _ registry: Registry, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let text = registry.jsonText(outcome).description
        let tree = JSONWriter.compact(registry.json(outcome))
        try #require(text == tree, "\(outcome.name)", sourceLocation: sourceLocation)
    }

    @Test("Every kind of outcome the engine gives (done, searches with occurrences and pages, confirmation, disambiguation, value, cancel, failure, undo) has the same bytes as text and as a tree")
    func engineOutcomes() throws {
        let fixture = try TestStore(label: "outcome-text")
        let registry = fixture.registry
        var outcomes: [IntentOutcome] = []
        outcomes.append(fixture.run("createCalendar", ["title": text("Work \"main\"")]))
        try fixture.makeEvent("Standup", start: "2026-06-15T09:00:00+02:00[Europe/Berlin]", end: "2026-06-15T09:15:00+02:00[Europe/Berlin]",
                              ["recurrence": try rule("FREQ=DAILY;COUNT=30"), "location": .set(textLocation("Room\n2"))])
        try fixture.makeEvent("Standup", start: "2026-06-16T18:00:00Z")
        try fixture.makeEvent("Picnic ☕", start: "2026-06-20T12:00:00", end: "2026-06-20T15:00:00")
        outcomes.append(fixture.run("createEvent", ["title": text("Launch"), "startDate": try at("2026-06-18T08:00:00-04:00[America/New_York]"),
                                                    "alarms": .set(.array([relativeAlarm("-PT15M")]))]))
        outcomes.append(fixture.run("searchEvents", ["from": try at("2026-06-14T00:00:00+02:00[Europe/Berlin]"), "to": try at("2026-06-30T00:00:00+02:00[Europe/Berlin]")]))
        outcomes.append(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": text("Standup")]),
                                                             page: ResultPage(limit: 1, offset: 0))))
        outcomes.append(fixture.engine.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["from": try at("2026-06-14T00:00:00Z"), "to": try at("2026-07-30T00:00:00Z")]),
                                                             page: ResultPage(limit: 5, offset: 3))))
        outcomes.append(fixture.run("searchEvents", ["text": text("nothing like this")]))
        outcomes.append(fixture.run("updateEvent", ["title": text("Daily")], references: ["event": "Standup"]))
        outcomes.append(fixture.run("deleteEvent", references: ["event": "Picnic"]))
        outcomes.append(fixture.run("deleteEvent", references: ["event": "Picnic"], confirmation: .declined))
        outcomes.append(fixture.run("createEvent", ["startDate": try at("2026-06-18T08:00:00Z")]))
        outcomes.append(fixture.run("createEvent", ["title": text("x"), "colour": text("red")]))
        outcomes.append(fixture.engine.undo())
        outcomes.append(fixture.engine.redo())
        let names = Set(outcomes.map(\.name))
        #expect(names == ["done", "needsConfirmation", "needsDisambiguation", "needsValue", "cancelled", "failed"])
        for outcome in outcomes { try Self.requireSameBytes(outcome, registry) }
    }

    @Test("Outcomes made by hand with every optional part present and absent have the same bytes as text and as a tree")
    func madeOutcomes() throws {
        let registry = try Fixture.registry()
        let id = UUID()
        let record = EntityRecord(entity: Fixture.event, id: id, values: ["title": .string("Tab\there"), "startDate": .dateTime(try dateTime("2026-06-15T08:00:00+02:00[Europe/Berlin]"))])
        let occurrence = Occurrence(record: record, start: try dateTime("2026-06-15T08:00:00+02:00[Europe/Berlin]"), end: try dateTime("2026-06-15T09:00:00+02:00[Europe/Berlin]"),
                                    isRecurrenceInstance: true, recurrenceKey: try dateTime("2026-06-15T08:00:00+02:00[Europe/Berlin]"))
        let snippet = Snippet(title: "Launch", subtitle: nil, fields: [Snippet.Field(label: "When", value: "9:00\u{2028}")])
        var search = IntentResult(intent: QualifiedName(domain: "calendar", name: "searchEvents"), action: .search, record: nil, records: [record, record],
                                  occurrences: [occurrence, occurrence], dialog: Dialog(full: "Two.", supporting: "2"), snippet: snippet, journalSequence: 7)
        search.page = PageInfo(total: 10, offset: 2, limit: 2, count: 2)
        search.warnings = ["a \"busy\" day", "another"]
        var open = IntentResult(intent: QualifiedName(domain: "calendar", name: "openEvent"), action: nil, record: record, records: [record],
                                occurrences: [], dialog: Dialog(full: "", supporting: ""), snippet: nil, journalSequence: nil)
        open.page = PageInfo(total: 1, offset: 0, limit: nil, count: 1)
        let outcomes: [IntentOutcome] = [
            .done(search), .done(open),
            .needsValue(parameter: "title", prompt: "What \"title\"?"),
            .needsConfirmation(prompt: "Delete?", snippet: Snippet(title: "", subtitle: "sub", fields: [])),
            .needsDisambiguation(parameter: "event", prompt: "Which?", candidates: [Candidate(id: id, title: "A", subtitle: nil), Candidate(id: UUID(), title: "B", subtitle: "Tue")]),
            .needsDisambiguation(parameter: "event", prompt: "Which?", candidates: []),
            .cancelled(Dialog(full: "Kept.", supporting: "")),
            .failed(IntentError(.unknownParameter, "no 'colour'", parameter: "colour", suggestion: "color")),
            .failed(IntentError(.storage, "disk full")),
        ]
        for outcome in outcomes { try Self.requireSameBytes(outcome, registry) }
        let written = registry.jsonText(.failed(IntentError(.storage, "disk full"))).description
        #expect(written == #"{"outcome":"failed","error":{"code":"storage","message":"disk full"}}"#)
    }
}
