import Foundation
import CometSchema

/// Turns a temporal resolution said for a DateTime parameter into parameter values, against
/// the record it moves: a time of day keeps the record's day, a day keeps its time, a shift
/// moves it from where it is, and a range sets both ends. Times are on the record's own clock
/// (its zone), or the person's when it has none.
struct TimeBinding {
    let intent: IntentDefinition
    let entity: EntityDefinition?
    let zone: TimeZone
    let now: Date

    struct Problem: Error { let message: String }

    /// `base` is the record's start as it is (or the occurrence being moved); nil for a create.
    func values(_ resolution: TemporalResolution, for parameter: ParameterDefinition, base: DateTimeValue?,
                saidTo: Bool) throws -> [String: Value] {
        let fields = entity?.temporalFields
        let endParameter = fields?.end.flatMap { intent.parameter($0) }
        let allDayParameter = fields?.isAllDay.flatMap { intent.parameter($0) }
        var values: [String: Value] = [:]

        switch parameter.role {
        case .from?, .to?:
            let range = try self.range(resolution)
            if parameter.role == .from {
                values[parameter.name] = .dateTime(range.start)
                if !saidTo, let to = intent.parameter(role: .to) { values[to.name] = .dateTime(range.end) }
            } else {
                // "between Monday and Friday": up to the end of the last day said.
                values[parameter.name] = .dateTime(range.end)
            }
            return values
        default:
            break
        }

        switch resolution {
        case .instant(let value):
            values[parameter.name] = .dateTime(value)
        case .date(let date):
            if let base {
                values[parameter.name] = .dateTime(try onClock(of: base, date: date, hour: base.localTime.hour, minute: base.localTime.minute))
            } else {
                values[parameter.name] = .dateTime(try local(date, 0, 0).dateTime(in: zone))
                if let allDayParameter, parameter.name == fields?.start { values[allDayParameter.name] = .bool(true) }
            }
        case .timeOfDay(let hour, let minute):
            if let base {
                values[parameter.name] = .dateTime(try onClock(of: base, date: base.localTime.date, hour: hour, minute: minute))
            } else {
                values[parameter.name] = .dateTime(try nextTime(hour: hour, minute: minute))
            }
        case .shift(let shift):
            guard let base else { throw Problem(message: "there is no time to move yet; say when it is") }
            switch shift {
            case .by(let duration):
                do { values[parameter.name] = .dateTime(try base.adding(duration)) } catch {
                    throw Problem(message: "that moves it out of the dates CometCal can keep")
                }
            case .toDate(let date):
                values[parameter.name] = .dateTime(try onClock(of: base, date: date, hour: base.localTime.hour, minute: base.localTime.minute))
            case .toTimeOfDay(let hour, let minute):
                values[parameter.name] = .dateTime(try onClock(of: base, date: base.localTime.date, hour: hour, minute: minute))
            case .toInstant(let value):
                values[parameter.name] = .dateTime(value)
            }
        case .range(let start, let end):
            values[parameter.name] = .dateTime(start)
            if parameter.name == fields?.start, let endParameter { values[endParameter.name] = .dateTime(end) }
        case .duration(let duration):
            // "make it last 2 hours": the end, from the start.
            guard let base else { throw Problem(message: "say when it starts before how long it lasts") }
            do { values[parameter.name] = .dateTime(try base.adding(duration)) } catch {
                throw Problem(message: "that ends it outside the dates CometCal can keep")
            }
        case .recurrence, .recurrenceEnd:
            throw Problem(message: "that is a repeat, not a time")
        }
        return values
    }

    /// A span to search: a day is the whole day, a moment is the rest of its day.
    func range(_ resolution: TemporalResolution) throws -> (start: DateTimeValue, end: DateTimeValue) {
        switch resolution {
        case .range(let start, let end): return (start, end)
        case .date(let date):
            let start = try local(date, 0, 0).dateTime(in: zone)
            return (start, start.adding(days: 1))
        case .instant(let value):
            let day = value.wallTime(in: zone).date
            return (value, try local(day, 0, 0).dateTime(in: zone).adding(days: 1))
        case .timeOfDay(let hour, let minute):
            let start = try nextTime(hour: hour, minute: minute)
            return (start, start.adding(seconds: 3600))
        default:
            throw Problem(message: "that is not a time to look in; say a day or a range, such as “this week”")
        }
    }

    /// The same clock as `base`: its zone, floating when it floats, the person's zone for UTC.
    private func onClock(of base: DateTimeValue, date: CalendarDate, hour: Int, minute: Int) throws -> DateTimeValue {
        let wall = try local(date, hour, minute)
        switch base.kind {
        case .floating: return .floating(wall)
        case .zoned(_, let identifier):
            do { return try .zoned(wall, timeZone: identifier) } catch { throw Problem(message: "\(error)") }
        case .utc: return wall.dateTime(in: zone)
        }
    }

    /// The next time the clock reads hour:minute: today if it is still ahead, else tomorrow.
    private func nextTime(hour: Int, minute: Int) throws -> DateTimeValue {
        let today = DateTimeValue.utc(now).wallTime(in: zone).date
        let candidate = try local(today, hour, minute).dateTime(in: zone)
        if let instant = candidate.instant, instant > now { return candidate }
        return candidate.adding(days: 1)
    }

    private func local(_ date: CalendarDate, _ hour: Int, _ minute: Int) throws -> LocalDateTime {
        guard let wall = LocalDateTime(date: date, hour: hour, minute: minute) else { throw Problem(message: "\(hour):\(minute) is not a time of day") }
        return wall
    }
}
