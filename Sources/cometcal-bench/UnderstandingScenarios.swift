import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometConversation

/// The understanding scenario: how long reading one utterance takes on the seeded store,
/// through `Conversation.interpret` (no write, no dialog state), with the statistical reader on
/// and, interleaved one for one as the reference, with the declared phrases alone. Beside it,
/// in child processes of their own, what a new process pays before its first reading: loading
/// the schemas, and the first reading itself, which trains the statistical model (once per
/// process and set of schemas).
enum UnderstandingScenarios {
    static let all: [Scenario] = [understanding]
    static let references: [Reference] = [phraseReader]

    /// The targets: one utterance ≤ 2 ms p50 on a 50,000-event store; the schemas,
    /// training included, ≤ 1 s.
    static let targetP50 = 2.0
    static let targetLoadMilliseconds = 1_000.0

    static let understanding = Scenario.timingItself(
        name: "understanding",
        summary: "one utterance read by Conversation.interpret on the seeded store (statistical reader on): \(utterances.count) requests, "
            + "questions, descriptions, reminders and words not understood, in turn; then, in new processes, schema load and the first reading (training included)",
        referenceName: "phrase-reader", targetP50: targetP50, comparesRows: false,
        body: { run, reference, scenario in try UnderstandingBench(run: run).measure(scenario, reference) }
    )

    static let phraseReader = Reference(
        name: "phrase-reader", label: "the declared phrases alone",
        summary: "the same utterances read by Conversation.interpret with statisticalReading = false, interleaved one for one",
        group: "the same conversation layer with its statistical reader off (the deterministic reader of the declared phrases alone)",
        prepare: { _ in throw BenchError("this reference is measured by its scenario") }
    )

    /// What an utterance is, for the breakdown by kind.
    enum Kind: String, CaseIterable {
        case request, question, description, reminder
        case notUnderstood = "not understood"
    }

    struct Utterance {
        let text: String
        let kind: Kind
    }

    /// Written for this benchmark (the bench's clock is Wednesday 2026-06-10, noon in Berlin;
    /// the seeded store holds the generator's titles: standups, reviews, lunches, lessons).
    /// Descriptions name events by what they are, when and with whom, not by exact title.
    static let utterances: [Utterance] = [
        // Requests: create, change, delete.
        .init(text: "add a dentist checkup on thursday at 8:15am", kind: .request),
        .init(text: "schedule a design review next tuesday from 2 to 3pm", kind: .request),
        .init(text: "put tennis with Ken on saturday morning", kind: .request),
        .init(text: "create a budget review on the 22nd at 11", kind: .request),
        .init(text: "book a haircut for friday at 5:30pm", kind: .request),
        .init(text: "move the board meeting to next wednesday", kind: .request),
        .init(text: "push the piano lesson back an hour", kind: .request),
        .init(text: "rename the book club to reading circle", kind: .request),
        .init(text: "cancel the car service on monday", kind: .request),
        .init(text: "delete tomorrow's standup", kind: .request),
        .init(text: "set the location of the code review to Lab 3", kind: .request),
        .init(text: "add yoga every thursday at 7am", kind: .request),
        .init(text: "add dinner with Radia on june 19 at 8pm for two hours", kind: .request),
        // Questions about the store.
        .init(text: "what's on my calendar tomorrow", kind: .question),
        .init(text: "what do I have next week", kind: .question),
        .init(text: "am I free on friday afternoon", kind: .question),
        .init(text: "when is my next dentist appointment", kind: .question),
        .init(text: "where is the design review", kind: .question),
        .init(text: "who is coming to the board meeting", kind: .question),
        .init(text: "how many meetings do I have on monday", kind: .question),
        .init(text: "show me my events for the weekend", kind: .question),
        .init(text: "is there anything on june 14", kind: .question),
        // Requests that name an event by description.
        .init(text: "cancel my 3pm meeting on thursday", kind: .description),
        .init(text: "move my lunch with Linus on friday to 1:30", kind: .description),
        .init(text: "what time is the haircut next week", kind: .description),
        .init(text: "delete the second standup tomorrow", kind: .description),
        .init(text: "move next monday's sprint planning to 10am", kind: .description),
        .init(text: "drop all my meetings on saturday", kind: .description),
        .init(text: "what's the location of my next flight", kind: .description),
        .init(text: "change the coffee with Margaret to 4pm", kind: .description),
        // Reminders.
        .init(text: "remind me to water the plants at 6pm", kind: .reminder),
        .init(text: "remind me about the budget review an hour before", kind: .reminder),
        .init(text: "set a reminder for the launch rehearsal 30 minutes before", kind: .reminder),
        .init(text: "remind me to renew my passport next friday morning", kind: .reminder),
        .init(text: "remind me tomorrow at 9 to call the garage", kind: .reminder),
        .init(text: "alert me 10 minutes before the piano lesson", kind: .reminder),
        .init(text: "add an alarm to the dentist the day before", kind: .reminder),
        // Words that are not a calendar request.
        .init(text: "the quick brown fox jumps over the lazy dog", kind: .notUnderstood),
        .init(text: "what's the weather like in Lisbon", kind: .notUnderstood),
        .init(text: "play some jazz", kind: .notUnderstood),
        .init(text: "order a large pizza with olives", kind: .notUnderstood),
        .init(text: "how tall is the eiffel tower", kind: .notUnderstood),
        .init(text: "blue seven window orchard", kind: .notUnderstood),
        .init(text: "translate good morning into french", kind: .notUnderstood),
        .init(text: "turn off the lights in the kitchen", kind: .notUnderstood),
    ]

