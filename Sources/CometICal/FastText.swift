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

    /// Whether `other` occurs in the text, compared as UTF-8 bytes without Foundation: its
    /// `contains` goes through NSString on Linux and crashed on text a fuzzer made ("String
    /// index is out of bounds", Tests/Fixtures/fuzz/ical-crash-quirk-line.ics).
    func containsBytes(_ other: some StringProtocol) -> Bool {
        let needle = Array(other.utf8)
        guard !needle.isEmpty else { return true }
        let haystack = Array(utf8)
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}
