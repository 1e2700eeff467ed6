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
    let transaction: any StoreTransaction
    let zone: TimeZone
    let now: Date

    /// Every occurrence of another busy record overlapping an occurrence of `record` (in the
    /// horizon for a series), first first; whether the record is a series tells how to say it.
    func overlaps(of record: EntityRecord) throws -> [Overlap] {
        guard rules.blocksTime(record), let start = rules.start(record) else { return [] }
        let begin = instant(start)
        let window: (from: Date, to: Date)
        if rules.isSeries(record) {
            let from = max(begin, now)
            window = (from, from.addingTimeInterval(Double(OverlapCheck.horizonDays) * 86_400))
        } else {
            let end = rules.end(record).map(instant) ?? begin
            // An instant still takes up its moment: the query needs a span to find what holds it.
            window = (begin, max(end, begin.addingTimeInterval(1)))
        }
        let uid = rules.uid(record)
        let found = try transaction.occurrences(record.entity, from: window.from, to: window.to, zone: zone, matching: [])
        func isOwn(_ occurrence: Occurrence) -> Bool {
            occurrence.record.id == record.id || (uid != nil && rules.uid(occurrence.record) == uid)
        }
        // Each moment is worked out once: a daily series against a full quarter is thousands of pairs.
        typealias Span = (occurrence: Occurrence, start: Date, end: Date)
        func span(_ occurrence: Occurrence) -> Span { (occurrence, instant(occurrence.start), instant(occurrence.end)) }
        let own = found.filter { isOwn($0) && rules.blocksTime($0.record) }.map(span)
        let others = found.filter { !isOwn($0) && rules.blocksTime($0.record) }.map(span)
        var overlaps: [Overlap] = []
        for other in others {
            for mine in own {
                // Touching ends (10:00–11:00 after 9:00–10:00) is no overlap; an instant inside
                // another's span is.
                let meets = mine.start == mine.end ? other.start <= mine.start && mine.start < other.end
                    : other.start == other.end ? mine.start <= other.start && other.start < mine.end
                    : mine.start < other.end && other.start < mine.end
                guard meets else { continue }
                overlaps.append(Overlap(own: mine.occurrence, other: other.occurrence, otherStart: other.start))
                break
            }
        }
        return overlaps.sorted { $0.otherStart < $1.otherStart }
    }

    /// "This overlaps “Standup” (Mon Jun 15 09:00–10:00)." — up to `named` of them, the rest
    /// counted; for a series the first and how many in the horizon. Nil when there are none.
    static func sentence(_ overlaps: [Overlap], series: Bool, startsLater: Bool, presenter: Presenter, entity: QualifiedName) -> String? {
        guard let first = overlaps.first else { return nil }
        func named(_ overlap: Overlap) -> String {
            let other = overlap.other
            return "“\(presenter.title(other.record))” (\(presenter.when(other.start, end: other.end)))"
        }
        if series {
            let horizon = startsLater ? "in its first \(horizonDays) days" : "in the next \(horizonDays) days"
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
