import Foundation
import CometArguments
import CometSchema
import CometText

/// `cometcal schema check|show|dump`.
struct SchemaCommands {
    let parsed: ParsedCommand
    let terminal: Terminal
    let schemaPaths: [String]

    /// Compiles the schemas; on failure prints why and returns the exit code to use.
    private func compile(_ paths: [String]) -> Result<SchemaCompiler.Result, ExitCode> {
        do {
            return .success(try SchemaCompiler.compile(paths: paths))
        } catch let error as SchemaLoadError {
            terminal.err(error.description)
            return .failure(.noInput)
        } catch {
            terminal.err("cometcal: \(error)")
            return .failure(.ioError)
        }
    }

    /// Loads the registry for show/dump; schema errors are printed and end the command.
    private func loadRegistry() -> Result<Registry, ExitCode> {
        switch compile(schemaPaths) {
        case .failure(let code): return .failure(code)
        case .success(let result):
            guard let registry = result.registry else {
                terminal.err(Terminal.printable(DiagnosticRenderer(sources: result.sources).render(result.diagnostics))
                             + "error: the schemas have \(result.errorCount) error(s); fix them, then try again ('cometcal schema check')")
                return .failure(.dataError)
            }
            return .success(registry)
        }
    }

    func check() -> ExitCode {
        let explicit = parsed.positionals("paths")
        let paths = explicit.isEmpty ? schemaPaths : explicit
        let result: SchemaCompiler.Result
        switch compile(paths) {
        case .failure(let code): return code
        case .success(let compiled): result = compiled
        }
        if parsed.flag("json") {
            var object = JSONObject()
            object["ok"] = .bool(result.errorCount == 0)
            object["files"] = .array(result.sources.map { .string($0.path) })
            object["errors"] = .int(result.errorCount)
            object["warnings"] = .int(result.warningCount)
            object["diagnostics"] = .array(result.diagnostics.map(\.json))
            terminal.out(JSONWriter.pretty(.object(object)))
            return result.errorCount == 0 ? .success : .dataError
        }
        if !result.diagnostics.isEmpty {
            let renderer = DiagnosticRenderer(sources: result.sources, showCodes: !parsed.flag("no-codes"))
            terminal.err(Terminal.printable(renderer.render(result.diagnostics).trimmingCharacters(in: .newlines)))
        }
        let files = "\(result.sources.count) file\(result.sources.count == 1 ? "" : "s")"
        guard let registry = result.registry else {
            terminal.err("\(files) checked: \(count(result.errorCount, "error")), \(count(result.warningCount, "warning")).")
            return .dataError
        }
        let summary = SchemaOverview(registry: registry, terminal: terminal).summaryLine
        let warnings = result.warningCount > 0 ? "; \(count(result.warningCount, "warning"))" : "; no problems"
        terminal.out("\(files) checked: \(summary)\(warnings).")
        return .success
    }

    func show() -> ExitCode {
        let registry: Registry
        switch loadRegistry() {
        case .failure(let code): return code
        case .success(let loaded): registry = loaded
        }
        let overview = SchemaOverview(registry: registry, terminal: terminal)
        guard let name = parsed.positional("name") else {
            if parsed.flag("json") {
                terminal.out(JSONWriter.pretty(registry.dump()))
            } else {
                terminal.out(overview.overview())
            }
            return .success
        }
        let matches = registry.lookup(name)
        switch matches.count {
        case 0:
            let suggestion = closestName(name, registry: registry)
            terminal.err("error: no entity, enum, union or intent is named '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
                         + "\n(run 'cometcal schema show' to list every declaration)")
            return .dataError
        case 1:
            if parsed.flag("json") {
                terminal.out(JSONWriter.pretty(overview.json(of: matches[0])))
            } else {
                terminal.out(overview.describe(matches[0]))
            }
            return .success
        default:
            terminal.err("error: '\(name)' is declared in several domains; name one: " + matches.map { "'\($0.name)'" }.joined(separator: ", "))
            return .dataError
        }
    }

    func dump() -> ExitCode {
        switch loadRegistry() {
        case .failure(let code): return code
        case .success(let registry):
            let dump = registry.dump()
            terminal.out(parsed.flag("compact") ? JSONWriter.compact(dump) : JSONWriter.pretty(dump))
            return .success
        }
    }

    private func closestName(_ name: String, registry: Registry) -> String? {
        CometText.EditDistance.closest(to: name, among: registry.allNames)
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
