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
    /// --json-file PATH: print the table and write the JSON there too.
    var jsonFile: String?
    var schemaPaths: [String] = []
    var showHelp = false
    var listScenarios = false
    /// --quick: a smaller calendar and fewer samples, for a run of a few minutes.
    var quick = false
    /// Imports (and re-imports, exports) per iCalendar scenario, each beside one libical run.
    var importRounds = 3
    /// Samples of each agenda scenario on the imported store.
    var agendaSamples = 30
    /// Sizes of the scaling table (events in each generated file); by default from --events:
    /// a tenth, a fifth, all and four times (5,000 to 200,000 for 50,000), --quick half, all and twice.
    var scalingSizes: [Int] = []
    /// --generate FILE: write the generated calendar of --events events there and exit.
    var generate: String?
    /// Internal: import this file into --db and print the figures (the import scenarios' child).
    var childImport: String?
    /// Internal: load the schemas, read two utterances on --db and print the times (the
    /// understanding scenario's child).
    var childUnderstand = false
    /// New processes the understanding scenario starts to time schema load and the first
    /// reading (training included).
    var loadRounds = 3
    /// Calendar sizes of the CalDAV scenario (events written to each server): by default 1,000
    /// and --events (50,000 in the full run); --quick only the first.
    var caldavSizes: [Int] = []
    /// --caldav-without-peers: CometCal's server alone (to profile it, or to compare two builds).
    var caldavWithoutPeers = false

    /// --store: "sqlite" (the default run) or "postgresql" (the same requests on both stores,
    /// in one table; `StoreComparison`).
    var store = "sqlite"
    /// --pg-address: the PostgreSQL database of `--store postgresql` (scripts/bench starts a
    /// private cluster and gives its address).
    var postgresAddress: String?

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
          --quick                   A run of a few minutes: 10000 events (unless --events),
                                    200 samples (unless --samples), one import round, 10
                                    agenda samples, one load round, scaling at half, all
                                    and twice --events.
          --import-rounds <n>       Imports, re-imports and exports measured (default 3).
          --agenda-samples <n>      Samples of each agenda scenario on the imported store
                                    (default 30).
          --scaling <n,n,…>         Sizes of the scaling table (default: a tenth, a fifth, all
                                    and four times --events: 5000 to 200000 for 50000).
          --load-rounds <n>         New processes timed loading the schemas and reading a
                                    first utterance, training included (default 3; --quick 1).
          --caldav-events <n,n,…>   Calendar sizes of the caldav scenario, each written to
                                    CometCal, Radicale and Xandikos (default: 1000 and
                                    --events; --quick 1000 alone).
          --caldav-without-peers    Measure CometCal's CalDAV server alone, without starting
                                    Radicale and Xandikos (no target is checked): to
                                    profile it, or to compare two builds.
          --generate <file>         Write the generated calendar (--events VEVENTs, --seed) to
                                    the file and exit, to import or profile it by hand.
          --db <path>               Store to use. A new file is seeded and kept; a file that
                                    already holds events is reused without seeding (the
                                    measured creates and deletes change it). Default: a fresh
                                    temporary file, removed at exit.
          --seed <n>                Seed of the data generator (default 20260610).
          --schemas <dir>           Schema directory (default: $COMETCAL_SCHEMAS, ./Schemas,
                                    or the source tree's Schemas).
          --store <sqlite|postgresql>
                                    sqlite (default): the run above. postgresql: the same
                                    requests on a SQLite store and on a PostgreSQL database
                                    holding the same events, in one table with the ratio
                                    and the issue's target (PostgreSQL within 2× of SQLite
                                    per request): agendas, search, create/update/delete,
                                    import, the daemon's mix, and two daemons on one
                                    database. --scenario picks among those: agenda-day,
                                    agenda-month, search, create, update, delete, import,
                                    daemon, two-daemons.
          --pg-address <address>    The PostgreSQL database of --store postgresql (empty;
                                    scripts/bench starts a private cluster and gives it).
          --json                    Print the results as JSON on stdout (progress stays on stderr).
          --json-file <file>        Print the table, and write the same results as JSON to the file.
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
        var given = Set<String>()
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
            case "--quick": options.quick = true
            case "--import-rounds": options.importRounds = try integer(argument, 1...100); given.insert(argument)
            case "--agenda-samples": options.agendaSamples = try integer(argument, 1...100_000); given.insert(argument)
            case "--scaling":
                let text = try value(argument)
                let sizes = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
                guard !sizes.isEmpty, sizes.count == text.split(separator: ",").count, sizes.allSatisfy({ (1...10_000_000).contains($0) }) else {
                    throw UsageError(message: "--scaling takes sizes such as 5000,10000,50000, not '\(text)'")
                }
                options.scalingSizes = sizes
                given.insert(argument)
            case "--load-rounds": options.loadRounds = try integer(argument, 0...100); given.insert(argument)
            case "--caldav-without-peers": options.caldavWithoutPeers = true
            case "--caldav-events":
                let text = try value(argument)
                let sizes = text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
                guard !sizes.isEmpty, sizes.count == text.split(separator: ",").count, sizes.allSatisfy({ (1...1_000_000).contains($0) }) else {
                    throw UsageError(message: "--caldav-events takes sizes such as 1000,50000, not '\(text)'")
                }
                options.caldavSizes = sizes
                given.insert(argument)
            case "--child-understand": options.childUnderstand = true
            case "--generate": options.generate = try value(argument)
            case "--child-import": options.childImport = try value(argument)
            case "--events": given.insert(argument); options.events = try integer(argument, 0...10_000_000)
            case "--recurring-percent": options.recurringPercent = try integer(argument, 0...100)
            case "--samples": given.insert(argument); options.samples = try integer(argument, 1...10_000_000)
            case "--scenario":
                options.scenarios += try value(argument).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case "--db": options.databasePath = try value(argument)
            case "--store":
                let text = try value(argument)
                guard ["sqlite", "postgresql"].contains(text) else { throw UsageError(message: "--store takes sqlite or postgresql, not '\(text)'") }
                options.store = text
            case "--pg-address": options.postgresAddress = try value(argument)
            case "--seed":
                let text = try value(argument)
                guard let seed = UInt64(text) else { throw UsageError(message: "--seed takes a non-negative whole number, not '\(text)'") }
                options.seed = seed
            case "--schemas": options.schemaPaths.append(try value(argument))
            case "--json": options.json = true
            case "--json-file": options.jsonFile = try value(argument)
            case "--list": options.listScenarios = true
            case "-h", "--help": options.showHelp = true
            default:
                argument = argument.isEmpty ? "''" : argument
                throw UsageError(message: "unknown argument \(argument); see --help")
            }
            index += 1
        }
        if options.store == "postgresql", options.postgresAddress == nil {
            throw UsageError(message: "--store postgresql needs --pg-address (scripts/bench --store postgresql starts a private cluster and gives it)")
        }
        if options.quick {
            if !given.contains("--events") { options.events = 10_000 }
            if !given.contains("--samples") { options.samples = 200 }
            if !given.contains("--import-rounds") { options.importRounds = 1 }
            if !given.contains("--agenda-samples") { options.agendaSamples = 10 }
            if !given.contains("--load-rounds") { options.loadRounds = 1 }
        }
        if !given.contains("--caldav-events") {
            let small = min(1_000, max(1, options.events))
            options.caldavSizes = options.quick || options.events <= small ? [small] : [small, options.events]
        }
        if !given.contains("--scaling") {
            let events = max(10, options.events)
            options.scalingSizes = options.quick ? [events / 2, events, events * 2] : [events / 10, events / 5, events, events * 4]
        }
        return options
    }
}
