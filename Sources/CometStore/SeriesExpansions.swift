import Foundation
import CometSchema

/// Series expanded outside the materialized window, kept between queries of one store
/// connection: each series' shape, and its instance keys a stretch of time at a time. Not
/// thread-safe: one connection's queries run one at a time.
///
/// Why: outside the window a query expands every series that reaches its range (5,000 at
/// 50,000 events), and a profile of a warm month there spent a third of its time expanding
/// rules and turning wall times into instants, and a tenth building each series' shape from its
/// record again. People and CalDAV clients ask for the same past and far months again.
///
/// The keys of a stretch are every instance starting in it, computed once; a query takes the
/// slice it needs. A store keeps one per connection, forgets a record's entry when the record
/// changes, and forgets everything when another connection committed. Dense series are not
/// kept: their instances are expanded over each query's own range, as the window policy says.
public final class SeriesExpansions {
    /// Instances are kept in stretches of 2^21 seconds (about 24 days): a month's query reads
    /// two or three, so a one-shot query (a CLI run) expands little more than its range.
    public static let stretchSeconds: Int64 = 1 << 21
    /// Keys kept at most, over all series (8 bytes each): past it, everything is dropped and
    /// filled again by the queries that follow.
    public static let keyLimit = 2_000_000
    /// Instances of one series in one stretch read at most; a series with more (which only a
    /// dense rule has) is expanded per query instead.
    static let stretchReadLimit = 100_000

    private struct Entry {
        let shape: SeriesShape
        let series: RecurrenceSet
        var stretches: [Int64: [Int64]] = [:]
    }

    private var entries: [UUID: Entry] = [:]
    private var keptKeys = 0

    public init() {}

    public func forget(_ id: UUID) {
        if let entry = entries.removeValue(forKey: id) {
            keptKeys -= entry.stretches.values.reduce(0) { $0 + $1.count }
        }
    }

    public func forgetAll() {
        entries.removeAll(keepingCapacity: true)
        keptKeys = 0
    }

    /// The series' shape, built from its record on first use (`record` reads it).
    public func shape(of id: UUID, temporal: TemporalFields, record: () throws -> EntityRecord?) rethrows -> (shape: SeriesShape, series: RecurrenceSet)? {
        if let entry = entries[id] { return (entry.shape, entry.series) }
        guard let record = try record(), let shape = SeriesShape(record: record, temporal: temporal), let series = shape.series else { return nil }
        entries[id] = Entry(shape: shape, series: series)
        return (shape, series)
    }

    /// Keys of the series' instances that overlap [from, through] (start at most `through`, end
    /// at least `from`), in order and each once; nil when the series has more in one stretch
    /// than a stretch reads (expand it per query).
    public func instanceKeys(of id: UUID, from: Int64, through: Int64) -> [Int64]? {
        guard var entry = entries[id] else { return nil }
        let earliest = from - entry.shape.durationSeconds
        var keys: [Int64] = []
        var stretch = SeriesExpansions.floorDivide(earliest, SeriesExpansions.stretchSeconds)
        let last = SeriesExpansions.floorDivide(through, SeriesExpansions.stretchSeconds)
        var added = 0
        while stretch <= last {
            let stored: [Int64]
            if let known = entry.stretches[stretch] {
                stored = known
            } else {
                guard let computed = SeriesExpansions.expand(entry, stretch: stretch) else { return nil }
                entry.stretches[stretch] = computed
                added += computed.count
                stored = computed
            }
            // A stretch of a daily rule holds 24 keys: scanning them costs less than searching.
            for key in stored where key >= earliest && key <= through { keys.append(key) }
            stretch += 1
        }
        if added > 0 {
            if keptKeys + added > SeriesExpansions.keyLimit { forgetAll() }
            keptKeys += added
            entries[id] = entry
        }
        return keys
    }

    private static func expand(_ entry: Entry, stretch: Int64) -> [Int64]? {
        let start = stretch * stretchSeconds
        let end = start + stretchSeconds
        // Wall times differ from instants by less than a day: widen, then keep exactly [start, end).
        let read = entry.series.occurrences(from: LocalDateTime(wallSeconds: start - 86_400), through: LocalDateTime(wallSeconds: end + 86_400),
                                            limit: stretchReadLimit)
        guard read.count < stretchReadLimit else { return nil }
        var keys = read.map { entry.shape.key(of: $0) }.filter { $0 >= start && $0 < end }
        keys.sort()
        // A rule and an added date may name the same instance: it is one occurrence.
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
