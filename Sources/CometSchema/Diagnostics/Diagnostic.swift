/// One compiler-style message about a schema file.
///
/// The `id` is stable across releases so tools and tests can match it; the wording may improve.
public struct Diagnostic: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error
        case warning
        case note
    }

    /// A secondary message pointing at a related place ("first declared here").
    public struct Note: Sendable, Hashable {
        public let message: String
        public let location: SourceLocation?
    }

    public let id: DiagnosticID
    public let severity: Severity
    public let message: String
    public let location: SourceLocation
    /// How many columns the caret underline spans (at least 1).
    public let length: Int
    public let notes: [Note]
    /// A "did you mean" replacement, when one is close enough to be useful.
    public let suggestion: String?

    init(
        _ id: DiagnosticID,
        _ message: String,
        at location: SourceLocation,
        length: Int = 1,
        severity: Severity? = nil,
        notes: [Note] = [],
        suggestion: String? = nil
    ) {
        self.id = id
        self.severity = severity ?? id.defaultSeverity
        self.message = message
        self.location = location
        self.length = max(1, length)
        self.notes = notes
        self.suggestion = suggestion
    }
}

extension Diagnostic: Comparable {
    /// Diagnostics are reported in file order so output is deterministic.
    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        (lhs.location.path, lhs.location.line, lhs.location.column, lhs.id.rawValue)
            < (rhs.location.path, rhs.location.line, rhs.location.column, rhs.id.rawValue)
    }
}
