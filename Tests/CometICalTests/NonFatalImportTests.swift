import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents
import CometICal

/// Issue #18, "Refusals RFC 5545 does not require": what real producers write that RFC 5545
/// does not make fatal. Each test checks the import report (written, added, the warning at its
/// line), the stored event and the export.
@Suite("iCalendar: what RFC 5545 does not make fatal is kept, with a warning at its line")
struct NonFatalImportTests {
    let event = QualifiedName(domain: "calendar", name: "Event")

    private func record(_ session: Corpus.Session, uid: String) throws -> EntityRecord {
        let all = try session.store.transaction { try $0.fetchAll(event, matching: [.equals("uid", .string(uid))], limit: nil) }
        return try #require(all.first { $0["recurrenceId"] == nil }, "no event \(uid)")
    }

    private func warning(_ report: ImportReport, at line: Int) -> String? {
        report.warnings.first { $0.line == line }?.message
    }

    /// The export unfolded, one content line per element.
    private func exportedLines(_ session: Corpus.Session) throws -> [String] {
        try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
    }

    /// Occurrence starts of `uid` in [from, to), as UTC wall times.
    private func starts(_ session: Corpus.Session, uid: String, from: String, to: String) throws -> [String] {
        let parse = { (text: String) throws -> Date in
            let local = try #require(LocalDateTime(parsing: text + "T00:00:00"))
            return Date(timeIntervalSince1970: TimeInterval(local.dateTime(in: TimeZone(identifier: "UTC")).sortKey))
        }
        let occurrences = try session.store.transaction {
            try $0.occurrences(event, from: try parse(from), to: try parse(to), zone: TimeZone(identifier: "UTC")!, matching: [])
        }
        return occurrences.filter { $0.record["uid"] == .string(uid) }
            .map { LocalDateTime(wallSeconds: $0.start.sortKey).description }.sorted()
    }

    @Test("A VALARM whose TRIGGER libical cannot read (PT-2H) is left out with a warning at its line; the event and its other alarm are kept")
    func unreadableTrigger() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("alarms-unreadable-trigger.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 1)
        let message = try #require(warning(report, at: 14))
        #expect(message.contains("'PT-2H'") && message.contains("lines 11–15"))
        let stored = try record(session, uid: "unreadable-trigger@fixtures.cometcal.test")
        let minus15 = try #require(DurationValue(parsing: "-PT15M"))
        #expect(stored["alarms"] == .array([.union("relative", .duration(minus15))]))
        let lines = try exportedLines(session)
        #expect(lines.contains("TRIGGER:-PT15M"))
        #expect(!lines.contains { $0.contains("PT-2H") || $0.contains("in two hours") })
    }

    @Test("An x-property whose value is not the type CometCal reads it as (Teams' join link REDACTED) is kept as written")
    func redactedTeamsLink() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("outlook-teams-redacted-join-url.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 1)
        let message = try #require(warning(report, at: 41))
        #expect(message.contains("'REDACTED' is not a URL") && message.contains("kept as written"))
        let stored = try record(session, uid: "040000008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A601000000000000000010000000F1E2D3C4B5A69788")
        #expect(stored["virtualLocation"] == nil)
        #expect(stored["title"] == .string("Quarterly review"))
        let lines = try exportedLines(session)
        #expect(lines.contains("X-MICROSOFT-SKYPETEAMSMEETINGURL:REDACTED"))
        #expect(!lines.contains { $0.hasPrefix("CONFERENCE") })
    }

    @Test("A GEO with no position (GEO:; and GEO:\\;) is left out with a warning at its line; the event is kept")
    func emptyGeo() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("values-geo-empty.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 2)
        #expect(warning(report, at: 12)?.contains("GEO ';'") == true)
        #expect(warning(report, at: 20)?.contains("GEO '\\;'") == true)
        #expect(try record(session, uid: "geo-empty@fixtures.cometcal.test")["location"] == .union("text", .string("Café Lindner")))
        #expect(try record(session, uid: "geo-escaped@fixtures.cometcal.test")["location"] == nil)
        #expect(!(try exportedLines(session)).contains { $0.hasPrefix("GEO") })
    }

