import Foundation

/// An RFC 5545 recurrence set in wall-clock time: DTSTART, optional RRULEs, RDATEs, EXDATEs, and
/// RFC 2445's EXRULEs.
///
/// Expansion happens in wall-clock time (RFC 5545 §3.3.10, and DESIGN.md "Time"): a weekly event
/// at 09:00 stays at 09:00 across a DST change. The caller turns each wall time into an instant
/// with `timeZone` (for example with `DateTimeValue.zoned`). Wall times that a DST change skips
/// (02:30 on the day clocks jump from 02:00 to 03:00) are still returned as they are, and so are
/// wall times that occur twice: the caller decides. (RFC 5545 §3.3.10 says instances at a
/// nonexistent local time are to be ignored, but §3.3.5 says how to place such a time, and
/// calendars in practice keep them, shifted by the gap, which is what `DateTimeValue.zoned` does.)
///
/// Invalid dates such as February 30th are skipped, never moved. BYxxx parts the rule leaves out
/// are taken from DTSTART (a WEEKLY rule without BYDAY repeats on DTSTART's weekday, a MONTHLY
/// rule without BYDAY or BYMONTHDAY on DTSTART's day of the month, skipping months without it, a
/// YEARLY rule on DTSTART's month and day, a YEARLY rule with only BYWEEKNO on DTSTART's weekday).
/// Second 60 in BYSECOND cannot be represented and is skipped like February 30th.
public struct RecurrenceSet: Sendable, Hashable {
    /// DTSTART as wall time in `timeZone`. Always the first occurrence, even when the rule does
    /// not generate it (RFC 5545 §3.8.5.3), and counted by COUNT.
    public var start: LocalDateTime
    /// The zone the wall times are read in: nil for floating times, UTC for UTC times. Only used
    /// to compare a UTC UNTIL (an instant) with the wall times.
    public var timeZone: TimeZone?
    public var rule: RecurrenceRule?
    /// Further RRULEs (RFC 5545 says a component SHOULD NOT have more than one, and producers still
    /// write them): their occurrences join `rule`'s. Each counts DTSTART as its first occurrence
    /// for its COUNT, as `rule` does.
    public var moreRules: [RecurrenceRule]
    /// EXRULEs (RFC 2445, dropped by RFC 5545): the occurrences each generates from DTSTART are
    /// removed. DTSTART itself only when the rule generates it, and COUNT counts only what the
    /// rule generates (as python-dateutil's `rruleset.exrule`).
    public var exclusionRules: [RecurrenceRule]
    /// RDATE, wall times in the same zone. They are not counted by COUNT.
    public var additions: [LocalDateTime]
    /// EXDATE, wall times in the same zone. An excluded occurrence still counts for COUNT.
    public var exclusions: [LocalDateTime]
    /// DTSTART is a DATE (the wall times are midnights): an UNTIL compares by calendar day.
    public var isAllDay: Bool

    public init(start: LocalDateTime, timeZone: TimeZone? = nil, rule: RecurrenceRule? = nil,
                additions: [LocalDateTime] = [], exclusions: [LocalDateTime] = [], isAllDay: Bool = false,
                moreRules: [RecurrenceRule] = [], exclusionRules: [RecurrenceRule] = []) {
        self.start = start
        self.timeZone = timeZone
        self.rule = rule
        self.moreRules = moreRules
        self.exclusionRules = exclusionRules
        self.additions = additions
        self.exclusions = exclusions
        self.isAllDay = isAllDay
    }

