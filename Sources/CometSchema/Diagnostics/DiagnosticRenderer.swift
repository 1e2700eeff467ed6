/// Renders diagnostics like a compiler: `path:line:col: error: message [S004]`, the source
/// line, a caret under the column, then notes.
public struct DiagnosticRenderer: Sendable {
    /// The sources by path, so the renderer can quote the offending line.
    private let sources: [String: SourceFile]
    private let showCodes: Bool

    public init(sources: [SourceFile], showCodes: Bool = true) {
        var byPath: [String: SourceFile] = [:]
        for source in sources { byPath[source.path] = source }
        self.sources = byPath
        self.showCodes = showCodes
    }

    public func render(_ diagnostic: Diagnostic) -> String {
        var lines: [String] = []
        var headline = "\(diagnostic.location): \(diagnostic.severity.rawValue): \(diagnostic.message)"
        if let suggestion = diagnostic.suggestion {
            headline += "; did you mean '\(suggestion)'?"
        }
        if showCodes { headline += " [\(diagnostic.id.rawValue)]" }
        lines.append(headline)
        lines.append(contentsOf: quote(diagnostic.location, length: diagnostic.length))
        for note in diagnostic.notes {
            if let location = note.location {
                lines.append("\(location): note: \(note.message)")
                lines.append(contentsOf: quote(location, length: 1))
            } else {
                lines.append("note: \(note.message)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// How many diagnostics are shown, as a compiler stops after a screenful: the rest are
    /// counted on a last line, never dropped silently.
    public static let shownLimit = 50

    /// The first `limit` diagnostics, then how many more there are of each kind.
    public func render(_ diagnostics: [Diagnostic], limit: Int = DiagnosticRenderer.shownLimit) -> String {
        var text = diagnostics.prefix(limit).map { render($0) + "\n" }.joined()
        let rest = diagnostics.dropFirst(limit)
        if !rest.isEmpty {
            let errors = rest.filter { $0.severity == .error }.count
            let others = rest.count - errors
            var parts: [String] = []
            if errors > 0 { parts.append("\(errors) more error\(errors == 1 ? "" : "s")") }
            if others > 0 { parts.append("\(others) more warning\(others == 1 ? "" : "s")") }
            text += "note: \(parts.joined(separator: " and ")) not shown; fix these first, or see them all with --json\n"
        }
        return text
    }

    /// The quoted source line and the caret, with tabs kept so the caret lines up.
    private func quote(_ location: SourceLocation, length: Int) -> [String] {
        guard let source = sources[location.path] else { return [] }
        let text = source.lineText(location.line)
        guard !text.isEmpty || location.column == 1 else { return [] }
        let prefix = text.unicodeScalars.prefix(max(0, location.column - 1))
        let padding = String(String.UnicodeScalarView(prefix.map { $0 == "\t" ? "\t" : " " }))
        let available = max(1, text.unicodeScalars.count - (location.column - 1))
        let underline = "^" + String(repeating: "~", count: max(0, min(length, available) - 1))
        return ["    " + text, "    " + padding + underline]
    }
}
