import Foundation
import Testing
import CometSchema
import CometStore

/// The kept expansions of series outside the window give exactly what expanding the series
/// over the query's own range gives, across stretch boundaries, before 1970, and for rules with
/// exclusions and added dates, and they forget what they are told to.
@Suite("Series expansions kept between queries")
struct SeriesExpansionsTests {
    static let registry = Result { try Registry.load(paths: [ConformanceStore.schemas]) }

    static func shape(_ values: [String: Value]) throws -> (EntityRecord, TemporalFields) {
        let registry = try registry.get()
        let temporal = try #require(registry.entity(ConformanceStore.event)?.temporalFields)
        return (EntityRecord(entity: ConformanceStore.event, id: UUID(), values: values), temporal)
    }

    static let rules: [[String: Value]] = {
        func value(_ text: String) -> Value { .dateTime(try! DateTimeValue(parsing: text)) }
        func rule(_ text: String) -> Value { .recurrence(try! RecurrenceRule(parsing: text)) }
        return [
            ["title": .string("weekly, Berlin"), "startDate": value("2020-01-06T09:00:00+01:00[Europe/Berlin]"),
             "endDate": value("2020-01-06T10:30:00+01:00[Europe/Berlin]"), "recurrence": rule("FREQ=WEEKLY;BYDAY=MO,TH")],
            ["title": .string("daily, overnight, New York"), "startDate": value("2021-03-01T23:00:00-05:00[America/New_York]"),
             "endDate": value("2021-03-02T07:00:00-05:00[America/New_York]"), "recurrence": rule("FREQ=DAILY"),
             "excludedDates": .array([value("2031-03-09T23:00:00-04:00[America/New_York]")]),
             "additionalDates": .array([value("2031-03-10T12:00:00-04:00[America/New_York]")])],
            ["title": .string("monthly, floating, before 1970"), "startDate": value("1965-05-15T08:00:00"),
             "recurrence": rule("FREQ=MONTHLY;BYDAY=2TU")],
            ["title": .string("yearly, all day"), "startDate": value("2000-02-29T00:00:00Z"), "isAllDay": .bool(true),
             "endDate": value("2000-03-01T00:00:00Z"), "recurrence": rule("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1")],
        ]
    }()

    @Test("the kept keys equal a direct expansion over 300 ranges of each rule, repeated and overlapping", arguments: 0..<4)
    func sameAsDirectExpansion(_ which: Int) throws {
        let (record, temporal) = try Self.shape(Self.rules[which])
        let shape = try #require(SeriesShape(record: record, temporal: temporal))
        let series = try #require(shape.series)
        let kept = SeriesExpansions()
        let entry = try #require(kept.series(record.id) { SeriesShape(record: record, temporal: temporal) })
        var generator = SplitMix(seed: UInt64(which + 1))
        var compared = 0
        for _ in 0..<300 {
            // Anywhere from 1960 to 2040, a day to three months long, often right on a stretch's edge.
            let stretch = SeriesExpansions.stretchSeconds
            var from = Int64(generator.next() % UInt64(2_524_608_000 + 315_532_800)) - 315_532_800
            if generator.next() % 3 == 0 { from = (from / stretch) * stretch - Int64(generator.next() % 2) }
            let through = from + 86_400 + Int64(generator.next() % (90 * 86_400))
            let keys = try #require(kept.instanceKeys(of: entry, from: from, through: through))
            let direct = shape.instanceKeys(series, from: from, through: through, reading: 1_000_000)
            #expect(direct.complete)
            #expect(keys == Array(Set(direct.keys)).sorted(), "\(Self.rules[which]["title"]!) over [\(from), \(through)]")
            compared += keys.count
        }
        #expect(compared > 10, "the ranges held instances: \(compared)")
    }

    @Test("a forgotten series is built again from its record, a forgotten record drops every series' overrides, and forgetting all drops everything")
    func forgetting() throws {
        let (record, temporal) = try Self.shape(Self.rules[0])
        let kept = SeriesExpansions()
        var reads = 0
        func series() -> SeriesExpansions.Series? { kept.series(record.id) { reads += 1; return SeriesShape(record: record, temporal: temporal) } }
        let first = try #require(series())
        #expect(series() === first)
        #expect(reads == 1)
        #expect(kept.instanceKeys(of: first, from: 2_000_000_000, through: 2_002_592_000)?.isEmpty == false)
        var overrideReads = 0
        _ = kept.overriddenKeys(uid: "u") { overrideReads += 1; return [1] }
        #expect(kept.overriddenKeys(uid: "u") { overrideReads += 1; return [1] } == [1])
        #expect(overrideReads == 1)
        kept.forget(UUID())  // another record: perhaps an override of this series
        _ = kept.overriddenKeys(uid: "u") { overrideReads += 1; return [] }
        #expect(overrideReads == 2)
        #expect(series() === first, "the series itself is kept")
        kept.forget(record.id)
        #expect(series() !== first)
        #expect(reads == 2)
        kept.forgetAll()
        _ = series()
        #expect(reads == 3)
    }

