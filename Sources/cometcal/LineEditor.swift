import Foundation
import CEditLine

/// The lines of `chat`: on a terminal through libedit, so arrow keys move and recall instead of
/// arriving as text, with the history kept between sessions; otherwise plain lines from
/// standard input (a pipe, a script).
final class LineEditor {
    /// How many lines the history keeps.
    static let historyLength = 1000

    private let interactive: Bool
    private let historyFile: URL?
    /// Whether the terminal's text is read as UTF-8 (else the prompt is plain ASCII).
    private var unicode = true
    /// Why the history could not be kept, said once.
    private(set) var historyProblem: String?

    init(interactive: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.interactive = interactive
        historyFile = interactive ? LineEditor.historyLocation(environment) : nil
        guard interactive else { return }
        // libedit reads and draws multibyte text by the locale: without a UTF-8 one the prompt's
        // "›" and any accented word cannot be converted (it crashed on the prompt).
        unicode = LineEditor.useUTF8Locale()
        cometcal_editline_name()
        using_history()
        stifle_history(Int32(LineEditor.historyLength))
        if let historyFile, FileManager.default.fileExists(atPath: historyFile.path) {
            _ = read_history(historyFile.path)
        }
    }

    /// $XDG_STATE_HOME/cometcal/chat_history, else ~/.local/state/cometcal/chat_history.
    static func historyLocation(_ environment: [String: String]) -> URL? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("cometcal/chat_history")
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/cometcal/chat_history")
    }

    /// The next line, nil at the end of input (Ctrl-D).
    func line(prompt: String) -> String? {
        guard interactive else { return readLine() }
        let shown = unicode ? prompt : String(prompt.unicodeScalars.map { $0.isASCII ? Character($0) : ">" })
        guard let raw = readline(shown) else { return nil }
        defer { free(raw) }
        let text = String(cString: raw)
        if !text.trimmingCharacters(in: .whitespaces).isEmpty { remember(text) }
        return text
    }

    /// The person's locale for characters when it is UTF-8, else C.UTF-8; false when neither is.
    private static func useUTF8Locale() -> Bool {
        func isUTF8() -> Bool { String(cString: nl_langinfo(nl_item(CODESET))).uppercased().replacingOccurrences(of: "-", with: "") == "UTF8" }
        if setlocale(LC_CTYPE, "") != nil, isUTF8() { return true }
        if setlocale(LC_CTYPE, "C.UTF-8") != nil, isUTF8() { return true }
        return false
    }

    private func remember(_ text: String) {
        _ = add_history(text)
        guard let historyFile, historyProblem == nil else { return }
        do {
            try FileManager.default.createDirectory(at: historyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            if write_history(historyFile.path) != 0 { throw CocoaError(.fileWriteUnknown) }
        } catch {
            historyProblem = "note: the chat history is not kept: \(historyFile.path) cannot be written"
        }
    }
}
