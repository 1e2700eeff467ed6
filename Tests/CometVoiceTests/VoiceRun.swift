import Foundation
import CometSchema
import CometIntents
import CometSQLiteStore
@testable import CometConversation
@testable import CometVoice

/// Every example dialog spoken by espeak-ng, heard by both languages (the compiled one and the
/// generic reference) clean and with noise at 10 dB SNR, and played through the voice gate
/// against a fresh store: made once per test run, shared by the tests that read its figures.
final class VoiceRun: Sendable {
    enum Model: String, Sendable, CaseIterable { case compiled, generic }
    /// Who spoke and whether noise was mixed in: espeak-ng's speech (the conditions,
    /// `clean` and `noisy`), and flite's, the second synthesizer's, the same two ways.
    enum Condition: String, Sendable, CaseIterable {
        case clean, noisy
        case fliteClean = "flite-clean", fliteNoisy = "flite-noisy"
        var isNoisy: Bool { self == .noisy || self == .fliteNoisy }
        var synthesizer: Speech.Voice.Synthesizer { self == .clean || self == .noisy ? .espeak : .flite }
        /// The conditions, espeak-ng's speech.
        static let espeak: [Condition] = [.clean, .noisy]
    }

    static let snr = 10.0
    static let zone = TimeZone(identifier: "America/Los_Angeles")!

    /// One example dialog.
    struct Dialog: Sendable {
        let name: String
        let script: ConversationScript
        let registry: Registry
        /// The schemas folder and seeds it plays with: dialogs sharing them share a language.
        let group: String
        let seeds: [String]
        let turns: [String]
        let now: Date
    }

    /// The figures of one model in one condition.
    struct Figures: Sendable {
        var words = 0
        var errors = 0
        var dialogs = 0
        var right = 0
        var tasksDialogs = 0
        var tasksRight = 0
        var asked = 0
        var notCaught = 0
        mutating func add(_ other: Figures) {
            words += other.words; errors += other.errors; dialogs += other.dialogs; right += other.right
            tasksDialogs += other.tasksDialogs; tasksRight += other.tasksRight; asked += other.asked; notCaught += other.notCaught
        }
        var wer: Double { words == 0 ? 1 : Double(errors) / Double(words) }
        var share: Double { dialogs == 0 ? 0 : Double(right) / Double(dialogs) }
        var tasksShare: Double { tasksDialogs == 0 ? 0 : Double(tasksRight) / Double(tasksDialogs) }
    }

    let dialogs: [Dialog]
    let figures: [String: Figures]
    /// Seconds each group's language took to compile.
    let compileSeconds: [Double]
    let languages: [String: CompiledLanguage]
    /// Samples clipped when noise was mixed in.
    let clipped: Int
    /// Wrong dialogs, for the log: model/condition → names.
    let wrong: [String: [String]]
    /// Per-turn hearings of the compiled language, clean, for the log: reference → heard.
    let misheard: [(String, String)]
    /// Every turn the compiled language heard (both conditions): its confidence, and whether
    /// the words were exactly those said; to choose the gate's threshold from.
    let calibration: [(confidence: Double, exact: Bool)]
    /// Wall-clock seconds of the hearing phase; decoder seconds per model/condition; seconds of speech (clean, all dialogs).
    let decodeSeconds: Double
    let decodeSpent: [String: Double]
    let audioSeconds: Double
    /// Seconds of flite's speech (clean, all dialogs).
    let fliteAudioSeconds: Double
    let phaseSeconds: [String: Double]

    /// The dialogs the generic model hears too: every sixth.
    static func inReference(_ index: Int) -> Bool { index % 6 == 0 }

    /// Whether the generic model hears a condition: not flite's speech at 10 dB, which the
    /// compiled language already hears as mostly nothing (docs/voice.md, "A second synthesizer:
    /// flite"), and which took the generic model 51 to 63 decoder seconds, a fifth of the suite.
    static func genericHears(_ condition: Condition) -> Bool { condition != .fliteNoisy }

    static func key(_ model: Model, _ condition: Condition) -> String { model.rawValue + "/" + condition.rawValue }

    static let shared: Result<VoiceRun, Error> = Result { try VoiceRun() }