    @Test("a rule with more instances in one stretch than a stretch reads is left to each query (nil)")
    func tooManyForAStretch() throws {
        let (record, temporal) = try Self.shape([
            "title": .string("every second"), "startDate": .dateTime(try DateTimeValue(parsing: "2030-01-01T00:00:00Z")),
            "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=SECONDLY")),
        ])
        let kept = SeriesExpansions()
        let entry = try #require(kept.series(record.id) { SeriesShape(record: record, temporal: temporal) })
        #expect(kept.instanceKeys(of: entry, from: 1_900_000_000, through: 1_900_086_400) == nil)
    }

    /// A rule repeating within the day is read over the zone's own offsets, not a day either
    /// way: what it finds must still be every instance, right at offset changes too (an hour
    /// forward and back, Lord Howe's half hour, Samoa's skipped day).
    static let subDailyRules: [(zone: String, start: String, rule: String, minutes: Int)] = [
        ("Europe/Berlin", "2009-10-24T22:13:00+02:00[Europe/Berlin]", "FREQ=MINUTELY;INTERVAL=7", 5),
        ("America/New_York", "2009-11-01T00:00:00-04:00[America/New_York]", "FREQ=HOURLY", 45),
        ("Australia/Lord_Howe", "2009-10-04T01:40:00+10:30[Australia/Lord_Howe]", "FREQ=HOURLY;INTERVAL=2", 30),
        ("Pacific/Apia", "2011-12-28T23:59:00-10:00[Pacific/Apia]", "FREQ=SECONDLY;INTERVAL=997", 0),
    ]

    @Test("a sub-daily rule's instances near offset changes are those a wide expansion finds", arguments: 0..<4)
    func subDailyNearTransitions(_ which: Int) throws {
        let given = Self.subDailyRules[which]
        let start = try DateTimeValue(parsing: given.start)
        let end = start.instant.map { DateTimeValue.utc($0.addingTimeInterval(Double(given.minutes * 60))) }
        var values: [String: Value] = ["title": .string(given.rule), "startDate": .dateTime(start),
                                       "recurrence": .recurrence(try RecurrenceRule(parsing: given.rule))]
        if given.minutes > 0, let end { values["endDate"] = .dateTime(end) }
        let (record, temporal) = try Self.shape(values)
        let shape = try #require(SeriesShape(record: record, temporal: temporal))
        let series = try #require(shape.series)
        let zone = try #require(TimeZone(identifier: given.zone))
        var generator = SplitMix(seed: UInt64(which + 11))
        var compared = 0
        for _ in 0..<60 {
            // Around an offset change of the zone between 2010 and 2020.
            let after = Date(timeIntervalSince1970: 1_262_304_000 + Double(generator.next() % 315_360_000))
            let change = Int64(try #require(zone.nextDaylightSavingTimeTransition(after: after)).timeIntervalSince1970)
            let from = change - 7_200 + Int64(generator.next() % 10_800)
            let through = from + 60 + Int64(generator.next() % 14_400)
            let found = shape.instanceKeys(series, from: from, through: through, reading: 1_000_000)
            // Every instance within three days of the range, each placed and filtered alone.
            let wide = series.occurrences(from: LocalDateTime(wallSeconds: from - 259_200), through: LocalDateTime(wallSeconds: through + 259_200),
                                          limit: 10_000_000)
            let expected = wide.map { shape.key(of: $0) }.filter { $0 + shape.durationSeconds >= from && $0 <= through }
            #expect(found.complete)
            #expect(found.keys == expected, "\(given.rule) in \(given.zone) over [\(from), \(through)]")
            compared += expected.count
        }
        #expect(compared > 60, "the ranges held instances: \(compared)")
    }
}

/// A small deterministic generator, so a failure names ranges that come back.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
