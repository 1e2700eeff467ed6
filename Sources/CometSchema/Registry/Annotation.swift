/// An annotation as declared, kept for layers that read their own annotations
/// (the iCalendar bridge reads `@ical`, the conversation layer reads `@phrase`).
public struct Annotation: Sendable, Hashable {
    public enum Argument: Sendable, Hashable {
        case string(String)
        case integer(Int)
        case double(Double)
        case bool(Bool)
        case name(String)
        case array([Argument])
    }

    public let name: String
    /// Positional arguments in order.
    public let positional: [Argument]
    /// Labelled arguments (`param: "PARTSTAT"`).
    public let labelled: [String: Argument]
    public let location: SourceLocation

    public init(name: String, positional: [Argument] = [], labelled: [String: Argument] = [:], location: SourceLocation) {
        self.name = name
        self.positional = positional
        self.labelled = labelled
        self.location = location
    }

    /// The first positional argument as a string, if it is one.
    public var firstString: String? {
        if case .string(let value)? = positional.first { return value }
        return nil
    }

    public func string(_ label: String) -> String? {
        if case .string(let value)? = labelled[label] { return value }
        return nil
    }
}

extension Array where Element == Annotation {
    public func first(named name: String) -> Annotation? { first { $0.name == name } }
    public func contains(named name: String) -> Bool { contains { $0.name == name } }
}

extension Array where Element == Annotation {
    /// Every string argument of every annotation called `name`, in order: the words a
    /// repeatable, variadic annotation declares (`@verbs("move", "shift")`).
    public func strings(named name: String) -> [String] {
        filter { $0.name == name }.flatMap { annotation in
            annotation.positional.compactMap { argument -> String? in if case .string(let text) = argument { return text } else { return nil } }
        }
    }
}
