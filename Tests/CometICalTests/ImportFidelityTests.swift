import Testing
import Foundation
import CometSchema
import CometStore
import CometIntents
import CometICal

/// Issue #7, item by item: nothing lost silently, nothing refused needlessly. Each test names the
/// item it holds to; the fixtures' MANIFEST.json entries say the same in prose.
@Suite("iCalendar fidelity: nothing lost silently, nothing refused needlessly")
struct ImportFidelityTests {
    let event = QualifiedName(domain: "calendar", name: "Event")
    let calendar = QualifiedName(domain: "calendar", name: "Calendar")

    /// A fresh store with `files` imported in order; the reports come back in the same order.
    private func imported(_ files: String...) throws -> (Corpus.Session, [ImportReport]) {
        let session = try Corpus.Session()
        var reports: [ImportReport] = []
        for file in files { reports.append(try session.importFile(file)) }
        return (session, reports)
    }

    private func record(_ session: Corpus.Session, uid: String, recurrence: Bool = false) throws -> EntityRecord {
        let all = try session.store.transaction { try $0.fetchAll(event, matching: [.equals("uid", .string(uid))], limit: nil) }
        return try #require(all.first { ($0["recurrenceId"] != nil) == recurrence }, "no event \(uid)")
    }

    private func text(_ record: EntityRecord, _ field: String) -> String? {
        if case .string(let value)? = record[field] { return value }
        return nil
    }

    private func instant(_ record: EntityRecord, _ field: String) -> String? {
        guard case .dateTime(let value)? = record[field] else { return nil }
        return LocalDateTime(wallSeconds: value.sortKey).description + (value.isFloating ? "" : "Z")
    }

    private func warningLines(_ report: ImportReport) -> Set<Int> { Set(report.warnings.map(\.line)) }

    // MARK: 1–3: line endings, folds, escapes

    @Test("1. Lines ending in CR CR LF import whole")
    func crCrLf() throws {
        let (session, reports) = try imported("enc-cr-cr-lf.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(reports[0].added == 3)
        let inline = session.importText("BEGIN:VCALENDAR\r\r\nVERSION:2.0\r\r\nBEGIN:VEVENT\r\r\nUID:crcr@test\r\r\nDTSTART:20260101T100000Z\r\r\nSUMMARY:Two\r\r\n  CRs\r\r\nEND:VEVENT\r\r\nEND:VCALENDAR\r\r\n", name: "inline")
        #expect(inline.added == 1)
        #expect(text(try record(session, uid: "crcr@test"), "title") == "Two CRs")
    }

    @Test("2. A lost fold after a text property is joined with a warning naming its line")
    func brokenFolds() throws {
        let (session, reports) = try imported("enc-broken-folds.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(warningLines(reports[0]).isSuperset(of: [13, 23, 31]))
        #expect(text(try record(session, uid: "broken-fold-text@fixtures.cometcal.test"), "note") ==
            "Quarterly planning for the platform team. Bring your roadmap drafts and the list of open risks so that we can go through them one by one and agree on owners before the end of the session.")
        #expect(text(try record(session, uid: "broken-fold-word@fixtures.cometcal.test"), "title") == "Sprint review Agenda")
        let apple = try record(session, uid: "broken-fold-apple@fixtures.cometcal.test")
        #expect(text(apple, "icalExtras")?.contains("X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS=\"Uferweg 7\\n10557 Berlin\";X-APPLE-RADIUS=49.9;X-TITLE=Canal Kitchen:geo:52.5,13.4") == true)
    }

    @Test("2. A line without a colon after a property that is not text is refused at its line")
    func colonlessLineAfterNonText() throws {
        let (session, reports) = try imported("enc-broken-fold-after-non-text.ics")
        defer { session.close() }
        #expect(!reports[0].written)
        #expect(reports[0].problems.map(\.line) == [9])
        #expect(reports[0].problems.first?.message.contains("colon") == true)
    }

    @Test("3. TEXT escapes in calendar properties are decoded once and encoded once")
    func calendarEscapes() throws {
        let (session, reports) = try imported("enc-calendar-text-escapes.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        let calendars = try session.store.transaction { try $0.fetchAll(calendar, matching: [], limit: nil) }
        let stored = try #require(calendars.first)
        #expect(text(stored, "title") == "Team, Ops")
        let decoded = "First line\nSecond line, with comma; semicolon and a backslash \\ here"
        #expect(text(stored, "description") == decoded)
        #expect(text(try record(session, uid: "cal-escapes-1@fixtures.cometcal.test"), "note") == decoded)
        let exported = try session.engine.exportCalendar()
        let unfolded = exported.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains("X-WR-CALDESC:First line\\nSecond line\\, with comma\\; semicolon and a backslash \\\\ here\r\n"))
        #expect(unfolded.contains("X-WR-CALNAME:Team\\, Ops\r\n"))
        // Backslashes do not double on a second round.
        let again = try Corpus.Session()
        defer { again.close() }
        _ = again.importText(exported, name: "again.ics")
        #expect(try again.engine.exportCalendar() == exported)
    }

    // MARK: 4–5: values out of range or off the grammar

    @Test("4. A DURATION out of range refuses its component with the line, never 1970")
    func outOfRange() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("values-out-of-range.ics", skipInvalid: true)
        #expect(report.problems.map(\.line).sorted() == [9, 16])
        #expect(report.problems.allSatisfy { $0.message.contains("out of range") })
        #expect(report.added == 2)
        let exported = try session.engine.exportCalendar()
        #expect(!exported.contains("19700101"))
    }

