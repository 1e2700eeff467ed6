import Foundation
import Testing
import CometSchema
@testable import CometVoice

/// The compiled language: a proper back-off model (every context's distribution sums to one),
/// a dictionary for every word it uses, and words it cannot say reported, never dropped quietly.
@Suite("Compiled language")
struct LanguageCompilerTests {
    static let registry: Registry = try! Registry.load(paths: [Speech.root.appendingPathComponent("Schemas").path])
    static let pronunciations: Pronunciations = try! Pronunciations()
    static let store = StoreWords(titles: ["Picnic", "Crew Lunch", "Comet Flyby Briefing", "Zyxqwv Party", "Stargazing"],
                                  people: ["Ada Lovelace", "Grace Hopper"], places: ["Dolores Park"])

    static func compile(_ store: StoreWords = store) throws -> (CompiledLanguage, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-language-\(UUID().uuidString)")
        var compiler = LanguageCompiler(pronunciations: pronunciations)
        compiler.perClass = 20
        return (try compiler.compile(registry: registry, store: store, folder: folder.path), folder)
    }

    /// The ARPA file read back: log10 probabilities and back-off weights by n-gram.
    static func read(_ path: String) throws -> (probability: [String: Double], backoff: [String: Double], vocabulary: [String]) {
        var probability: [String: Double] = [:], backoff: [String: Double] = [:], vocabulary: [String] = []
        var order = 0
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("\\") && line.hasSuffix("-grams:") { order = Int(String(line.dropFirst().prefix(1))) ?? 0; continue }
            guard order > 0, !line.hasPrefix("\\") else { continue }
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= order + 1, let value = Double(fields[0]) else { continue }
            let gram = fields[1...order].joined(separator: " ")
            probability[gram] = value
            if fields.count > order + 1, let weight = Double(fields[order + 1]) { backoff[gram] = weight }
            if order == 1, gram != "<s>" { vocabulary.append(gram) }
        }
        return (probability, backoff, vocabulary)
    }

    static func probability(_ words: [String], _ model: (probability: [String: Double], backoff: [String: Double], vocabulary: [String])) -> Double {
        if let known = model.probability[words.joined(separator: " ")] { return pow(10, known) }
        guard words.count > 1 else { return 0 }
        let weight = model.backoff[words.dropLast().joined(separator: " ")] ?? 0
        return pow(10, weight) * probability(Array(words.dropFirst()), model)
    }

    @Test("every context's next-word distribution sums to one: a proper Witten-Bell back-off model")
    func normalized() throws {
        let (language, folder) = try LanguageCompilerTests.compile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try LanguageCompilerTests.read(language.files.languageModel)
        #expect(model.vocabulary.count == language.report.words + 1, "the words and </s>")
        let contexts: [[String]] = [[], ["<s>"], ["move"], ["<s>", "move"], ["the", "picnic"], ["picnic"], ["to"], ["move", "the"], ["lunch", "to"]]
        for context in contexts {
            let total = model.vocabulary.reduce(0.0) { $0 + LanguageCompilerTests.probability(context + [$1], model) }
            #expect(abs(total - 1) < 0.002, "after “\(context.joined(separator: " "))” the probabilities sum to \(total)")
        }
    }

    @Test("a model of another order is as proper: every context's distribution sums to one, up to three words back")
    func fourGrams() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-language-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var compiler = LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
        compiler.perClass = 20
        compiler.order = 4
        let language = try compiler.compile(registry: LanguageCompilerTests.registry, store: LanguageCompilerTests.store, folder: folder.path)
        let text = try String(contentsOfFile: language.files.languageModel, encoding: .utf8)
        #expect(text.contains("\\4-grams:") && text.contains("ngram 4="))
        let model = try LanguageCompilerTests.read(language.files.languageModel)
        for context in [["<s>", "move", "the"], ["move", "the", "picnic"], ["the", "crew"], ["<s>"]] {
            let total = model.vocabulary.reduce(0.0) { $0 + LanguageCompilerTests.probability(context + [$1], model) }
            #expect(abs(total - 1) < 0.002, "after “\(context.joined(separator: " "))” the probabilities sum to \(total)")
        }
        #expect(try Recognizer(language: language.files).language == language.files, "pocketsphinx loads it")
    }

    @Test("every word of the model is in the dictionary, and words with no pronunciation are reported with the sentences they cost")
    func dictionary() throws {
        let (language, folder) = try LanguageCompilerTests.compile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try LanguageCompilerTests.read(language.files.languageModel)
        let spelled = Set(try String(contentsOfFile: language.files.dictionary, encoding: .utf8).split(separator: "\n").map { line in
            let word = line.prefix { $0 != " " }
            return String(word.prefix { $0 != "(" })
        })
        for word in model.vocabulary where word != "</s>" { #expect(spelled.contains(word), "“\(word)” has no pronunciation in the dictionary") }
        #expect((language.report.unpronounceable["zyxqwv"] ?? 0) > 0)
        #expect(!model.vocabulary.contains("zyxqwv"))
        // A compound is said as the words it is made of.
        #expect(language.report.respelled["stargazing"] == ["star", "gazing"])
        #expect(model.vocabulary.contains("picnic") && model.vocabulary.contains("lovelace") && model.vocabulary.contains("dolores"))
    }

    @Test("the tasks domain's language comes from its schema alone: its nouns and verbs, no calendar words")
    func tasksLanguage() throws {
        let registry = try Registry.load(paths: [Speech.root.appendingPathComponent("Examples/Schemas/tasks").path])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-language-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var compiler = LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
        compiler.perClass = 20
        let language = try compiler.compile(registry: registry, store: StoreWords(titles: ["Buy cake", "Pack the telescope"]), folder: folder.path)
        let vocabulary = Set(try LanguageCompilerTests.read(language.files.languageModel).vocabulary)
        for word in ["task", "chore", "errand", "mark", "done", "cake", "telescope", "yes", "undo"] { #expect(vocabulary.contains(word), "“\(word)”") }
        for word in ["calendar", "event", "attendees", "picnic"] { #expect(!vocabulary.contains(word), "“\(word)” is not the tasks domain's") }
    }

    @Test("the same schemas and store give the same files")
    func deterministic() throws {
        let (first, one) = try LanguageCompilerTests.compile()
        let (second, two) = try LanguageCompilerTests.compile()
        defer { try? FileManager.default.removeItem(at: one); try? FileManager.default.removeItem(at: two) }
        #expect(try String(contentsOfFile: first.files.languageModel, encoding: .utf8) == String(contentsOfFile: second.files.languageModel, encoding: .utf8))
        #expect(first.report.sentences == second.report.sentences)
    }

    @Test("a compile in the background hands its language over without the caller waiting for it")
    func background() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-language-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let compiler = LanguageCompiler(pronunciations: LanguageCompilerTests.pronunciations)
        let result = await withCheckedContinuation { continuation in
            compiler.compileInBackground(registry: LanguageCompilerTests.registry, store: LanguageCompilerTests.store, folder: folder.path) { result in
                continuation.resume(returning: result)
            }
        }
        let language = try result.get()
        #expect(FileManager.default.fileExists(atPath: language.files.languageModel))
        if let keep = ProcessInfo.processInfo.environment["COMETCAL_VOICE_KEEP"] {
            // For a person tuning the language by hand: the files, kept where they asked.
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: folder.path, toPath: keep)
        }
    }
}
