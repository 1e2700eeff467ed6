import Foundation

/// A typed value of the schema language. What a value means is given by the `TypeExpression`
/// it is validated against; the registry does that and converts values to and from JSON.
public indirect enum Value: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(CalendarDate)
    case dateTime(DateTimeValue)
    case duration(DurationValue)
    case url(URL)
    case uuid(UUID)
    case person(PersonValue)
    case place(PlaceValue)
    case recurrence(RecurrenceRule)
    /// A case of an enum, by name.
    case enumCase(String)
    /// A case of a union with the value it holds: `.union("text", .string("Lab 3"))`.
    case union(String, Value)
    /// A transient entity held inside another (an attendee): its properties by name.
    /// Optional properties with no value are absent.
    case object([String: Value])
    /// A reference to an indexed entity, by id.
    case reference(UUID)
    case array([Value])

    /// A short name of the value's shape for messages ("a string", "an array").
    var shapeName: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "a boolean"
        case .date: return "a date"
        case .dateTime: return "a date-time"
        case .duration: return "a duration"
        case .url: return "a URL"
        case .uuid: return "a UUID"
        case .person: return "a person"
        case .place: return "a place"
        case .recurrence: return "a recurrence rule"
        case .enumCase: return "an enum case"
        case .union: return "a union value"
        case .object: return "an object"
        case .reference: return "an entity reference"
        case .array: return "an array"
        }
    }
}

/// A value that does not fit its type, with the path to it (`attendees[1].status`).
public struct ValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes that front ends and JSON-RPC clients can match.
    public enum Code: String, Sendable, Hashable, Codable {
        case typeMismatch = "type_mismatch"
        case unknownEnumCase = "unknown_enum_case"
        case unknownUnionCase = "unknown_union_case"
        case unknownProperty = "unknown_property"
        case missingProperty = "missing_property"
        case unknownParameter = "unknown_parameter"
        case clearedRequired = "cleared_required"
        case invalidDate = "invalid_date"
        case invalidDateTime = "invalid_date_time"
        case invalidDuration = "invalid_duration"
        case invalidURL = "invalid_url"
        case invalidUUID = "invalid_uuid"
        case invalidPerson = "invalid_person"
        case invalidPlace = "invalid_place"
        case invalidRecurrence = "invalid_recurrence"
        case unknownTimeZone = "unknown_time_zone"
        case ambiguousUnion = "ambiguous_union"
        case outOfRange = "out_of_range"
    }

    public let code: Code
    public let message: String
    /// Where in the value the problem is: empty for the value itself.
    public private(set) var path: String
    public let suggestion: String?

    public init(_ code: Code, _ message: String, path: String = "", suggestion: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.suggestion = suggestion
    }

    /// The same error seen from one level up: `status` inside `attendees[1]`.
    func nested(in prefix: String) -> ValueError {
        var copy = self
        if prefix.isEmpty { return copy }
        if path.isEmpty {
            copy.path = prefix
        } else if path.hasPrefix("[") {
            copy.path = prefix + path
        } else {
            copy.path = prefix + "." + path
        }
        return copy
    }

    public var description: String {
        let location = path.isEmpty ? "" : "\(path): "
        let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
        return location + message + hint
    }
}
