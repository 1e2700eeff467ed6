import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
@testable import CometDaemon

/// The daemon writes each answer as text around results written straight from the values:
/// the envelope, batches and errors must be the bytes the tree of the same answer is written as.
@Suite("Answers written straight to text")
struct AnswerTextTests {
    private static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Schemas").path

    @Test("A batch of requests, notifications and bad requests is answered with the bytes of its tree: ids of every kind, results, errors, in order")
    func batchAnswerIsTheTreesText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("answers-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let service = try DaemonService(configuration: DaemonService.Configuration(store: .file(folder + "/s.sqlite"), opener: SQLiteStore.opener,
                                                                                   schemaPaths: [AnswerTextTests.schemas],
                                                                                   timeZone: TimeZone(identifier: "Europe/Berlin") ?? .current, readers: 1))
        let created = try service.handle("intent.perform", JSONObject([
            ("intent", .string("createEvent")),
            ("parameters", .object(JSONObject([("title", .string("Launch \"review\"\n")), ("startDate", .string("2026-06-13T12:00:00+02:00[Europe/Berlin]")),
                                               ("location", .string("Hangar 2"))]))),
        ]), connection: 1).get()
        let id = try #require(created["entity"]?["id"]?.stringValue)
        let body = """
        [{"jsonrpc": "2.0", "id": 1, "method": "entity.get", "params": {"entity": "Event", "id": "\(id)"}},
         {"jsonrpc": "2.0", "id": "two", "method": "agenda", "params": {"from": "2026-06-13T00:00:00Z", "to": "2026-06-14T00:00:00Z"}},
         {"jsonrpc": "2.0", "method": "health"},
         {"jsonrpc": "2.0", "id": null, "method": "no.such"},
         {"jsonrpc": "1.0", "id": 5, "method": "health"},
         {"jsonrpc": "2.0", "id": 6, "method": "entity.get", "params": {"entity": "Event", "id": "\(UUID().uuidString)"}},
         {"jsonrpc": "2.0", "id": 7, "method": "intent.perform", "params": {"intent": "searchEvents", "parameters": {"text": "Launch"}, "limit": 1}}]
        """
        let answer = try #require(Daemon.answer(Array(body.utf8), service: service, connection: 1))
        let tree = try JSONParser.parse(bytes: answer.bytes)
        guard case .array(let items) = tree else {
            Issue.record("a batch is answered with an array: \(answer)")
            return
        }
        // Six answers: the notification gets none.
        try #require(items.count == 6)
        #expect(items.map { $0["id"] } == [.int(1), .string("two"), .null, .int(5), .int(6), .int(7)])
        #expect(items[0]["result"]?["entity"]?["title"] == .string("Launch \"review\"\n"))
        #expect(items[1]["result"]?["occurrences"]?.arrayCount == 1)
        #expect(items[2]["error"]?["code"] == .int(RPCError.methodNotFound))
        #expect(items[3]["error"]?["code"] == .int(RPCError.invalidRequest))
        #expect(items[4]["result"]?["entity"] == .null)
        #expect(items[5]["result"]?["truncated"] == .bool(false))
        // The text is what the tree path writes for the same answer, byte for byte.
        #expect(answer.description == JSONWriter.compact(tree))
        let single = try #require(Daemon.answer(Array(#"{"jsonrpc": "2.0", "id": 9, "method": "entity.get", "params": {"entity": "Event", "id": "\#(id)"}}"#.utf8),
                                                service: service, connection: 1))
        #expect(single.description == JSONWriter.compact(RPCMessage.response(id: .number(9), result: items[0]["result"] ?? .null)))
        // The reader kept that record's text; a change is seen on the next read all the same.
        let updated = try service.handle("intent.perform", JSONObject([
            ("intent", .string("updateEvent")), ("confirmed", .bool(true)),
            ("parameters", .object(JSONObject([("event", .string(id)), ("title", .string("Launch moved"))]))),
        ]), connection: 1).get()
        #expect(updated["outcome"] == "done")
        let read = try service.handle("entity.get", JSONObject([("entity", .string("Event")), ("id", .string(id))]), connection: 1).get()
        #expect(read["entity"]?["title"] == .string("Launch moved"))
        #expect(read["entity"]?["location"] == items[0]["result"]?["entity"]?["location"])
    }
}

