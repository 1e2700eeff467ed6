import Foundation
import CometSchema
import CometSQLiteStore
import CometIntents
import CometDaemon
import CometHTTP
import CometCalDAV
import CometText

/// CometCal's CalDAV server beside Radicale and Xandikos (issue 22, "Speed"): the same calendar
/// of N one-hour events on each, the same requests from one client over HTTP on loopback, one
/// server after the other in every round. CometCal's server is the daemon's, in this process:
/// `Daemon` on the store with `CalDAVService` behind `HTTPServer`, wired as cometcald wires its
/// owner's calendars.
enum CalDAVScenarios {
    static let all: [Scenario] = [caldav]

    /// The issue's target: at least this many times faster than the faster peer, on each request.
    static let targetSpeedup = 10.0

    static let caldav = Scenario.timingItself(
        name: "caldav",
        summary: "CalDAV beside Radicale and Xandikos: PUT of a new event, a month's calendar-query with calendar-data, the whole calendar with data (1 client over HTTP)",
        referenceName: nil, targetP50: nil,
        body: { run, _, scenario in
            let versions = run.options.caldavWithoutPeers ? [:] : try CalDAVPeer.installedVersions()
            for kind in CalDAVPeer.Kind.allCases where !versions.isEmpty && versions[kind] != kind.pinnedVersion {
                run.progress("caldav: \(kind.rawValue) \(versions[kind] ?? "?") is installed, not \(kind.pinnedVersion) as scripts/bootstrap pins; measuring it anyway")
            }
            var sizes: [CalDAVSizeFigures] = []
            for events in run.options.caldavSizes {
                sizes.append(try CalDAVBench(events: events, versions: versions, run: run).measure())
            }
            let figures = CalDAVFigures(sizes: sizes)
            guard let last = sizes.last, let put = last.row(.put) else { throw BenchError("caldav measured nothing") }
            var result = ScenarioResult(scenario: scenario, measurement: put.measurements[0], reference: nil, referenceMeasurement: nil)
            result.caldav = figures
            result.checks = figures.checks
            return result
        })
}

/// The requests measured, the same bytes to each server but for its calendar's path.
enum CalDAVRequestKind: String, CaseIterable {
    case put = "PUT of a new one-hour event"
    case month = "one month, calendar-query with calendar-data"
    case full = "the whole calendar with data"

    var key: String {
        switch self {
        case .put: return "put"
        case .month: return "month"
        case .full: return "full"
        }
    }
}

/// One size's figures: for each request, each server's timings (CometCal first) and how many
/// events each answer held.
struct CalDAVSizeFigures {
    struct Row {
        let kind: CalDAVRequestKind
        /// In the order of `servers`.
        var measurements: [Measurement]
        /// Events in each answer (calendar-data's VEVENTs), per server; empty for PUT.
        var returned: [[Int]]
    }

    let events: Int
    let month: String
    let servers: [String]
    var rows: [Row] = []
    /// The first whole-calendar REPORT on each server after it started (the count check),
    /// which is where a server builds its caches.
    var firstFullMilliseconds: [Double] = []
    /// Connections each server's client made: one where the server keeps them.
    var connections: [Int] = []

    func row(_ kind: CalDAVRequestKind) -> Row? { rows.first { $0.kind == kind } }

    /// The peer (not CometCal) with the lower p50 of a row, and that p50.
    func fasterPeer(_ row: Row) -> (name: String, p50: Double)? {
        (1..<servers.count).map { (servers[$0], row.measurements[$0].summary.p50) }.min { $0.1 < $1.1 }
    }

    /// Whether every server's every answer held the same number of events.
    func countsAgree(_ row: Row) -> Bool { Set(row.returned.flatMap { $0 }).count <= 1 }
}

struct CalDAVFigures {
    let sizes: [CalDAVSizeFigures]

