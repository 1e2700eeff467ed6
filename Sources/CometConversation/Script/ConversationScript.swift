import Foundation
import CometSchema

/// A conversation written down: the clock, the seeds, the turns and what must come of them.
/// One directive per line; `#` starts a comment (outside quotes and regular expressions). The
/// format is in docs/conversation.md.
public struct ConversationScript: Sendable {
    public enum Directive: Sendable {
        /// `@now 2026-06-08 09:00 America/Los_Angeles`
        case now(LocalDateTime, zone: String)
        /// `@seed picnic.ics`, relative to the script.
        case seed(String)
        /// `@schemas ../Schemas/tasks`: the schemas this script runs on, relative to the script.
        case schemas(String)
        /// `> Who's coming to my picnic?`
        case say(String)
        /// `> @audio move-picnic.wav`: the turn is the sound in the file, relative to the script,
        /// heard by the runner's listener (docs/voice.md).
        case audio(String)
        /// `< Ada`, `< = exact reply`, `< /regular expression/`
        case reply(ReplyCheck)
        /// `@expect done`, `@expect needsValue title`, `@expect needsDisambiguation 2`
        case outcome(name: String, detail: String?)
        /// `@expect event "Picnic" startDate 2026-06-13 11:30`; `exists` and `missing` have no field.
        case field(entity: String, title: String, field: String, value: String)
        case exists(entity: String, title: String, present: Bool)
        /// `@expect events 7`, `@expect count Task 2`
        case count(entity: String, Int)
    }

    public enum ReplyCheck: Sendable {
        case contains(String)
        case exact(String)
        case matches(String)
    }

    public struct Line: Sendable {
        public let number: Int
        public let directive: Directive
    }