    private init() throws {
        let material = try VoiceMaterial.shared.get()
        dialogs = material.dialogs
        languages = material.languages
        compileSeconds = material.compileSeconds
        clipped = material.clipped
        var phases = material.phaseSeconds
        var phaseStart = Date()
        func phase(_ name: String) {
            phases[name] = Date().timeIntervalSince(phaseStart)
            phaseStart = Date()
        }
        let files = languages.mapValues(\.files)
        let clock = Date()
        let (box, spent) = try VoiceRun.hear(material, files: files, models: Model.allCases, conditions: Condition.allCases,
                                             dialogs: Array(dialogs.indices))
        decodeSeconds = Date().timeIntervalSince(clock)
        phase("hearing")
        decodeSpent = spent
        audioSeconds = (material.speech[.clean] ?? []).joined().reduce(0.0) { $0 + Double($1.count) / 16_000 }
        fliteAudioSeconds = (material.speech[.fliteClean] ?? []).joined().reduce(0.0) { $0 + Double($1.count) / 16_000 }
        let answers = material.answers
        let dialogs = material.dialogs

        let bank = AnswerBank(samples: answers, languages: files)
        // Playing: each dialog through the gate, on a fresh store, for each model and condition.
        var figures: [String: Figures] = [:]
        var wrong: [String: [String]] = [:]
        var misheard: [(String, String)] = []
        var calibration: [(confidence: Double, exact: Bool)] = []
        var rows: [String] = []
        var errorKinds: [String: [String: Int]] = [:]
        var gateCounts: [String: [String: Int]] = [:]
        for model in Model.allCases {
            for condition in Condition.allCases where model == .compiled || VoiceRun.genericHears(condition) {
                let key = VoiceRun.key(model, condition)
                let scored = VoiceRun.score(material, box: box, model: model, condition: condition, bank: bank)
                for (part, tally) in scored.figures { figures[key + part] = tally }
                errorKinds[key] = scored.errorKinds
                gateCounts[key] = scored.gate
                wrong[key] = scored.wrong
                if key == "compiled/clean" { misheard = scored.misheard }
                if model == .compiled, condition.synthesizer == .espeak { calibration += scored.calibration }
                rows += scored.rows
            }
        }
        if let path = ProcessInfo.processInfo.environment["COMETCAL_VOICE_DUMP"] {
            try (VoiceRun.dumpHeader + "\n" + rows.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            print("voice suite: every turn's hearing written to \(path) (COMETCAL_VOICE_DUMP)")
        }
        // The gate's threshold, swept: the compiled language's dialogs played again at others.
        var sweep: [String: Int] = [:]
        for threshold in [0.1] {
            for condition in Condition.espeak {
                let key = VoiceRun.key(.compiled, condition)
                var right = 0
                for (index, dialog) in dialogs.enumerated() {
                    guard let hearings = box.get(index), let turns = hearings.turns[key] else { continue }
                    if VoiceRun.play(dialog, hearings: turns, voices: material.voices(condition, index), said: material.said(condition, index),
                                     model: .compiled, condition: condition, bank: bank, threshold: threshold).right { right += 1 }
                }
                sweep[String(format: "%.2f|", threshold) + condition.rawValue] = right
            }
        }
        for condition in Condition.espeak { sweep[String(format: "%.2f|", VoiceConversation.defaultThreshold) + condition.rawValue] = figures[VoiceRun.key(.compiled, condition)]?.right }
        // A person who also says yes to a hearing asked back that reads the same as what they
        // said, though its words differ: not the suite's person, a measurement beside it.
        var lenient: [String: Int] = [:]
        for condition in Condition.espeak {
            let key = VoiceRun.key(.compiled, condition)
            lenient[condition.rawValue] = dialogs.indices.filter { index in
                guard let turns = box.get(index)?.turns[key] else { return false }
                return VoiceRun.play(dialogs[index], hearings: turns, voices: material.voices(condition, index), said: material.said(condition, index),
                                     model: .compiled, condition: condition, bank: bank, acceptsSameReading: true).right
            }.count
        }
        self.lenient = lenient
        self.sweep = sweep

        // The baseline: the dialogs that end right when nothing at all is heard (those that
        // only ask, or whose changes need a yes that never comes). The rest need hearing.
        var silentRight = Set<String>()
        for dialog in dialogs {
            let nothing = Array(repeating: Hearing(words: [], seconds: 0), count: dialog.turns.count)
            if VoiceRun.play(dialog, hearings: nothing, voices: Array(repeating: Speech.voices[0], count: dialog.turns.count),
                             said: dialog.turns.map(Speech.spokenWords), model: .compiled,
                             condition: .clean, bank: bank).right {
                silentRight.insert(dialog.name)
            }
        }
        self.silentRight = silentRight
        self.figures = figures
        self.errorKinds = errorKinds
        self.gateCounts = gateCounts
        self.wrong = wrong
        self.misheard = misheard
        self.calibration = calibration
        phase("playing")
        phaseSeconds = phases
    }

    /// The columns of COMETCAL_VOICE_DUMP's table, one row per spoken turn.
    static let dumpHeader = "model\tcondition\tdialog\tturn\tvoice\tsaid\theard\tconfidence\tdecision\tanswer\tunknown\twaiting\tright"

    /// What one model in one condition made of the dialogs heard in `box`.
    struct Scored {
        /// "" (all dialogs), "/reference" (every sixth), "/tuning" (odd indices), "/heldout" (even).
        var figures: [String: Figures] = [:]
        var wrong: [String] = []
        var misheard: [(String, String)] = []
        var calibration: [(confidence: Double, exact: Bool)] = []
        var rows: [String] = []
        /// Word errors by what the word said was (docs/voice.md, "Why"): "insertion" (a word heard
        /// where none was said), "not in the language" (a word said that the dialog's language
        /// lacks), "time" (a word the temporal grammar reads as part of a time in what was said),
        /// "yes or no" (a word read alone as an answer), "other" (any other word of the language).
        var errorKinds: [String: Int] = [:]
        /// The gate's decisions, each with whether the hearing was exact ("passed, wrong").
        var gate: [String: Int] = [:]
    }

    /// The half of the dialogs decoder settings are tuned on: odd indices. The other half is held out.
    static func inTuning(_ index: Int) -> Bool { index % 2 == 1 }

    /// Scores and plays the dialogs `box` holds hearings of: word errors, dialogs right, and a
    /// row per turn for the dump (with the words said that the dialog's language does not have).
    static func score(_ material: VoiceMaterial, box: HearingBox, model: Model, condition: Condition, bank: AnswerBank,
                      threshold: Double = VoiceConversation.defaultThreshold) -> Scored {
        let key = VoiceRun.key(model, condition)
        var scored = Scored()
        for part in ["", "/reference", "/tuning", "/heldout"] { scored.figures[part] = Figures() }
        for (index, dialog) in material.dialogs.enumerated() {
            guard let hearings = box.get(index), let turns = hearings.turns[key] else { continue }
            var local = Figures()
            let voices = material.voices(condition, index), said = material.said(condition, index)
            let (isRight, player) = VoiceRun.play(dialog, hearings: turns, voices: voices, said: said, model: model, condition: condition, bank: bank,
                                                  threshold: threshold)
            let vocabulary = model == .compiled ? material.vocabulary[dialog.group] : nil
            let parser = TemporalParser(now: dialog.now, timeZone: VoiceRun.zone)
            for (reference, hearing) in zip(said, turns) {
                let heard = hearing.words.map { $0.text }
                local.words += reference.count
                local.errors += Speech.wordErrors(reference, heard)
                let exact = reference == heard
                if !exact { scored.misheard.append((reference.joined(separator: " "), hearing.text)) }
                scored.calibration.append((hearing.confidence, exact))
                let timeWords = parser.extract(from: reference).reduce(into: Set<Int>()) { $0.formUnion($1.range) }
                for said in Speech.errorPositions(reference, heard) {
                    let kind: String
                    if let said {
                        if let vocabulary, !vocabulary.contains(reference[said]) { kind = "not in the language" }
                        else if timeWords.contains(said) { kind = "time" }
                        else if SpokenLanguage.yesOrNo(reference[said]) != nil { kind = "yes or no" }
                        else { kind = "other" }
                    } else {
                        kind = "insertion"
                    }
                    scored.errorKinds[kind, default: 0] += 1
                }
            }
            local.dialogs = 1
            if isRight { local.right = 1 } else { scored.wrong.append(dialog.name) }
            if dialog.name.hasPrefix("tasks-") { local.tasksDialogs = 1; local.tasksRight = isRight ? 1 : 0 }
            local.asked = player.asked
            local.notCaught = player.notCaught
            scored.gate["asked back, not what was said, read the same", default: 0] += player.sameReading
            scored.figures[""]?.add(local)
            if VoiceRun.inReference(index) { scored.figures["/reference"]?.add(local) }
            scored.figures[VoiceRun.inTuning(index) ? "/tuning" : "/heldout"]?.add(local)
            for (turn, entry) in player.log.enumerated() where turn < turns.count {
                let said = said[turn]
                let unknown = vocabulary.map { known in said.filter { !known.contains($0) } } ?? []
                let hearing = turns[turn]
                let exact = said == hearing.words.map { $0.text }
                scored.gate[entry.decision.prefix { $0 != " " } + (entry.answer.map { " " + $0 } ?? "") + (exact ? "" : ", wrong"), default: 0] += 1
                if entry.decision.contains("(rank") { scored.gate["an other reading taken" + (entry.answer.map { " " + $0 } ?? ""), default: 0] += 1 }
                scored.rows.append([model.rawValue, condition.rawValue, dialog.name, String(turn + 1), voices[turn].description,
                                    said.joined(separator: " "), hearing.text, String(format: "%.3f", hearing.confidence), entry.decision,
                                    entry.answer ?? "", unknown.joined(separator: " "), entry.waiting ? "yes" : "no", isRight ? "yes" : "no"]
                    .joined(separator: "\t"))
            }
        }
        return scored
    }

    /// Hears the dialogs at `dialogs` (indices) with two workers, one per core, each with its
    /// own decoders, each taking every other of them in order (the noise estimate carries over
    /// from turn to turn). The compiled language hears each with its group's `files`; the
    /// generic model, when asked for, every sixth dialog only (the reference subset): with the
    /// whole CMU dictionary it decodes several times slower, and all of them would take the
    /// suite past its time bound. Returns the hearings and the decoder seconds per model/condition.
    static func hear(_ material: VoiceMaterial, files: [String: LanguageFiles], models: [Model], conditions: [Condition],
                     dialogs indices: [Int]) throws -> (HearingBox, [String: Double]) {
        let box = HearingBox(count: material.dialogs.count)
        let failures = HearingBox(count: 2)
        let seconds = HearingBox(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            do {
                let generic = models.contains(.generic) ? try Recognizer(language: SpeechModels.generic) : nil
                var compiled: Recognizer?
                var spent: [String: Double] = [:]
                for index in stride(from: worker, to: indices.count, by: 2).map({ indices[$0] }) {
                    let dialog = material.dialogs[index]
                    guard let language = files[dialog.group] else { continue }
                    if let compiled, compiled.language == language {} else if let compiled { try compiled.use(language) } else {
                        compiled = try Recognizer(language: language)
                    }
                    guard let compiledRecognizer = compiled else { continue }
                    var heard: [String: [Hearing]] = [:]
                    for model in models where model == .compiled || VoiceRun.inReference(index) {
                        guard let recognizer = model == .compiled ? compiledRecognizer : generic else { continue }
                        for condition in conditions where model == .compiled || VoiceRun.genericHears(condition) {
                            let key = VoiceRun.key(model, condition)
                            let started = Date()
                            let turns = material.speech[condition]?[index] ?? []
                            heard[key] = try turns.map { try recognizer.hear($0) }
                            spent[key, default: 0] += Date().timeIntervalSince(started)
                        }
                    }
                    box.set(index, DialogHearings(turns: heard))
                }
                seconds.setSpent(worker, spent)
            } catch {
                failures.fail(worker, error)
            }
        }
        if let error = failures.firstError { throw error }
        return (box, seconds.spentTotal)
    }

    /// One dialog played through the gate on a fresh store: whether its store ended as its
    /// script says (every `@expect` on a record or a count; replies and outcomes are not
    /// compared, since a voice turn may ask back first), and the player with its counts.
    static func play(_ dialog: Dialog, hearings: [Hearing], voices: [Speech.Voice], said: [[String]], model: Model, condition: Condition, bank: AnswerBank,
                     threshold: Double = VoiceConversation.defaultThreshold, acceptsSameReading: Bool = false) -> (right: Bool, player: VoicePlayer) {
        let player = VoicePlayer(dialog: dialog, hearings: hearings, voices: voices, said: said, threshold: threshold, acceptsSameReading: acceptsSameReading) { word, voice in
            (try? bank.hear(word, voice: voice, condition: condition, model: model, group: dialog.group)) ?? Hearing(words: [], seconds: 0)
        }
        let runner = ScriptRunner(registry: dialog.registry, allowsOwnSchemas: true) { registry, now, zone in
            VoiceWorld(inner: try LocalScriptWorld(registry: registry, now: now, timeZone: zone, opener: SQLiteStore.opener), player: player)
        }
        let result = runner.run(dialog.script)
        let storeLines = Set(dialog.script.lines.compactMap { line -> Int? in
            switch line.directive {
            case .field, .exists, .count: return line.number
            default: return nil
            }
        })
        return (!result.failures.contains { storeLines.contains($0.line) || $0.line == 0 }, player)
    }

    /// Dialogs right with a person who says yes to a hearing that reads as what they said: condition → count.
    let lenient: [String: Int]

    /// Word errors by kind and the gate's decisions, per model/condition (`Scored`).
    let errorKinds: [String: [String: Int]]
    let gateCounts: [String: [String: Int]]

    /// Dialogs right with the compiled language per gate threshold: "0.30|clean" → count.
    let sweep: [String: Int]

    /// Dialogs whose store ends right with nothing heard at all.
    let silentRight: Set<String>

    /// Of the dialogs that need hearing (not right with nothing heard), how many a model ended right.
    func needingHearing(_ key: String, prefix: String = "") -> (right: Int, of: Int) {
        let wrongNames = Set(wrong[key] ?? [])
        let needing = dialogs.enumerated().filter { index, dialog in
            !silentRight.contains(dialog.name) && dialog.name.hasPrefix(prefix) && (key.hasPrefix("generic") ? VoiceRun.inReference(index) : true)
        }.map { $0.element }
        return (needing.filter { !wrongNames.contains($0.name) }.count, needing.count)
    }

    /// For each threshold: the share of exact hearings it lets through, and of wrong ones.
    var thresholds: String {
        let exact = calibration.filter(\.exact), wrong = calibration.filter { !$0.exact }
        var lines = ["threshold  exact hearings passed  wrong hearings passed   (compiled language, clean and 10 dB, \(calibration.count) turns)"]
        for threshold in [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7] {
            let keptExact = exact.filter { $0.confidence >= threshold && $0.confidence > 0 }.count
            let keptWrong = wrong.filter { $0.confidence >= threshold && $0.confidence > 0 }.count
            lines.append(String(format: "%9.2f  %4d/%4d (%5.1f%%)      %4d/%4d (%5.1f%%)", threshold, keptExact, exact.count,
                                100 * Double(keptExact) / Double(max(1, exact.count)), keptWrong, wrong.count, 100 * Double(keptWrong) / Double(max(1, wrong.count))))
        }
        return lines.joined(separator: "\n")
    }

    /// The table the suite prints: every dialog for the compiled language, and the reference
    /// subset (every sixth dialog) for both, so the generic model is compared on the same turns.
    var table: String {
        var lines = ["speech     model     condition  dialogs    WER     store right        tasks right   asked back  not caught"]
        func line(_ model: Model, _ condition: Condition, _ suffix: String, _ label: String) {
            guard let figures = figures[VoiceRun.key(model, condition) + suffix] else { return }
            lines.append(String(format: "%-10@ %-9@ %-10@ %-9@ %5.1f%%  %3d/%3d (%5.1f%%)  %2d/%2d (%3.0f%%)  %10d  %10d", condition.synthesizer.rawValue as NSString,
                                model.rawValue as NSString, (condition.isNoisy ? "10 dB SNR" : "clean") as NSString, label as NSString, figures.wer * 100, figures.right, figures.dialogs,
                                figures.share * 100, figures.tasksRight, figures.tasksDialogs, figures.tasksShare * 100, figures.asked, figures.notCaught))
        }
        for condition in Condition.espeak {
            line(.compiled, condition, "", "all")
            line(.compiled, condition, "/tuning", "odd")
            line(.compiled, condition, "/heldout", "even")
        }
        for condition in Condition.espeak {
            line(.compiled, condition, "/reference", "every 6th")
            line(.generic, condition, "", "every 6th")
        }
        for condition in [Condition.fliteClean, .fliteNoisy] {
            line(.compiled, condition, "", "all")
            line(.compiled, condition, "/tuning", "odd")
            line(.compiled, condition, "/heldout", "even")
            line(.compiled, condition, "/reference", "every 6th")
            line(.generic, condition, "", "every 6th")
        }
        return lines.joined(separator: "\n")
    }
}

/// The example dialogs, the language compiled for each group of them and their speech (clean
/// and at 10 dB SNR, and "yes" and "no" in each voice): made once per test run, shared by the
/// voice suite and the decoder tuning run. Its files live in a temporary folder removed when
/// the test process exits.
final class VoiceMaterial: Sendable {
    let dialogs: [VoiceRun.Dialog]
    let languages: [String: CompiledLanguage]
    /// Seconds each group's language took to compile.
    let compileSeconds: [Double]
    /// Each condition's speech: dialog → turn → samples.
    let speech: [VoiceRun.Condition: [[[Int16]]]]
    /// Each synthesizer's voice of each turn, and the words each turn was spoken as.
    let voiceOfTurn: [Speech.Voice.Synthesizer: [[Speech.Voice]]]
    let saidOfTurn: [Speech.Voice.Synthesizer: [[[String]]]]
    func voices(_ condition: VoiceRun.Condition, _ index: Int) -> [Speech.Voice] { voiceOfTurn[condition.synthesizer]?[index] ?? [] }
    func said(_ condition: VoiceRun.Condition, _ index: Int) -> [[String]] { saidOfTurn[condition.synthesizer]?[index] ?? [] }
    /// Each synthesizer's share of high frequencies: the mean over its clean turns of the RMS
    /// of the first difference (a high-pass filter) over the RMS (`Speech.highShare`).
    let highShare: [Speech.Voice.Synthesizer: Double]
    /// "yes|voice|clean" → samples (flite's voices: "yes|voice|flite-clean").
    let answers: [String: [Int16]]
    /// Samples clipped when noise was mixed in.
    let clipped: Int
    let phaseSeconds: [String: Double]
    /// Each group's dictionary words (an alternative pronunciation's mark dropped).
    let vocabulary: [String: Set<String>]

