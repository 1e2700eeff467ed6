import Foundation
import CometSchema

/// `cometcal-bench`: seeds a store through the intent engine, runs the scenarios, measures
/// their references in the same run, and prints a table (or JSON). Exit codes follow sysexits:
/// 64 usage, 65 schema errors, 70 a failed benchmark.

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Finds the schemas like the CLI does: --schemas, $COMETCAL_SCHEMAS, ./Schemas, then the
/// source tree's Schemas folder.
func schemaDirectories(_ given: [String]) -> [String] {
    if !given.isEmpty { return given }
    if let fromEnvironment = ProcessInfo.processInfo.environment["COMETCAL_SCHEMAS"], !fromEnvironment.isEmpty {
        return fromEnvironment.split(separator: ":").map(String.init)
    }
    if FileManager.default.fileExists(atPath: "Schemas") { return ["Schemas"] }
    return [URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas").path]
}

func main() -> Int32 {
    let options: BenchOptions
    do {
        options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch let error as BenchOptions.UsageError {
        printError("error: \(error.message)")
        return 64
    } catch {
        printError("error: \(error)")
        return 64
    }
    if options.showHelp {
        print(BenchOptions.help)
        return 0
    }
    if options.listScenarios {
        for scenario in Scenario.catalogue {
            let reference = scenario.referenceName.map { " (vs \($0))" } ?? ""
            let optIn = scenario.inDefaultRun ? "" : " [not in the default run]"
            print("\(scenario.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(scenario.summary)\(reference)\(optIn)")
        }
        return 0
    }
    var scenarios: [Scenario] = []
    if options.store == "postgresql" {
        // --store postgresql has scenarios of its own (compareStores checks the names).
    } else if options.scenarios.isEmpty {
        scenarios = Scenario.catalogue.filter(\.inDefaultRun)
    } else {
        for name in options.scenarios {
            guard let scenario = Scenario.catalogue.first(where: { $0.name == name }) else {
                printError("error: no scenario is named '\(name)' (scenarios: \(Scenario.catalogue.map(\.name).joined(separator: ", ")))")
                return 64
            }
            scenarios.append(scenario)
        }
    }

    if options.childUnderstand {
        // Before the schemas are loaded here: the child times its own load.
        guard let database = options.databasePath else {
            printError("error: --child-understand needs --db")
            return 64
        }
        return UnderstandingBench.runChild(schemaPaths: options.schemaPaths, database: database)
    }

    let registry: Registry
    do {
        registry = try Registry.load(paths: schemaDirectories(options.schemaPaths))
    } catch {
        printError("error: cannot load the schemas: \(error)")
        return 65
    }

    if let path = options.generate {
        do {
            var generator = CalendarFileGenerator(frame: try TimeFrame(), events: options.events, seed: options.seed)
            let summary = try generator.write(to: path)
            print("\(path): \(summary.events) events (\(summary.series) series, \(summary.overrides) overrides, "
                  + "\(summary.withAttendees) with attendees, \(summary.withAlarms) with alarms), \(summary.bytes) bytes")
            return 0
        } catch {
            printError("error: \(error)")
            return 70
        }
    }
    if let file = options.childImport {
        guard let database = options.databasePath else {
            printError("error: --child-import needs --db")
            return 64
        }
        guard let frame = try? TimeFrame() else { return 70 }
        return ICalWorkspace.runChild(file: file, database: database, registry: registry, frame: frame)
    }

    let progress: (String) -> Void = { message in printError("[bench] " + message) }
    if options.store == "postgresql", let address = options.postgresAddress {
        return compareStores(options: options, registry: registry, address: address, progress: progress)
    }
    var run: BenchRun?
    do {
        let frame = try TimeFrame()
        let bench = BenchRun(options: options, registry: registry, frame: frame, progress: progress)
        run = bench
        let results = try bench.run(scenarios)
        let fixture = bench.fixtureIfMade
        let report = Report(options: options, environment: .current(), frame: frame, seed: fixture?.seedReport,
                            storeAfterSeed: bench.storeAfterSeed, storeAtEnd: fixture.flatMap { StoreStats.measure(path: $0.path) },
                            results: results)
        print(options.json ? report.json() : report.text())
        if let path = options.jsonFile {
            guard FileManager.default.createFile(atPath: path, contents: Data((report.json() + "\n").utf8)) else {
                printError("error: cannot write \(path)")
                bench.cleanUp()
                return 73
            }
        }
        bench.cleanUp()
        return 0
    } catch {
        printError("error: \(error)")
        run?.cleanUp()
        return 70
    }
}

/// `--store postgresql`: the comparison's table (or JSON), and --json-file.
func compareStores(options: BenchOptions, registry: Registry, address: String, progress: @escaping (String) -> Void) -> Int32 {
    let names = options.scenarios.isEmpty ? StoreComparison.scenarioNames : options.scenarios
    if let unknown = names.first(where: { !StoreComparison.scenarioNames.contains($0) }) {
        printError("error: --store postgresql has no scenario '\(unknown)' (scenarios: \(StoreComparison.scenarioNames.joined(separator: ", ")))")
        return 64
    }
    var run: BenchRun?
    do {
        let frame = try TimeFrame()
        let bench = BenchRun(options: options, registry: registry, frame: frame, progress: progress)
        run = bench
        let comparison = try StoreComparisonBench(run: bench, address: address)
        let rows = try comparison.measure(names)
        let report = StoreComparison.Report(options: options, environment: .current(), rows: rows, seededEvents: comparison.sqlite.seedReport.events,
                                            copySeconds: comparison.copySeconds, analyzeSeconds: comparison.analyzeSeconds, postgresAddress: address)
        print(options.json ? report.json() : report.text())
        defer { bench.cleanUp() }
        if let path = options.jsonFile {
            guard FileManager.default.createFile(atPath: path, contents: Data((report.json() + "\n").utf8)) else {
                printError("error: cannot write \(path)")
                return 73
            }
        }
        return 0
    } catch {
        printError("error: \(error)")
        run?.cleanUp()
        return 70
    }
}

exit(main())
