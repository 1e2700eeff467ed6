import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents

/// A CalDAV client that reads a resource and writes it back unchanged must change nothing: the
/// text CometCal answers with, PUT again, answers with the same text and the same ETag.
@Suite("Calendar resources: a client's unchanged write-back is stable")
struct ResourceRoundTripTests {
    /// The fixture files that hold one resource (one UID, with its overrides).
    static func singleResourceFixtures() throws -> [URL] {
        let folder = URL(fileURLWithPath: Fixture.repoRoot + "/Tests/Fixtures/ical")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "ics" }
            .filter { url in
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { return false }
                let uids = Set(text.components(separatedBy: .newlines).filter { $0.hasPrefix("UID:") })
                return uids.count == 1
            }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("an iTIP message (METHOD:CANCEL) is not a calendar object resource: refused, and nothing is stored")
    func messageRefused() throws {
        let fixture = try TestStore(label: "round-trip-message")
        let work = try fixture.makeCalendar("Work")
        let text = try String(contentsOfFile: Fixture.repoRoot + "/Tests/Fixtures/ical/google-cancel.ics", encoding: .utf8)
        guard case .failure(let refusal) = fixture.engine.putResource(in: work.id, named: "cancel.ics", text: text) else {
            Issue.record("a METHOD:CANCEL was accepted as a resource")
            return
        }
        #expect(refusal.reason == .notAnObjectResource)
        #expect(refusal.message.contains("METHOD"))
        #expect(try fixture.engine.resources(in: work.id).isEmpty)
    }

    @Test("every one-resource fixture the importer takes: GET, PUT back with If-Match, GET again gives the same bytes and the same ETag, and no journal entry")
    func writeBackIsStable() throws {
        let fixture = try TestStore(label: "round-trip")
        let work = try fixture.makeCalendar("Work")
        var stable = 0
        for url in try Self.singleResourceFixtures() {
            let name = url.deletingPathExtension().lastPathComponent + ".ics"
            guard case .success = fixture.engine.putResource(in: work.id, named: name, text: try String(contentsOf: url, encoding: .utf8)) else { continue }
            let (first, text) = try #require(try fixture.engine.resourceTexts(in: work.id, named: [name]).first, "\(name): accepted, not found")
            let journal = try fixture.engine.history(limit: 10_000).count
            switch fixture.engine.putResource(in: work.id, named: name, text: text, ifMatch: first.etag) {
            case .failure(let refusal):
                Issue.record("\(name): our own text refused: \(refusal.message)")
            case .success:
                let (second, again) = try #require(try fixture.engine.resourceTexts(in: work.id, named: [name]).first)
                #expect(again == text, "\(name) changed when written back")
                #expect(second.etag == first.etag, "\(name): ETag changed")
                #expect(try fixture.engine.history(limit: 10_000).count == journal, "\(name): an unchanged write-back made a journal entry")
                if again == text && second.etag == first.etag { stable += 1 }
            }
        }
        #expect(stable >= 25, "only \(stable) fixtures round-tripped")
    }
}

extension ResourceRoundTripTests {
    @Test("a resource sent with METHOD:REQUEST or PUBLISH is stored as the event it carries, with a warning that the METHOD line is not kept")
    func methodDroppedWithWarning() throws {
        let fixture = try TestStore(label: "round-trip-method")
        let work = try fixture.makeCalendar("Work")
        for method in ["REQUEST", "PUBLISH"] {
            let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nMETHOD:\(method)\r\nBEGIN:VEVENT\r\nUID:m-\(method)\r\nDTSTAMP:20260601T080000Z\r\n"
                + "DTSTART:20260610T090000Z\r\nDURATION:PT1H\r\nSUMMARY:Invited\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            guard case .success(let write) = fixture.engine.putResource(in: work.id, named: "m-\(method).ics", text: text) else {
                Issue.record("METHOD:\(method) refused")
                continue
            }
            #expect(write.warnings.contains { $0.message.contains("METHOD") }, "\(write.warnings.map(\.message))")
        }
    }
}
