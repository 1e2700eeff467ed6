import CometArguments
import CometIntents
import CometSchema
import CometText

/// `--limit N` and `--offset N` on every command that searches, and the note printed under a
/// result they cut. The engine checks the numbers' range; here they are only read.
enum PageFlags {
    static let options: [OptionSpec] = [
        .value("limit", valueName: "n", help: "Show at most N results (default: all). A cut result says so and how to get the rest."),
        .value("offset", valueName: "n", help: "Skip the first N results; with --limit, the note under a cut result gives the next page's offset."),
    ]

    static let names: Set<String> = ["limit", "offset"]

    /// Searches get the flags, unless the intent has parameters of the same names.
    static func apply(to intent: IntentDefinition) -> Bool {
        intent.action == .search && !IntentFlags(intent: intent).flags.contains { names.contains($0.long) }
    }

    /// The page the flags ask for (everything when neither is given).
    static func page(from parsed: ParsedCommand) throws -> ResultPage {
        func number(_ name: String) throws -> Int? {
            guard let text = parsed.value(name) else { return nil }
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw CommandFailure(code: .usage, message: "error: --\(name) takes a whole number, not '\(text)'")
            }
            return number
        }
        return ResultPage(limit: try number("limit"), offset: try number("offset") ?? 0)
    }

    /// "Showing the first 200 of 6,272 events; for more, add --offset 200 (or a larger --limit)."
    /// Nil when the results are everything that matched.
    static func note(_ page: PageInfo, noun: (Int) -> String) -> String? {
        guard page.isTruncated || page.offset > 0, page.total > 0 else { return nil }
        let total = "\(NumberText.grouped(page.total)) \(noun(page.total))"
        if page.count == 0 {
            return "No \(noun(2)) from number \(NumberText.grouped(page.offset + 1)) on; there \(page.total == 1 ? "is" : "are") \(NumberText.grouped(page.total))."
        }
        // The offset as a flag value: digits only, so it can be copied as is.
        let more = page.next.map { "; for more, add --offset \($0.offset)" } ?? ""
        if page.offset == 0 {
            return "Showing the first \(NumberText.grouped(page.count)) of \(total)\(more) (or a larger --limit)."
        }
        return "Showing \(NumberText.grouped(page.offset + 1))–\(NumberText.grouped(page.offset + page.count)) of \(total)\(more)."
    }
}