    static let shared: Result<VoiceMaterial, Error> = Result { try VoiceMaterial() }
    private static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometcal-voice-\(UUID().uuidString)")

    private init() throws {
        let folder = VoiceMaterial.folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: VoiceMaterial.folder) }
        var phases: [String: Double] = [:]
        var phaseStart = Date()
        func phase(_ name: String) {
            phases[name] = Date().timeIntervalSince(phaseStart)
            phaseStart = Date()
        }
        let defaultSchemas = Speech.root.appendingPathComponent("Schemas").path
        var registries: [String: Registry] = [:]
        func registry(_ path: String) throws -> Registry {
            if let known = registries[path] { return known }
            let loaded = try Registry.load(paths: [path])
            registries[path] = loaded
            return loaded
        }

        // The dialogs, as their scripts say: schemas, clock, seeds, turns.
        var dialogs: [VoiceRun.Dialog] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: Speech.examples.path).filter { $0.hasSuffix(".convo") }.sorted()
        for name in names {
            let script = try ConversationScript.load(path: Speech.examples.appendingPathComponent(name).path)
            var schemas = defaultSchemas
            var seeds: [String] = []
            var turns: [String] = []
            var now = Date()
            for line in script.lines {
                switch line.directive {
                case .schemas(let relative): schemas = Speech.examples.appendingPathComponent(relative).standardizedFileURL.path
                case .seed(let seed): seeds.append(seed)
                case .say(let text): turns.append(text)
                case .now(let local, let zone):
                    now = local.dateTime(in: TimeZone(identifier: zone) ?? VoiceRun.zone).instant ?? now
                default: break
                }
            }
            dialogs.append(VoiceRun.Dialog(name: name, script: script, registry: try registry(schemas), group: schemas + "|" + seeds.joined(separator: ","),
                                           seeds: seeds, turns: turns, now: now))
        }
        self.dialogs = dialogs

        // One language per group, from its schemas and the store its seeds make.
        let pronunciations = try Pronunciations()
        var compiler = LanguageCompiler(pronunciations: pronunciations)
        if let settings = ProcessInfo.processInfo.environment["COMETCAL_VOICE_DECODER"].flatMap(DecoderSettings.init(parsing:)) {
            compiler.decoderSettings = settings
            print("voice suite: the compiled languages are heard with \(settings) (COMETCAL_VOICE_DECODER), not DecoderSettings.compiled")
        }
        // "generatedWeight=0.1 perClass=30": the compiler's weights, for measuring others.
        for pair in (ProcessInfo.processInfo.environment["COMETCAL_VOICE_LANGUAGE"] ?? "").split(separator: " ") {
            let parts = pair.split(separator: "=").map(String.init)
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            switch parts[0] {
            case "generatedWeight": compiler.generatedWeight = value
            case "declaredWeight": compiler.declaredWeight = value
            case "perClass": compiler.perClass = Int(value)
            case "fills": compiler.fills = Int(value)
            case "declaredFills": compiler.declaredFills = Int(value)
            case "order": compiler.order = Int(value)
            default: continue
            }
            print("voice suite: the compiler's \(parts[0]) is \(parts[1]) (COMETCAL_VOICE_LANGUAGE)")
        }
        var jobs: [(group: String, registry: Registry, store: StoreWords, folder: String)] = []
        for (index, dialog) in dialogs.enumerated() where !jobs.contains(where: { $0.group == dialog.group }) {
            let world = try LocalScriptWorld(registry: dialog.registry, now: dialog.now, timeZone: VoiceRun.zone, opener: SQLiteStore.opener)
            for seed in dialog.seeds {
                _ = world.importSeed(name: seed, text: try String(contentsOf: Speech.examples.appendingPathComponent(seed), encoding: .utf8))
            }
            jobs.append((dialog.group, dialog.registry, try StoreWords.read(registry: dialog.registry, records: world.records),
                         folder.appendingPathComponent("language-\(index)").path))
        }
        // Compiled on both cores; each compile's own time is in its report.
        let compiledBox = LanguageBox(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { [jobs, compiler] index in
            let job = jobs[index]
            compiledBox.set(index, Result { () throws(VoiceError) -> CompiledLanguage in try compiler.compile(registry: job.registry, store: job.store, folder: job.folder) })
        }
        var languages: [String: CompiledLanguage] = [:]
        var compileSeconds: [Double] = []
        for (index, job) in jobs.enumerated() {
            let language = try compiledBox.get(index).get()
            languages[job.group] = language
            compileSeconds.append(language.report.seconds)
        }
        self.compileSeconds = compileSeconds
        phase("languages")
        self.languages = languages
        vocabulary = try languages.mapValues { language in
            Set(try String(contentsOfFile: language.files.dictionary, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.split(separator: " ").first.flatMap { Recognizer.spoken(String($0)) }
            })
        }

        // Speech: each turn in one of each synthesizer's four voices (in turn), and "yes" and
        // "no" in each; the same noise, at the same offsets, for both synthesizers.
        let noise = try Speech.noise(seconds: 30, folder: folder)
        var speech: [VoiceRun.Condition: [[[Int16]]]] = [:]
        var voiceOfTurn: [Speech.Voice.Synthesizer: [[Speech.Voice]]] = [:]
        var saidOfTurn: [Speech.Voice.Synthesizer: [[[String]]]] = [:]
        var clipped = 0
        var answers: [String: [Int16]] = [:]
        var highShare: [Speech.Voice.Synthesizer: Double] = [:]
        for (synthesizer, voiceSet, clean, noisy) in [(Speech.Voice.Synthesizer.espeak, Speech.voices, VoiceRun.Condition.clean, VoiceRun.Condition.noisy),
                                                      (.flite, Speech.fliteVoices, .fliteClean, .fliteNoisy)] {
            var turnIndex = 0
            for (dialogIndex, dialog) in dialogs.enumerated() {
                var cleanTurns: [[Int16]] = [], noisyTurns: [[Int16]] = [], voices: [Speech.Voice] = [], said: [[String]] = []
                for (index, text) in dialog.turns.enumerated() {
                    let voice = voiceSet[turnIndex % voiceSet.count]
                    let spoken = try Speech.speak(text, voice: voice, folder: folder, name: "\(synthesizer.rawValue)-d\(dialogIndex)-t\(index)")
                    cleanTurns.append(spoken.samples)
                    noisyTurns.append(Speech.mix(spoken.samples, noise: noise, offset: turnIndex * 7919, snr: VoiceRun.snr, clipped: &clipped))
                    voices.append(voice)
                    said.append(spoken.said)
                    turnIndex += 1
                }
                speech[clean, default: []].append(cleanTurns)
                speech[noisy, default: []].append(noisyTurns)
                voiceOfTurn[synthesizer, default: []].append(voices)
                saidOfTurn[synthesizer, default: []].append(said)
            }
            let shares = (speech[clean] ?? []).joined().map(Speech.highShare)
            highShare[synthesizer] = shares.reduce(0, +) / Double(max(1, shares.count))
            for voice in voiceSet {
                for word in ["yes", "no"] {
                    let samples = try Speech.synthesize(word, voice: voice, folder: folder, name: "\(synthesizer.rawValue)-\(word)-\(voice.name)-\(voice.speed)")
                    answers["\(word)|\(voice)|\(clean.rawValue)"] = samples
                    answers["\(word)|\(voice)|\(noisy.rawValue)"] = Speech.mix(samples, noise: noise, offset: voice.speed * 31, snr: VoiceRun.snr, clipped: &clipped)
                }
            }
        }
        self.speech = speech
        self.highShare = highShare
        self.voiceOfTurn = voiceOfTurn
        self.saidOfTurn = saidOfTurn
        self.answers = answers
        self.clipped = clipped
        phase("synthesis")
        phaseSeconds = phases
    }
}

