import Foundation
import Testing
@testable import CometSchema

/// Recurrence sets of several rules (issue #18): two RRULEs, sometimes an EXRULE (RFC 2445), and
/// EXDATEs, expanded by CometCal and by python-dateutil's `rruleset`.
@Suite("Recurrence sets agree with python-dateutil's rruleset")
struct RecurrenceSetDifferentialTests {
    static let caseCount = 400
    static let oracleScript = RecurrenceDifferentialTests.repositoryRoot.appendingPathComponent("Tests/Oracles/rruleset_oracle.py")

    struct SetCase {
        let id: Int
        let set: RecurrenceSet
        let texts: [String]
        /// The RRULEs as dateutil gets them: a COUNT lowered by one where the rule does not
        /// generate DTSTART (CometCal counts DTSTART as each rule's first occurrence, RFC 5545),
        /// and a rule of COUNT=1 that does not generate DTSTART left out (it yields only DTSTART).
        let oracleRules: [String]
        let oracleExclusionRules: [String]
    }

    /// Whether the rule itself generates DTSTART (not only RFC 5545's "DTSTART is the first").
    static func generatesStart(_ rule: RecurrenceRule, start: LocalDateTime) -> Bool {
        var cursor = RecurrenceCursor(plan: RecurrencePlan(rule: rule, start: start))
        return cursor.next() == CivilTime.seconds(of: start)
    }

    /// A rule for a shared DTSTART: daily or coarser, not all-day, and none of the parts whose
    /// oracle text depends on the generated rule's own DTSTART (BYWEEKNO alone, WEEKLY BYSETPOS).
    static func rule(_ random: inout SplitMix64, id: Int) -> DifferentialCase? {
        while true {
            guard let candidate = DifferentialCase.make(id: id, random: &random) else { continue }
            let text = candidate.ruleText
            if [.hourly, .minutely, .secondly].contains(candidate.rule.frequency) || candidate.isAllDay { continue }
            if text.contains("BYWEEKNO") || candidate.rule.frequency == .weekly && text.contains("BYSETPOS") { continue }
            return candidate
        }
    }

    static func make(id: Int, random: inout SplitMix64) -> SetCase? {
        guard let first = rule(&random, id: id), let second = rule(&random, id: id) else { return nil }
        guard first.rule != second.rule else { return nil }
        let start = first.start
        let exclusion = random.chance(0.5) ? rule(&random, id: id) : nil
        var set = RecurrenceSet(start: start, rule: first.rule, moreRules: [second.rule], exclusionRules: exclusion.map { [$0.rule] } ?? [])
        // EXDATEs: some of the set's own occurrences (DTSTART among them at times), and a time that is none.
        let own = set.occurrences(limit: 30)
        var exclusions: [LocalDateTime] = []
        for _ in 0..<random.int(0...3) where !own.isEmpty {
            let pick = random.pick(own)
            if !exclusions.contains(pick) { exclusions.append(pick) }
        }
        if random.chance(0.2) { exclusions.append(CivilTime.local(CivilTime.seconds(of: start) + 86_400 * random.int(1...400) + 1)) }
        set.exclusions = exclusions

        var oracleRules: [String] = []
        for item in [first, second] {
            guard case .count(let count) = item.rule.end, !generatesStart(item.rule, start: start) else {
                oracleRules.append(item.oracleRule)
                continue
            }
            if count > 1 { oracleRules.append(item.oracleRule.replacingOccurrences(of: "COUNT=\(count)", with: "COUNT=\(count - 1)")) }
        }
        return SetCase(id: id, set: set, texts: [first.ruleText, second.ruleText] + (exclusion.map { ["EXRULE:" + $0.ruleText] } ?? []),
                       oracleRules: oracleRules, oracleExclusionRules: exclusion.map { [$0.oracleRule] } ?? [])
    }

    struct Reply: Decodable {
        struct Result: Decodable {
            let id: Int
            let status: String
            let occurrences: [String]
            let error: String?
        }
        let dateutil: String
        let results: [Result]
    }

