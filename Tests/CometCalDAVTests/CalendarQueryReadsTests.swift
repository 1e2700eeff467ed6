import Foundation
import Testing
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometHTTP
import CometCalDAV

/// The store reads a calendar-query costs: the whole calendar reads each record once, and a
/// time range reads the events it matches, not the calendar (`scripts/bench --scenario caldav`
/// measures what that costs at 50,000 events).
@Suite("CalDAV calendar-query reads")
struct CalendarQueryReadsTests {
    /// The store, counting the records its reads hand out through `fetchAll` and the calls that
    /// do; everything else is forwarded unchanged, and writes are not counted.
    final class ReadCountingStore: EntityStore, @unchecked Sendable {
        let base: any EntityStore
        private let lock = NSLock()
        private var calls = 0
        private var records = 0

        init(_ base: any EntityStore) { self.base = base }

        var registry: Registry { base.registry }

        func transaction<T>(_ body: (any StoreWriter) throws -> T) throws -> T { try base.transaction(body) }

        func readTransaction<T>(_ body: (any StoreReader) throws -> T) throws -> T {
            try base.readTransaction { try body(CountingReader(base: $0, store: self)) }
        }

        func noteFetch(_ count: Int) { lock.withLock { calls += 1; records += count } }

        /// Fetches and records read since the last call.
        func takeCounts() -> (calls: Int, records: Int) {
            lock.withLock {
                defer { calls = 0; records = 0 }
                return (calls, records)
            }
        }
    }

    struct CountingReader: StoreReader {
        let base: any StoreReader
        let store: ReadCountingStore

        func fetch(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
            let record = try base.fetch(entity, id: id)
            store.noteFetch(record == nil ? 0 : 1)
            return record
        }
        func fetchAll(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?, limit: Int?, offset: Int) throws -> [EntityRecord] {
            let records = try base.fetchAll(entity, matching: filters, text: text, limit: limit, offset: offset)
            store.noteFetch(records.count)
            return records
        }
        func count(_ entity: QualifiedName, matching filters: [RecordFilter], text: String?) throws -> Int {
            try base.count(entity, matching: filters, text: text)
        }
        func occurrences(_ entity: QualifiedName, from: Date, to: Date, zone: TimeZone, matching filters: [RecordFilter],
                         text: String?, limit: Int?, offset: Int) throws -> OccurrencePage {
            try base.occurrences(entity, from: from, to: to, zone: zone, matching: filters, text: text, limit: limit, offset: offset)
        }
        func referencing(_ entity: QualifiedName, id: UUID) throws -> [(record: EntityRecord, property: String)] { try base.referencing(entity, id: id) }
        func journalEntry(toUndo: Bool) throws -> JournalEntry? { try base.journalEntry(toUndo: toUndo) }
        func journal(limit: Int) throws -> [JournalEntry] { try base.journal(limit: limit) }
        func journalHeads(limit: Int) throws -> [(sequence: Int64, undone: Bool)] { try base.journalHeads(limit: limit) }
        func journalEntry(sequence: Int64) throws -> JournalEntry? { try base.journalEntry(sequence: sequence) }
        func alarmFired(_ key: AlarmKey) throws -> Bool { try base.alarmFired(key) }
        func snoozedAlarms(from: Int64, to: Int64) throws -> [(key: AlarmKey, occurrence: String)] { try base.snoozedAlarms(from: from, to: to) }
        func lastFiredOccurrence(of record: UUID) throws -> Int64? { try base.lastFiredOccurrence(of: record) }
        func meta(_ key: String) throws -> String? { try base.meta(key) }
        func metaEntries() throws -> [(key: String, value: String)] { try base.metaEntries() }
        func firedAlarms() throws -> [(key: AlarmKey, firedAt: Date, late: Bool)] { try base.firedAlarms() }
        func changeHead() throws -> Int64 { try base.changeHead() }
        func changes(since: Int64) throws -> [StoreChange]? { try base.changes(since: since) }
    }

