import Foundation
import CometSchema

/// Series expanded outside the materialized window, kept between queries of one store
/// connection: each series' shape, its instance keys a stretch of time at a time, and the
/// instances its overrides stand in for. Not thread-safe: one connection's queries run one at
/// a time.
///
/// Why: outside the window a query expands every series that reaches its range (5,000 at
/// 50,000 events), and a profile of a warm month there spent a third of its time expanding
/// rules and turning wall times into instants, a tenth building each series' shape from its
/// record again, and a tenth asking for each series' overrides. People and CalDAV clients ask
/// for the same past and far months again.
///
/// The keys of a stretch are every instance starting in it, computed once; a query takes the
/// slice it needs. A store keeps one per connection. A record's entry goes when the record
/// changes, every series' overrides go when any record does (an override is a record of its
/// own), and everything goes when another connection committed. Dense series are not kept:
/// their instances are expanded over each query's own range, as the window policy says.
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

    /// One series as kept: a class, so that a query reads and fills it in place.
    public final class Series {
        public let shape: SeriesShape
        public let rules: RecurrenceSet
        fileprivate var stretches: [Int64: [Int64]] = [:]

        init(shape: SeriesShape, rules: RecurrenceSet) {
            self.shape = shape
            self.rules = rules
        }
    }

    private var entries: [UUID: Series] = [:]
    private var overridden: [String: Set<Int64>] = [:]
    private var keptKeys = 0

    public init() {}

    /// Forgets what a changed record made: its series, and every series' overrides (the record
    /// may be an override of any of them).
    public func forget(_ id: UUID) {
        if let entry = entries.removeValue(forKey: id) {
            keptKeys -= entry.stretches.values.reduce(0) { $0 + $1.count }
        }
        overridden.removeAll(keepingCapacity: true)
    }

    public func forgetAll() {
        entries.removeAll(keepingCapacity: true)
        overridden.removeAll(keepingCapacity: true)
        keptKeys = 0
    }

    /// The series `id`, its shape made on first use (`make` reads the record); nil when the
    /// record is gone or is not a series.
    public func series(_ id: UUID, make: () throws -> SeriesShape?) rethrows -> Series? {
        if let entry = entries[id] { return entry }
        guard let shape = try make(), let rules = shape.series else { return nil }
        let entry = Series(shape: shape, rules: rules)
        entries[id] = entry
        return entry
    }

    /// The original keys the overrides of the series `uid` stand in for, read on first use.
    public func overriddenKeys(uid: String, read: () throws -> Set<Int64>) rethrows -> Set<Int64> {
        if let known = overridden[uid] { return known }
        let keys = try read()
        overridden[uid] = keys
        return keys
    }

    /// Keys of the series' instances that overlap [from, through] (start at most `through`, end
    /// at least `from`), in order and each once; nil when the series has more in one stretch
    /// than a stretch reads (expand it per query).
    public func instanceKeys(of series: Series, from: Int64, through: Int64) -> [Int64]? {
        let earliest = from - series.shape.durationSeconds
        var keys: [Int64] = []
        var stretch = SeriesExpansions.floorDivide(earliest, SeriesExpansions.stretchSeconds)
        let last = SeriesExpansions.floorDivide(through, SeriesExpansions.stretchSeconds)
        while stretch <= last {
            if series.stretches[stretch] == nil {
                guard let computed = SeriesExpansions.expand(series, stretch: stretch) else { return nil }
                if keptKeys + computed.count > SeriesExpansions.keyLimit {
                    // Full: start again (this series stays reachable through the caller).
                    for entry in entries.values { entry.stretches.removeAll() }
                    keptKeys = 0
                }
                series.stretches[stretch] = computed
                keptKeys += computed.count
            }
            // A stretch of a daily rule holds 24 keys: scanning them costs less than searching.
            for key in series.stretches[stretch] ?? [] where key >= earliest && key <= through { keys.append(key) }
            stretch += 1
        }
        return keys
    }

    private static func expand(_ series: Series, stretch: Int64) -> [Int64]? {
        let start = stretch * stretchSeconds
        let end = start + stretchSeconds
        // Wall times differ from instants by less than a day: widen, then keep exactly [start, end).
        let read = series.rules.occurrences(from: LocalDateTime(wallSeconds: start - 86_400), through: LocalDateTime(wallSeconds: end + 86_400),
                                            limit: stretchReadLimit)
        guard read.count < stretchReadLimit else { return nil }
        var keys = read.map { series.shape.key(of: $0) }.filter { $0 >= start && $0 < end }
        keys.sort()
        // Two wall times can name one instant (one in a spring-forward gap, and the hour after
        // it): that is one occurrence.
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for key in keys where unique.last != key { unique.append(key) }
        return unique
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
