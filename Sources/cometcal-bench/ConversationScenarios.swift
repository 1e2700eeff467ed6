import Foundation
import CometSchema
import CometIntents
import CometConversation

/// The conversation scenario: turns of a mixed dialog through `Conversation.say` on the seeded
/// store, each interleaved with its reference, the engine calls that turn stands for (lookups,
/// intents, undo) made directly on the same records. The difference is what understanding,
/// dialog state and replies cost on top of the store work a turn needs.
enum ConversationScenarios {
    static let all: [Scenario] = [conversation, conversationLookups]
    static let references: [Reference] = [engineTurns, engineLookups]

    static let conversation = Scenario(
        name: "conversation",
        summary: "one turn of a mixed dialog through Conversation.say: questions, an agenda, moves asked about, corrected, "
            + "refused, chosen and undone, words not understood",
        referenceName: "engine-turns", targetP50: nil, comparesRows: false
    ) { run in
        let bench = try run.shared("conversation-mix") { try ConversationBench(run: run, dialog: .mix) }
        return { measurement in try bench.playConversationTurn(&measurement) }
    }

    static let engineTurns = Reference(
        name: "engine-turns", label: "the engine calls of the same turns",
        summary: "each turn's store work called directly: engine.lookup of the words the conversation resolves, engine.record of a chosen "
            + "or pending event, engine.perform of the same IntentRequest (pending, declined or done), nextOccurrence, undo; nothing for words not understood",
        group: engineGroup
    ) { run in
        let bench = try run.shared("conversation-mix") { try ConversationBench(run: run, dialog: .mix) }
        return { measurement in try bench.playEngineTurn(&measurement) }
    }

    /// Not in the default run: at the default size each misheard name takes seconds.
    static let conversationLookups = Scenario(
        name: "conversation-lookups",
        summary: "turns whose lookup grows with the store: a misheard name (“Move the pinic to 3pm”), a word thousands of events share "
            + "(“Move lunch to 1pm”), then “never mind”; opt-in, use few samples",
        referenceName: "engine-lookups", targetP50: nil, comparesRows: false, inDefaultRun: false
    ) { run in
        let bench = try run.shared("conversation-lookups") { try ConversationBench(run: run, dialog: .lookups) }
        return { measurement in try bench.playConversationTurn(&measurement) }
    }

    static let engineLookups = Reference(
        name: "engine-lookups", label: "the engine lookups of the same turns",
        summary: "engine.lookup of 'pinic' (not found) and of 'lunch' (ambiguous); nothing for “never mind”",
        group: engineGroup
    ) { run in
        let bench = try run.shared("conversation-lookups") { try ConversationBench(run: run, dialog: .lookups) }
        return { measurement in try bench.playEngineTurn(&measurement) }
    }

    static let engineGroup = "the engine alone on the store under test, making the requests the conversation makes, turn for turn"

    static func isConversation(_ scenario: Scenario) -> Bool {
        all.contains { $0.name == scenario.name }
    }
}

extension ConversationBench {
    /// The reference's turn i: its setup and restore outside the clock, the engine calls timed.
    /// Rows are the store transactions the timed calls opened.
    func playEngineTurn(_ measurement: inout Measurement) throws {
        guard engineTurns == conversationTurns else {
            throw BenchError("the engine-only turns are out of step with the conversation (\(engineTurns) vs \(conversationTurns))")
        }
        let turn = turns[engineTurns % turns.count]
        try turn.engine.prepare()
        let before = store.transactions
        let (said, timing) = try Stopwatch.time { try turn.engine.work() }
        let transactions = store.transactions - before
        try turn.engine.restore()
        engineSaid = said
        engineTurns += 1
        measurement.add(timing, rows: transactions, tag: turn.kind)
    }

    /// The conversation's turn i, right after the reference's: timed `say`, then (outside the
    /// clock) the checks that it did what the dialog expects and said what the engine said.
    func playConversationTurn(_ measurement: inout Measurement) throws {
        guard engineTurns == conversationTurns + 1 else {
            throw BenchError("the conversation turns are out of step with the engine-only ones (\(conversationTurns) vs \(engineTurns))")
        }
        let index = conversationTurns % turns.count
        let turn = turns[index]
        if index == 0 { startConversation() }
        let before = store.transactions
        let (reply, timing) = Stopwatch.time { conversation.say(turn.text) }
        let transactions = store.transactions - before
        conversationTurns += 1

        func fail(_ problem: String) -> BenchError {
            BenchError("conversation turn “\(turn.text)” \(problem); it replied: \(reply.reply)")
        }
        guard turn.anyCount ? reply.outcome.name == turn.outcome.name : reply.outcome == turn.outcome else { throw fail("gave \(reply.outcome) instead of \(turn.outcome)") }
        guard reply.understood == turn.understood else { throw fail(turn.understood ? "was not understood" : "was understood") }
        switch turn.check {
        case .outcome: break
        case .sameText:
            guard reply.reply == engineSaid.text else { throw fail("did not repeat the engine's “\(engineSaid.text ?? "")”") }
        case .startsWithText:
            guard let text = engineSaid.text, reply.reply.hasPrefix(text) else { throw fail("did not start with the engine's “\(engineSaid.text ?? "")”") }
        }
        if index == turns.count - 1 { try checkStore() }
        measurement.add(timing, rows: transactions, tag: turn.kind)
    }
}

/// The figures the issue asks for, from the conversation's result and its reference's: CPU time
/// per turn (means: the target is an average), turns per second, and the conversation's own
/// share, by kind of turn and for the whole mix.
struct ConversationFigures {
    struct Row {
        let kind: String
        let turns: Int
        /// Mean CPU µs per turn: the conversation's, and the engine-only calls'.
        let cpu: Double
        let engineCPU: Double
        /// Mean wall µs per turn.
        let wall: Double
        let engineWall: Double
        /// Store transactions per turn.
        let transactions: Double
        let engineTransactions: Double

        var ownCPU: Double { cpu - engineCPU }

        init(kind: String, _ measurement: Measurement, _ reference: Measurement) {
            self.kind = kind
            turns = measurement.samples.count
            cpu = measurement.cpuSummary.mean * 1_000
            engineCPU = reference.cpuSummary.mean * 1_000
            wall = measurement.summary.mean * 1_000
            engineWall = reference.summary.mean * 1_000
            transactions = measurement.meanRows
            engineTransactions = reference.meanRows
        }
    }

    /// "A turn should take well under a millisecond of CPU on average, apart from the store
    /// query it needs": the mean own CPU per turn, with "well under" taken as at most half.
    static let targetOwnCPU = 500.0

    let all: Row
    let kinds: [Row]

    init?(_ result: ScenarioResult) {
        guard ConversationScenarios.isConversation(result.scenario), let reference = result.referenceMeasurement,
              !result.measurement.samples.isEmpty else { return nil }
        all = Row(kind: "all turns", result.measurement, reference)
        let engineTags = Dictionary(reference.byTag.map { ($0.tag, $0.measurement) }, uniquingKeysWith: { first, _ in first })
        kinds = result.measurement.byTag.compactMap { tag, part in engineTags[tag].map { Row(kind: tag, part, $0) } }
    }

    /// Turns a second, by wall time (what a person or a server sees on this machine now).
    var turnsPerSecond: Double { all.wall > 0 ? 1_000_000 / all.wall : 0 }
    /// Turns a second one core could play, by CPU time.
    var turnsPerCPUSecond: Double { all.cpu > 0 ? 1_000_000 / all.cpu : 0 }
    var targetMet: Bool { all.ownCPU <= ConversationFigures.targetOwnCPU }
}