extension AnswerTextTests {
    @Test("After the schemas are reloaded, a record is written in the new schemas' order, not copied from the text kept before")
    func reloadForgetsRecordTexts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("answers-reload-\(UUID().uuidString.prefix(8))")
        let schemas = folder.appendingPathComponent("Schemas/calendar")
        try FileManager.default.createDirectory(at: schemas, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = URL(fileURLWithPath: AnswerTextTests.schemas).appendingPathComponent("calendar")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: schemas.appendingPathComponent(name))
        }
        let service = try DaemonService(configuration: DaemonService.Configuration(store: .file(folder.appendingPathComponent("s.sqlite").path), opener: SQLiteStore.opener,
                                                                                   schemaPaths: [folder.appendingPathComponent("Schemas").path],
                                                                                   timeZone: TimeZone(identifier: "Europe/Berlin") ?? .current, readers: 1))
        let created = try service.handle("intent.perform", JSONObject([
            ("intent", .string("createEvent")),
            ("parameters", .object(JSONObject([("title", .string("Review")), ("startDate", .string("2026-06-13T12:00:00+02:00[Europe/Berlin]"))]))),
        ]), connection: 1).get()
        let id = try #require(created["entity"]?["id"]?.stringValue)
        func keys() throws -> [String] {
            let text = try service.answer("entity.get", JSONObject([("entity", .string("Event")), ("id", .string(id))]), connection: 1).get()
            return try #require(try JSONParser.parse(bytes: text.bytes)["entity"]?.objectValue).keys
        }
        let before = try keys()
        #expect(try keys() == before)
        try #require(before.firstIndex(of: "isFavorite") ?? 0 > before.firstIndex(of: "title") ?? 0)
        // The same schemas with isFavorite declared right after id.
        let eventFile = schemas.appendingPathComponent("event.cal")
        var text = try String(contentsOf: eventFile, encoding: .utf8)
        let favorite = "    /// Starred: a CometCal extension beyond the standard schema (X-COMETCAL-FAVORITE).\n    @ical(\"X-COMETCAL-FAVORITE\")\n    isFavorite: Bool = false\n"
        try #require(text.contains(favorite))
        text = text.replacingOccurrences(of: favorite, with: "").replacingOccurrences(of: "    id: UUID\n", with: "    id: UUID\n\n" + favorite)
        try text.write(to: eventFile, atomically: true, encoding: .utf8)
        #expect(service.reload() == nil)
        let after = try keys()
        #expect(after.prefix(2) == ["id", "isFavorite"])
        #expect(Set(after) == Set(before))
    }

    @Test("The daemon's engines share one cache of record texts, as many as a store keeps decoded records, and a reload gives them a new one, shared again")
    func recordTextsShared() throws {
        #expect(RecordTextCache().limit == SQLiteStore.recordCacheLimit)
        #expect(RecordTextCache().limit == 8_192)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("answers-shared-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let service = try DaemonService(configuration: DaemonService.Configuration(store: .file(folder.appendingPathComponent("s.sqlite").path), opener: SQLiteStore.opener,
                                                                                   schemaPaths: [AnswerTextTests.schemas],
                                                                                   timeZone: TimeZone(identifier: "Europe/Berlin") ?? .current, readers: 3))
        func caches() -> [ObjectIdentifier] { ([service.writer.recordTexts] + service.readers.recordTexts).map(ObjectIdentifier.init) }
        let first = caches()
        #expect(first.count == 4 && Set(first).count == 1)
        #expect(service.reload() == nil)
        let second = caches()
        #expect(second.count == 4 && Set(second).count == 1 && second[0] != first[0])
    }
}

private extension JSONValue {
    var arrayCount: Int? {
        if case .array(let items) = self { return items.count }
        return nil
    }
}
