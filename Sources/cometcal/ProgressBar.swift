import Foundation

/// A one-line progress bar on standard error, only on a terminal. Each redraw returns to the
/// start of the line and clears what was there, and the line is kept one column short of the
/// terminal's width (read at each redraw, so a resize is followed): it never wraps, so no
/// stale lines are left behind. A long file name is shortened in the middle.
final class ProgressBar {
    private let enabled: Bool
    private let columns: () -> Int
    private let write: (String) -> Void
    private var drawn = false
    private var last: (line: String, time: Date)?

    init(enabled: Bool, columns: @escaping () -> Int = { Terminal.columns },
         write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.enabled = enabled
        self.columns = columns
        self.write = write
    }

    func update(_ name: String, bytes: Int, of total: Int?) {
        guard enabled else { return }
        let line = ProgressBar.line(name: (name as NSString).lastPathComponent, bytes: bytes, total: total, columns: columns())
        // Redraw when something a person can see changed, at most 20 times a second.
        if let last, last.line == line || Date().timeIntervalSince(last.time) < 0.05 { return }
        last = (line, Date())
        write("\r" + line + "\u{1B}[K")
        drawn = true
    }

    func finish() {
        guard enabled, drawn else { return }
        write("\r\u{1B}[K")
    }

    /// `name.ics  [#######      ]  42%  12.3 of 29.1 MiB`, at most `columns - 1` wide: the bar
    /// shrinks first, then the sizes go, then the name is shortened.
    static func line(name: String, bytes: Int, total: Int?, columns: Int) -> String {
        let room = max(10, columns - 1)
        guard let total, total > 0 else {
            let sizes = "  " + mebibytes(bytes) + " MiB"
            return shorten(name, to: room - sizes.count) + sizes
        }
        let fraction = min(1, Double(bytes) / Double(total))
        let percent = String(format: "%3.0f%%", fraction * 100)
        var sizes = "  \(mebibytes(bytes)) of \(mebibytes(total)) MiB"
        let minimumBar = 10
        var label = name
        if label.count + 2 + minimumBar + 4 + 2 + percent.count + sizes.count > room { sizes = "" }
        let fixed = 2 + 2 + 2 + percent.count + sizes.count
        if label.count + fixed + minimumBar > room { label = shorten(label, to: max(5, room - fixed - minimumBar)) }
        let barWidth = max(1, min(40, room - label.count - fixed))
        let filled = Int(fraction * Double(barWidth))
        return label + "  [" + String(repeating: "#", count: filled) + String(repeating: " ", count: barWidth - filled) + "]  " + percent + sizes
    }

    /// "a-very-long…name.ics": the start and the end kept, the middle left out.
    static func shorten(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(0, width))) }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        return String(text.prefix(head)) + "…" + String(text.suffix(tail))
    }

    private static func mebibytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }
}