    /// A line the format does not allow, with the reason.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let line: Int
        public let message: String
        public var description: String { "\(path):\(line): \(message)" }
    }

    public let path: String
    public let lines: [Line]

    /// Scripts are small; a larger file is refused rather than read.
    public static let sizeLimit = 1_000_000

    public static func load(path: String) throws(Problem) -> ConversationScript {
        // The size first: a file past the limit is refused without being read.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > sizeLimit {
            throw Problem(path: path, line: 0, message: "the script is \(size) bytes; scripts are limited to \(sizeLimit) bytes")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw Problem(path: path, line: 0, message: "cannot read the script: \(error.localizedDescription)")
        }
        guard data.count <= sizeLimit else {
            throw Problem(path: path, line: 0, message: "the script is \(data.count) bytes; scripts are limited to \(sizeLimit) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Problem(path: path, line: 0, message: "the script is not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    public static func parse(_ text: String, path: String) throws(Problem) -> ConversationScript {
        var lines: [Line] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = String(raw)
            if line.hasSuffix("\r") { line.removeLast() }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func problem(_ message: String) -> Problem { Problem(path: path, line: number, message: message) }
            if trimmed.hasPrefix(">") {
                let turn = withoutComment(String(trimmed.dropFirst())).trimmingCharacters(in: .whitespaces)
                guard !turn.isEmpty else { throw problem("a turn ('>') needs the words said") }
                if turn == "@audio" || turn.hasPrefix("@audio ") || turn.hasPrefix("@audio\t") {
                    let file = ScriptWords.split(String(turn.dropFirst("@audio".count)))
                    guard file.count == 1, !file[0].isEmpty else { throw problem("'> @audio' takes one WAVE file, relative to the script: > @audio move-picnic.wav") }
                    lines.append(Line(number: number, directive: .audio(file[0])))
                    continue
                }
                lines.append(Line(number: number, directive: .say(turn)))
            } else if trimmed.hasPrefix("<") {
                lines.append(Line(number: number, directive: .reply(try replyCheck(String(trimmed.dropFirst()), problem: problem))))
            } else if trimmed.hasPrefix("@") {
                lines.append(Line(number: number, directive: try directive(withoutComment(trimmed), problem: problem)))
            } else {
                throw problem("'\(trimmed.prefix(40))' is not a directive; a line starts with '>' (a turn), '<' (the reply), '@' (now, seed, schemas, expect) or '#' (a comment)")
            }
        }
        return ConversationScript(path: path, lines: lines)
    }

    private static func replyCheck(_ text: String, problem: (String) -> Problem) throws(Problem) -> ReplyCheck {
        let body = text.trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("/") {
            // A regular expression runs to the first '/' after which only a comment or nothing
            // follows (a comment may hold a '/' of its own: "# a park and/or a lawn"), else its last.
            let closers = body.indices.dropFirst().filter { body[$0] == "/" }
            let commentFollows: (String.Index) -> Bool = { index in
                let rest = body[body.index(after: index)...].trimmingCharacters(in: .whitespaces)
                return rest.isEmpty || rest.hasPrefix("#")
            }
            guard let close = closers.first(where: commentFollows) ?? closers.last else { throw problem("a regular expression '/…' is not closed with '/'") }
            let pattern = String(body[body.index(after: body.startIndex)..<close])
            let after = body[body.index(after: close)...].trimmingCharacters(in: .whitespaces)
            guard after.isEmpty || after.hasPrefix("#") else { throw problem("after the regular expression comes only a comment, not '\(after)'") }
            guard !pattern.isEmpty else { throw problem("the regular expression is empty") }
            do { _ = try NSRegularExpression(pattern: pattern) } catch {
                throw problem("'\(pattern)' is not a valid regular expression")
            }
            return .matches(pattern)
        }
        let uncommented = withoutComment(body).trimmingCharacters(in: .whitespaces)
        if uncommented.hasPrefix("=") {
            let exact = uncommented.dropFirst().trimmingCharacters(in: .whitespaces)
            guard !exact.isEmpty else { throw problem("'< =' needs the exact reply after it") }
            return .exact(exact)
        }
        guard !uncommented.isEmpty else { throw problem("'<' needs the text the reply contains") }
        return .contains(uncommented)
    }

    private static func directive(_ text: String, problem: (String) -> Problem) throws(Problem) -> Directive {
        let words = ScriptWords.split(text)
        guard let head = words.first else { throw problem("empty directive") }
        let rest = Array(words.dropFirst())
        switch head {
        case "@now":
            guard rest.count >= 2, let local = LocalDateTime(parsing: rest[0] + "T" + rest[1] + (rest[1].count == 5 ? ":00" : "")) else {
                throw problem("@now takes a date, a time and a zone: @now 2026-06-08 09:00 America/Los_Angeles")
            }
            let zone = rest.count > 2 ? rest[2] : "UTC"
            guard rest.count <= 3, TimeZones.isKnown(zone) else { throw problem("@now: '\(zone)' is not a known time zone (write an IANA name such as America/Los_Angeles)") }
            return .now(local, zone: zone)
        case "@seed", "@schemas":
            guard rest.count == 1 else { throw problem("\(head) takes one path, relative to the script") }
            return head == "@seed" ? .seed(rest[0]) : .schemas(rest[0])
        case "@expect":
            return try expectation(rest, problem: problem)
        default:
            throw problem("unknown directive '\(head)'; the directives are @now, @seed, @schemas and @expect")
        }
    }

    static let outcomes = ["done", "needsValue", "needsConfirmation", "needsDisambiguation", "cancelled", "failed"]

    private static func expectation(_ words: [String], problem: (String) -> Problem) throws(Problem) -> Directive {
        guard let first = words.first else { throw problem("@expect needs what to expect: an outcome (done, needsValue, …), an entity field, or a count") }
        if outcomes.contains(first) {
            guard words.count <= 2 else { throw problem("@expect \(first) takes at most one more word") }
            if first == "needsDisambiguation", words.count == 2, Int(words[1]) == nil { throw problem("@expect needsDisambiguation takes a number of candidates") }
            return .outcome(name: first, detail: words.count == 2 ? words[1] : nil)
        }
        if let close = outcomes.first(where: { $0.lowercased() == first.lowercased() }) {
            throw problem("unknown outcome '\(first)'; did you mean '\(close)'?")
        }
        if first == "count" {
            guard words.count == 3, let number = Int(words[2]) else { throw problem("@expect count takes an entity and a number: @expect count Task 2") }
            return .count(entity: words[1], number)
        }
        if words.count == 2, let number = Int(words[1]) {
            // "@expect events 7": the entity's name in the plural.
            return .count(entity: String(first.hasSuffix("s") ? first.dropLast() : Substring(first)), number)
        }
        guard words.count >= 3 else {
            throw problem("@expect \(words.joined(separator: " ")): write an outcome (\(outcomes.joined(separator: ", "))), ENTITY \"TITLE\" FIELD VALUE, ENTITY \"TITLE\" exists|missing, ENTITIES N or count ENTITY N")
        }
        let title = words[1]
        if words.count == 3, words[2] == "exists" || words[2] == "missing" {
            return .exists(entity: first, title: title, present: words[2] == "exists")
        }
        guard words.count >= 4 else { throw problem("@expect \(first) \"\(title)\" \(words[2]) needs the value expected (or 'none')") }
        return .field(entity: first, title: title, field: words[2], value: words[3...].joined(separator: " "))
    }

    /// The line without its comment: from a '#' outside double quotes that stands as a word of
    /// its own (after a space, before a space or the end), so "#1" stays text.
    static func withoutComment(_ line: String) -> String {
        var inQuotes = false
        let characters = Array(line)
        for (offset, character) in characters.enumerated() {
            if character == "\"" || character == "“" || character == "”" { inQuotes.toggle() }
            let before = offset == 0 || characters[offset - 1].isWhitespace
            let after = offset + 1 == characters.count || characters[offset + 1].isWhitespace
            if character == "#", !inQuotes, before, after { return String(characters[..<offset]) }
        }
        return line
    }
}

/// Words of a directive: spaces separate them, double quotes keep a title together.
enum ScriptWords {
    static func split(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var wasQuoted = false
        for character in text {
            if character == "\"" || character == "“" || character == "”" {
                quoted.toggle()
                wasQuoted = true
                continue
            }
            if character.isWhitespace, !quoted {
                if !current.isEmpty || wasQuoted { words.append(current) }
                current = ""
                wasQuoted = false
                continue
            }
            current.append(character)
        }
        if !current.isEmpty || wasQuoted { words.append(current) }
        return words
    }
}
