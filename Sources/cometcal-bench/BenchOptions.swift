import Foundation

/// The command line of `cometcal-bench`. Hand-parsed: the tool is small and must not depend on
/// the CLI's argument library.
struct BenchOptions {
    var events = 50_000
    var recurringPercent = 10
    var samples = 1_000
    /// Scenario names to run, in the order given; empty runs every scenario of the default run.
    var scenarios: [String] = []
    /// A store to seed (or, when it already holds events, to reuse); nil seeds a fresh temp file.
    var databasePath: String?
    var seed: UInt64 = 20_260_610
    var json = false
    var schemaPaths: [String] = []
    var showHelp = false
    var listScenarios = false

    /// Operations run before each scenario's measured ones (statement caches, page cache).
    var warmup: Int { min(50, max(2, samples / 20)) }

    struct UsageError: Error {
        let message: String
    }

    static let help = """
        USAGE: cometcal-bench [options]

        Seeds a CometCal store through the intent engine, then measures intents and queries
        against it and against raw SQLite on the same machine in the same run, turns of a
        conversation against the engine calls they make, and requests to the daemon (run in
        this process, over its socket, from 1, 8 and 32 client threads) against the same
        requests on the engine alone. Every scenario prints min/p50/p90/p99/max and its p50 as
        a ratio to its reference; the daemon also requests per second and CPU per request.

        OPTIONS:
          --events <n>              Events to seed (default 50000).
          --recurring-percent <p>   Share of seeded and created events that repeat (default 10).
          --samples <n>             Measured operations per scenario (default 1000). Each
                                    phase of the daemon scenario measures n × 2 ms.
          --scenario <name>         Run only this scenario (repeatable, or comma-separated).
                                    Default: all but those --list marks as not in the
                                    default run.
          --db <path>               Store to use. A new file is seeded and kept; a file that
                                    already holds events is reused without seeding (the
                                    measured creates and deletes change it). Default: a fresh
                                    temporary file, removed at exit.
          --seed <n>                Seed of the data generator (default 20260610).
          --schemas <dir>           Schema directory (default: $COMETCAL_SCHEMAS, ./Schemas,
                                    or the source tree's Schemas).
          --json                    Print the results as JSON on stdout (progress stays on stderr).
          --list                    List the scenarios and exit.
          -h, --help                Show this help.

        Run the real measurements with a release build: scripts/bench [options].
        """

    static func parse(_ given: [String]) throws -> BenchOptions {
        // --name=value is accepted as well as --name value.
        let arguments = given.flatMap { argument -> [String] in
            guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return [argument] }
            return [String(argument[..<equals]), String(argument[argument.index(after: equals)...])]
        }
        var options = BenchOptions()
        var index = 0
        func value(_ name: String) throws -> String {
            guard index + 1 < arguments.count else { throw UsageError(message: "\(name) needs a value") }
            index += 1
            return arguments[index]
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(name)
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
                throw UsageError(message: "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
        while index < arguments.count {
            var argument = arguments[index]
            switch argument {
            case "--events": options.events = try integer(argument, 0...10_000_000)
            case "--recurring-percent": options.recurringPercent = try integer(argument, 0...100)
            case "--samples": options.samples = try integer(argument, 1...10_000_000)
            case "--scenario":
                options.scenarios += try value(argument).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case "--db": options.databasePath = try value(argument)
            case "--seed":
                let text = try value(argument)
                guard let seed = UInt64(text) else { throw UsageError(message: "--seed takes a non-negative whole number, not '\(text)'") }
                options.seed = seed
            case "--schemas": options.schemaPaths.append(try value(argument))
            case "--json": options.json = true
            case "--list": options.listScenarios = true
            case "-h", "--help": options.showHelp = true
            default:
                argument = argument.isEmpty ? "''" : argument
                throw UsageError(message: "unknown argument \(argument); see --help")
            }
            index += 1
        }
        return options
    }
}