struct DialogHearings: Sendable {
    let turns: [String: [Hearing]]
}

final class LanguageBox: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<CompiledLanguage, VoiceError>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<CompiledLanguage, VoiceError>) { lock.withLock { slots[index] = value } }
    func get(_ index: Int) -> Result<CompiledLanguage, VoiceError> {
        lock.withLock { slots[index] } ?? .failure(VoiceError(.language, place: "language \(index)", "never compiled"))
    }
}

/// "yes" and "no" in each voice, heard when a dialog's person is asked back (and only then),
/// by a decoder of each model kept for the purpose, in the order the dialogs ask.
final class AnswerBank {
    let samples: [String: [Int16]]
    let languages: [String: LanguageFiles]
    private var compiled: Recognizer?
    private var generic: Recognizer?
    private var heard: [String: Hearing] = [:]

    init(samples: [String: [Int16]], languages: [String: LanguageFiles]) {
        self.samples = samples
        self.languages = languages
    }

    func hear(_ word: String, voice: Speech.Voice, condition: VoiceRun.Condition, model: VoiceRun.Model, group: String) throws -> Hearing {
        let key = [word, voice.description, condition.rawValue, model.rawValue, model == .compiled ? group : ""].joined(separator: "|")
        if let known = heard[key] { return known }
        guard let sound = samples["\(word)|\(voice)|\(condition.rawValue)"] else { return Hearing(words: [], seconds: 0) }
        let recognizer: Recognizer
        if model == .generic {
            recognizer = try generic ?? Recognizer(language: SpeechModels.generic)
            generic = recognizer
        } else {
            guard let language = languages[group] else { return Hearing(words: [], seconds: 0) }
            if let compiled, compiled.language != language { try compiled.use(language) }
            recognizer = try compiled ?? Recognizer(language: language)
            compiled = recognizer
        }
        let hearing = try recognizer.hear(sound)
        heard[key] = hearing
        return hearing
    }
}