    /// What the load child reads first: a request the declared phrases do not cover word for
    /// word, so the statistical model is needed (and trained) to read it.
    static let firstReading = "put tennis with Ken on saturday morning"
    /// What it reads next, in the same process: the model is there by then.
    static let secondReading = "am I free on friday afternoon"

    static func isUnderstanding(_ scenario: Scenario) -> Bool {
        all.contains { $0.name == scenario.name }
    }
}

/// One new process's cost of getting ready to read: what `--child-understand` prints.
struct LoadRound {
    /// Registry.load of the schema directories.
    let schemaLoadMilliseconds: Double
    /// Opening the store and making the engine and the conversation.
    let openMilliseconds: Double
    /// The process's first `interpret`, training included, and its CPU.
    let firstReadingMilliseconds: Double
    let firstReadingCPUMilliseconds: Double
    /// A second, different utterance in the same process.
    let secondReadingMilliseconds: Double
    /// The reader of the first reading ("statistical" when the model read it).
    let firstReader: String?

    /// What the "loading the schemas, training included" is.
    var loadAndTrainingMilliseconds: Double { schemaLoadMilliseconds + firstReadingMilliseconds }
}

/// The understanding scenario's own figures, beside its result and its reference's.
struct UnderstandingFigures {
    struct ReaderRow {
        /// Per utterance, in µs.
        let p50: Double
        let p99: Double
        let cpuP50: Double
        let mean: Double
        /// Of the distinct utterances, how many the reader understood.
        let understood: Int

        init(_ measurement: Measurement, understood: Int) {
            p50 = measurement.summary.p50 * 1_000
            p99 = measurement.summary.p99 * 1_000
            cpuP50 = measurement.cpuSummary.p50 * 1_000
            mean = measurement.summary.mean * 1_000
            self.understood = understood
        }
    }

    let utterances: Int
    /// Distinct utterances by kind.
    let kinds: [(kind: String, utterances: Int)]
    let statistical: ReaderRow
    let phrases: ReaderRow
    /// Of the distinct utterances, how many the statistical reader (not a phrase) read.
    let readByModel: Int
    let rounds: [LoadRound]
    /// The utterances slowest to read with the statistical reader on (by their own p50, in µs),
    /// beside the phrases alone: where the p99 comes from.
    let slowest: [(text: String, kind: String, statisticalP50: Double, phrasesP50: Double)]
    static let slowestShown = 5

