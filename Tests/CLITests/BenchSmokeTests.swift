import Testing
import Foundation
import CometSchema

/// The benchmark harness still runs (a tiny run; nothing here is timed or compared).
@Suite("cometcal-bench")
struct BenchSmokeTests {
    @Test("a small benchmark run seeds through the engine and prints a summary with ratios")
    func smallRun() throws {
        let result = try CLIRunner.run(["--events", "300", "--samples", "20"], program: "cometcal-bench")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Summary"))
        #expect(result.stdout.contains("raw SQLite"))
        // The conversation is part of the default run, beside the engine calls of the same turns.
        #expect(result.stdout.contains("conversation: mean CPU µs per turn"))
        #expect(result.stdout.contains("turns/s"))
        #expect(result.stdout.contains("target: a turn takes well under 1 ms of CPU on average"))
        // The opt-in scenario is not.
        #expect(!result.stdout.contains("conversation-lookups"))
    }

    /// Every turn of the dialog is checked by the bench itself (its outcome, its reply against
    /// the engine's, the named events as seeded after each pass): a run that exits 0 played it
    /// as written. Two passes and a half, with the warm-up.
    @Test("the conversation scenario plays its dialog against the engine-only turns and reports per-turn CPU as JSON")
    func conversationJSON() throws {
        let result = try CLIRunner.run(["--events", "300", "--samples", "40", "--scenario", "conversation", "--json"], program: "cometcal-bench")
        #expect(result.status == 0, "\(result.stderr)")
        let root = try JSONParser.parse(result.stdout)
        guard case .array(let scenarios)? = root["scenarios"] else {
            Issue.record("no scenarios in \(result.stdout)")
            return
        }
        #expect(scenarios.map { $0["name"]?.stringValue } == ["conversation"])
        #expect(scenarios.first?["reference"] == "engine-turns")
        let figures = try #require(scenarios.first?["conversation"])
        #expect(figures["all"]?["turns"] == .int(40))
        func number(_ value: JSONValue?) -> Double? {
            switch value {
            case .int(let number)?: return Double(number)
            case .double(let number)?: return number
            default: return nil
            }
        }
        for key in ["cpuMicroseconds", "engineCPUMicroseconds", "ownCPUMicroseconds", "storeTransactions", "engineStoreTransactions"] {
            #expect(number(figures["all"]?[key]) != nil, "\(key)")
        }
        #expect((number(figures["turnsPerSecond"]) ?? 0) > 0)
        if case .bool? = figures["targetMet"] {} else { Issue.record("targetMet is not a yes or no: \(String(describing: figures["targetMet"]))") }
        guard case .array(let kinds)? = figures["byKind"] else {
            Issue.record("no kinds of turn in \(figures)")
            return
        }
        let names = Set(kinds.compactMap { $0["kind"]?.stringValue })
        #expect(names.isSuperset(of: ["question", "agenda", "asks to confirm", "correction", "refusal", "change done", "undo", "asks which one", "not understood"]))
    }

    @Test("the opt-in conversation-lookups scenario runs when named")
    func conversationLookups() throws {
        let result = try CLIRunner.run(["--events", "300", "--samples", "6", "--scenario", "conversation-lookups"], program: "cometcal-bench")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("misheard name"))
        #expect(result.stdout.contains("common word"))
    }
}
