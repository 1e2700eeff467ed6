/// The three states of an optional intent parameter, end to end (DESIGN.md "Value state"):
/// not part of the request, a new value, or an explicit removal.
/// JSON: key absent / value / `null` — as JMAP `/set` and JSCalendar patches do.
public enum ParameterValue: Sendable, Hashable {
    /// Not part of the request: leave the current value as it is.
    case unset
    /// Remove the value (or reset it to the schema's default).
    case cleared
    /// Replace the value.
    case set(Value)

    public var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }

    public var isUnset: Bool { self == .unset }
}

/// The parameters of one intent request, each with its value state. Absent names are `.unset`,
/// so a binding can never invent a value the caller did not send.
public struct ParameterBindings: Sendable, Hashable {
    private var states: [String: ParameterValue]

    public init(_ states: [String: ParameterValue] = [:]) {
        self.states = states.filter { !$0.value.isUnset }
    }

    public subscript(name: String) -> ParameterValue {
        get { states[name] ?? .unset }
        set { states[name] = newValue.isUnset ? nil : newValue }
    }

    /// Names that are set or cleared, sorted.
    public var mentionedNames: [String] { states.keys.sorted() }
}