    var ratio: Double? { phrases.p50 > 0 ? statistical.p50 / phrases.p50 : nil }
    var targetMet: Bool { statistical.p50 <= UnderstandingScenarios.targetP50 * 1_000 }

    /// Medians over the load rounds (nil without rounds).
    func median(_ value: (LoadRound) -> Double) -> Double? {
        let sorted = rounds.map(value).sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var loadTargetMet: Bool? {
        median(\.loadAndTrainingMilliseconds).map { $0 <= UnderstandingScenarios.targetLoadMilliseconds }
    }
}

/// The conversations the scenario reads with, on the fixture's store.
final class UnderstandingBench {
    let run: BenchRun
    let fixture: Fixture
    let statistical: Conversation
    let phrases: Conversation

    init(run: BenchRun) throws {
        self.run = run
        fixture = try run.fixture()
        let frame = run.frame
        statistical = Conversation(engine: fixture.engine, now: frame.now, timeZone: frame.zone)
        phrases = Conversation(engine: fixture.engine, now: frame.now, timeZone: frame.zone)
        phrases.statisticalReading = false
    }

    func measure(_ scenario: Scenario, _ reference: Reference?) throws -> ScenarioResult {
        let utterances = UnderstandingScenarios.utterances
        // One unrecorded pass (the model is trained here if no scenario before needed it),
        // counting what each reader understood.
        var understoodByModel = 0
        var understoodByPhrases = 0
        var readByModel = 0
        for utterance in utterances {
            let reading = statistical.interpret(utterance.text)
            if reading.understood { understoodByModel += 1 }
            if reading.reader == "statistical" { readByModel += 1 }
            if phrases.interpret(utterance.text).understood { understoodByPhrases += 1 }
        }
        let options = run.options
        run.progress("running understanding interleaved with phrase-reader: \(options.warmup) warm-up + \(options.samples) samples "
                     + "over \(utterances.count) utterances")
        var discarded = Measurement()
        var measurement = Measurement()
        var referenceMeasurement = Measurement()
        var byUtterance = [(statistical: Measurement, phrases: Measurement)](repeating: (Measurement(), Measurement()), count: utterances.count)
        for index in 0..<(options.warmup + options.samples) {
            let utterance = utterances[index % utterances.count]
            let warm = index < options.warmup
            // The reference first, as in the harness's interleaved loop.
            let (_, phraseTiming) = Stopwatch.time { phrases.interpret(utterance.text) }
            let (_, timing) = Stopwatch.time { statistical.interpret(utterance.text) }
            if warm {
                discarded.add(timing)
            } else {
                referenceMeasurement.add(phraseTiming, tag: utterance.kind.rawValue)
                measurement.add(timing, tag: utterance.kind.rawValue)
                byUtterance[index % utterances.count].phrases.add(phraseTiming)
                byUtterance[index % utterances.count].statistical.add(timing)
            }
        }

        var rounds: [LoadRound] = []
        for round in 0..<options.loadRounds {
            run.progress("understanding: schema load and first reading in a new process, \(round + 1)/\(options.loadRounds)")
            rounds.append(try childLoad())
        }
        let slowest = zip(utterances, byUtterance).filter { !$0.1.statistical.samples.isEmpty }
            .map { utterance, measured in
                (text: utterance.text, kind: utterance.kind.rawValue, statisticalP50: measured.statistical.summary.p50 * 1_000,
                 phrasesP50: measured.phrases.summary.p50 * 1_000)
            }
            .sorted { $0.statisticalP50 > $1.statisticalP50 }
            .prefix(UnderstandingFigures.slowestShown)
        let kinds = UnderstandingScenarios.Kind.allCases.map { kind in (kind.rawValue, utterances.filter { $0.kind == kind }.count) }
        let figures = UnderstandingFigures(utterances: utterances.count, kinds: kinds,
                                           statistical: .init(measurement, understood: understoodByModel),
                                           phrases: .init(referenceMeasurement, understood: understoodByPhrases),
                                           readByModel: readByModel, rounds: rounds, slowest: Array(slowest))
        var result = ScenarioResult(scenario: scenario, measurement: measurement, reference: reference, referenceMeasurement: referenceMeasurement)
        result.understanding = figures
        result.checks = [
            TargetCheck(figure: "understanding one utterance, p50 (statistical reader on)", value: measurement.summary.p50, unit: .milliseconds,
                        reference: (referenceMeasurement.summary.p50, "phrase-reader"), target: .valueAtMost(UnderstandingScenarios.targetP50)),
            TargetCheck(figure: "schema load + first reading (training included), median", value: figures.median(\.loadAndTrainingMilliseconds),
                        unit: .milliseconds, reference: nil, target: .valueAtMost(UnderstandingScenarios.targetLoadMilliseconds),
                        note: rounds.isEmpty ? "--load-rounds 0: not measured" : "\(rounds.count) new processes"),
        ]
        return result
    }