    var checks: [TargetCheck] {
        sizes.flatMap { size in
            size.rows.compactMap { row -> TargetCheck? in
                guard let peer = size.fasterPeer(row) else { return nil }
                var check = TargetCheck(figure: "caldav \(row.kind.key), \(ICalScenarios.thousands(size.events)) events, CometCal p50",
                                        value: row.measurements[0].summary.p50, unit: .milliseconds, reference: (peer.p50, peer.name),
                                        target: .fasterThanReference(CalDAVScenarios.targetSpeedup))
                if !size.countsAgree(row) {
                    check.note = "the servers' answers held different numbers of events: "
                        + zip(size.servers, row.returned).map { "\($0) \(Set($1).sorted().map(String.init).joined(separator: "/"))" }.joined(separator: ", ")
                }
                return check
            }
        }
    }
}

/// One size: the calendar written to the three servers, each started, checked and measured.
final class CalDAVBench {
    let events: Int
    let versions: [CalDAVPeer.Kind: String]
    let run: BenchRun
    private let folder: String
    private var random: SplitMix64

    /// The month the month REPORT asks for: that of the bench's clock (2026-06-10).
    static let month = (start: "20260601T000000Z", end: "20260701T000000Z", name: "2026-06")

    private static let titles = ["Standup", "Design review", "Lunch with Ana", "1:1 with Ken", "Dentist", "Sprint planning", "Gym",
                                 "Call the bank", "Team retro", "Coffee with Linus", "Budget meeting", "Piano lesson"]

    init(events: Int, versions: [CalDAVPeer.Kind: String], run: BenchRun) {
        self.events = events
        self.versions = versions
        self.run = run
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("cometcal-bench-caldav-\(getpid())-\(events)")
        random = SplitMix64(seed: run.options.seed, stream: "caldav")
    }

