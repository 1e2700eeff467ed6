/// Native string helpers for the import hot path: Foundation's `trimmingCharacters` and
/// `replacingOccurrences` bridge through NSString on Linux and dominated import profiles.
extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmedBlanks: String {
        guard let first = firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        guard let last = lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(self[first...last])
    }

    var isBlank: Bool { allSatisfy { $0 == " " || $0 == "\t" } }
}
