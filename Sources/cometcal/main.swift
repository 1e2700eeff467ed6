import Foundation
import CometArguments
import CometSchema

/// `cometcal`: loads the schemas (their intents shape the command tree), parses the command
/// line, runs the command, and exits with a sysexits code.
/// `--connect SOCKET` and `--connect=SOCKET` are `--connect --socket SOCKET`: the socket is
/// optional, and a path (it has a '/') after `--connect` is taken as it.
func connectSpelled(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        if argument == "--" { return result + arguments[index...] }
        if argument.hasPrefix("--connect=") {
            result += ["--connect", "--socket", String(argument.dropFirst("--connect=".count))]
        } else if argument == "--connect", index + 1 < arguments.count, arguments[index + 1].contains("/") {
            result += ["--connect", "--socket", arguments[index + 1]]
            index += 1
        } else {
            result.append(argument)
        }
        index += 1
    }
    return result
}

let arguments = connectSpelled(Array(CommandLine.arguments.dropFirst()))
let schemaPaths = SchemaLocator.directories(flag: SchemaLocator.schemaFlags(in: arguments))
let registry = try? Registry.load(paths: schemaPaths)
let root = Commands.root(registry: registry)
// `cometcal __complete SHELL -- WORDS…`: what the completion scripts ask (not a command people type).
if arguments.first == "__complete" {
    let words = Array(arguments.drop { $0 != "--" }.dropFirst())
    let found = Completions.candidates(for: words.isEmpty ? [""] : words, root: root, registry: registry, schemaPaths: schemaPaths)
    if !found.isEmpty { FileHandle.standardOutput.write(Data((found.joined(separator: "\n") + "\n").utf8)) }
    exit(0)
}
// `cometcal __man`: the man page, made from the same specs as --help (scripts/manpage writes it).
if arguments.first == "__man" {
    FileHandle.standardOutput.write(Data(ManPage.render(root: root, source: "cometcal \(Version.number)", extra: ManualSections.all).utf8))
    exit(0)
}
let code: ExitCode
do {
    let parsed = try ArgumentParser.parse(arguments, root: root)
    let terminal = Terminal.detect(noColorFlag: parsed.flag("no-color"))
    if parsed.flag("version") {
        terminal.out(Version.text)
        code = .success
    } else if parsed.isHelpRequested || !parsed.command.subcommands.isEmpty {
        terminal.out(HelpFormatter.render(command: root, path: parsed.path))
        code = parsed.isHelpRequested || parsed.path.isEmpty ? .success : .usage
    } else {
        code = Dispatcher(parsed: parsed, terminal: terminal, root: root, schemaPaths: schemaPaths).run()
    }
} catch {
    var message = error.rendered
    // `intent run updateEvent … --span all`: flags are for the preset commands; here a parameter is NAME=VALUE.
    if error.code == .unknownOption, error.commandPath.suffix(2) == ["intent", "run"],
       let quoted = error.message.split(separator: "'").dropFirst().first, quoted.hasPrefix("--"), quoted.count > 2 {
        let name = quoted.dropFirst(2).split(separator: "=").first.map(String.init) ?? ""
        message += "\n(intent run takes the intent's parameters as NAME=VALUE: write \(name)=VALUE, not --\(name) VALUE)"
    }
    if registry == nil, error.code == .unknownCommand {
        message += "\n(the schemas in \(schemaPaths.joined(separator: ", ")) did not load, so only 'schema' commands are available; run 'cometcal schema check')"
    }
    FileHandle.standardError.write(Data((message + "\n").utf8))
    code = .usage
}
exit(code.rawValue)