    /// One event's text as each server stores it: a VCALENDAR with one VEVENT, in UTC.
    static func eventText(uid: String, start: Int64, title: String, description: String?) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal//cometcal-bench//EN", "BEGIN:VEVENT", "UID:\(uid)",
                     "DTSTAMP:20260101T000000Z", "DTSTART:\(utc(start))", "DTEND:\(utc(start + 3_600))", "SUMMARY:\(title)"]
        if let description { lines.append("DESCRIPTION:\(description)") }
        lines += ["END:VEVENT", "END:VCALENDAR"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func utc(_ seconds: Int64) -> String {
        let date = LocalDateTime(wallSeconds: seconds)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", date.date.year, date.date.month, date.date.day,
                      Int(seconds % 86_400 / 3_600), Int(seconds % 3_600 / 60), Int(seconds % 60))
    }

    /// An event on a day of 2026 (the year of the bench's fixed clock), or of 2027 for the PUTs
    /// (outside every query's month), starting at 07:00–18:30 UTC; half have a description.
    private func nextEvent(uid: String, year2027: Bool = false) -> String {
        // 2026-01-01 is day 20,454 since 1970.
        let day = Int64(year2027 ? 20_819 : 20_454) + Int64(random.int(0...364))
        let start = day * 86_400 + Int64(7 * 3_600 + random.int(0...23) * 1_800)
        let description: String? = random.chance(0.5) ? "Notes for \(uid): agenda, people and the room." : nil
        return Self.eventText(uid: uid, start: start, title: random.pick(Self.titles), description: description)
    }

    func measure() throws -> CalDAVSizeFigures {
        let progress = run.progress
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        progress("caldav: \(ICalScenarios.thousands(events)) one-hour events in one calendar")
        let items: [(name: String, text: [UInt8])] = (0..<events).map { index in
            let uid = String(format: "caldav-bench-%06d", index)
            return (uid + ".ics", Array(nextEvent(uid: uid).utf8))
        }

        // CometCal: the events imported into one calendar of a new store, then the daemon on it.
        let storePath = (folder as NSString).appendingPathComponent("cometcal.sqlite")
        let (segment, importSeconds) = try importIntoStore(storePath, items: items)
        progress(String(format: "caldav: CometCal imported them in %.1f s", importSeconds))
        let (daemon, _, removeDaemonFolder) = try DaemonBench.startDaemon(storePath: storePath, now: run.frame.now, run: run)
        defer {
            daemon.stop(reason: "the benchmark is done")
            removeDaemonFolder()
        }
        let service = CalDAVService(configuration: CalDAVService.Configuration(
            serve: { user, writes, body in user == "bench" ? try daemon.service.withEngine(writes: writes, body) : nil }, anonymousUser: "bench"))
        let http: HTTPServer
        do {
            http = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .none(flag: "cometcal-bench"), handler: { service.handle($0) })
        } catch {
            throw BenchError("cannot start CometCal's CalDAV server: \(error)")
        }
        defer { http.stop() }

        // The peers, over the same items.
        var peers: [CalDAVPeer] = []
        defer { for peer in peers { peer.stop() } }
        for kind in CalDAVPeer.Kind.allCases where !run.options.caldavWithoutPeers {
            progress("caldav: starting \(kind.rawValue) over \(ICalScenarios.thousands(events)) items written to its storage")
            peers.append(try CalDAVPeer(kind: kind, version: versions[kind] ?? "?", folder: (folder as NSString).appendingPathComponent(kind.module),
                                        items: items, progress: progress))
        }

        struct Server {
            let name: String
            let client: BenchHTTPClient
            let path: String
            /// The end of the server's log, for an error.
            let log: () -> String
        }
        let servers = [Server(name: "CometCal", client: BenchHTTPClient(port: http.port), path: "/dav/calendars/bench/\(segment)/", log: { "" })]
            + peers.map { peer in Server(name: peer.name, client: BenchHTTPClient(port: peer.port, user: peer.user), path: peer.collectionPath, log: { peer.logTail }) }
        var figures = CalDAVSizeFigures(events: events, month: Self.month.name, servers: servers.map(\.name))

        let fullBody = Array(Self.query(range: nil).utf8)
        let monthBody = Array(Self.query(range: (Self.month.start, Self.month.end)).utf8)
        let reportHeaders = [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")]
        /// One REPORT: its time and the events its answer held.
        func report(_ server: Server, _ body: [UInt8]) throws -> (Timing, Int) {
            let (answer, timing) = try Stopwatch.time { try server.client.send("REPORT", server.path, headers: reportHeaders, body: body) }
            guard answer.status == 207 else {
                throw BenchError("\(server.name) answered the REPORT with \(answer.status): \(answer.text.prefix(500)) \(server.log())")
            }
            return (timing, Self.count("BEGIN:VEVENT", in: answer.body))
        }

        // Each server serves the N events: the check, and each server's first whole calendar.
        for (index, server) in servers.enumerated() {
            progress("caldav: \(server.name): the whole calendar, first time")
            let (timing, count) = try report(server, fullBody)
            figures.firstFullMilliseconds.append(Double(timing.wall) / 1e6)
            guard count == events else {
                throw BenchError("\(server.name) serves \(count) events, not the \(events) written to it" + (index > 0 ? ": \(peers[index - 1].logTail)" : ""))
            }
        }

        let heavy = events > 5_000
        let plans: [(CalDAVRequestKind, Int)] = [(.month, heavy ? 5 : 20), (.full, heavy ? 3 : 10), (.put, heavy ? 20 : 50)]
        var putIndex = 0
        for (kind, planned) in plans {
            let samples = min(planned, run.options.samples)
            let warmUp = kind == .put ? 2 : 1
            progress("caldav: \(kind.rawValue): \(warmUp) warm-up + \(samples) rounds, the three servers in turn")
            var row = CalDAVSizeFigures.Row(kind: kind, measurements: Array(repeating: Measurement(), count: servers.count),
                                            returned: Array(repeating: [], count: servers.count))
            for round in 0..<(warmUp + samples) {
                // Who goes first changes each round: none always follows the same server.
                for offset in 0..<servers.count {
                    let index = (round + offset) % servers.count
                    let server = servers[index]
                    var timing: Timing
                    let cpuBefore = Stopwatch.processCPUNow()
                    var count: Int?
                    switch kind {
                    case .put:
                        putIndex += 1
                        let uid = String(format: "caldav-put-%06d", putIndex)
                        let body = Array(nextEvent(uid: uid, year2027: true).utf8)
                        let (answer, took) = try Stopwatch.time {
                            try server.client.send("PUT", server.path + uid + ".ics", headers: [("Content-Type", "text/calendar; charset=utf-8"), ("If-None-Match", "*")], body: body)
                        }
                        guard answer.status == 201 || answer.status == 204 else {
                            throw BenchError("\(server.name) answered a PUT with \(answer.status): \(answer.text.prefix(500)) \(server.log())")
                        }
                        timing = took
                    case .month:
                        (timing, count) = try report(server, monthBody)
                    case .full:
                        (timing, count) = try report(server, fullBody)
                    }
                    // This process's CPU in the request: CometCal's server and the client (for a
                    // peer, the client alone).
                    timing = Timing(wall: timing.wall, cpu: Stopwatch.processCPUNow() - cpuBefore)
                    guard round >= warmUp else { continue }
                    row.measurements[index].add(timing, rows: count ?? 1)
                    if let count { row.returned[index].append(count) }
                }
            }
            figures.rows.append(row)
        }
        figures.connections = servers.map(\.client.connectionsMade)
        return figures
    }

    /// Imports the items into a calendar of a new store, as one file; the calendar's URL segment.
    private func importIntoStore(_ path: String, items: [(name: String, text: [UInt8])]) throws -> (String, Double) {
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//CometCal//cometcal-bench//EN\r\n"
        for item in items {
            let whole = String(decoding: item.text, as: UTF8.self)
            guard let begin = whole.range(of: "BEGIN:VEVENT"), let end = whole.range(of: "END:VEVENT\r\n") else { continue }
            text += whole[begin.lowerBound..<end.upperBound]
        }
        text += "END:VCALENDAR\r\n"
        let store = try SQLiteStore(path: path, registry: run.registry, now: run.frame.now)
        let now = run.frame.now
        let engine = IntentEngine(store: store, timeZone: run.frame.zone, clock: { now })
        let started = Stopwatch.now()
        let report = engine.importCalendars([ImportSource(name: "caldav-bench.ics", text: text, registry: run.registry)], options: ImportOptions(calendar: "Bench"))
        let seconds = Double(Stopwatch.now() - started) / 1e9
        guard report.written, report.problems.isEmpty else {
            throw BenchError("CometCal did not import the calendar: \(report.problems.prefix(3).map(\.message).joined(separator: "; "))")
        }
        guard let calendar = try engine.calendarCollections().first(where: { $0.title == "Bench" }),
              let segment = try engine.collectionSegments()[calendar.id] else {
            throw BenchError("the imported calendar Bench is not a collection")
        }
        return (segment, seconds)
    }

    /// A calendar-query for VEVENTs with their ETag and calendar-data, over a time range or not.
    static func query(range: (start: String, end: String)?) -> String {
        let inner = range.map { #"<C:comp-filter name="VEVENT"><C:time-range start="\#($0.start)" end="\#($0.end)"/></C:comp-filter>"# }
            ?? #"<C:comp-filter name="VEVENT"/>"#
        return #"<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">"#
            + #"<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name="VCALENDAR">"# + inner
            + "</C:comp-filter></C:filter></C:calendar-query>"
    }

    static func count(_ needle: String, in bytes: [UInt8]) -> Int {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first, bytes.count >= pattern.count else { return 0 }
        var found = 0
        var index = 0
        let last = bytes.count - pattern.count
        while index <= last {
            if bytes[index] == first {
                var matches = true
                for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                    matches = false
                    break
                }
                if matches {
                    found += 1
                    index += pattern.count
                    continue
                }
            }
            index += 1
        }
        return found
    }
}
