/// A mistake in how the command line was written (as opposed to a failure
/// while running the command). Executables print `rendered` to standard error
/// and exit with `UsageError.exitCode`.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable machine-readable category; tests and JSON output rely on it,
    /// so the raw values never change.
    public enum Code: String, Sendable, Equatable {
        case unknownOption
        case unknownCommand
        case missingValue
        case missingArgument
        case unexpectedArgument
        case duplicateOption
        case invalidValue
    }

    /// sysexits(3) `EX_USAGE`: the conventional exit status for usage errors.
    public static let exitCode: Int32 = 64

    public var code: Code
    /// One or two sentences, e.g. `Unknown option '--titel'. Did you mean '--title'?`
    public var message: String
    /// Full command path including the program name, e.g. `["cometcal", "event", "add"]`;
    /// empty when the error was created without command context.
    public var commandPath: [String]
    /// Usage synopsis of that command (without the `Usage: ` prefix), if known.
    public var usage: String?

    public init(code: Code, message: String, commandPath: [String] = [], usage: String? = nil) {
        self.code = code
        self.message = message
        self.commandPath = commandPath
        self.usage = usage
    }

    /// A value was syntactically given but the caller could not accept it,
    /// e.g. an unparseable date in `--start`.
    ///
    /// - Parameters:
    ///   - option: long option name (`"start"`, shown as `--start`), or any
    ///     display name starting with `-` or `<` (e.g. `"<date>"`), shown as is.
    ///   - reason: why it was rejected; a final period is added if missing.
    ///   - command: pass the parse result to get the `Usage:`/`See` lines.
    public static func invalidValue(
        option: String, value: String, reason: String, in command: ParsedCommand? = nil
    ) -> UsageError {
        let display = option.hasPrefix("-") || option.hasPrefix("<") ? option : "--\(option)"
        var sentence = reason
        if let last = sentence.last, !".!?".contains(last) { sentence += "." }
        return UsageError(
            code: .invalidValue,
            message: "Invalid value '\(value)' for '\(display)': \(sentence)",
            commandPath: command?.fullPath ?? [],
            usage: command?.usage
        )
    }

    /// Text for standard error:
    ///
    ///     error: Unknown option '--titel'. Did you mean '--title'?
    ///
    ///     Usage: cometcal event add <title> [--title <title>]
    ///     See 'cometcal event add --help'.
    public var rendered: String {
        var lines = ["error: \(message)"]
        if let usage {
            lines.append("")
            lines += TextWrapper.wrapUsage(usage, width: 80, firstPrefix: "Usage: ", indent: 7)
        }
        if !commandPath.isEmpty {
            if usage == nil { lines.append("") }
            lines.append("See '\(commandPath.joined(separator: " ")) --help'.")
        }
        return lines.joined(separator: "\n")
    }

    public var description: String { rendered }
}
