import Foundation
import CometSchema

/// One occurrence of an entity with a time: a single event, one instance of a series, or an
/// override standing in for one instance.
public struct Occurrence: Sendable, Hashable {
    public let record: EntityRecord
    public let start: DateTimeValue
    public let end: DateTimeValue
    /// True for instances generated from a recurrence rule (not for overrides or singles).
    public let isRecurrenceInstance: Bool
    /// The start the occurrence has in its series (the RECURRENCE-ID an override would carry).
    public let recurrenceKey: DateTimeValue

    public init(record: EntityRecord, start: DateTimeValue, end: DateTimeValue, isRecurrenceInstance: Bool, recurrenceKey: DateTimeValue) {
        self.record = record
        self.start = start
        self.end = end
        self.isRecurrenceInstance = isRecurrenceInstance
        self.recurrenceKey = recurrenceKey
    }
}
