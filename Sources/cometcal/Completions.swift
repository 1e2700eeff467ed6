import Foundation
import CometArguments
import CometSchema
import CometStore
import CometIntents

/// `cometcal completions bash|zsh|fish` prints a script to load in the shell; the script asks
/// `cometcal __complete SHELL -- WORDS…` for each completion, which reads the same command specs
/// as `--help` (so completions never drift from the commands) and, for events and calendars,
/// their titles from the store.
enum Completions {
    static let shells = ["bash", "zsh", "fish"]

    /// What the shell is told when a file name is wanted: it completes paths itself.
    static let filesMarker = "__files__"

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash":
            return """
                # cometcal completion for bash. Load it with:
                #   source <(cometcal completions bash)
                # or save it as ~/.local/share/bash-completion/completions/cometcal
                _cometcal() {
                    local cur="${COMP_WORDS[COMP_CWORD]}" line
                    local -a found
                    mapfile -t found < <(cometcal __complete bash -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
                    COMPREPLY=()
                    if [[ "${found[0]}" == "\(filesMarker)" ]]; then
                        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                        compopt -o filenames 2>/dev/null
                        return 0
                    fi
                    for line in "${found[@]}"; do
                        if [[ "$line" == *[[:space:]\\'\\"]* ]]; then COMPREPLY+=("$(printf '%q' "$line")"); else COMPREPLY+=("$line"); fi
                    done
                }
                complete -F _cometcal cometcal

                """
        case "zsh":
            return """
                #compdef cometcal
                # cometcal completion for zsh. Load it with:
                #   source <(cometcal completions zsh)
                # or save it as _cometcal in a folder of your $fpath.
                _cometcal() {
                    local -a found
                    found=("${(@f)$(cometcal __complete zsh -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
                    if [[ "${found[1]}" == "\(filesMarker)" ]]; then
                        _files
                        return
                    fi
                    (( ${#found} )) && [[ -n "${found[1]}" ]] && compadd -- "${found[@]}"
                }
                if (( $+functions[compdef] )); then
                    compdef _cometcal cometcal
                fi

                """
        case "fish":
            return """
                # cometcal completion for fish. Load it with:
                #   cometcal completions fish | source
                # or save it as ~/.config/fish/completions/cometcal.fish
                function __cometcal_complete
                    set -l words (commandline -opc) (commandline -ct)
                    set -l found (cometcal __complete fish -- $words[2..-1] 2>/dev/null)
                    if test "$found[1]" = "\(filesMarker)"
                        __fish_complete_path (commandline -ct)
                    else
                        printf '%s\\n' $found
                    end
                end
                complete -c cometcal -f -a '(__cometcal_complete)'

                """
        default:
            return nil
        }
    }

    /// The candidates for `words` (after the program name; the last is being typed), one per
    /// line.
    static func candidates(for words: [String], root: CommandSpec, registry: Registry?, schemaPaths: [String]) -> [String] {
        let current = words.last ?? ""
        switch Completer(root: root).slot(for: words) {
        case .words(let names):
            return names
        case .value(let kind, let fixed):
            if !fixed.isEmpty { return fixed.filter { $0.hasPrefix(current) } }
            switch kind {
            case "path", "file", "dir", "files", "paths": return [filesMarker]
            case "shell": return shells.filter { $0.hasPrefix(current) }
            case "when", "date":
                return ["today", "tomorrow", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "next week", "next month"]
                    .filter { $0.hasPrefix(current.lowercased()) }
            case "intent":
                return (registry?.domains.flatMap(\.intents).map(\.name.name) ?? []).filter { $0.hasPrefix(current) }
            default:
                guard let registry else { return [] }
                return titles(of: kind, startingWith: current, words: words, registry: registry)
            }
        }
    }

    /// Titles of the records of the kind a value names (`event`, `calendar`), from the store
    /// the command line names (or the default one), read without creating anything.
    private static func titles(of kind: String, startingWith prefix: String, words: [String], registry: Registry) -> [String] {
        guard let entity = registry.domains.flatMap(\.entities).first(where: {
            $0.kind == .indexed && IntentEngine.noun($0.name, count: 1, in: registry) == kind
        }) else { return [] }
        var given: String?
        for (index, word) in words.enumerated() {
            if word == "--db", index + 1 < words.count - 1 { given = words[index + 1] }
            if word.hasPrefix("--db=") { given = String(word.dropFirst(5)) }
        }
        // Completion is a shell helper run at every Tab: it opens the store read-only and never
        // creates, migrates or moves anything. A store that would need a migration (or any
        // store that cannot be opened so) gives no titles, silently: the shell has nowhere to
        // say why, and the next real command says it.
        let location = StoreLocation.resolve(given: given).location
        guard case .file(let path) = location, FileManager.default.fileExists(atPath: path),
              let store = try? StoreFactory.opener.open(location, registry: registry, creating: .nothing, access: .readOnlyNoMigration) else { return [] }
        let records = (try? store.readTransaction { try $0.fetchAll(entity.name, matching: [], text: nil, limit: 5_000, offset: 0) }) ?? []
        var seen = Set<String>()
        var result: [String] = []
        let lowered = prefix.lowercased()
        for record in records {
            let title = registry.title(of: record)
            guard !title.contains("\n"), title.lowercased().hasPrefix(lowered), seen.insert(title).inserted else { continue }
            result.append(title)
        }
        return result.sorted().prefix(200).map { $0 }
    }
}