/// Results written by the decoding workers, each to its own slots.
final class HearingBox: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [DialogHearings?]
    private var errors: [Error?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        errors = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: DialogHearings) { lock.withLock { slots[index] = value } }
    func get(_ index: Int) -> DialogHearings? { lock.withLock { slots[index] } }
    func fail(_ index: Int, _ error: Error) { lock.withLock { errors[index] = error } }
    var firstError: Error? { lock.withLock { errors.compactMap { $0 }.first } }
    private var spent: [String: Double] = [:]
    func setSpent(_ worker: Int, _ value: [String: Double]) { lock.withLock { for (key, seconds) in value { spent[key, default: 0] += seconds } } }
    var spentTotal: [String: Double] { lock.withLock { spent } }
}

/// The person in a voice dialog: says each turn as heard, and when asked "Did you say …?"
/// answers yes (spoken, and heard) when it is what they said, no when it is not.
final class VoicePlayer {
    let dialog: VoiceRun.Dialog
    let hearings: [Hearing]
    let voices: [Speech.Voice]
    let threshold: Double
    let answer: (String, Speech.Voice) -> Hearing
    private var next = 0
    var asked = 0
    var notCaught = 0
    /// Hearings asked back that were not what was said but read the same (the same kind,
    /// intent, parameters and named records): a person would likely have said yes.
    var sameReading = 0
    /// This person says yes to those too (a measurement beside the suite's exact person).
    let acceptsSameReading: Bool
    /// Each turn's gate decision, the decision on the spoken answer when it was asked back,
    /// and whether the conversation was waiting for an answer when it was heard.
    var log: [(decision: String, answer: String?, waiting: Bool)] = []

