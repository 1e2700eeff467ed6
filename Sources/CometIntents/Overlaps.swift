import Foundation
import CometSchema
import CometStore

/// Other records' occurrences that a created or moved record runs into, found with one
/// occurrence query over the record's own span (a repeating record: a bounded horizon), inside
/// the write that made it. Busy is `TemporalRules.blocksTime`: all-day and transparent records
/// neither make an overlap nor are overlapped.
struct OverlapCheck {
    /// How far ahead a repeating record's occurrences are looked at: a quarter, enough for a
    /// monthly series to show a pattern, and one cheap query.
    static let horizonDays = 90
    /// How many overlapped occurrences a sentence names before it counts the rest.
    static let named = 3

    struct Overlap {
        /// The occurrence of the record that was saved.
        let own: Occurrence
        /// The other record's occurrence it overlaps.
        let other: Occurrence
        let otherStart: Date
    }

    let rules: TemporalRules
    let transaction: any StoreReader
    let zone: TimeZone
    let now: Date

    /// What was looked at, and what overlaps there.
    struct Finding {
        var overlaps: [Overlap] = []
        /// For a series: how its horizon ended — 90 days, or its first `ownLimit` occurrences.
        var countedOccurrences: Int?
        /// Why nothing could be looked at (the store refused the range), to be said.
        var notLooked: String?
    }

    /// A series checked over at most this many of its occurrences: a repeat every minute would
    /// otherwise compare a quarter's 129,600 occurrences with everything else.
    static let ownLimit = 500

    /// Every occurrence of another busy record overlapping an occurrence of `record` (in the
    /// horizon for a series), first first.
    func find(for record: EntityRecord) throws -> Finding {
        var finding = Finding()
        guard rules.blocksTime(record), let start = rules.start(record) else { return finding }
        let begin = instant(start)
        let window: (from: Date, to: Date)
        if rules.isSeries(record) {
            let from = max(begin, now)
            var to = from.addingTimeInterval(Double(OverlapCheck.horizonDays) * 86_400)
            // A dense rule ends the horizon at its `ownLimit`th occurrence (counted in memory).
            if let property = rules.fields.recurrence, case .recurrence(let rule)? = record[property] {
                let zone = start.expansionZone
                let series = RecurrenceSet(start: start.expansionWallTime, timeZone: zone, rule: rule)
                let wallFrom = DateTimeValue.utc(from).wallTime(in: zone ?? self.zone)
                let wallTo = DateTimeValue.utc(to).wallTime(in: zone ?? self.zone)
                let starts = series.occurrences(from: wallFrom, through: wallTo, limit: OverlapCheck.ownLimit + 1)
                if starts.count > OverlapCheck.ownLimit {
                    to = instant(starts[OverlapCheck.ownLimit].dateTime(in: zone ?? self.zone))
                    finding.countedOccurrences = OverlapCheck.ownLimit
                }
            }
            window = (from, to)
        } else {
            let end = rules.end(record).map(instant) ?? begin
            // An instant still takes up its moment: the query needs a span to find what holds it.
            window = (begin, max(end, begin.addingTimeInterval(1)))
        }
        let uid = rules.uid(record)
        let found: [Occurrence]
        do {
            found = try occurrences(near: record, uid: uid, in: window)
        } catch let error as StoreError where error.code != .busy {
            // A dense repeat elsewhere can make the range too large to list: the change stands,
            // and the reply says that overlaps were not looked for, and why.
            finding.notLooked = error.message
            return finding
        }
        func isOwn(_ occurrence: Occurrence) -> Bool {
            occurrence.record.id == record.id || (uid != nil && rules.uid(occurrence.record) == uid)
        }
        // Each moment is worked out once, and the record's own occurrences are searched by start:
        // a series against a quarter of others is many pairs.
        typealias Span = (occurrence: Occurrence, start: Date, end: Date)
        func span(_ occurrence: Occurrence) -> Span { (occurrence, instant(occurrence.start), instant(occurrence.end)) }
        let own = found.filter { isOwn($0) && rules.blocksTime($0.record) }.map(span).sorted { $0.start < $1.start }
        let others = found.filter { !isOwn($0) && rules.blocksTime($0.record) }.map(span)
        let longest = own.map { $0.end.timeIntervalSince($0.start) }.max() ?? 0
        func firstOwn(startingAtOrAfter moment: Date) -> Int {
            var low = 0, high = own.count
            while low < high {
                let middle = (low + high) / 2
                if own[middle].start < moment { low = middle + 1 } else { high = middle }
            }
            return low
        }
        for other in others {
            // Only own occurrences starting within `longest` before the other one can reach it.
            var index = firstOwn(startingAtOrAfter: other.start.addingTimeInterval(-longest))
            while index < own.count, own[index].start <= other.end {
                let mine = own[index]
                index += 1
                // Touching ends (10:00–11:00 after 9:00–10:00) is no overlap; an instant inside
                // another's span is.
                let meets = mine.start == mine.end ? other.start <= mine.start && mine.start < other.end
                    : other.start == other.end ? mine.start <= other.start && other.start < mine.end
                    : mine.start < other.end && other.start < mine.end
                guard meets else { continue }
                finding.overlaps.append(Overlap(own: mine.occurrence, other: other.occurrence, otherStart: other.start))
                break
            }
        }
        finding.overlaps.sort { $0.otherStart < $1.otherStart }
        return finding
    }

