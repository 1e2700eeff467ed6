import Testing
import Foundation
import CLibical
import CometSchema
import CometStore
import CometIntents

/// Every fixture of the corpus, against the decision written for it in MANIFEST.json and
/// docs/icalendar.md: how many events, which lines are refused, nothing written when refused.
@Suite("iCalendar corpus")
struct CorpusTests {
    static var files: [String] { Corpus.manifest.map(\.file) }

    @Test("the corpus covers every family with at least 60 fixtures")
    func corpusSize() {
        #expect(Corpus.manifest.count >= 60)
        let families = Set(Corpus.manifest.map(\.family))
        for family in ["time-zones", "structure", "values", "text-encoding", "broken", "recurrence", "alarms", "attendees", "overrides", "producer-extensions", "rfc5545"] {
            #expect(families.contains(family), "no fixture for \(family)")
        }
    }

    @Test("each fixture imports as its documented decision says", arguments: CorpusTests.files)
    func decision(file: String) throws {
        let entry = try #require(Corpus.manifest.first { $0.file == file })
        let session = try Corpus.Session()
        defer { session.close() }
        let before = try session.events()
        let report = try session.importFile(file, skipInvalid: entry.decision == "partial")
        let lines = Set(report.problems.map(\.line))
        switch entry.decision {
        case "refuse":
            #expect(!report.written, "\(file) must be refused")
            #expect(try session.events() == before, "a refused file writes nothing")
            for refusal in entry.refusals {
                #expect(lines.contains(refusal.line), "\(file): expected a problem on line \(refusal.line); got \(report.problems.map { "\($0.line): \($0.message)" })")
            }
        case "partial":
            #expect(report.written)
            #expect(report.added == entry.events, "\(file): \(report.added) events, expected \(entry.events)")
            for refusal in entry.refusals {
                #expect(lines.contains(refusal.line), "\(file): expected a problem on line \(refusal.line); got \(report.problems.map { "\($0.line): \($0.message)" })")
            }
            // Without --skip-invalid the same file writes nothing.
            let strict = try Corpus.Session()
            defer { strict.close() }
            let strictReport = try strict.importFile(file)
            #expect(!strictReport.written)
            #expect(try strict.events().isEmpty)
        default:
            #expect(report.written, "\(file): \(report.problems.map { "\($0.line): \($0.message)" })")
            #expect(report.problems.isEmpty)
            #expect(report.added == entry.events, "\(file): \(report.added) events, expected \(entry.events)")
            // What is stored is not a literal reading of the file: the import says what it changed.
            if entry.decision == "accept-normalized" {
                #expect(!report.warnings.isEmpty, "\(file) is normalized without a warning")
            }
        }
    }

    @Test("importing the same file twice changes nothing", arguments: CorpusTests.files.filter { name in
        Corpus.manifest.first { $0.file == name }.map { $0.decision.hasPrefix("accept") } ?? false
    })
    func idempotent(file: String) throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile(file)
        let first = try session.events()
        let again = try session.importFile(file)
        #expect(again.added == 0)
        #expect(again.updated == 0)
        #expect(try session.events() == first)
    }
}

/// Import → export → import gives the same events; export → export is byte-identical; exported
/// files are valid for libical and for an independent parser, and their occurrences agree with
/// an independent recurrence implementation.
@Suite("iCalendar round trip")
struct RoundTripTests {
    static var acceptedFiles: [String] {
        Corpus.manifest.filter { $0.decision.hasPrefix("accept") }.map(\.file)
    }

    @Test("import, export and import again give identical events, and exports are byte-identical", arguments: RoundTripTests.acceptedFiles)
    func roundTrip(file: String) throws {
        let first = try Corpus.Session()
        defer { first.close() }
        _ = try first.importFile(file)
        let exported = try first.engine.exportCalendar()
        #expect(try first.engine.exportCalendar() == exported, "two exports of the same data must be byte-identical")
        let second = try Corpus.Session()
        defer { second.close() }
        let report = second.importText(exported, name: "exported-\(file)")
        #expect(report.problems.isEmpty, "\(report.problems.map { "\($0.line): \($0.message)" })")
        let before = try first.events()
        let after = try second.events()
        #expect(after == before, "\(RoundTripTests.difference(before, after))")
        if try first.store.transaction({ try $0.count(QualifiedName(domain: "calendar", name: "Calendar")) }) <= 1 {
            #expect(try second.engine.exportCalendar() == exported, "export → import → export must give the same bytes")
        }
        // libical reads the export without a single X-LIC-ERROR, but for the properties RFC 5545
        // says to keep that libical 3.0 does not know (RFC 9253 LINK, REFID, CONCEPT).
        let tree = icalparser_parse_string(exported)
        #expect(tree != nil)
        if let tree {
            let errors = RoundTripTests.libicalErrors(tree).filter { error in
                !Corpus.beyondLibical.contains { error.hasSuffix("Parse error in property name: \($0)") } && !Corpus.valueTypesBeyondLibical.contains(error)
            }
            #expect(errors.isEmpty, "\(errors)")
            icalcomponent_free(tree)
        }
    }

