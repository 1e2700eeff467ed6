import Foundation
import Testing
import CometSchema

/// docs/daemon.md's transcript, replayed against a real daemon: every documented key has the
/// documented value ("…" matches any), and the frames come in the documented order.
@Suite("docs/daemon.md transcript")
struct DaemonTranscriptTests {
    static func lines() throws -> [(outgoing: Bool, json: String)] {
        let doc = try String(contentsOf: CLIRunner.repositoryRoot.appendingPathComponent("docs/daemon.md"), encoding: .utf8)
        let start = try #require(doc.range(of: "```transcript\n"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        return doc[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            if line.hasPrefix("→ ") { return (true, String(line.dropFirst(2))) }
            if line.hasPrefix("← ") { return (false, String(line.dropFirst(2))) }
            return nil
        }
    }

    /// Nil when `actual` has everything `documented` says; else where it differs.
    static func difference(_ documented: JSONValue, _ actual: JSONValue?, at path: String = "") -> String? {
        if documented == .string("…") { return actual == nil ? "\(path) is missing" : nil }
        switch (documented, actual) {
        case (.object(let expected), .object(let found)?):
            for (key, value) in expected {
                if let problem = difference(value, found[key], at: path + "." + key) { return problem }
            }
            return nil
        case (.array(let expected), .array(let found)?):
            guard expected.count == found.count else { return "\(path) has \(found.count) items, not \(expected.count)" }
            for (index, pair) in zip(expected, found).enumerated() {
                if let problem = difference(pair.0, pair.1, at: path + "[\(index)]") { return problem }
            }
            return nil
        default:
            return documented == actual ? nil : "\(path) is \(actual.map { JSONWriter.compact($0) } ?? "missing"), not \(JSONWriter.compact(documented))"
        }
    }

    @Test("the transcript is what the daemon says")
    func replay() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.client()
        var session = ""
        let lines = try DaemonTranscriptTests.lines()
        #expect(lines.count >= 16)
        for (outgoing, text) in lines {
            if outgoing {
                client.sendFrame(try JSONParser.parse(text.replacingOccurrences(of: "$session", with: session)))
                continue
            }
            let expected = try JSONParser.parse(text)
            let actual = try client.receive()
            if let found = actual["result"]?["session"]?.stringValue { session = found }
            #expect(DaemonTranscriptTests.difference(expected, actual) == nil, "\(text)\n→ \(JSONWriter.compact(actual))")
        }
    }
}
