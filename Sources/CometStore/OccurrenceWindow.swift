import Foundation

/// Where a store keeps series instances computed ahead of time (materialized), and which series
/// it never does: the policy every store follows, whatever it stores them in.
///
/// The window reaches from a year before the moment a store is opened to two years after. A
/// stored window is kept while it still starts no later than now and reaches a year ahead; then
/// it moves, and every series is expanded again. Outside the window, and for dense series
/// everywhere, a query expands series over its own range.
public struct OccurrenceWindow: Sendable, Hashable, CustomStringConvertible {
    /// The range, in seconds since 1970, both ends included.
    public let bounds: ClosedRange<Int64>

    /// A year back from now (a leap year's days, so a whole year always fits).
    public static let reachBack: Int64 = 366 * 86_400
    /// Two years ahead of now.
    public static let reachAhead: Int64 = 2 * 366 * 86_400

    /// Upper bound on instances materialized per series, so no rule can flood the store. A
    /// series with more in the window (every 20 minutes, FREQ=SECONDLY, COUNT=10^9) is marked
    /// dense instead: none of its instances are stored, and each query expands it over the
    /// query's own range (a month of an hourly series is 744). 10,000 is nine a day over the
    /// three-year window; at 120,000, an import of the RFC 5545 examples (their every-20-minutes
    /// and BYHOUR rules) took 1.3 s instrumented, past the import fuzz target's 1 s.
    public static let maximumInstancesPerSeries = 10_000

    public init(bounds: ClosedRange<Int64>) {
        self.bounds = bounds
    }

    /// The window a store opened at `now` would materialize.
    public init(now: Date) {
        let seconds = Int64(now.timeIntervalSince1970)
        bounds = (seconds - OccurrenceWindow.reachBack)...(seconds + OccurrenceWindow.reachAhead)
    }

    public var lowerBound: Int64 { bounds.lowerBound }
    public var upperBound: Int64 { bounds.upperBound }

    /// Whether `stored`, a window kept from an earlier opening, still serves where this one (the
    /// window of now) is proposed: it starts no later than now and reaches a year ahead.
    public func keeps(_ stored: OccurrenceWindow) -> Bool {
        stored.upperBound >= lowerBound + OccurrenceWindow.reachAhead && stored.lowerBound <= lowerBound + OccurrenceWindow.reachBack
    }

    /// Whether the range [from, to] (seconds) lies inside the window.
    public func covers(from: Int64, to: Int64) -> Bool {
        from >= lowerBound && to <= upperBound
    }

    /// Whether an instance starting at `key` is materialized (when its series is not dense).
    public func contains(_ key: Int64) -> Bool {
        bounds.contains(key)
    }

    /// Whether a series whose expansion over the window gave `instances` keys, reading at most
    /// `maximumInstancesPerSeries + 1` (`complete`: the rule was read to the window's end), is
    /// dense: then none of its instances are materialized.
    public static func isDense(instances: Int, complete: Bool) -> Bool {
        !complete || instances > maximumInstancesPerSeries
    }

    /// How a window is written down where a store keeps it: `lower:upper`.
    public var description: String { "\(lowerBound):\(upperBound)" }

    /// A window written down as `lower:upper` (the two numbers among the colons); nil when
    /// there are not exactly two, or they are the wrong way round.
    public init?(_ text: String) {
        let numbers = text.split(separator: ":").compactMap { Int64($0) }
        guard numbers.count == 2, numbers[0] <= numbers[1] else { return nil }
        bounds = numbers[0]...numbers[1]
    }
}
