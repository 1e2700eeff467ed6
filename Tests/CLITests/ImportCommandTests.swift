import Testing
import Foundation
import CometSchema

/// `cometcal import` and the event flags, where issue #7 found silent data loss: values out of
/// range, and --skip-invalid's exit status and silence about what it left out.
@Suite("cometcal import and out-of-range values")
struct ImportCommandTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    func fixture(_ name: String) -> String {
        CLIRunner.repositoryRoot.appendingPathComponent("Tests/Fixtures/ical/\(name)").path
    }

    @Test("a start millions of days away is an error naming the value, never 1970")
    func startOutOfRange() throws {
        _ = try CLIRunner.run(["calendar", "add", "Personal"], environment: environment)
        let result = try CLIRunner.run(["event", "add", "Far", "--start", "+3000000d"], environment: environment)
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("out of range"))
        #expect(result.stderr.contains("+3000000d"))
        let huge = try CLIRunner.run(["event", "add", "Far", "--start", "+99999999999999999999d"], environment: environment)
        #expect(huge.status == 64)
        let agenda = try CLIRunner.run(["search", "Far", "--json"], environment: environment)
        #expect(!agenda.stdout.contains("1970"))
    }

    @Test("--skip-invalid that imported the valid rest exits 0 and names each left-out component in text and JSON")
    func skipInvalidReport() throws {
        let text = try CLIRunner.run(["import", "--skip-invalid", fixture("values-out-of-range.ics")], environment: environment)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stderr.contains("values-out-of-range.ics:9: skipped:"))
        #expect(text.stderr.contains("[UID range-weeks@fixtures.cometcal.test]"))
        #expect(text.stderr.contains("[UID range-days@fixtures.cometcal.test]"))
        #expect(text.stdout.contains("2 added"))
        #expect(text.stdout.contains("left out"))
        let strict = try CLIRunner.run(["import", fixture("values-malformed-datetime.ics")], environment: environment)
        #expect(strict.status == 65)
        #expect(strict.stdout.contains("Nothing was imported"))
        let json = try CLIRunner.run(["import", "--skip-invalid", "--json", fixture("values-malformed-datetime.ics")], environment: environment)
        #expect(json.status == 0)
        let report = try JSONParser.parse(json.stdout)
        guard case .array(let leftOut)? = report["leftOut"] else {
            Issue.record("no leftOut in \(json.stdout)")
            return
        }
        #expect(leftOut.count == 5)
        #expect(leftOut.allSatisfy { $0["uid"] != nil && $0["line"] != nil && $0["reasons"] != nil && $0["file"] != nil })
        // The keys docs/json.md lists, in that order.
        guard case .object(let object) = report else { Issue.record("not an object"); return }
        #expect(object.keys == ["written", "journal", "added", "updated", "unchanged", "skipped", "invalid", "skippedMessages", "leftOut",
                                "ignoredComponents", "calendars", "warnings", "problems"])
    }

    @Test("warnings name their file and line, and --json carries them")
    func warningsReported() throws {
        let result = try CLIRunner.run(["import", fixture("enc-broken-folds.ics")], environment: environment)
        #expect(result.status == 0)
        #expect(result.stderr.contains("enc-broken-folds.ics:13: warning:"))
        let json = try CLIRunner.run(["import", "--json", fixture("structure-stray-after-end.ics")], environment: environment)
        let report = try JSONParser.parse(json.stdout)
        guard case .array(let warnings)? = report["warnings"] else {
            Issue.record("no warnings in \(json.stdout)")
            return
        }
        #expect(warnings.contains { $0["line"] == .int(20) })
    }

    @Test("export --event resolves a title by the same rule as every intent: exact title first, several are listed")
    func exportResolvesLikeIntents() throws {
        try run(["calendar", "add", "Work"])
        try run(["event", "add", "Team lunch", "--start", "2026-06-12 12:00"])
        try run(["event", "add", "Team lunch prep", "--start", "2026-06-12 11:00"])
        try run(["event", "add", "Crew lunch", "--start", "2026-06-13 12:00"])
        let exact = try run(["export", "--event", "team lunch"])
        #expect(exact.stdout.contains("SUMMARY:Team lunch\r\n") && !exact.stdout.contains("Team lunch prep"))
        let several = try run(["export", "--event", "lunch"], expect: 65)
        #expect(several.stderr.contains("Which event did you mean:"))
        #expect(several.stderr.contains("Team lunch prep") && several.stderr.contains("Crew lunch"))
        let update = try run(["event", "update", "lunch", "--title", "x"], expect: 65)
        #expect(update.stdout.contains("Crew lunch") || update.stderr.contains("Crew lunch"))
        let missing = try run(["export", "--event", "Team lnch"], expect: 66)
        #expect(missing.stderr.contains("no event matches 'Team lnch'"))
    }
}

/// A fresh store just works (issue #8, "first run"): the first event makes the default calendar,
/// says so, and undo takes both back.
@Suite("First run")
struct FirstRunTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    @Test("event add on an empty store creates the default calendar and says so; undo removes both")
    func firstEventMakesCalendar() throws {
        let added = try run(["event", "add", "Zero Gravity Yoga", "--start", "2026-06-15 08:00"])
        #expect(added.stdout.contains("There was no calendar yet, so I created one called “Calendar”, the default."))
        let calendars = try json(["calendar", "list"])
        guard case .array(let entities)? = calendars["entities"] else { Issue.record("no entities: \(calendars)"); return }
        #expect(entities.count == 1)
        #expect(entities.first?["title"] == .string("Calendar") && entities.first?["isDefault"] == .bool(true))
        let undone = try run(["undo"])
        #expect(!undone.stdout.contains("There was no calendar"))
        let after = try json(["calendar", "list"])
        #expect(after["entities"] == .array([]))
    }

    @Test("intent run createEvent on an empty store works the same way")
    func intentRunFirst() throws {
        let result = try json(["intent", "run", "createEvent", "title=Moon", "startDate=2026-06-16T08:00:00Z"])
        #expect(result["outcome"] == .string("done"))
        #expect(try run(["calendar", "list"]).stdout.contains("Calendar"))
    }
}

/// Calendar titles are unique within a store (issue #11, item 1): `@unique` in the schema, held
/// by the engine, so every front end refuses a duplicate the same way.
@Suite("Unique calendar titles")
struct UniqueTitleTests: CLISuite {
    /// Removed when the test is done.
    let scratch: ScratchDirectory
    let environment: [String: String]
    var directory: URL { scratch.url }

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    @Test("a second calendar with the same title, in any case or with other accents, is refused; the list shows ids and the default")
    func duplicateRefused() throws {
        try run(["calendar", "add", "Café"])
        let again = try run(["calendar", "add", "cafe"], expect: 65)
        #expect(again.stderr.contains("there is already a calendar called “Café”"))
        try run(["calendar", "add", "Work"])
        let rename = try run(["calendar", "update", "Work", "--title", "CAFÉ"], expect: 65)
        #expect(rename.stderr.contains("already a calendar"))
        let list = try run(["calendar", "list"])
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("Café") && lines[0].hasSuffix("default"))
        #expect(lines[1].hasPrefix("Work") && !lines[1].hasSuffix("default"))
        #expect(lines.allSatisfy { $0.range(of: #"[0-9a-f]{8}-[0-9a-f]{4}-"#, options: .regularExpression) != nil })
        let json = try self.json(["intent", "run", "createCalendar", "title=CAFE"], expect: 65)
        #expect(json["error"]?["code"] == .string("duplicate"))
    }
}
