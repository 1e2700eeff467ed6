import Testing
import Foundation
import CometSchema
import CometICal
import CometConversation

/// The fuzzers' inputs replayed in the ordinary suite: every input a fuzzer once found
/// interesting keeps being read, or refused, without a crash, and a finding fixed stays fixed.
/// Each input must end in bounded time.
///
/// Where they are (scripts/fuzz keeps them): each target's grown corpus is one archive,
/// Tests/Fuzz/Corpus/TARGET.tar.xz, unpacked here once per test process; the findings kept after
/// their fix are plain files, Tests/Fuzz/Findings/TARGET-*.
@Suite("fuzz corpora and findings, replayed")
struct FuzzCorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")
    static let repository = fuzzFolder.deletingLastPathComponent().deletingLastPathComponent()

    /// Every archive unpacked into a folder of its own, removed when the process ends.
    static let unpacked: Result<URL, Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-fuzz-replay-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        let archives = try FileManager.default.contentsOfDirectory(atPath: fuzzFolder.appendingPathComponent("Corpus").path)
            .filter { $0.hasSuffix(".tar.xz") }
        for archive in archives {
            let target = folder.appendingPathComponent(String(archive.dropLast(".tar.xz".count)))
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            tar.arguments = ["tar", "-xJf", fuzzFolder.appendingPathComponent("Corpus/\(archive)").path, "-C", target.path]
            try tar.run()
            tar.waitUntilExit()
            guard tar.terminationStatus == 0 else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "tar could not unpack \(archive) (exit \(tar.terminationStatus)); is xz-utils installed (scripts/bootstrap)?"])
            }
        }
        atexit { if case .success(let folder) = FuzzCorpusReplayTests.unpacked { try? FileManager.default.removeItem(at: folder) } }
        return folder
    }

    /// The corpus of `target` and its findings, in name order.
    static func inputs(_ target: String) throws -> [URL] {
        let corpus = try unpacked.get().appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        let findings = fuzzFolder.appendingPathComponent("Findings")
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: findings.path)) ?? []).filter { $0.hasPrefix(target + "-") }
        return names.sorted().map { corpus.appendingPathComponent($0) } + found.sorted().map { findings.appendingPathComponent($0) }
    }

    static func texts(_ target: String) throws -> [String] {
        try inputs(target).map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
    }

    @Test("the JSON corpus: every input parses or fails, and what parses writes back to the same value")
    func json() throws {
        let inputs = try Self.inputs("json")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for file in inputs {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            guard let value = try? JSONParser.parse(text) else { continue }
            #expect(try JSONParser.parse(JSONWriter.compact(value)) == value, "\(file.lastPathComponent)")
        }
    }

    @Test("the schema corpus: every input compiles or gives diagnostics")
    func schema() throws {
        let inputs = try Self.inputs("schema")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for file in inputs {
            let source = SourceFile(path: file.lastPathComponent, text: String(decoding: try Data(contentsOf: file), as: UTF8.self))
            let result = SchemaCompiler.compile(sources: [source])
            _ = DiagnosticRenderer(sources: [source]).render(result.diagnostics)
        }
    }

    @Test("the iCalendar corpora (reader and import): every input is read to its end")
    func ical() throws {
        let registry = try Registry.load(paths: [Self.repository.appendingPathComponent("Schemas").path])
        let inputs = try Self.inputs("ical") + Self.inputs("import")
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

    @Test("the temporal corpus, in two zones")
    func temporal() throws {
        let inputs = try Self.texts("temporal")
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
    func scripts() throws {
        let inputs = try Self.texts("script")
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        for text in inputs { _ = try? ConversationScript.parse(text, path: "corpus.convo") }
    }

    @Test("every fuzz target has its corpus archive, and nothing else is in the corpus folder")
    func archives() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fuzzFolder.appendingPathComponent("Corpus").path).sorted()
        #expect(names == ["caldav", "davxml", "ical", "import", "json", "rpc", "schema", "script", "temporal", "utterance"].map { $0 + ".tar.xz" })
    }

    /// The corpora grow with every fuzz run; kept in commits of their own, they never ride along
    /// with code (and a history can be thinned of them). Checked where the tree is a git clone.
    @Test("every commit that changes a corpus archive changes nothing else",
          .enabled(if: FileManager.default.fileExists(atPath: FuzzCorpusReplayTests.repository.appendingPathComponent(".git").path)))
    func archivesCommittedAlone() throws {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", Self.repository.path, "log", "--no-merges", "--format=%H", "--", "Tests/Fuzz/Corpus/*.tar.xz"]
        let pipe = Pipe()
        git.standardOutput = pipe
        try git.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        git.waitUntilExit()
        try #require(git.terminationStatus == 0)
        let commits = output.split(separator: "\n").map(String.init)
        #expect(!commits.isEmpty, "the archives are in the history")
        for hash in commits {
            let show = Process()
            show.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            show.arguments = ["git", "-C", Self.repository.path, "show", "--format=", "--name-only", "--no-renames", hash]
            let showPipe = Pipe()
            show.standardOutput = showPipe
            try show.run()
            let files = String(decoding: showPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            show.waitUntilExit()
            let others = files.filter { !$0.hasPrefix("Tests/Fuzz/Corpus/") }
            #expect(others.isEmpty, "commit \(hash.prefix(10)) changes a corpus archive and also \(others.prefix(5))")
        }
    }
}