    /// A calendar of `events` one-hour events, two of them in June 2026 and the others in 2025,
    /// served as alice's; the store counts what each request reads.
    final class Served {
        let folder: URL
        let store: ReadCountingStore
        let service: CalDAVService
        let path: String

        init(events: Int) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("caldav-reads-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let registry = try Registry.load(paths: [LiveServer.repository.appendingPathComponent("Schemas").path])
            store = ReadCountingStore(try SQLiteStore.opener.open(.file(folder.appendingPathComponent("store.sqlite").path), registry: registry))
            let engine = IntentEngine(store: store, timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
            var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            for index in 0..<events {
                let day = index < 2 ? String(format: "202606%02d", index + 10) : String(format: "2025%02d%02d", index % 12 + 1, index % 28 + 1)
                text += "BEGIN:VEVENT\r\nUID:event-\(index)\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:\(day)T090000Z\r\nDTEND:\(day)T100000Z\r\n"
                    + "SUMMARY:Event \(index)\r\nEND:VEVENT\r\n"
            }
            text += "END:VCALENDAR\r\n"
            let report = engine.importCalendars([ImportSource(name: "events.ics", text: text, registry: registry)], options: ImportOptions(calendar: "Work"))
            #expect(report.problems.isEmpty, "\(report.problems)")
            let calendar = try #require(try engine.calendarCollections().first { $0.title == "Work" })
            path = "/dav/calendars/alice/\(try #require(try engine.collectionSegments()[calendar.id]))/"
            // One request at a time, as cometcald serves a user's store of their own.
            final class Account: @unchecked Sendable {
                let engine: IntentEngine
                let lock = NSLock()
                init(_ engine: IntentEngine) { self.engine = engine }
            }
            let account = Account(engine)
            service = CalDAVService(configuration: CalDAVService.Configuration(
                serve: { user, _, body in user == "alice" ? try account.lock.withLock { try body(account.engine) } : nil }, anonymousUser: "alice"))
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// A calendar-query for VEVENTs with calendar-data; its answer's events, and the store's reads.
        func query(timeRange: String?) -> (events: Int, calls: Int, records: Int) {
            let range = timeRange.map { "<C:time-range \($0)/>" } ?? ""
            let body = #"<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>"#
                + #"<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">"# + range + "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
            _ = store.takeCounts()
            let answer = service.handle(HTTPRequest(method: "REPORT", rawPath: path, path: path, query: nil, version: "HTTP/1.1",
                                                    headers: ["Depth": "1", "Content-Type": "application/xml"], body: Array(body.utf8),
                                                    remoteAddress: "127.0.0.1", user: "alice"))
            let counts = store.takeCounts()
            #expect(answer.status == 207, "\(String(decoding: answer.body.prefix(500), as: UTF8.self))")
            let text = String(decoding: answer.body, as: UTF8.self)
            return (text.components(separatedBy: "BEGIN:VEVENT").count - 1, counts.calls, counts.records)
        }
    }

    @Test("the whole calendar with calendar-data reads each event once, in as many store calls at 10 events as at 30")
    func wholeCalendar() throws {
        let small = try Served(events: 10).query(timeRange: nil)
        let large = try Served(events: 30).query(timeRange: nil)
        #expect(small.events == 10)
        #expect(large.events == 30)
        // 20 more events, 20 more records read (the rest is the calendar's own record).
        #expect(large.records - small.records == 20, "\(small.records) records read at 10 events, \(large.records) at 30")
        #expect(small.calls == large.calls, "\(small.calls) store calls at 10 events, \(large.calls) at 30")
    }

    @Test("a time-range query reads the events it matches, not the rest of the calendar")
    func timeRange() throws {
        let june = #"start="20260601T000000Z" end="20260701T000000Z""#
        let small = try Served(events: 10).query(timeRange: june)
        let large = try Served(events: 30).query(timeRange: june)
        #expect(small.events == 2)
        #expect(large.events == 2)
        #expect(small.records == large.records, "\(small.records) records read at 10 events, \(large.records) at 30")
        #expect(small.calls == large.calls, "\(small.calls) store calls at 10 events, \(large.calls) at 30")
    }
}