    @Test("4. Date arithmetic past year 9999 is an error that names the value")
    func dateArithmeticRange() throws {
        let start = DateTimeValue(kind: .utc(epochSeconds: 1_781_085_600))
        #expect(throws: ValueError.self) { try start.adding(DurationValue(days: 3_000_000)) }
        #expect(throws: ValueError.self) { try start.checkedAdding(seconds: Int64.max / 2) }
        #expect(throws: ValueError.self) { try DurationValue(validating: "P999999999999999999W") }
        #expect(try start.adding(DurationValue(days: 1)).sortKey == 1_781_085_600 + 86_400)
    }

    @Test("5. A DATE-TIME off the RFC 5545 grammar is refused at its line, quoting it")
    func malformedDateTime() throws {
        let (session, reports) = try imported("values-malformed-datetime.ics")
        defer { session.close() }
        let problems = reports[0].problems
        #expect(problems.map(\.line) == [27, 33, 40, 47, 55])
        for (line, value) in [(27, "20260301T10300Z"), (33, "2026031T103000"), (40, "20260301T103000ZZ"), (47, "20260301 103000"), (55, "20260301T1030")] {
            #expect(problems.first { $0.line == line }?.message.contains("'\(value)'") == true)
        }
    }

    // MARK: 6–7: DTSTAMP, RFC 7986 names

    @Test("6. DTSTAMP is kept and written back; CometCal's own edits stamp it anew")
    func dtstampKept() throws {
        let (session, _) = try imported("values-dtstamp-kept.ics")
        defer { session.close() }
        let exported = try session.engine.exportCalendar()
        for stamp in ["20260105T081512Z", "20260106T174233Z", "20251231T235959Z"] {
            #expect(exported.contains("DTSTAMP:\(stamp)\r\n"))
        }
        let again = try Corpus.Session()
        defer { again.close() }
        _ = again.importText(exported, name: "again.ics")
        let second = again.importText(exported, name: "again.ics")
        #expect(second.unchanged == 3)
    }

    @Test("6. A file that differs only in DTSTAMP changes nothing")
    func dtstampIsNoRevision() throws {
        let (session, _) = try imported("values-dtstamp-kept.ics")
        defer { session.close() }
        let text = try String(contentsOf: Corpus.fixtures.appendingPathComponent("values-dtstamp-kept.ics"), encoding: .utf8)
            .replacingOccurrences(of: "DTSTAMP:20260105T081512Z", with: "DTSTAMP:20270101T000000Z")
        let report = session.importText(text, name: "values-dtstamp-kept.ics")
        #expect(report.unchanged == 3)
        #expect(report.updated == 0 && report.olderVersions == 0)
    }

    @Test("7. RFC 7986 NAME and DESCRIPTION name and describe the calendar")
    func rfc7986Names() throws {
        let (session, reports) = try imported("calendar-rfc7986-name-description.ics")
        defer { session.close() }
        #expect(reports[0].calendars == ["Lunar Orbit Log"])
        let stored = try #require(try session.store.transaction { try $0.fetchAll(calendar, matching: [], limit: nil) }.first)
        #expect(text(stored, "title") == "Lunar Orbit Log")
        #expect(text(stored, "description") == "Flight ops, shifts and sims")
    }

    // MARK: 10: the DST gap

