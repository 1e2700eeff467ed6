import CometSchema

/// Why an intent failed. `code` is stable for scripts and JSON-RPC clients; `message` is for
/// people and says what to do.
public struct IntentError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case unknownIntent = "unknown_intent"
        case unknownParameter = "unknown_parameter"
        case invalidValue = "invalid_value"
        case clearedRequired = "cleared_required"
        case notFound = "not_found"
        case duplicate = "duplicate"
        case endBeforeStart = "end_before_start"
        case unknownTimeZone = "unknown_time_zone"
        case invalidRecurrence = "invalid_recurrence"
        case notRecurring = "not_recurring"
        case noSuchOccurrence = "no_such_occurrence"
        case notSupported = "not_supported"
        case nothingToUndo = "nothing_to_undo"
        case nothingToRedo = "nothing_to_redo"
        case undoConflict = "undo_conflict"
        case storage = "storage"
    }

    public let code: Code
    public let message: String
    /// The parameter the error is about, when there is one.
    public let parameter: String?
    public let suggestion: String?

    public init(_ code: Code, _ message: String, parameter: String? = nil, suggestion: String? = nil) {
        self.code = code
        self.message = message
        self.parameter = parameter
        self.suggestion = suggestion
    }

    public var description: String {
        message + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
    }

    /// Value errors keep their own code where it says more than `invalid_value`.
    init(_ error: ValueError, parameter: String) {
        let code: Code
        switch error.code {
        case .unknownParameter: code = .unknownParameter
        case .clearedRequired: code = .clearedRequired
        case .unknownTimeZone: code = .unknownTimeZone
        case .invalidRecurrence: code = .invalidRecurrence
        default: code = .invalidValue
        }
        let path = error.path.isEmpty ? parameter : (error.path.hasPrefix(parameter) ? error.path : parameter + "." + error.path)
        self.init(code, "\(path): \(error.message)", parameter: parameter, suggestion: error.suggestion)
    }
}
