import Testing
import Foundation
import CometSchema
import CometICal

/// The fuzzers' corpora (Tests/Fuzz/Corpus, kept by scripts/fuzz) replayed in the ordinary
/// suite, so every input a fuzzer once found interesting keeps being read without a crash, and
/// a finding fixed stays fixed (its input is in the corpus). Each input must end in bounded time.
@Suite("fuzz corpora, replayed")
struct FuzzCorpusReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ target: String) -> [URL] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("the JSON corpus: every input parses or fails, and what parses writes back to the same value")
    func json() throws {
        let inputs = Self.inputs("json")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for file in inputs {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            guard let value = try? JSONParser.parse(text) else { continue }
            #expect(try JSONParser.parse(JSONWriter.compact(value)) == value, "\(file.lastPathComponent)")
        }
    }

    @Test("the schema corpus: every input compiles or gives diagnostics")
    func schema() throws {
        let inputs = Self.inputs("schema")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for file in inputs {
            let source = SourceFile(path: file.lastPathComponent, text: String(decoding: try Data(contentsOf: file), as: UTF8.self))
            let result = SchemaCompiler.compile(sources: [source])
            _ = DiagnosticRenderer(sources: [source]).render(result.diagnostics)
        }
    }

    @Test("the iCalendar corpora (reader and import): every input is read to its end")
    func ical() throws {
        let registry = try Registry.load(paths: [Self.root.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas").path])
        let inputs = Self.inputs("ical") + Self.inputs("import")
        #expect(inputs.count > 100, "the corpora are there: \(inputs.count)")
        for file in inputs {
            let reader = ICalReader(registry: registry, text: String(decoding: try Data(contentsOf: file), as: UTF8.self))
            var items = 0
            while reader.next() != nil {
                items += 1
                if items > 1_000_000 { Issue.record("\(file.lastPathComponent) does not end"); break }
            }
        }
    }
}
