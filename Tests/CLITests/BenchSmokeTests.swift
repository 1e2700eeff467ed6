import Testing
import Foundation

/// The benchmark harness still runs (a tiny run; nothing here is timed or compared).
@Suite("cometcal-bench")
struct BenchSmokeTests {
    @Test("a small benchmark run seeds through the engine and prints a summary with ratios")
    func smallRun() throws {
        let result = try CLIRunner.run(["--events", "300", "--samples", "20"], program: "cometcal-bench")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Summary"))
        #expect(result.stdout.contains("raw SQLite"))
    }
}