    /// The words each turn was spoken as (the synthesizer's reading of the text).
    let said: [[String]]

    init(dialog: VoiceRun.Dialog, hearings: [Hearing], voices: [Speech.Voice], said: [[String]], threshold: Double, acceptsSameReading: Bool = false,
         answer: @escaping (String, Speech.Voice) -> Hearing) {
        self.acceptsSameReading = acceptsSameReading
        self.dialog = dialog
        self.hearings = hearings
        self.voices = voices
        self.said = said
        self.threshold = threshold
        self.answer = answer
    }

    func play(_ text: String, on voice: VoiceConversation) -> Conversation.Turn {
        let index = next
        next += 1
        guard index < hearings.count else { return Conversation.Turn(reply: "(no hearing for this turn)", outcome: .failed, snippet: nil, understood: false) }
        let waiting = voice.conversation.isWaitingForAnswer
        var turn = voice.hear(hearings[index])
        let first = turn
        var entry: (decision: String, answer: String?, waiting: Bool) = (turn.decision.rawValue, nil, waiting)
        if turn.decision == .asked {
            asked += 1
            let words = index < said.count ? said[index] : Speech.spokenWords(text)
            var meant = words == turn.taken.split(separator: " ").map(String.init)
            if !meant, VoicePlayer.readsTheSame(voice.conversation.interpret(turn.taken), voice.conversation.interpret(words.joined(separator: " "))) {
                sameReading += 1
                meant = acceptsSameReading
            }
            turn = voice.hear(answer(meant ? "yes" : "no", voices[index]))
            entry.answer = (meant ? "yes→" : "no→") + turn.decision.rawValue
        }
        if let why = first.why { entry.decision += " (rank \(first.rank): \(first.taken); \(why))" }
        log.append(entry)
        if turn.decision == .notCaught { notCaught += 1 }
        return turn.turn ?? Conversation.Turn(reply: turn.reply, outcome: turn.outcome, snippet: nil, understood: false)
    }
}