    /// Occurrence starts in ascending wall-clock order: DTSTART and what the RRULEs generate
    /// (COUNT and UNTIL applied), merged with the RDATEs, minus the EXDATEs and what the EXRULEs
    /// generate, without duplicates.
    /// Only starts with `from <= start <= through` are returned (each bound when given), at most `limit`.
    ///
    /// UNTIL is inclusive. A DATE UNTIL keeps everything up to the end of that day (also on a
    /// DATE-TIME series); a UTC UNTIL is compared as an instant with the wall times read in
    /// `timeZone` (or as a UTC wall time when the series is floating); a floating UNTIL is
    /// compared with the wall times directly; on an all-day series a DATE-TIME UNTIL compares by
    /// its calendar day.
    ///
    /// Without COUNT, `from` skips whole periods arithmetically; with COUNT the occurrences before
    /// `from` must be counted. A rule that can never produce anything (BYMONTH=2;BYMONTHDAY=30)
    /// yields only DTSTART; see `RecurrenceCursor` for the guards that make every call terminate.
    public func occurrences(from: LocalDateTime? = nil, through: LocalDateTime? = nil, limit: Int = 10_000) -> [LocalDateTime] {
        var result: [LocalDateTime] = []
        walk(from: from.map(CivilTime.seconds(of:)), through: through.map(CivilTime.seconds(of:)), limit: limit) { value in
            result.append(CivilTime.local(value))
        }
        return result
    }

    /// The last occurrence of a finite set (COUNT, UNTIL, or no RRULE), for indexing. Nil when the
    /// rule is unbounded, when the set has more than `limit` occurrences, or when it is empty
    /// (every occurrence excluded).
    public func lastOccurrence(limit: Int = 100_000) -> LocalDateTime? {
        guard !isUnbounded, limit > 0 else { return nil }
        var last: Int?
        var count = 0
        walk(from: nil, through: nil, limit: limit == Int.max ? limit : limit + 1) { value in
            last = value
            count += 1
        }
        guard count <= limit, let last else { return nil }
        return CivilTime.local(last)
    }

    /// True when an RRULE has neither COUNT nor UNTIL. (A rule that can never produce an
    /// occurrence still counts as unbounded.)
    public var isUnbounded: Bool {
        ([rule].compactMap { $0 } + moreRules).contains { $0.end == .never }
    }

    /// Streams the occurrences as floating seconds in ascending order.
    func walk(from lower: Int?, through upper: Int?, limit: Int, _ body: (Int) -> Void) {
        guard limit > 0 else { return }
        let lower = lower ?? Int.min
        let upper = upper ?? Int.max
        guard lower <= upper else { return }
        let excluded = Set(exclusions.map(CivilTime.seconds(of:)))
        let extra = additions.map(CivilTime.seconds(of:)).filter { $0 >= lower && $0 <= upper }.sorted()
        // One stream per RRULE, each starting with DTSTART (a set without a rule is DTSTART alone).
        var streams = ([rule].compactMap { $0 } + moreRules).map { RuleStream(rule: $0, set: self, lower: lower, upper: upper, startsWithStart: true) }
        if streams.isEmpty { streams = [RuleStream(rule: nil, set: self, lower: lower, upper: upper, startsWithStart: true)] }
        var heads = streams.indices.map { streams[$0].next() }
        var removals = exclusionRules.map { RuleStream(rule: $0, set: self, lower: lower, upper: upper, startsWithStart: false) }
        var removalHeads = removals.indices.map { removals[$0].next() }
        var extraIndex = 0
        var previous: Int?
        var emitted = 0
        while emitted < limit {
            var candidate: Int?
            var source: Int?
            for index in heads.indices {
                if let head = heads[index], candidate.map({ head < $0 }) ?? true {
                    candidate = head
                    source = index
                }
            }
            if extraIndex < extra.count, candidate.map({ extra[extraIndex] < $0 }) ?? true {
                candidate = extra[extraIndex]
                source = nil
                extraIndex += 1
            }
            guard let candidate else { break }
            if let source { heads[source] = streams[source].next() }
            if candidate == previous { continue }
            previous = candidate
            if excluded.contains(candidate) { continue }
            var removed = false
            for index in removals.indices {
                while let head = removalHeads[index], head < candidate { removalHeads[index] = removals[index].next() }
                if removalHeads[index] == candidate { removed = true }
            }
            if removed { continue }
            body(candidate)
            emitted += 1
        }
    }
}