    static func askOracle(_ cases: [SetCase], maximum: Int) throws -> Reply? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-rruleset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.json")
        let output = directory.appendingPathComponent("out.json")
        let request: [String: Any] = ["cases": cases.map { item in
            ["id": item.id, "dtstart": item.set.start.icalText, "rrules": item.oracleRules, "exrules": item.oracleExclusionRules,
             "rdates": [item.set.start.icalText], "exdates": item.set.exclusions.map(\.icalText), "max": maximum, "budgetSeconds": 0.1] as [String: Any]
        }]
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", oracleScript.path, input.path, output.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            Issue.record("cannot start python3 for the dateutil oracle (\(error)); run scripts/bootstrap")
            return nil
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            Issue.record("the rruleset oracle failed with status \(process.terminationStatus) (run scripts/bootstrap to install python-dateutil): \(message)")
            return nil
        }
        return try JSONDecoder().decode(Reply.self, from: Data(contentsOf: output))
    }

    @Test("400 random sets of two RRULEs with EXDATEs, half with an EXRULE, expand exactly like dateutil's rruleset")
    func differential() throws {
        var random = SplitMix64(state: 0x5E7_0F_2_2026_0018)
        var cases: [SetCase] = []
        while cases.count < RecurrenceSetDifferentialTests.caseCount {
            if let next = RecurrenceSetDifferentialTests.make(id: cases.count, random: &random) { cases.append(next) }
        }
        let maximum = 40
        guard let reply = try RecurrenceSetDifferentialTests.askOracle(cases, maximum: maximum) else { return }
        let results = Dictionary(uniqueKeysWithValues: reply.results.map { ($0.id, $0) })
        var mismatches: [String] = []
        var compared = 0, occurrences = 0, withExclusionRule = 0, timeouts = 0
        for item in cases {
            let result = try #require(results[item.id])
            #expect(result.status != "error", "dateutil failed on \(item.texts): \(result.error ?? "")")
            var expected = result.occurrences
            var actual = item.set.occurrences(limit: maximum).map(\.icalText)
            if result.status == "timeout" {
                timeouts += 1
                // What dateutil produced before its budget ran out is a prefix of the set.
                actual = Array(actual.prefix(expected.count))
            } else if result.status == "max" {
                expected = Array(expected.prefix(maximum))
            }
            compared += 1
            occurrences += expected.count
            if !item.set.exclusionRules.isEmpty { withExclusionRule += 1 }
            if actual != expected {
                let index = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
                mismatches.append("DTSTART \(item.set.start.icalText) \(item.texts) EXDATE \(item.set.exclusions.map(\.icalText)): first difference at #\(index): CometCal \(actual.dropFirst(index).prefix(3)) vs dateutil \(expected.dropFirst(index).prefix(3)) [\(actual.count) vs \(expected.count)]")
            }
        }
        print("RecurrenceSetDifferentialTests: \(compared) sets (\(withExclusionRule) with an EXRULE) against dateutil \(reply.dateutil), \(occurrences) occurrences compared, \(timeouts) dateutil timeouts, \(mismatches.count) mismatches")
        #expect(occurrences > 5_000, "too few occurrences compared: \(occurrences)")
        #expect(mismatches.isEmpty, Comment(rawValue: "\(mismatches.count) mismatches:\n" + mismatches.prefix(10).joined(separator: "\n")))
    }

    @Test("each rule of a set counts DTSTART as its first occurrence; an EXRULE removes only what it generates")
    func countsAndExclusions() throws {
        let start = try #require(LocalDateTime(parsing: "2026-12-07T10:00:00"))  // a Monday
        // Tuesdays COUNT=2 from a Monday: the Monday DTSTART and one Tuesday; Fridays COUNT=2: the Monday and one Friday.
        let set = RecurrenceSet(start: start, rule: try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=TU;COUNT=2"),
                                moreRules: [try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=FR;COUNT=2")])
        #expect(set.occurrences().map(\.icalText) == ["20261207T100000", "20261208T100000", "20261211T100000"])
        #expect(set.lastOccurrence()?.icalText == "20261211T100000")
        #expect(!set.isUnbounded)
        // An EXRULE on Mondays with COUNT=1 removes DTSTART, which it generates; one on Sundays removes nothing here.
        var excluding = set
        excluding.exclusionRules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO;COUNT=1")]
        #expect(excluding.occurrences().map(\.icalText) == ["20261208T100000", "20261211T100000"])
        excluding.exclusionRules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=SU")]
        #expect(excluding.occurrences().map(\.icalText) == ["20261207T100000", "20261208T100000", "20261211T100000"])
        // A further rule without end makes the set unbounded.
        var unbounded = set
        unbounded.moreRules = [try RecurrenceRule(parsing: "FREQ=MONTHLY")]
        #expect(unbounded.isUnbounded)
        #expect(unbounded.lastOccurrence() == nil)
        let march = try #require(LocalDateTime(parsing: "2027-03-01T00:00:00"))
        #expect(unbounded.occurrences(from: march, limit: 2).map(\.icalText) == ["20270307T100000", "20270407T100000"])
    }
}