    @Test("10. A single event starting in the DST gap keeps its length, with a warning")
    func gapSingleEvent() throws {
        let (session, reports) = try imported("dst-gap-single-event.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(!reports[0].warnings.isEmpty)
        // The gap is said once per event; the file's VTIMEZONE, which agrees with tzdata on
        // either side of it, is not blamed.
        #expect(reports[0].warnings.filter { $0.message.contains("does not exist") }.count == 2, "\(reports[0].warnings.map(\.message))")
        #expect(!reports[0].warnings.contains { $0.message.contains("VTIMEZONE") }, "\(reports[0].warnings.map(\.message))")
        let records = try session.store.transaction { try $0.fetchAll(event, matching: [], limit: nil) }
        let spans = Set(records.map { "\(instant($0, "startDate") ?? "")–\(instant($0, "endDate") ?? "")" })
        #expect(spans == ["2025-03-09T07:30:00Z–2025-03-09T08:00:00Z", "2025-03-09T07:15:00Z–2025-03-09T08:45:00Z"])
    }

    @Test("10. A series starting in the gap moves only that instance; EXDATE and RECURRENCE-ID match the rule's own times")
    func gapSeries() throws {
        let (session, reports) = try imported("dst-gap-series.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        let from = Date(timeIntervalSince1970: 1_743_292_800)  // 2025-03-30
        let to = Date(timeIntervalSince1970: 1_746_921_600)    // 2025-05-11
        let occurrences = try session.store.transaction {
            try $0.occurrences(event, from: from, to: to, zone: TimeZone(identifier: "UTC")!, matching: [])
        }
        let starts = occurrences.map { LocalDateTime(wallSeconds: $0.start.sortKey).description + "Z" }.sorted()
        #expect(starts == ["2025-03-30T01:30:00Z", "2025-04-06T00:30:00Z", "2025-04-20T08:00:00Z", "2025-04-27T00:30:00Z", "2025-05-04T00:30:00Z"])
    }

    @Test("10. Dates in a DST gap, chosen at random, expand as python-dateutil's wall-clock rule does, each gap instance moved alone")
    func gapSeriesAgainstWallClock() throws {
        // Every Sunday 02:30 Berlin over ten years: only the last Sunday of March is moved.
        let start = try DateTimeValue.zoned(try #require(LocalDateTime(parsing: "2025-03-30T02:30:00")), timeZone: "Europe/Berlin")
        let rule = try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=520")
        let set = RecurrenceSet(start: start.expansionWallTime, timeZone: start.expansionZone, rule: rule)
        let walls = set.occurrences(limit: 600)
        #expect(walls.count == 520)
        #expect(walls.allSatisfy { $0.hour == 2 && $0.minute == 30 })
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let moved = walls.map { $0.dateTime(in: berlin) }.filter { $0.nominal != nil }
        #expect(moved.count == 10)
        #expect(moved.allSatisfy { $0.localTime.hour == 3 && $0.localTime.date.month == 3 })
    }

    // MARK: 11–13: informational values, alarms, repeated rules

    @Test("11. A malformed CREATED, LAST-MODIFIED or DTSTAMP is dropped with a warning; the event is kept")
    func badInformational() throws {
        let (session, reports) = try imported("values-bad-informational.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(reports[0].added == 3)
        #expect(warningLines(reports[0]).isSuperset(of: [8, 16, 23]))
        #expect(try record(session, uid: "info-created@fixtures.cometcal.test")["created"] == nil)
        #expect(try record(session, uid: "info-last-modified@fixtures.cometcal.test")["lastModified"] == nil)
    }

    @Test("12. A VALARM without TRIGGER is dropped with a warning; the event and its other alarms are kept")
    func alarmWithoutTrigger() throws {
        let (session, reports) = try imported("alarms-no-trigger.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(warningLines(reports[0]).isSuperset(of: [11, 27]))
        #expect(try record(session, uid: "no-trigger-1@fixtures.cometcal.test")["alarms"] == .array([.union("relative", .duration(DurationValue(isNegative: true, minutes: 10)))]))
        #expect(try record(session, uid: "no-trigger-2@fixtures.cometcal.test")["alarms"] == .array([]))
    }

    @Test("13. The same RRULE twice is one rule; two different rules are both kept, with an accurate warning")
    func repeatedRules() throws {
        let (session, reports) = try imported("rrule-identical-twice.ics", "rrule-multiple-rrules.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(reports[0].added == 2)
        #expect(reports[0].warnings.count >= 2)
        #expect(reports[1].problems.isEmpty)
        let different = try #require(reports[1].warnings.first { $0.line == 19 })
        #expect(different.message.contains("different") && different.message.contains("every rule"))
    }

    // MARK: 14–18: zones, addresses, kept properties, stray lines, mixed times

    @Test("14. TZIDs match unescaped and unquoted; an empty TZID with a full VTIMEZONE imports with a warning")
    func tzidEscaping() throws {
        let (session, reports) = try imported("tz-escaped-tzid.ics", "tz-empty-tzid-exchange.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty && reports[1].problems.isEmpty)
        #expect(reports[0].added == 2 && reports[1].added == 2)
        #expect(!reports[1].warnings.isEmpty)
        let records = try session.store.transaction { try $0.fetchAll(event, matching: [], limit: nil) }
        let starts = Set(records.compactMap { instant($0, "startDate") })
        #expect(starts.contains("2026-06-01T01:00:00Z"))
        #expect(starts.contains("2026-06-15T08:00:00Z"))
        #expect(starts.contains("2026-12-15T09:00:00Z"))
    }

    @Test("15. Calendar user addresses are kept as written")
    func oddAddresses() throws {
        let (session, reports) = try imported("attendees-odd-addresses.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        #expect(exported.contains(":mailto:hcabot@ example.com\r\n"))
        #expect(exported.contains(":mailto:CET Meeting Room@example.com\r\n"))
        #expect(exported.contains(":mailto:Mixed.Case@Example.COM\r\n"))
    }

    @Test("16. LINK, unknown iana-tokens and x-name value types are kept verbatim and written back")
    func keptProperties() throws {
        let (session, reports) = try imported("values-rfc-kept-properties.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        for line in ["LINK;LINKREL=latest-version;VALUE=URI:https://example.com/ev/1", "REFID:project-apollo",
                     "CONCEPT:https://example.com/c/meeting", "X-ROOM-PLAN;VALUE=X-FLOORPLAN:L3-E-12"] {
            #expect(exported.contains(line + "\r\n"), "\(line)")
        }
    }

    @Test("17. A stray line after END:VCALENDAR is ignored with a warning")
    func strayAfterEnd() throws {
        let (session, reports) = try imported("structure-stray-after-end.ics", "broken-trailing-garbage.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty && reports[0].added == 2)
        #expect(warningLines(reports[0]).contains(20))
        #expect(reports[1].problems.isEmpty && reports[1].added == 2)
        #expect(reports[1].warnings.contains { $0.line == 20 && $0.message.contains("after END:VCALENDAR") })
    }

    @Test("18. A floating time beside a zoned one is read in that zone, with a warning")
    func floatingBesideZoned() throws {
        let (session, reports) = try imported("tz-floating-start-zoned-end.ics")
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(warningLines(reports[0]).isSuperset(of: [44, 52]))
        let first = try record(session, uid: "float-start-zoned-end@fixtures.cometcal.test")
        #expect(instant(first, "startDate") == "2026-06-15T07:00:00Z")
        #expect(text(first, "timeZone") == "Europe/Berlin")
        let second = try record(session, uid: "zoned-start-float-end@fixtures.cometcal.test")
        #expect(instant(second, "endDate") == "2026-06-16T15:00:00Z")
    }

    // MARK: 19: iTIP

    @Test("19. REQUEST adds and updates; CANCEL marks the event cancelled; REPLY sets the attendee's answer")
    func itipFlow() throws {
        let (session, reports) = try imported("itip-request-new.ics", "itip-reply.ics")
        defer { session.close() }
        #expect(reports.allSatisfy { $0.problems.isEmpty })
        #expect(reports[0].added == 1 && reports[1].updated == 1)
        let stored = try record(session, uid: "itip-1@fixtures.cometcal.test")
        guard case .array(let attendees)? = stored["attendees"] else { Issue.record("no attendees"); return }
        let answers = attendees.compactMap { value -> String? in
            guard case .object(let fields) = value, case .person(let person)? = fields["person"], case .enumCase(let status)? = fields["status"] else { return nil }
            return "\(person.email ?? ""):\(status)"
        }
        #expect(answers.contains("tomas.lind@example.org:accepted"))
        #expect(answers.contains { $0.hasPrefix("aiko.mori@example.net:") && !$0.hasSuffix(":accepted") })
        #expect(stored["sequence"] == .int(0))
        // The organizer moves it (SEQUENCE 1), then cancels it (SEQUENCE 2); the old reply is stale.
        let update = try session.importFile("itip-request-update.ics")
        #expect(update.updated == 1)
        let stale = try session.importFile("itip-reply.ics")
        #expect(stale.updated == 0 && stale.skippedMessages == 1)
        #expect(stale.warnings.contains { $0.message.contains("older") })
        let moved = try record(session, uid: "itip-1@fixtures.cometcal.test")
        let cancel = try session.importFile("itip-cancel-no-dtstart.ics")
        #expect(cancel.updated == 1)
        let cancelled = try record(session, uid: "itip-1@fixtures.cometcal.test")
        #expect(cancelled["status"] == .enumCase("cancelled"))
        #expect(cancelled["sequence"] == .int(2))
        // Nothing but the status and SEQUENCE changes.
        #expect(cancelled["title"] == moved["title"] && cancelled["startDate"] == moved["startDate"])
    }

    @Test("19. CANCEL of one occurrence cancels only that occurrence")
    func itipCancelOccurrence() throws {
        let (session, reports) = try imported("itip-series-request.ics", "itip-cancel-one-occurrence.ics")
        defer { session.close() }
        #expect(reports[1].problems.isEmpty)
        #expect(reports[1].added == 1)
        let override = try record(session, uid: "itip-series@fixtures.cometcal.test", recurrence: true)
        #expect(override["status"] == .enumCase("cancelled"))
        #expect(instant(override, "startDate") == "2026-12-14T09:00:00Z")
        #expect(try record(session, uid: "itip-series@fixtures.cometcal.test")["status"] != .enumCase("cancelled"))
    }

    @Test("19. Messages for unknown events and methods CometCal does not act on are skipped with a note", arguments: [
        "itip-cancel-no-dtstart.ics", "itip-cancel-one-occurrence.ics", "itip-reply.ics", "itip-unknown-method.ics", "google-cancel.ics",
    ])
    func itipUnmatched(file: String) throws {
        let (session, reports) = try imported(file)
        defer { session.close() }
        #expect(reports[0].problems.isEmpty)
        #expect(reports[0].added == 0)
        #expect(!reports[0].warnings.isEmpty)
        #expect(try session.events().isEmpty)
    }

    @Test("19. In one import into an empty store, an occurrence a METHOD:CANCEL added is the one a later VEVENT of the same occurrence updates, not a second")
    func cancelThenOverrideInOneImport() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let override = """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//CometCal tests//EN\r\nBEGIN:VEVENT\r\nUID:itip-series@fixtures.cometcal.test\r\n\
            DTSTAMP:20261209T120000Z\r\nSEQUENCE:2\r\nRECURRENCE-ID;TZID=Europe/Berlin:20261214T100000\r\nDTSTART;TZID=Europe/Berlin:20261214T110000\r\n\
            DURATION:PT30M\r\nSUMMARY:Weekly sync (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n
            """
        var sources: [ImportSource] = []
        for name in ["itip-series-request.ics", "itip-cancel-one-occurrence.ics"] {
            let text = try String(contentsOf: Corpus.fixtures.appendingPathComponent(name), encoding: .utf8)
            sources.append(ImportSource(name: name, text: text, registry: Corpus.registry))
        }
        sources.append(ImportSource(name: "moved.ics", text: override, registry: Corpus.registry))
        let report = session.engine.importCalendars(sources)
        #expect(report.written, "\(report.problems.map(\.message))")
        let family = try session.store.transaction {
            try $0.fetchAll(event, matching: [.equals("uid", .string("itip-series@fixtures.cometcal.test"))], limit: nil)
        }
        #expect(family.count == 2, "\(family.map { "\(text($0, "title") ?? "-") \($0["recurrenceId"].map { Corpus.registry.displayText($0) } ?? "-") \($0["status"].map { Corpus.registry.displayText($0) } ?? "-")" })")
        #expect(family.contains { text($0, "title") == "Weekly sync (moved)" && $0["recurrenceId"] != nil })
    }

    @Test("19. Google's and Outlook's cancellations after their invitations")
    func producerCancellations() throws {
        let (google, googleReports) = try imported("google-invitation.ics", "google-cancel.ics")
        defer { google.close() }
        #expect(googleReports[1].updated == 1)
        #expect(try google.events().values.allSatisfy { $0["status"] == .enumCase("cancelled") })
        let (outlook, outlookReports) = try imported("outlook-meeting-request.ics", "outlook-cancel-occurrence.ics")
        defer { outlook.close() }
        #expect(outlookReports[1].added == 1)
        #expect(try outlook.events().count == 2)
        #expect(try outlook.events().values.contains { $0["status"] == .enumCase("cancelled") && $0["title"] == .string("Data platform sync") })
    }

    // MARK: 20–22: round trips and diagnostics

    @Test("20. An all-day override's RECURRENCE-ID is a date, and the export carries no unused VTIMEZONE")
    func allDayOverrideZone() throws {
        let (session, _) = try imported("overrides-allday-recurrence-id-zoned.ics")
        defer { session.close() }
        let exported = try session.engine.exportCalendar()
        #expect(exported.contains("RECURRENCE-ID;VALUE=DATE:20260112\r\n"))
        #expect(!exported.contains("BEGIN:VTIMEZONE"))
    }

    @Test("21. Each problem is reported at its own line, and a mistyped END at that END")
    func diagnosticPlaces() throws {
        let (session, reports) = try imported("broken-diagnostic-places.ics", "broken-mismatched-end.ics")
        defer { session.close() }
        #expect(reports[0].problems.map(\.line) == [11, 14])
        // A GEO that is no position is left out with a warning, not a problem.
        #expect(reports[0].warnings.contains { $0.line == 17 && $0.message.contains("GEO 'north;east'") })
        #expect(reports[1].problems.map(\.line) == [18])
        #expect(!reports[1].problems.contains { $0.message.contains("without BEGIN") })
    }

    @Test("The audit: every content line of an accepted fixture is mapped, kept or named in a warning",
          arguments: Corpus.manifest.filter { $0.decision.hasPrefix("accept") }.map(\.file))
    func everyLineAccounted(file: String) throws {
        let handle = try FileHandle(forReadingFrom: Corpus.fixtures.appendingPathComponent(file))
        defer { try? handle.close() }
        let reader = ICalReader(registry: Corpus.registry, handle: handle)
        var warned = Set<Int>()
        while let item = reader.next() {
            if case .warning(let warning) = item { warned.insert(warning.line) }
        }
        let silent = reader.unaccountedLines.filter { !warned.contains($0) }
        #expect(silent.isEmpty, "\(file): lines \(silent.prefix(10)) went nowhere")
    }
}

/// What a VALARM holds beyond its trigger (ACTION, text, recipients, REPEAT, Apple's and
/// Thunderbird's bookkeeping) survives export while the alarm is unchanged.
@Suite("Alarms keep what they arrived with")
struct AlarmFidelityTests {
    @Test("EMAIL and AUDIO alarms, REPEAT and x-props come back as written; a changed alarm is written anew")
    func alarmsWrittenBack() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("alarms-every-kind.ics")
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        #expect(exported.contains("ACTION:EMAIL\r\n"))
        #expect(exported.contains("ACTION:AUDIO\r\n"))
        #expect(exported.contains("REPEAT:"))
        #expect(!exported.contains("X-COMETCAL-KEPT-FOR"))
        let again = try Corpus.Session()
        defer { again.close() }
        _ = again.importText(exported, name: "again.ics")
        #expect(try again.engine.exportCalendar() == exported)
        #expect(try again.events() == session.events())
    }
}

/// The producer extensions docs/icalendar.md says CometCal reads, each held to its fixture.
@Suite("Producer extensions, as docs/icalendar.md describes them")
struct ProducerExtensionTests {
    let event = QualifiedName(domain: "calendar", name: "Event")
    let calendar = QualifiedName(domain: "calendar", name: "Calendar")

    private func events(_ session: Corpus.Session) throws -> [String: EntityRecord] {
        let records = try session.store.transaction { try $0.fetchAll(event, matching: [], limit: nil) }
        var byTitle: [String: EntityRecord] = [:]
        for record in records where record["recurrenceId"] == nil {
            if case .string(let title)? = record["title"] { byTitle[title] = record }
        }
        return byTitle
    }

    @Test("Apple: a structured location is a place; X-APPLE-CALENDAR-COLOR colours the calendar; ACTION:NONE is no reminder")
    func apple() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("apple-icloud-export.ics")
        let byTitle = try events(session)
        let dinner = try #require(byTitle["Dinner with Lina"])
        guard case .union(_, .place(let place))? = dinner["location"] else { Issue.record("not a place: \(String(describing: dinner["location"]))"); return }
        #expect(place.name == "Restaurant Nordlicht")
        #expect(place.latitude == 52.53807 && place.longitude == 13.41146)
        #expect(place.address?.hasPrefix("Kastanienallee 12\n") == true)
        let pilates = try #require(byTitle["Pilates"])
        #expect(pilates["alarms"] == .array([]))
        let stored = try #require(try session.store.transaction { try $0.fetchAll(calendar, matching: [], limit: nil) }.first)
        #expect(stored["color"] == .string("#FF9500"))
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        #expect(exported.contains("ACTION:NONE\r\n"))
        #expect(exported.contains("X-APPLE-STRUCTURED-LOCATION;"))
        #expect(exported.contains("X-WR-TIMEZONE:Europe/Berlin\r\n"))
    }

    @Test("Apple: the structured location is not written back once the location changes")
    func appleLocationChanged() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("apple-icloud-export.ics")
        var dinner = try #require(try events(session)["Dinner with Lina"])
        dinner["location"] = .union("text", .string("Somewhere else"))
        try session.store.transaction { try $0.save(dinner) }
        let exported = try session.engine.exportCalendar()
        #expect(!exported.contains("X-APPLE-STRUCTURED-LOCATION"))
        #expect(exported.contains("LOCATION:Somewhere else"))
    }

    @Test("Google: X-GOOGLE-CONFERENCE is the join link")
    func google() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("google-calendar-export.ics")
        let call = try #require(try events(session)["Trip planning call"])
        #expect(call["virtualLocation"] == .url(try #require(URL(string: "https://meet.google.com/pqr-stuv-wxy"))))
    }

    @Test("Outlook: midnight to midnight with X-MICROSOFT-CDO-ALLDAYEVENT:TRUE is an all-day event")
    func outlookAllDay() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("outlook-export.ics")
        #expect(report.warnings.contains { $0.message.contains("Outlook's all-day event") })
        let memorial = try #require(try events(session)["Memorial Day"])
        #expect(memorial["isAllDay"] == .bool(true))
        #expect(memorial["startDate"] == .dateTime(.floating(try #require(LocalDateTime(parsing: "2026-05-25T00:00:00")))))
        #expect(memorial["timeZone"] == nil)
        let exported = try session.engine.exportCalendar()
        #expect(exported.contains("DTSTART;VALUE=DATE:20260525\r\n"))
        #expect(exported.contains("X-MICROSOFT-CDO-ALLDAYEVENT:TRUE\r\n"))
    }

    @Test("Attendees: values no field holds are kept and written back while the field reads the same")
    func attendeeValuesWrittenBack() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = try session.importFile("attendees-nonstandard.ics")
        #expect(report.warnings.contains { $0.message.contains("PARTSTAT=X-FOO") })
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        #expect(exported.contains("PARTSTAT=X-FOO"))
        #expect(exported.contains("ROLE=X-OBSERVER"))
    }

    @Test("A second SUMMARY is kept for export, with a warning")
    func repeatedSingleProperty() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:twice@test\r\nDTSTART:20260601T100000Z\r\nSUMMARY:First\r\nSUMMARY:Second\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", name: "twice.ics")
        #expect(report.problems.isEmpty)
        #expect(report.warnings.contains { $0.line == 7 })
        let exported = try session.engine.exportCalendar()
        #expect(exported.contains("SUMMARY:First\r\n") && exported.contains("SUMMARY:Second\r\n"))
    }
}

/// The import transcripts in docs/icalendar.md are the real output, compared line by line.
@Suite("docs/icalendar.md transcripts")
struct DocTranscriptTests {
    @Test("every transcript block matches what cometcal prints")
    func transcripts() throws {
        let doc = try String(contentsOf: Corpus.root.appendingPathComponent("docs/icalendar.md"), encoding: .utf8)
        let lines = doc.components(separatedBy: "\n")
        var checked = 0
        for (index, line) in lines.enumerated() {
            guard let start = line.range(of: "<!-- transcript: "), let end = line.range(of: " -->") else { continue }
            let arguments = line[start.upperBound..<end.lowerBound].split(separator: " ").map(String.init)
            let block = lines[(index + 2)...].prefix { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("```") }.map { $0.trimmingCharacters(in: .whitespaces) }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-doc-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try DocTranscriptTests.run(arguments, store: directory.appendingPathComponent("store.sqlite").path)
            let printed = (result.stderr + result.stdout).split(separator: "\n").map(String.init)
            #expect(printed == Array(block), "cometcal \(arguments.joined(separator: " ")) printed:\n\(printed.joined(separator: "\n"))")
            checked += 1
        }
        #expect(checked >= 2)
    }