extension VoicePlayer {
    /// Whether two readings would do the same: understood, the same kind, intent and action,
    /// the same parameters set or cleared to the same values, and the same records named.
    static func readsTheSame(_ one: Interpretation, _ other: Interpretation) -> Bool {
        guard one.understood, other.understood, one.kind == other.kind, one.intent == other.intent, one.action == other.action else { return false }
        struct Value: Hashable { let name: String; let state: Interpretation.Parameter.State; let value: JSONValue? }
        let values = { (reading: Interpretation) in Set(reading.parameters.map { Value(name: $0.name, state: $0.state, value: $0.value) }) }
        let named = { (reading: Interpretation) in Set(reading.mentions.map { "\($0.slot)|" + $0.matches.map(\.id.uuidString).sorted().joined(separator: ",") }) }
        return values(one) == values(other) && named(one) == named(other)
    }
}

/// A script's world whose conversation is heard: the local world's store, its conversation
/// behind the voice gate, each turn played by the `VoicePlayer`.
final class VoiceWorld: ScriptWorld {
    let inner: LocalScriptWorld
    let player: VoicePlayer
    var registry: Registry { inner.registry }

    init(inner: LocalScriptWorld, player: VoicePlayer) {
        self.inner = inner
        self.player = player
    }

    func importSeed(name: String, text: String) -> ImportReport { inner.importSeed(name: name, text: text) }
    func records(_ entity: QualifiedName) throws -> [EntityRecord] { try inner.records(entity) }
    func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? { try inner.record(entity, id: id) }

    func openConversation(now: Date, timeZone: TimeZone) throws -> any ScriptConversation {
        guard let conversation = try inner.openConversation(now: now, timeZone: timeZone) as? Conversation else {
            throw Speech.ToolFailure(description: "the local world's conversation is not a Conversation")
        }
        return HeardConversation(voice: VoiceConversation(conversation: conversation, threshold: player.threshold), player: player)
    }
}

final class HeardConversation: ScriptConversation {
    let voice: VoiceConversation
    let player: VoicePlayer

    init(voice: VoiceConversation, player: VoicePlayer) {
        self.voice = voice
        self.player = player
    }

    func say(_ text: String) -> Conversation.Turn { player.play(text, on: voice) }
}
