import Foundation
import CometSchema

/// Reads English temporal expressions against a clock and a zone: "next friday at noon",
/// "for 45 minutes", "30 minutes earlier", "every other Tuesday". Deterministic: the same text,
/// clock and zone always give the same resolution. The policies for ambiguous English are in
/// docs/conversation.md.
public struct TemporalParser: Sendable {
    public let now: Date
    public let timeZone: TimeZone
    /// How a numeric date such as "3/5" is read: month first (the default) or day first.
    public var dateOrder: TemporalDateOrder

    public init(now: Date, timeZone: TimeZone, dateOrder: TemporalDateOrder = .mdy) {
        self.now = now
        self.timeZone = timeZone
        self.dateOrder = dateOrder
    }

    public func parse(_ text: String) throws(TemporalError) -> TemporalResolution {
        try read(text).resolution
    }

    /// The resolution, with notes on what it depended on (a numeric date read by the
    /// `dateOrder` setting, or against it), for a caller that shows how it read the text.
    public func read(_ text: String) throws(TemporalError) -> TemporalReading {
        if let exact = machineForm(text.trimmingCharacters(in: .whitespacesAndNewlines)) { return TemporalReading(resolution: exact, notes: []) }
        var grammar = TemporalGrammar(tokens: try TemporalTokenizer.tokens(text), endColumn: text.count + 1)
        grammar.dateOrder = dateOrder
        let resolution = try TemporalResolver(now: now, zone: timeZone).resolve(grammar.parse())
        return TemporalReading(resolution: resolution, notes: dateOrder.notes(grammar.tokens))
    }

    /// The forms programs write, read by the value types' own parsers: an ISO 8601 date-time
    /// (a time without an offset is on this zone's clocks), an ISO duration, an RRULE.
    private func machineForm(_ text: String) -> TemporalResolution? {
        guard let first = text.first else { return nil }
        if first.isNumber, text.contains("T") || text.contains(":"), let value = try? DateTimeValue(parsing: text) {
            if case .floating(let local) = value.kind { return .instant(local.dateTime(in: timeZone)) }
            return .instant(value)
        }
        if first == "P" || first == "-" || first == "+", let duration = DurationValue(parsing: text) { return .duration(duration) }
        let upper = text.uppercased()
        if upper.hasPrefix("FREQ=") || upper.hasPrefix("RRULE:"), let rule = try? RecurrenceRule(parsing: text) { return .recurrence(rule) }
        return nil
    }
}