    static func run(_ arguments: [String], store: String) throws -> (stdout: String, stderr: String) {
        let binary = Corpus.root.appendingPathComponent(".build/debug/cometcal")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = Corpus.fixtures
        var environment = ProcessInfo.processInfo.environment
        environment["COMETCAL_DB"] = store
        environment["COMETCAL_SCHEMAS"] = Corpus.root.appendingPathComponent("Schemas").path
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (stdout, stderr)
    }
}

extension AlarmFidelityTests {
    @Test("an alarm changed in CometCal is written as a DISPLAY alarm; the old one is not written back")
    func changedAlarmWrittenAnew() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        _ = try session.importFile("alarms-every-kind.ics")
        let entity = QualifiedName(domain: "calendar", name: "Event")
        var email = try #require(try session.store.transaction {
            try $0.fetchAll(entity, matching: [.equals("uid", .string("alarm-kinds-2@fixtures.cometcal.test"))], limit: 1)
        }.first)
        email["alarms"] = .array([.union("relative", .duration(DurationValue(isNegative: true, hours: 2)))])
        try session.store.transaction { try $0.save(email) }
        let exported = try session.engine.exportCalendar().replacingOccurrences(of: "\r\n ", with: "")
        let block = try #require(exported.components(separatedBy: "BEGIN:VEVENT").first { $0.contains("UID:alarm-kinds-2@") })
        #expect(!block.contains("ACTION:EMAIL"))
        #expect(block.contains("ACTION:DISPLAY\r\n"))
        #expect(block.contains("TRIGGER:-PT2H\r\n"))
    }
}