    /// The X-LIC-ERROR texts anywhere in a parsed tree.
    static func libicalErrors(_ component: OpaquePointer) -> [String] {
        var result: [String] = []
        var property = icalcomponent_get_first_property(component, ICAL_XLICERROR_PROPERTY)
        while let current = property {
            result.append(icalproperty_get_xlicerror(current).map { String(cString: $0) } ?? "")
            property = icalcomponent_get_next_property(component, ICAL_XLICERROR_PROPERTY)
        }
        var child = icalcomponent_get_first_component(component, ICAL_ANY_COMPONENT)
        while let current = child {
            result += libicalErrors(current)
            child = icalcomponent_get_next_component(component, ICAL_ANY_COMPONENT)
        }
        return result
    }

    /// The first property that differs, for a readable failure.
    static func difference(_ before: [String: [String: Value]], _ after: [String: [String: Value]]) -> String {
        if Set(before.keys) != Set(after.keys) {
            return "events differ: only before \(Set(before.keys).subtracting(after.keys).sorted().prefix(3)), only after \(Set(after.keys).subtracting(before.keys).sorted().prefix(3))"
        }
        for key in before.keys.sorted() {
            let left = before[key] ?? [:]
            let right = after[key] ?? [:]
            for property in Set(left.keys).union(right.keys).sorted() where left[property] != right[property] {
                return "\(key).\(property): \(left[property].map { Corpus.registry.displayText($0) } ?? "nil") → \(right[property].map { Corpus.registry.displayText($0) } ?? "nil")"
            }
        }
        return ""
    }

    @Test("exports parse with python's icalendar and their occurrences match recurring_ical_events")
    func independentOracles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var ours: [String: Set<String>] = [:]
        var paths: [String] = []
        let from = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let to = Date(timeIntervalSince1970: 1_830_297_600)    // 2028-01-01
        for file in RoundTripTests.acceptedFiles {
            let session = try Corpus.Session()
            defer { session.close() }
            _ = try session.importFile(file)
            let text = try session.engine.exportCalendar()
            let path = directory.appendingPathComponent(file).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
            let entity = QualifiedName(domain: "calendar", name: "Event")
            let occurrences = try session.store.transaction {
                try $0.occurrences(entity, from: from, to: to, zone: TimeZone(identifier: "UTC")!, matching: [])
            }
            ours[path] = Set(occurrences.map { occurrence in
                let uid = occurrence.record["uid"].map { Corpus.registry.displayText($0) } ?? ""
                let allDay = occurrence.record["isAllDay"] == .bool(true)
                let start = allDay ? occurrence.start.localTime.date.description : LocalDateTime(wallSeconds: occurrence.start.sortKey).description + "Z"
                return uid + " " + start
            })
        }
        let request = directory.appendingPathComponent("request.json")
        let reply = directory.appendingPathComponent("reply.json")
        let body: [String: Any] = ["files": paths, "from": "2026-01-01", "to": "2028-01-01"]
        try JSONSerialization.data(withJSONObject: body).write(to: request)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Corpus.root.appendingPathComponent("Tests/Oracles/ical_oracle.py").path, request.path, reply.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "the iCalendar oracle failed (run scripts/bootstrap to install icalendar and recurring-ical-events): \(message)")
        struct Reply: Decodable {
            struct Result: Decodable {
                let file: String
                let error: String?
                let occurrences: [[String]]
            }
            let results: [Result]
        }
        let decoded = try JSONDecoder().decode(Reply.self, from: Data(contentsOf: reply))
        var compared = 0
        for result in decoded.results {
            let name = (result.file as NSString).lastPathComponent
            if Corpus.beyondOracle.contains(name) { continue }
            #expect(result.error == nil, "\(result.file): python icalendar could not read the export: \(result.error ?? "")")
            let theirs = Set(result.occurrences.map { pair in pair[0] + " " + (pair[1].hasSuffix("Z") ? pair[1].replacingOccurrences(of: "Z", with: "").replacingOccurrences(of: "T", with: "T") + "Z" : pair[1]) })
            let mine = ours[result.file] ?? []
            if Corpus.oracleInterpretations.contains(name) { continue }
            compared += theirs.count
            #expect(mine == theirs, "\((result.file as NSString).lastPathComponent): only CometCal \(mine.subtracting(theirs).sorted().prefix(4)); only recurring_ical_events \(theirs.subtracting(mine).sorted().prefix(4))")
        }
        #expect(compared > 500, "too few occurrences compared: \(compared)")
    }
}