    @Test("A GEO whose numbers are not a position (north;east, a latitude of 91) no longer refuses its event")
    func badGeoNumbers() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText("""
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:geo-91@test\r\nDTSTART:20261201T100000Z\r\nSUMMARY:Pole\r\nGEO:91;10\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """, name: "inline.ics")
        #expect(report.written)
        #expect(report.added == 1)
        #expect(warning(report, at: 7)?.contains("GEO '91;10'") == true)
        #expect(try record(session, uid: "geo-91@test")["location"] == nil)
    }

    @Test("LOCATION and RELATED-TO with VALUE=URI (RFC 9253) are kept as written and written back, each with a warning")
    func uriLocationAndRelatedTo() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("values-uri-location-related-to.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 1)
        #expect(warning(report, at: 11)?.contains("LOCATION;VALUE=URI") == true)
        #expect(warning(report, at: 12)?.contains("RELATED-TO;VALUE=URI") == true)
        let stored = try record(session, uid: "uri-location@fixtures.cometcal.test")
        #expect(stored["location"] == nil)
        #expect(stored["relatedTo"] == nil)
        let lines = try exportedLines(session)
        #expect(lines.contains("LOCATION;VALUE=URI:https://rooms.example.org/berlin/3-14"))
        #expect(lines.contains("RELATED-TO;VALUE=URI:https://tracker.example.org/issues/4711"))
    }

    @Test("Several RRULEs are a series of all their occurrences: the agenda expands them and export writes each rule back")
    func severalRules() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("rrule-multiple-rrules.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 2)
        #expect(warning(report, at: 19)?.contains("second RRULE, different from the one on line 18") == true)

        let twoRules = try record(session, uid: "two-rules@fixtures.cometcal.test")
        #expect(twoRules["recurrence"] == .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=MO")))
        #expect(twoRules["moreRules"] == .array([.recurrence(try RecurrenceRule(parsing: "FREQ=MONTHLY;BYMONTHDAY=1"))]))
        #expect(try starts(session, uid: "two-rules@fixtures.cometcal.test", from: "2026-12-01", to: "2027-02-03") == [
            "2026-12-07T10:00:00", "2026-12-14T10:00:00", "2026-12-21T10:00:00", "2026-12-28T10:00:00", "2027-01-01T10:00:00",
            "2027-01-04T10:00:00", "2027-01-11T10:00:00", "2027-01-18T10:00:00", "2027-01-25T10:00:00", "2027-02-01T10:00:00",
        ])
        let lines = try exportedLines(session)
        #expect(lines.contains("RRULE:FREQ=WEEKLY;BYDAY=MO"))
        #expect(lines.contains("RRULE:FREQ=MONTHLY;BYMONTHDAY=1"))
    }

    @Test("An EXRULE removes the occurrences it generates: the agenda leaves them out and export writes it back")
    func exclusionRule() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("rrule-exrule.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 1)
        #expect(warning(report, at: 11)?.contains("EXRULE") == true)
        let stored = try record(session, uid: "exrule@fixtures.cometcal.test")
        #expect(stored["exclusionRules"] == .array([.recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=SA,SU"))]))
        // Weekdays only: the EXRULE takes out every Saturday and Sunday.
        #expect(try starts(session, uid: "exrule@fixtures.cometcal.test", from: "2026-12-07", to: "2026-12-21") == [
            "2026-12-07T10:00:00", "2026-12-08T10:00:00", "2026-12-09T10:00:00", "2026-12-10T10:00:00", "2026-12-11T10:00:00",
            "2026-12-14T10:00:00", "2026-12-15T10:00:00", "2026-12-16T10:00:00", "2026-12-17T10:00:00", "2026-12-18T10:00:00",
        ])
        let lines = try exportedLines(session)
        #expect(lines.contains("RRULE:FREQ=DAILY"))
        #expect(lines.contains("EXRULE:FREQ=WEEKLY;BYDAY=SA,SU"))

        // An EXRULE is held to the bounds of an RRULE: no end and more than 100 a day is refused at its line.
        let flood = session.importText("""
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:flood@test\r\nDTSTART:20261201T100000Z\r\nRRULE:FREQ=DAILY\r\nEXRULE:FREQ=SECONDLY\r\nSUMMARY:Flood\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """, name: "flood.ics")
        #expect(!flood.written)
        #expect(flood.problems.map(\.line) == [7])
        #expect(flood.problems.first?.message.contains("FREQ=SECONDLY") == true)
    }

    @Test("A rule set or cleared by the user replaces every rule of a series that had several")
    func userRuleReplacesTheSet() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("rrule-multiple-rrules.ics")
        _ = try session.importFile("rrule-exrule.ics")
        let series = try record(session, uid: "two-rules@fixtures.cometcal.test")
        let outcome = session.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(series.id)),
            "recurrence": .set(.recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=TU"))),
            "span": .set(.enumCase("all")),
        ]), confirmation: .confirmed))
        guard case .done = outcome else { Issue.record("the update did not happen: \(outcome)"); return }
        let stored = try record(session, uid: "two-rules@fixtures.cometcal.test")
        #expect(stored["moreRules"] == .array([]))
        #expect(try starts(session, uid: "two-rules@fixtures.cometcal.test", from: "2026-12-08", to: "2027-01-06") == [
            "2026-12-08T10:00:00", "2026-12-15T10:00:00", "2026-12-22T10:00:00", "2026-12-29T10:00:00", "2027-01-05T10:00:00",
        ])

        // "Do not repeat" on a series with an EXRULE: a single event, its EXRULE gone with its rule.
        let weekdays = try record(session, uid: "exrule@fixtures.cometcal.test")
        #expect(weekdays["exclusionRules"] != .array([]))
        let cleared = session.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(weekdays.id)), "recurrence": .cleared, "span": .set(.enumCase("all")),
        ]), confirmation: .confirmed))
        guard case .done = cleared else { Issue.record("the update did not happen: \(cleared)"); return }
        #expect(try record(session, uid: "exrule@fixtures.cometcal.test")["exclusionRules"] == .array([]))
        #expect(try starts(session, uid: "exrule@fixtures.cometcal.test", from: "2026-12-01", to: "2027-01-01") == ["2026-12-07T10:00:00"])
    }

    @Test("A this-and-future edit of a series with several RRULEs keeps its occurrences: the old series stops before the cut under every rule")
    func splitSeveralRules() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("rrule-multiple-rrules.ics")
        let before = try starts(session, uid: "two-rules@fixtures.cometcal.test", from: "2026-12-01", to: "2027-04-03")
        let series = try record(session, uid: "two-rules@fixtures.cometcal.test")
        let cut = DateTimeValue(kind: .utc(epochSeconds: try #require(LocalDateTime(parsing: "2027-01-04T10:00:00")).dateTime(in: TimeZone(identifier: "UTC")).sortKey))
        let outcome = session.engine.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings([
            "event": .set(.reference(series.id)),
            "note": .set(.string("From January on")),
            "span": .set(.enumCase("future")),
            "occurrence": .set(.dateTime(cut)),
        ]), confirmation: .confirmed))
        guard case .done = outcome else { Issue.record("the update did not happen: \(outcome)"); return }
        let old = try starts(session, uid: "two-rules@fixtures.cometcal.test", from: "2026-12-01", to: "2027-04-03")
        #expect(old == before.filter { $0 < "2027-01-04" })
        let all = try session.store.transaction { try $0.fetchAll(event, matching: [.equals("relatedTo", .string("two-rules@fixtures.cometcal.test"))], limit: nil) }
        let newSeries = try #require(all.first)
        guard case .string(let newUID)? = newSeries["uid"] else { Issue.record("no UID"); return }
        #expect(newSeries["moreRules"] == .array([.recurrence(try RecurrenceRule(parsing: "FREQ=MONTHLY;BYMONTHDAY=1"))]))
        #expect(try starts(session, uid: newUID, from: "2026-12-01", to: "2027-04-03") == before.filter { $0 >= "2027-01-04" })
    }

    @Test("RSCALE=GREGORIAN (RFC 7529) is accepted and written back; another RSCALE is refused with its reason")
    func gregorianScale() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("rrule-rscale-gregorian.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 2)
        let leapDay = try record(session, uid: "rscale-leap-day@fixtures.cometcal.test")
        guard case .recurrence(let rule)? = leapDay["recurrence"] else { Issue.record("no rule"); return }
        #expect(rule.calendarScale == "GREGORIAN")
        #expect(rule.skip == "OMIT")
        #expect(try starts(session, uid: "rscale-leap-day@fixtures.cometcal.test", from: "2028-01-01", to: "2040-01-01") == [
            "2028-02-29T00:00:00", "2032-02-29T00:00:00", "2036-02-29T00:00:00",
        ])
        #expect(try starts(session, uid: "rscale-monthly@fixtures.cometcal.test", from: "2026-12-01", to: "2027-06-01") == [
            "2026-12-01T09:00:00", "2027-01-01T09:00:00", "2027-02-01T09:00:00",
        ])
        let lines = try exportedLines(session)
        #expect(lines.contains("RRULE:FREQ=YEARLY;COUNT=3;BYMONTHDAY=29;BYMONTH=2;RSCALE=GREGORIAN;SKIP=OMIT"))
        #expect(lines.contains("RRULE:FREQ=MONTHLY;COUNT=3;RSCALE=GREGORIAN"))

        let hebrew = session.importText("""
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:hebrew@test\r\nDTSTART;VALUE=DATE:20261001\r\nRRULE:RSCALE=HEBREW;FREQ=YEARLY\r\nSUMMARY:Yahrzeit\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """, name: "hebrew.ics")
        #expect(!hebrew.written)
        #expect(hebrew.problems.map(\.line) == [6])
        #expect(hebrew.problems.first?.message.contains("RSCALE=HEBREW") == true)
        let backward = session.importText("""
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:backward@test\r\nDTSTART;VALUE=DATE:20260131\r\nRRULE:RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=BACKWARD\r\nSUMMARY:Month end\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """, name: "backward.ics")
        #expect(!backward.written)
        #expect(backward.problems.map(\.line) == [6])
        #expect(backward.problems.first?.message.contains("SKIP=BACKWARD") == true)
    }

    @Test("DTEND and DURATION that disagree keep DTEND, with a warning at the DURATION line giving both ends")
    func endAndDurationDisagree() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("values-dtend-and-duration-conflict.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 2)
        let message = try #require(warning(report, at: 17))
        #expect(message.contains("disagree") && message.contains("DTEND is kept"))
        let stored = try record(session, uid: "both-conflict@fixtures.cometcal.test")
        guard case .dateTime(let end)? = stored["endDate"] else { Issue.record("no end"); return }
        #expect(LocalDateTime(wallSeconds: end.sortKey).description == "2026-04-16T11:00:00")
        let lines = try exportedLines(session)
        #expect(lines.contains("DTEND:20260416T110000Z"))
        #expect(!lines.contains { $0.hasPrefix("DURATION") })
    }

    @Test("A UID used again by a different event, neither newer: the first is kept, the second skipped with a warning naming both lines, the rest imported")
    func duplicateUIDKeepsTheFirst() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("structure-duplicate-uid-conflict.ics")
        #expect(report.written)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.added == 2)
        let message = try #require(warning(report, at: 13))
        #expect(message.contains("line 6") && message.contains("line 13") && message.contains("skipped"))
        #expect(try record(session, uid: "dup-1@fixtures.cometcal.test")["title"] == .string("Dentist"))
        #expect(try record(session, uid: "dup-ok@fixtures.cometcal.test")["title"] == .string("Unrelated fine event"))
        let lines = try exportedLines(session)
        #expect(lines.contains("SUMMARY:Dentist"))
        #expect(!lines.contains("SUMMARY:Quarterly planning"))
        // Again: the kept event is unchanged and the second is skipped the same way.
        let again = try session.importFile("structure-duplicate-uid-conflict.ics")
        #expect(again.problems.isEmpty, "\(again.problems)")
        #expect(again.added == 0 && again.updated == 0)
        #expect(warning(again, at: 13)?.contains("line 6") == true)
        #expect(try record(session, uid: "dup-1@fixtures.cometcal.test")["title"] == .string("Dentist"))
    }
}