    /// A series' own occurrences are asked for first, then the others over each of its spans
    /// alone, not over the whole horizon: a quarter of a busy store is thousands of occurrences,
    /// and a weekly series meets few of them. Past `spanQueryLimit` own occurrences one query
    /// over the horizon costs less than one per span, and so it does once one span meets more
    /// than `spanOccurrenceLimit` others (a dense repeat elsewhere, whose expansion costs more
    /// the farther it runs): then the horizon is asked for whole, as it would have been, and the
    /// store may refuse it as too large to list.
    static let spanQueryLimit = 128
    static let spanOccurrenceLimit = 100

    /// The record's own occurrences in `window` and every other occurrence that can overlap one
    /// of them (each once).
    private func occurrences(near record: EntityRecord, uid: String?, in window: (from: Date, to: Date)) throws -> [Occurrence] {
        let entity = record.entity
        func horizon(_ filters: [RecordFilter] = []) throws -> [Occurrence] {
            try transaction.occurrences(entity, from: window.from, to: window.to, zone: zone, matching: filters)
        }
        guard rules.isSeries(record) else { return try horizon() }
        let ownFilter: RecordFilter = if let uid, let property = rules.fields.uid { .equals(property, .string(uid)) } else { .equals("id", .uuid(record.id)) }
        let own = try horizon([ownFilter])
        guard own.count <= OverlapCheck.spanQueryLimit else { return try horizon() }
        var found = own
        var seen = Set(own.map { OccurrenceIdentity(id: $0.record.id, start: $0.start.sortKey) })
        // Every span in one request (a server store answers them in one round trip).
        let spans = own.filter { rules.blocksTime($0.record) }.map { occurrence in
            let start = instant(occurrence.start)
            return DateInterval(start: start, end: max(instant(occurrence.end), start.addingTimeInterval(1)))
        }
        for others in try transaction.occurrences(entity, spans: spans, zone: zone, matching: []) {
            guard others.count <= OverlapCheck.spanOccurrenceLimit else { return try horizon() }
            for other in others where seen.insert(OccurrenceIdentity(id: other.record.id, start: other.start.sortKey)).inserted {
                found.append(other)
            }
        }
        return found
    }

    private struct OccurrenceIdentity: Hashable {
        let id: UUID
        let start: Int64
    }

    /// "This overlaps “Standup” (Mon Jun 15 09:00–10:00)." — up to `named` of them, the rest
    /// counted; for a series the first and how many in the horizon. Nil when there are none.
    static func sentence(_ finding: Finding, series: Bool, startsLater: Bool, presenter: Presenter, entity: QualifiedName) -> String? {
        if let why = finding.notLooked { return "Overlaps with other events were not looked for: \(why)." }
        let overlaps = finding.overlaps
        guard let first = overlaps.first else { return nil }
        func named(_ overlap: Overlap) -> String {
            let other = overlap.other
            return "“\(presenter.title(other.record))” (\(presenter.when(other.start, end: other.end)))"
        }
        if series {
            var horizon = startsLater ? "in its first \(horizonDays) days" : "in the next \(horizonDays) days"
            if let counted = finding.countedOccurrences {
                horizon = startsLater ? "in its first \(counted) occurrences" : "in its next \(counted) occurrences"
            }
            if overlaps.count == 1 { return "This overlaps \(named(first)), the only overlap \(horizon)." }
            return "This overlaps \(named(first)) first, and \(overlaps.count - 1) more time\(overlaps.count == 2 ? "" : "s") \(horizon)."
        }
        let listed = overlaps.prefix(OverlapCheck.named).map(named)
        let rest = overlaps.count - listed.count
        if rest > 0 {
            return "This overlaps \(listed.joined(separator: ", ")) and \(rest) more \(IntentEngine.noun(entity, count: rest, in: presenter.registry))."
        }
        let text = listed.count == 1 ? listed[0] : listed.dropLast().joined(separator: ", ") + " and " + (listed.last ?? "")
        return "This overlaps \(text)."
    }

    /// The moment a value names; floating times are read in the engine's zone.
    func instant(_ value: DateTimeValue) -> Date {
        value.instant ?? value.localTime.dateTime(in: zone).instant ?? Date(timeIntervalSince1970: TimeInterval(value.sortKey))
    }
}