    /// One `--child-understand` process on the fixture's store.
    private func childLoad() throws -> LoadRound {
        var arguments = ["--child-understand", "--db", fixture.path]
        for path in run.options.schemaPaths { arguments += ["--schemas", path] }
        let output = try ICalWorkspace.run("/proc/self/exe", arguments)
        guard case .object(let object) = try JSONParser.parse(output),
              let schemaLoad = object["schemaLoadMs"]?.benchNumber, let open = object["openMs"]?.benchNumber,
              let first = object["firstReadingMs"]?.benchNumber, let firstCPU = object["firstReadingCPUMs"]?.benchNumber,
              let second = object["secondReadingMs"]?.benchNumber else {
            throw BenchError("the understanding child printed something unexpected: \(output.prefix(300))")
        }
        return LoadRound(schemaLoadMilliseconds: schemaLoad, openMilliseconds: open, firstReadingMilliseconds: first,
                         firstReadingCPUMilliseconds: firstCPU, secondReadingMilliseconds: second, firstReader: object["firstReader"]?.stringValue)
    }

    /// The child's side: loads the schemas, opens the store, reads two utterances, each timed,
    /// and prints one JSON object. Nothing before it in this process has read anything, so the
    /// first reading trains the statistical model.
    static func runChild(schemaPaths: [String], database: String) -> Int32 {
        func processCPU() -> UInt64 {
            var spec = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
            return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
        }
        func milliseconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }
        do {
            let loadStart = Stopwatch.now()
            let registry = try Registry.load(paths: schemaDirectories(schemaPaths))
            let schemaLoad = Stopwatch.now() - loadStart
            let frame = try TimeFrame()
            let openStart = Stopwatch.now()
            let store = try SQLiteStore(path: database, registry: registry, now: frame.now)
            let now = frame.now
            let engine = IntentEngine(store: store, timeZone: frame.zone, clock: { now })
            let conversation = Conversation(engine: engine, now: now, timeZone: frame.zone)
            let open = Stopwatch.now() - openStart
            let cpuStart = processCPU()
            let firstStart = Stopwatch.now()
            let first = conversation.interpret(UnderstandingScenarios.firstReading)
            let firstWall = Stopwatch.now() - firstStart
            let firstCPU = processCPU() - cpuStart
            let secondStart = Stopwatch.now()
            _ = conversation.interpret(UnderstandingScenarios.secondReading)
            let secondWall = Stopwatch.now() - secondStart
            print(JSONWriter.compact(.object(JSONObject([
                ("schemaLoadMs", .double(milliseconds(schemaLoad))), ("openMs", .double(milliseconds(open))),
                ("firstReadingMs", .double(milliseconds(firstWall))), ("firstReadingCPUMs", .double(milliseconds(firstCPU))),
                ("secondReadingMs", .double(milliseconds(secondWall))), ("firstReader", first.reader.map(JSONValue.string) ?? .null),
            ]))))
            return 0
        } catch {
            printError("error: \(error)")
            return 70
        }
    }
}

extension JSONValue {
    /// An int or a double as a Double.
    var benchNumber: Double? {
        switch self {
        case .double(let value): return value
        case .int(let value): return Double(value)
        default: return nil
        }
    }
}