/// Faults a review of the importer found, each with the input that showed it.
@Suite("iCalendar edge cases found in review")
struct ImportReviewTests {
    let event = QualifiedName(domain: "calendar", name: "Event")

    private func calendar(_ body: [String], head: [String] = []) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0"] + head + body + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    private func vevent(_ uid: String, _ lines: [String]) -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z"] + lines + ["END:VEVENT"]
    }

    private func only(_ session: Corpus.Session, _ uid: String) throws -> EntityRecord {
        try #require(try session.store.transaction { try $0.fetchAll(event, matching: [.equals("uid", .string(uid))], limit: nil) }.first { $0["recurrenceId"] == nil })
    }

    private func roundTripIsStable(_ session: Corpus.Session) throws {
        let exported = try session.engine.exportCalendar()
        let again = try Corpus.Session()
        defer { again.close() }
        let report = again.importText(exported, name: "again.ics")
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(try again.events() == session.events())
        #expect(try again.engine.exportCalendar() == exported)
    }

    @Test("calendar properties after a VTIMEZONE apply; after the events they are named in a warning")
    func calendarPropertiesAfterComponents() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let timezone = ["BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE"]
        let text = calendar(timezone + ["X-WR-CALNAME:Work"] + vevent("a@test", ["DTSTART:20260601T100000Z"]) + ["X-WR-CALDESC:late"])
        let report = session.importText(text, name: "late.ics")
        #expect(report.calendars == ["Work"])
        #expect(report.warnings.contains { $0.line == 17 && $0.message.contains("X-WR-CALDESC") })
    }

    @Test("a DST-gap start with a day-long event survives the round trip")
    func gapStartLongEvent() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("long@test", ["DTSTART;TZID=America/New_York:20250309T023000", "DTEND;TZID=America/New_York:20250310T023000"])), name: "long.ics")
        #expect(report.written && report.added == 1, "\(report.problems)")
        // 02:30 does not exist that day: it is read as 03:30 EDT (07:30Z), and the event keeps its day-long length.
        let stored = try only(session, "long@test")
        func utc(_ field: String) -> String? {
            guard case .dateTime(let value)? = stored[field] else { return nil }
            return LocalDateTime(wallSeconds: value.sortKey).description + "Z"
        }
        #expect(utc("startDate") == "2025-03-09T07:30:00Z")
        #expect(utc("endDate") == "2025-03-10T07:30:00Z")
        try roundTripIsStable(session)
    }

    @Test("RELATED=END counts from the settled end, and its VALARM is written back")
    func relatedEndAfterGap() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let alarm = ["BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;RELATED=END:-PT15M", "END:VALARM"]
        _ = session.importText(calendar(vevent("gapalarm@test", ["DTSTART;TZID=America/New_York:20250309T023000", "DTEND;TZID=America/New_York:20250309T030000"] + alarm)), name: "a.ics")
        // 03:30–04:00 EDT after the gap: 15 minutes before the end is 15 minutes after the start.
        #expect(try only(session, "gapalarm@test")["alarms"] == .array([.union("relative", .duration(DurationValue(minutes: 15)))]))
        #expect(try session.engine.exportCalendar().contains("ACTION:AUDIO"))
        try roundTripIsStable(session)
    }

    @Test("CANCEL finds an occurrence by its instant, twice changes nothing, and a series cancel cancels its overrides")
    func cancelByInstant() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let series = vevent("s@test", ["DTSTART;TZID=Europe/Berlin:20260303T090000", "RRULE:FREQ=WEEKLY;COUNT=5", "SUMMARY:Sync"])
        let moved = vevent("s@test", ["RECURRENCE-ID;TZID=Europe/Berlin:20260317T090000", "DTSTART;TZID=Europe/Berlin:20260317T110000", "SUMMARY:Sync"])
        _ = session.importText(calendar(series + moved), name: "s.ics")
        let cancelOne = calendar(vevent("s@test", ["RECURRENCE-ID:20260317T080000Z", "SEQUENCE:1"]), head: ["METHOD:CANCEL"])
        let first = session.importText(cancelOne, name: "c.ics")
        #expect(first.added == 0 && first.updated == 1)
        let second = session.importText(cancelOne, name: "c.ics")
        #expect(second.added == 0 && second.updated == 0 && second.unchanged == 1)
        let all = calendar(vevent("s@test", ["SEQUENCE:2"]), head: ["METHOD:CANCEL"])
        #expect(session.importText(all, name: "all.ics").updated == 2)
        #expect(try session.events().count == 2)
        #expect(try session.events().values.allSatisfy { $0["status"] == .enumCase("cancelled") })
    }

    @Test("a libical complaint is reported at its own line, also after other values; at calendar level it warns")
    func libicalComplaintLines() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("g@test", ["DTSTART:20260601T100000Z", "SEQUENCE:0", "DURATION:1h"])), name: "g.ics")
        #expect(report.problems.map(\.line) == [8])
        let calendarLevel = session.importText(calendar(vevent("h@test", ["DTSTART:20260601T100000Z"]), head: ["REFRESH-INTERVAL;VALUE=DURATION:1W"]), name: "h.ics")
        #expect(calendarLevel.problems.isEmpty)
        #expect(calendarLevel.warnings.contains { $0.line == 3 })
    }

    @Test("a second DURATION warns; an out-of-range DURATION beside DTEND is refused")
    func durations() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let twice = session.importText(calendar(vevent("d@test", ["DTSTART:20260601T100000Z", "DURATION:PT1H", "DURATION:PT2H"])), name: "d.ics")
        #expect(twice.warnings.contains { $0.line == 8 })
        let huge = session.importText(calendar(vevent("e@test", ["DTSTART:20260601T100000Z", "DTEND:20260601T110000Z", "DURATION:P999999999999999999W"])), name: "e.ics")
        #expect(huge.problems.map(\.line) == [8])
    }

    @Test("TZID on a UTC time is read as UTC with a warning; a date without VALUE=DATE is a day")
    func oddTimeForms() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("z@test", ["DTSTART;TZID=Europe/Berlin:20260301T090000Z"]) + vevent("day@test", ["DTSTART:20260301"])), name: "z.ics")
        #expect(report.warnings.contains { $0.message.contains("TZID and a UTC time") })
        #expect(report.warnings.contains { $0.message.contains("date without VALUE=DATE") })
        #expect(try only(session, "z@test")["timeZone"] == nil)
        #expect(try only(session, "day@test")["isAllDay"] == .bool(true))
        try roundTripIsStable(session)
    }

    @Test("a gap start with a UTC end keeps its length; the agenda shows the time that exists")
    func gapWithUTCEnd() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("u@test", ["DTSTART;TZID=America/New_York:20250309T023000", "DTEND:20250309T070000Z"])), name: "u.ics")
        #expect(report.problems.isEmpty)
        let stored = try only(session, "u@test")
        guard case .dateTime(let start)? = stored["startDate"], case .dateTime(let end)? = stored["endDate"] else { Issue.record("no times"); return }
        #expect(end.sortKey - start.sortKey == 1_800)
        #expect(start.wallTime(in: TimeZone(identifier: "America/New_York")).description == "2025-03-09T03:30:00")
    }

    @Test("a line after DESCRIPTION that reads as an unknown property is kept, with a warning that it may be text")
    func unknownPropertyAfterText() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("zoom@test", ["DTSTART:20260601T100000Z", "DESCRIPTION:Weekly sync", "Zoom: https://zoom.example/j/1"])), name: "z.ics")
        #expect(report.problems.isEmpty)
        #expect(report.warnings.contains { $0.line == 8 && $0.message.contains("line break") })
        #expect(try session.engine.exportCalendar().contains("Zoom: https://zoom.example/j/1\r\n"))
    }

    @Test("a VTIMEZONE observance that repeats by the second is not expanded (it hung libical): ignored for an IANA name, refused for a custom one")
    func secondlyObservance() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        func zone(_ tzid: String) -> [String] {
            ["BEGIN:VTIMEZONE", "TZID:\(tzid)", "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "RRULE:FREQ=SECONDLY",
             "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE"]
        }
        let iana = session.importText(calendar(zone("Europe/Berlin") + vevent("b@test", ["DTSTART;TZID=Europe/Berlin:20260601T100000"])), name: "b.ics")
        #expect(iana.problems.isEmpty && iana.added == 1)
        let custom = session.importText(calendar(zone("Office") + vevent("o@test", ["DTSTART;TZID=Office:20260601T100000"])), name: "o.ics")
        #expect(custom.problems.contains { $0.message.contains("not yearly") })
    }

    @Test("an RFC 9074 PROXIMITY inside a VALARM is kept, not a refusal")
    func unknownPropertyInAlarm() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Arrive", "TRIGGER:-PT5M", "PROXIMITY:ARRIVE", "END:VALARM"]
        let report = session.importText(calendar(vevent("p@test", ["DTSTART:20260601T100000Z"] + alarm)), name: "p.ics")
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(try session.engine.exportCalendar().contains("PROXIMITY:ARRIVE\r\n"))
        try roundTripIsStable(session)
    }

    @Test("END:VCALENDAR swapped with END:VEVENT, or followed by a stray line, is one complaint")
    func tentativeEndOneComplaint() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let swapped = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:w@test\r\nDTSTART:20260601T100000Z\r\nEND:VCALENDAR\r\nEND:VEVENT\r\n"
        #expect(session.importText(swapped, name: "w.ics").problems.map(\.line) == [6])
        let stray = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:v@test\r\nDTSTART:20260601T100000Z\r\nEND:VCALENDAR\r\nX-COMMENT:x\r\n"
        let report = session.importText(stray, name: "v.ics")
        #expect(report.problems.map(\.line) == [6])
        #expect(report.warnings.contains { $0.line == 7 })
    }

    @Test("one warning per line for a list; parameters without a value warn; a calendar never closed ends before the next")
    func smallOnes() throws {
        let session = try Corpus.Session()
        defer { session.close() }
        let report = session.importText(calendar(vevent("x@test", ["DTSTART:20260302T100000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;VALUE=DATE:20260309,20260316",
                                                                    "ATTENDEE;CN=Room 4;CUTYPE=ROOM:"])), name: "x.ics")
        #expect(report.warnings.filter { $0.line == 8 }.count == 1)
        #expect(report.warnings.contains { $0.line == 9 && $0.message.contains("no value") })
        let nested = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:One\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-WR-CALNAME:Two\r\nBEGIN:VEVENT\r\nUID:n@test\r\nDTSTART:20260601T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let both = session.importText(nested, name: "n.ics")
        #expect(both.problems.contains { $0.line == 4 })
    }
}
