import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents

/// Calendars as collections of resources, as a CalDAV client reads and writes them: a resource
/// is an event with its overrides, named after its UID; writes go through the importer.
@Suite("Calendar resources (what CalDAV serves)")
struct CalendarResourceTests {
    static func event(uid: String, summary: String, start: String = "20260613T120000Z", sequence: Int = 0, extra: String = "") -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//Client//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20260601T080000Z\r
        DTSTART:\(start)\r
        DURATION:PT1H\r
        SUMMARY:\(summary)\r
        SEQUENCE:\(sequence)\r
        \(extra)END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    static let weekly = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//Client//EN\r
        BEGIN:VEVENT\r
        UID:standup-1\r
        DTSTAMP:20260601T080000Z\r
        DTSTART:20260601T070000Z\r
        DURATION:PT30M\r
        RRULE:FREQ=WEEKLY;COUNT=10\r
        SUMMARY:Standup\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:standup-1\r
        DTSTAMP:20260601T080000Z\r
        RECURRENCE-ID:20260608T070000Z\r
        DTSTART:20260608T080000Z\r
        DURATION:PT30M\r
        SUMMARY:Standup (late)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    private func put(_ fixture: TestStore, _ calendar: UUID, _ name: String, _ text: String, ifMatch: String? = nil, ifNoneMatch: Bool = false,
                     sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> ResourceWrite {
        switch fixture.engine.putResource(in: calendar, named: name, text: text, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch) {
        case .success(let write): return write
        case .failure(let refusal):
            Issue.record("refused: \(refusal.message)", sourceLocation: sourceLocation)
            throw refusal
        }
    }

    private func titles(_ fixture: TestStore) throws -> [String] {
        try fixture.all().map { fixture.registry.title(of: $0) }.sorted()
    }

    private func refusal(_ result: Result<ResourceWrite, ResourceRefusal>) -> ResourceRefusal? {
        if case .failure(let refusal) = result { return refusal }
        return nil
    }

    @Test("a calendar is a collection; an event made by an intent is a resource named after its UID, whose text is what export writes")
    func listing() throws {
        let fixture = try TestStore(label: "resources-list")
        let work = try fixture.makeCalendar("Work")
        let picnic = try fixture.makeEvent("Picnic", start: "2026-06-13T12:00:00+02:00[Europe/Berlin]")
        let collections = try fixture.engine.calendarCollections()
        #expect(collections.map(\.title) == ["Work"])
        #expect(collections.first?.components == ["VEVENT"])
        let resources = try fixture.engine.resources(in: work.id)
        #expect(resources.count == 1)
        let resource = try #require(resources.first)
        guard case .string(let uid)? = picnic["uid"] else { Issue.record("the event has no UID"); return }
        #expect(resource.uid == uid)
        #expect(resource.name == Vdir.safeName(uid) + ".ics")
        let texts = try fixture.engine.resourceTexts(in: work.id, named: [resource.name, "missing.ics"])
        #expect(texts.count == 1)
        #expect(texts.first?.text == (try fixture.engine.exportVdir()).collections.first?.items.first?.text)
        #expect(texts.first?.resource == resource)
    }

    @Test("a PUT creates an event through the importer; the same text again changes nothing; If-None-Match refuses an existing name, If-Match a stale ETag")
    func putAndPreconditions() throws {
        let fixture = try TestStore(label: "resources-put")
        let work = try fixture.makeCalendar("Work")
        let text = Self.event(uid: "picnic-1@example.com", summary: "Picnic")
        let created = try put(fixture, work.id, "picnic-1@example.com.ics", text, ifNoneMatch: true)
        #expect(created.created)
        #expect(created.journalSequence != nil)
        #expect(try fixture.engine.resources(in: work.id).map(\.name) == ["picnic-1@example.com.ics"])
        let again = try put(fixture, work.id, "picnic-1@example.com.ics", text, ifMatch: created.resource.etag)
        #expect(!again.created)
        #expect(again.resource.etag == created.resource.etag)
        #expect(again.journalSequence == nil)
        let exists = refusal(fixture.engine.putResource(in: work.id, named: "picnic-1@example.com.ics", text: text, ifNoneMatch: true))
        #expect(exists?.reason == .preconditionFailed)
        let changed = try put(fixture, work.id, "picnic-1@example.com.ics", Self.event(uid: "picnic-1@example.com", summary: "Picnic in the park"))
        #expect(changed.resource.etag != created.resource.etag)
        let stale = refusal(fixture.engine.putResource(in: work.id, named: "picnic-1@example.com.ics", text: text, ifMatch: created.resource.etag))
        #expect(stale?.reason == .preconditionFailed)
        #expect(try titles(fixture) == ["Picnic in the park"])
    }

    @Test("a client's version replaces the stored one even with the same SEQUENCE (the ETag guards it), and one PUT is one undo")
    func replacesWhateverSequence() throws {
        let fixture = try TestStore(label: "resources-sequence")
        let work = try fixture.makeCalendar("Work")
        _ = try put(fixture, work.id, "a.ics", Self.event(uid: "a", summary: "First", sequence: 3))
        _ = try put(fixture, work.id, "a.ics", Self.event(uid: "a", summary: "Second", sequence: 3))
        #expect(try titles(fixture) == ["Second"])
        let undone = fixture.engine.undo()
        guard case .done = undone else { Issue.record("undo did not run: \(undone)"); return }
        #expect(try titles(fixture) == ["First"])
    }

    @Test("a client's own resource name is kept: the resource answers by it, and a second name for the same UID is refused")
    func clientNames() throws {
        let fixture = try TestStore(label: "resources-names")
        let work = try fixture.makeCalendar("Work")
        let write = try put(fixture, work.id, "7C2E-client-name.ics", Self.event(uid: "uid-with-other-name", summary: "Dentist"))
        #expect(write.resource.name == "7C2E-client-name.ics")
        #expect(try fixture.engine.resources(in: work.id).map(\.name) == ["7C2E-client-name.ics"])
        #expect(try fixture.engine.resourceTexts(in: work.id, named: ["7C2E-client-name.ics"]).count == 1)
        // The name made from the UID does not answer: the resource has one name.
        #expect(try fixture.engine.resourceTexts(in: work.id, named: ["uid-with-other-name.ics"]).isEmpty)
        let second = refusal(fixture.engine.putResource(in: work.id, named: "another.ics", text: Self.event(uid: "uid-with-other-name", summary: "Dentist")))
        guard case .uidConflict(_, let name)? = second?.reason else { Issue.record("not a UID conflict: \(String(describing: second))"); return }
        #expect(name == "7C2E-client-name.ics")
    }

    @Test("a resource changes UID only as a new resource; a UID on another calendar is a conflict that names it")
    func uidRules() throws {
        let fixture = try TestStore(label: "resources-uid")
        let work = try fixture.makeCalendar("Work")
        let home = try fixture.makeCalendar("Home")
        _ = try put(fixture, work.id, "a.ics", Self.event(uid: "a", summary: "Picnic"))
        let changedUID = refusal(fixture.engine.putResource(in: work.id, named: "a.ics", text: Self.event(uid: "b", summary: "Picnic")))
        #expect(changedUID?.reason == .uidConflict(collection: work.id, name: "a.ics"))
        let elsewhere = refusal(fixture.engine.putResource(in: home.id, named: "a.ics", text: Self.event(uid: "a", summary: "Picnic")))
        #expect(elsewhere?.reason == .uidConflict(collection: work.id, name: "a.ics"))
        #expect(try fixture.engine.resources(in: home.id).isEmpty)
    }

    @Test("refused texts change nothing and say why: not iCalendar, two UIDs, a bad date with its line, a to-do in an events calendar")
    func refusals() throws {
        let fixture = try TestStore(label: "resources-refused")
        let work = try fixture.makeCalendar("Work")
        let head = try fixture.engine.changeHead()
        let notCalendar = refusal(fixture.engine.putResource(in: work.id, named: "x.ics", text: "hello"))
        #expect(notCalendar?.reason == .invalidCalendarData)
        let two = Self.event(uid: "a", summary: "A").replacingOccurrences(of: "END:VCALENDAR\r\n", with: "")
            + "BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260614T120000Z\r\nSUMMARY:B\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        #expect(refusal(fixture.engine.putResource(in: work.id, named: "x.ics", text: two))?.reason == .notAnObjectResource)
        let badDate = refusal(fixture.engine.putResource(in: work.id, named: "x.ics", text: Self.event(uid: "c", summary: "C", start: "20261345T990000Z")))
        #expect(badDate?.reason == .invalidCalendarData)
        #expect(badDate?.problems.first?.line == 7)
        let todo = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//T//EN\r\nBEGIN:VTODO\r\nUID:t\r\nDTSTAMP:20260601T080000Z\r\nSUMMARY:Milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(refusal(fixture.engine.putResource(in: work.id, named: "t.ics", text: todo))?.reason == .unsupportedComponent)
        #expect(try fixture.engine.changeHead() == head)
        #expect(try fixture.engine.resources(in: work.id).isEmpty)
    }

    @Test("a series with an override is one resource; an override the client removed is deleted; DELETE takes the whole resource, guarded by If-Match")
    func seriesAndDelete() throws {
        let fixture = try TestStore(label: "resources-series")
        let work = try fixture.makeCalendar("Work")
        let first = try put(fixture, work.id, "standup-1.ics", Self.weekly)
        #expect(try fixture.engine.resources(in: work.id).count == 1)
        #expect(first.changes.count == 2)
        // The client drops the override: the series alone.
        let withoutOverride = Self.weekly.components(separatedBy: "BEGIN:VEVENT\r\nUID:standup-1\r\nDTSTAMP:20260601T080000Z\r\nRECURRENCE-ID")[0] + "END:VCALENDAR\r\n"
        let second = try put(fixture, work.id, "standup-1.ics", withoutOverride, ifMatch: first.resource.etag)
        #expect(second.changes.contains { $0.kind == ImportReport.Change.Kind.deleted })
        #expect(try titles(fixture) == ["Standup"])
        let text = try #require(try fixture.engine.resourceTexts(in: work.id, named: ["standup-1.ics"]).first?.text)
        #expect(!text.contains("RECURRENCE-ID"))
        #expect(refusal(fixture.engine.deleteResource(in: work.id, named: "standup-1.ics", ifMatch: first.resource.etag))?.reason == .preconditionFailed)
        _ = try fixture.engine.deleteResource(in: work.id, named: "standup-1.ics", ifMatch: second.resource.etag).get()
        #expect(try fixture.engine.resources(in: work.id).isEmpty)
        #expect(refusal(fixture.engine.deleteResource(in: work.id, named: "standup-1.ics"))?.reason == .notFound)
    }

    @Test("a collection's changes since a point: added and changed resources with their ETags, deleted ones by name, other calendars' left out; an unknown point is nil")
    func changesSince() throws {
        let fixture = try TestStore(label: "resources-changes")
        let work = try fixture.makeCalendar("Work")
        let home = try fixture.makeCalendar("Home")
        let keep = try put(fixture, work.id, "keep.ics", Self.event(uid: "keep", summary: "Keep"))
        _ = try put(fixture, work.id, "gone.ics", Self.event(uid: "gone", summary: "Gone"))
        let start = try fixture.engine.changeHead()
        #expect(try fixture.engine.collectionChanges(in: work.id, since: start)?.changed.isEmpty == true)
        let changed = try put(fixture, work.id, "keep.ics", Self.event(uid: "keep", summary: "Kept and changed"), ifMatch: keep.resource.etag)
        _ = try fixture.engine.deleteResource(in: work.id, named: "gone.ics").get()
        _ = try put(fixture, home.id, "home.ics", Self.event(uid: "home", summary: "At home"))
        // An intent's change counts too.
        let made = try fixture.makeEvent("Made by voice", start: "2026-06-20T12:00:00+02:00[Europe/Berlin]")
        let feed = try #require(try fixture.engine.collectionChanges(in: work.id, since: start))
        guard case .string(let madeUID)? = made["uid"] else { Issue.record("the event has no UID"); return }
        #expect(Set(feed.changed.map(\.name)) == ["keep.ics", Vdir.safeName(madeUID) + ".ics"])
        #expect(feed.changed.first { $0.name == "keep.ics" }?.etag == changed.resource.etag)
        // Deleted from this calendar; and, as the feed cannot tell a move away from a change
        // elsewhere, the other calendar's changed resource too.
        #expect(feed.removed == ["gone.ics", "home.ics"])
        #expect(feed.head == (try fixture.engine.changeHead()))
        #expect(try fixture.engine.collectionChanges(in: home.id, since: start)?.changed.map(\.name) == ["home.ics"])
        #expect(try fixture.engine.collectionChanges(in: work.id, since: feed.head + 1) == nil)
        // Undo is a change too: the deleted resource comes back.
        _ = fixture.engine.undo() // the voice event
        let afterUndo = try #require(try fixture.engine.collectionChanges(in: work.id, since: feed.head))
        #expect(afterUndo.removed == [Vdir.safeName(madeUID) + ".ics"])
    }
}
