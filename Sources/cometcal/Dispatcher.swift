import Foundation
import CometArguments
import CometSchema

/// Runs one parsed command. Each command prints for people by default and JSON with `--json`.
struct Dispatcher {
    let parsed: ParsedCommand
    let terminal: Terminal

    func run() -> ExitCode {
        switch parsed.path {
        case ["schema", "check"]: return SchemaCommands(parsed: parsed, terminal: terminal).check()
        case ["schema", "show"]: return SchemaCommands(parsed: parsed, terminal: terminal).show()
        case ["schema", "dump"]: return SchemaCommands(parsed: parsed, terminal: terminal).dump()
        default:
            terminal.err("cometcal: internal error: no handler for '\(parsed.path.joined(separator: " "))'")
            return .internalError
        }
    }
}
