import Foundation

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: the same as Foundation's
    /// `trimmingCharacters(in: .whitespaces)` (tab and Unicode space separators), without
    /// bridging to NSString when there is nothing to trim, which is nearly always. Reading
    /// stored records called Foundation's version for every rule and person, and it was a
    /// tenth of an agenda's time.
    public func trimmingSpaces() -> String {
        let text = String(self)
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].isSpaceOrTab { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].isSpaceOrTab { end = scalars.index(before: end) }
        if start == scalars.startIndex, end == scalars.endIndex { return text }
        return String(Substring(scalars[start..<end]))
    }
}

extension Unicode.Scalar {
    /// Tab or a space separator (Zs): CharacterSet.whitespaces.
    var isSpaceOrTab: Bool {
        self == " " || self == "\t" || (value >= 0x80 && properties.generalCategory == .spaceSeparator)
    }
}
