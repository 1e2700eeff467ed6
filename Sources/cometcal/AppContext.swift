import Foundation
import CometArguments
import CometSchema
import CometText
import CometStore
import CometIntents
import CometDaemon

/// What a command that touches the calendar needs: the registry, the store, the engine, and
/// how to read and print values for this person (their zone, their clock, their terminal).
final class AppContext {
    let registry: Registry
    /// What the commands run on: the local engine, or the daemon with `--connect`.
    let backend: CalendarBackend
    /// The local engine and its store; nil with `--connect`.
    let localEngine: IntentEngine?
    let localStore: (any OpenedStore)?
    let terminal: Terminal
    let parsed: ParsedCommand
    let valueText: ValueText
    let zone: TimeZone
    let now: Date
    let config: Config

    /// The schemas every command reads, or the failure said as each command says it.
    static func loadRegistry(_ schemaPaths: [String]) throws(CommandFailure) -> Registry {
        do {
            return try Registry.load(paths: schemaPaths)
        } catch let error as SchemaError {
            throw CommandFailure(code: .dataError, message: error.description + "error: the schemas have \(error.errorCount) error(s); run 'cometcal schema check'")
        } catch {
            throw CommandFailure(code: .noInput, message: "\(error)")
        }
    }

    init(parsed: ParsedCommand, terminal: Terminal, schemaPaths: [String]) throws {
        self.parsed = parsed
        self.terminal = terminal
        registry = try AppContext.loadRegistry(schemaPaths)
        let environment = ProcessInfo.processInfo.environment
        config = try AppContext.loadConfig()
        zone = config.timeZone ?? environment["TZ"].flatMap { TimeZone(identifier: $0) } ?? TimeZone.current
        // COMETCAL_NOW fixes the clock (an ISO 8601 instant): for reproducible demos and tests.
        if let fixed = environment["COMETCAL_NOW"], let instant = (try? DateTimeValue(parsing: fixed))?.instant {
            now = instant
        } else {
            now = Date()
        }
        if parsed.flag("connect") {
            backend = try RemoteBackend(socket: parsed.value("socket") ?? DaemonPaths.defaultSocket(), registry: registry, zone: zone, timeFormat: config.timeFormat, now: now)
            localEngine = nil
            localStore = nil
        } else {
            let (location, given) = StoreLocation.resolve(given: parsed.value("db"), environment: environment)
            // Only the default location is made with its folders on first use: a path someone
            // gave (--db, COMETCAL_DB) may be a typo, so its folder must exist; and a command
            // that only reads creates no store at all.
            let creating: StoreCreation = AppContext.readCommands.contains(parsed.path) ? .nothing : given ? .fileOnly : .fileAndFolders
            let store: any OpenedStore
            do {
                store = try StoreFactory.opener.open(location, registry: registry, now: now, creating: creating)
            } catch let error as StoreError {
                let code: ExitCode
                switch error.code {
                case .unsupportedLocation: code = .usage
                case .notFound: code = .noInput
                case .cannotOpen, .permissions, .corrupt: code = .ioError
                default: code = .dataError
                }
                throw CommandFailure(code: code, message: "error: cannot use the store at \(location): \(error.message)")
            }
            let clock = now
            let fixedClock = environment["COMETCAL_NOW"] != nil
            let engine = IntentEngine(store: store, timeZone: zone, timeFormat: config.timeFormat, clock: { fixedClock ? clock : Date() })
            backend = engine
            localEngine = engine
            localStore = store
        }
        valueText = ValueText(registry: registry, zone: zone, now: now, dateOrder: config.dateOrder)
    }

    var wantsJSON: Bool { parsed.flag("json") }

    static func loadConfig() throws -> Config {
        do {
            return try Config.load()
        } catch let problem as Config.Problem {
            throw CommandFailure(code: .config, message: problem.message)
        }
    }

    /// Commands that only read the store: on a store that does not exist they say so (66).
    static let readCommands: Set<[String]> = [["agenda"], ["today"], ["search"], ["export"], ["history"], ["event", "show"], ["event", "list"],
                                              ["calendar", "list"], ["backup"], ["alarms"], ["migrate"]]
}

/// A command that could not run: what to print and which exit code to use.
struct CommandFailure: Error {
    let code: ExitCode
    let message: String
}