/// DTSTART followed by the RRULE's occurrences after it, with COUNT and UNTIL applied, limited to
/// `lower...upper`. For an EXRULE (`startsWithStart` false) only what the rule generates from
/// DTSTART, DTSTART included when the rule generates it.
private struct RuleStream {
    private let start: Int
    private let lower: Int
    private let upper: Int
    private let count: Int?
    private let until: UntilBound
    private var cursor: RecurrenceCursor?
    private var startDelivered: Bool
    private var produced = 0
    private var finished = false

    init(rule: RecurrenceRule?, set: RecurrenceSet, lower: Int, upper: Int, startsWithStart: Bool) {
        start = CivilTime.seconds(of: set.start)
        self.lower = lower
        self.upper = upper
        startDelivered = !startsWithStart
        guard let rule else {
            count = nil
            until = .none
            cursor = nil
            return
        }
        until = UntilBound(rule.end, set: set)
        if case .count(let limit) = rule.end {
            count = limit
            cursor = RecurrenceCursor(plan: RecurrencePlan(rule: rule, start: set.start), horizon: upper)
        } else {
            count = nil
            cursor = RecurrenceCursor(plan: RecurrencePlan(rule: rule, start: set.start), skippingTo: lower,
                                      horizon: min(upper, until.horizon))
        }
    }

    mutating func next() -> Int? {
        if finished { return nil }
        if !startDelivered {
            startDelivered = true
            produced = 1
            if start > upper { finished = true; return nil }
            if start >= lower { return start }
        }
        while true {
            if let count, produced >= count { break }
            guard let value = cursor?.next() else { break }
            // DTSTART itself was delivered first (an EXRULE's stream has it only when generated).
            if value < start || value == start && produced > 0 { continue }
            if !until.allows(value) || value > upper { break }
            produced += 1
            if value >= lower { return value }
        }
        finished = true
        return nil
    }
}

/// UNTIL as a test on floating seconds.
private enum UntilBound {
    case none
    /// Inclusive bound on the wall time.
    case wall(Int)
    /// A UTC instant: wall times are placed in the zone to compare (only near the bound).
    case instant(epochSeconds: Int64, zone: TimeZone, approximateWall: Int)

    init(_ end: RecurrenceRule.End, set: RecurrenceSet) {
        switch end {
        case .never, .count:
            self = .none
        case .untilDate(let date):
            self = .wall(CivilTime.seconds(of: date) + CivilTime.secondsPerDay - 1)
        case .untilDateTime(let value):
            var epoch: Int64?
            switch value.kind {
            case .utc(let seconds), .zoned(let seconds, _): epoch = seconds
            case .floating: epoch = nil
            }
            let wall: LocalDateTime
            if let epoch, let zone = set.timeZone {
                wall = TimeZones.local(of: epoch, in: zone)
            } else {
                wall = value.localTime
            }
            if set.isAllDay {
                self = .wall(CivilTime.seconds(of: wall.date) + CivilTime.secondsPerDay - 1)
            } else if let epoch, let zone = set.timeZone {
                self = .instant(epochSeconds: epoch, zone: zone, approximateWall: CivilTime.seconds(of: wall))
            } else {
                self = .wall(CivilTime.seconds(of: wall))
            }
        }
    }

    /// No occurrence after this floating second can pass.
    var horizon: Int {
        switch self {
        case .none: return Int.max
        case .wall(let bound): return bound
        case .instant(_, _, let wall): return wall + 2 * CivilTime.secondsPerDay
        }
    }

    func allows(_ value: Int) -> Bool {
        switch self {
        case .none:
            return true
        case .wall(let bound):
            return value <= bound
        case .instant(let epoch, let zone, let wall):
            // UTC offsets stay within ±26 hours, so only wall times near the bound need the zone.
            if value <= wall - 2 * CivilTime.secondsPerDay { return true }
            if value > wall + 2 * CivilTime.secondsPerDay { return false }
            guard let instant = TimeZones.instant(of: CivilTime.local(value), in: zone) else { return value <= wall }
            return instant <= epoch
        }
    }
}
