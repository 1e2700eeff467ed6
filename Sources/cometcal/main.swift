import Foundation
import CometArguments

/// `cometcal`: parses the command line, runs the command, exits with a sysexits code.
let arguments = Array(CommandLine.arguments.dropFirst())
let code: ExitCode
do {
    let parsed = try ArgumentParser.parse(arguments, root: Commands.root)
    let terminal = Terminal.detect(noColorFlag: parsed.flag("no-color"))
    if parsed.isHelpRequested || !parsed.command.subcommands.isEmpty {
        terminal.out(HelpFormatter.render(command: Commands.root, path: parsed.path))
        code = parsed.isHelpRequested || parsed.path.isEmpty ? .success : .usage
    } else {
        code = Dispatcher(parsed: parsed, terminal: terminal).run()
    }
} catch {
    FileHandle.standardError.write(Data((error.rendered + "\n").utf8))
    code = .usage
}
exit(code.rawValue)
