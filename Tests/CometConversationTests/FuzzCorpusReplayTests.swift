import Testing
import Foundation
import CometConversation

/// The temporal and script fuzzers' corpora (Tests/Fuzz/Corpus) replayed in the ordinary suite:
/// every input is read, or refused, without a crash.
@Suite("fuzz corpora, replayed (conversation)")
struct ConversationFuzzCorpusReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: String) -> [String] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test("the temporal corpus, in two zones")
    func temporal() {
        let inputs = Self.inputs("temporal")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        let now = Date(timeIntervalSince1970: 1_781_082_000)
        for text in inputs {
            for zone in ["Europe/Berlin", "America/Los_Angeles"] {
                _ = try? TemporalParser(now: now, timeZone: TimeZone(identifier: zone)!).parse(text)
            }
            // The extractor reads the same inputs as words, in both date orders.
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            for order in TemporalDateOrder.allCases {
                let spans = TemporalParser(now: now, timeZone: TimeZone(identifier: "Europe/Berlin")!, dateOrder: order).extract(from: words)
                var end = 0
                for span in spans {
                    #expect(span.range.lowerBound >= end && span.range.upperBound <= words.count, "\(text)")
                    end = span.range.upperBound
                }
            }
        }
    }

    @Test("the script corpus")
    func scripts() {
        let inputs = Self.inputs("script")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for text in inputs { _ = try? ConversationScript.parse(text, path: "corpus.convo") }
    }
}
