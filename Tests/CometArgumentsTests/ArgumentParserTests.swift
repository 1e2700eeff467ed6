import Testing
import CometArguments

/// Parses with the fixture tree; a thrown error fails the calling test.
private func parse(_ words: [String]) throws -> ParsedCommand {
    try ArgumentParser.parse(words, root: Fixtures.root)
}

/// The usage error produced by `words`, or nil if parsing succeeded.
private func usageError(_ words: [String]) -> UsageError? {
    do {
        _ = try ArgumentParser.parse(words, root: Fixtures.root)
        return nil
    } catch {
        return error
    }
}

@Suite("Subcommands and options")
struct SubcommandAndOptionTests {
    @Test("No arguments selects the root command without asking for help")
    func emptyLine() throws {
        let parsed = try parse([])
        #expect(parsed.path == [])
        #expect(parsed.command.name == "cometcal")
        #expect(!parsed.isHelpRequested)
    }

    @Test("Nested subcommand names are matched into a path")
    func nestedSubcommands() throws {
        let parsed = try parse(["schema", "check"])
        #expect(parsed.path == ["schema", "check"])
        #expect(parsed.command.name == "check")
    }

    @Test("Global options are accepted after subcommand names")
    func globalOptionsAfterSubcommands() throws {
        let parsed = try parse(["schema", "check", "Schemas", "--db", "cal.sqlite", "--no-color"])
        #expect(parsed.path == ["schema", "check"])
        #expect(parsed.value("db") == "cal.sqlite")
        #expect(parsed.flag("no-color"))
        #expect(parsed.positionals("dirs") == ["Schemas"])
    }

    @Test("Global options are accepted before and between subcommand names")
    func globalOptionsBeforeSubcommands() throws {
        let parsed = try parse(["--db=a.sqlite", "schema", "--schemas", "S", "check"])
        #expect(parsed.path == ["schema", "check"])
        #expect(parsed.value("db") == "a.sqlite")
        #expect(parsed.value("schemas") == "S")
    }

    @Test("An option declared on an intermediate command is inherited by its subcommands")
    func intermediateOptionsAreInherited() throws {
        let parsed = try parse(["event", "add", "Lunch", "--json"])
        #expect(parsed.flag("json"))
        #expect(parsed.positional("title") == "Lunch")
    }

    @Test("A subcommand's own option is unknown before the subcommand name")
    func localOptionBeforeSubcommandIsUnknown() throws {
        let error = try #require(usageError(["--json", "schema", "check"]))
        #expect(error.code == .unknownOption)
        #expect(error.commandPath == ["cometcal"])
    }

    @Test("'--opt=value' and '--opt value' give the same value")
    func bothValueSpellings() throws {
        let joined = try parse(["event", "add", "T", "--start=2025-01-31"])
        let separate = try parse(["event", "add", "T", "--start", "2025-01-31"])
        #expect(joined.value("start") == "2025-01-31")
        #expect(separate.value("start") == "2025-01-31")
        #expect(joined.flag("start"))
        #expect(!joined.flag("yes"))
        #expect(joined.value("calendar") == nil)
    }

    @Test("An empty inline value and '=' inside values are preserved")
    func inlineValueEdgeCases() throws {
        let parsed = try parse(["event", "add", "T", "--start=", "--calendar=a=b"])
        #expect(parsed.value("start") == "")
        #expect(parsed.value("calendar") == "a=b")
    }

    @Test("Repeatable options collect every value in order")
    func repeatableOptions() throws {
        let parsed = try parse(["event", "set", "E1", "x=1", "--clear", "location", "--clear=notes"])
        #expect(parsed.values("clear") == ["location", "notes"])
        #expect(parsed.value("clear") == "notes")
        #expect(parsed.values("db") == [])
    }

    @Test("A non-repeatable option given twice is a duplicateOption error")
    func duplicateOption() throws {
        let error = try #require(usageError(["--db", "a", "event", "add", "T", "--db", "b"]))
        #expect(error.code == .duplicateOption)
        #expect(error.message == "Option '--db' can only be given once.")

        let flagError = try #require(usageError(["event", "add", "T", "-y", "--yes"]))
        #expect(flagError.code == .duplicateOption)
    }

    @Test("'--' ends option parsing")
    func doubleDashSeparator() throws {
        let parsed = try parse(["event", "add", "--yes", "--", "--not-an-option"])
        #expect(parsed.positional("title") == "--not-an-option")
        #expect(parsed.flag("yes"))

        let help = try parse(["event", "add", "--", "--help"])
        #expect(!help.isHelpRequested)
        #expect(help.positional("title") == "--help")
    }

    @Test("Values starting with '-' are accepted in both spellings")
    func negativeLookingValues() throws {
        let separate = try parse(["event", "add", "T", "--offset", "-1h"])
        let joined = try parse(["event", "add", "T", "--offset=-1h"])
        let short = try parse(["event", "add", "T", "-c", "-work"])
        #expect(separate.value("offset") == "-1h")
        #expect(joined.value("offset") == "-1h")
        #expect(short.value("calendar") == "-work")
    }

    @Test("Short flags, clusters and short options with attached values")
    func shortOptions() throws {
        let single = try parse(["event", "add", "T", "-y"])
        #expect(single.flag("yes") && !single.flag("quiet"))

        let cluster = try parse(["event", "add", "T", "-yq"])
        #expect(cluster.flag("yes") && cluster.flag("quiet"))

        let attached = try parse(["event", "add", "T", "-qcwork"])
        #expect(attached.flag("quiet"))
        #expect(attached.value("calendar") == "work")

        let equals = try parse(["event", "add", "T", "-c=home"])
        #expect(equals.value("calendar") == "home")

        let dash = try parse(["event", "add", "-"])
        #expect(dash.positional("title") == "-")
    }

    @Test("A value-taking option at the end of the line is a missingValue error")
    func missingValue() throws {
        let error = try #require(usageError(["event", "add", "T", "--start"]))
        #expect(error.code == .missingValue)
        #expect(error.message == "Missing value for option '--start <date>'.")
    }

    @Test("Giving a flag an inline value is an unexpectedArgument error")
    func flagWithValue() throws {
        let error = try #require(usageError(["event", "add", "T", "--yes=true"]))
        #expect(error.code == .unexpectedArgument)
        #expect(error.message == "Option '--yes' does not take a value.")
    }
}

@Suite("Positional arguments")
struct PositionalTests {
    @Test("A variadic positional takes zero or more words")
    func variadic() throws {
        #expect(try parse(["schema", "check"]).positionals("dirs") == [])
        #expect(try parse(["schema", "check", "A", "B", "--json", "C"]).positionals("dirs") == ["A", "B", "C"])
    }

    @Test("At-least-one variadics are greedy and key=value words are kept verbatim")
    func atLeastOneAndAssignments() throws {
        let parsed = try parse(["event", "set", "E1", "title=Lunch at 12", "notes=a=b"])
        #expect(parsed.positional("id") == "E1")
        #expect(parsed.positionals("assignments") == ["title=Lunch at 12", "notes=a=b"])
        #expect(parsed.positional("note") == nil)
    }

    @Test("A missing required positional is named in the error")
    func missingRequired() throws {
        let error = try #require(usageError(["event", "add", "--yes"]))
        #expect(error.code == .missingArgument)
        #expect(error.message == "Missing expected argument '<title>'.")

        let atLeastOne = try #require(usageError(["event", "set", "E1"]))
        #expect(atLeastOne.message == "Missing expected argument '<assignments>'.")
    }

    @Test("An extra positional is an unexpectedArgument error")
    func unexpectedExtra() throws {
        let error = try #require(usageError(["event", "add", "Lunch", "Dinner"]))
        #expect(error.code == .unexpectedArgument)
        #expect(error.message == "Unexpected argument 'Dinner'.")
    }
}

@Suite("Suggestions in usage errors")
struct SuggestionTests {
    @Test("An unknown option suggests the closest known one")
    func unknownOptionSuggestion() throws {
        let error = try #require(usageError(["event", "add", "T", "--titel", "x"]))
        #expect(error.code == .unknownOption)
        #expect(error.message == "Unknown option '--titel'. Did you mean '--title'?")
        #expect(error.commandPath == ["cometcal", "event", "add"])
    }

    @Test("A prefix of an option name suggests the full name")
    func prefixSuggestion() throws {
        let error = try #require(usageError(["schema", "check", "--jso"]))
        #expect(error.message == "Unknown option '--jso'. Did you mean '--json'?")
    }

    @Test("Inherited option names are suggestion candidates too")
    func inheritedSuggestion() throws {
        let error = try #require(usageError(["schema", "check", "--no-colour"]))
        #expect(error.message == "Unknown option '--no-colour'. Did you mean '--no-color'?")
    }

    @Test("A single-dash long name suggests the double-dash option")
    func singleDashLongName() throws {
        let error = try #require(usageError(["schema", "check", "-json"]))
        #expect(error.message == "Unknown option '-json'. Did you mean '--json'?")
    }

    @Test("An unknown subcommand suggests the closest subcommand")
    func unknownCommandSuggestion() throws {
        let error = try #require(usageError(["shcema", "check"]))
        #expect(error.code == .unknownCommand)
        #expect(error.message == "Unknown command 'shcema'. Did you mean 'schema'?")
        #expect(error.commandPath == ["cometcal"])

        let nested = try #require(usageError(["event", "ad", "T"]))
        #expect(nested.message == "Unknown command 'ad'. Did you mean 'add'?")

        let help = try #require(usageError(["hlep"]))
        #expect(help.message == "Unknown command 'hlep'. Did you mean 'help'?")
    }

    @Test("No suggestion is made when nothing is close")
    func noSuggestion() throws {
        let option = try #require(usageError(["schema", "check", "--frobnicate"]))
        #expect(option.message == "Unknown option '--frobnicate'.")

        let command = try #require(usageError(["calendar"]))
        #expect(command.message == "Unknown command 'calendar'.")

        let short = try #require(usageError(["event", "add", "T", "-x"]))
        #expect(short.message == "Unknown option '-x'.")
    }
}

@Suite("Help requests")
struct HelpRequestTests {
    @Test("'--help' and '-h' are recognised at every level", arguments: [
        (["--help"], [String]()),
        (["-h"], []),
        (["schema", "--help"], ["schema"]),
        (["schema", "-h"], ["schema"]),
        (["schema", "check", "--help"], ["schema", "check"]),
        (["schema", "check", "-h"], ["schema", "check"]),
        (["--help", "schema", "check"], ["schema", "check"]),
    ])
    func helpFlags(words: [String], path: [String]) throws {
        let parsed = try parse(words)
        #expect(parsed.isHelpRequested)
        #expect(parsed.path == path)
    }

    @Test("The 'help' subcommand selects the command whose help is wanted")
    func helpSubcommand() throws {
        let root = try parse(["help"])
        #expect(root.isHelpRequested && root.path == [])

        let nested = try parse(["help", "schema", "check"])
        #expect(nested.isHelpRequested)
        #expect(nested.path == ["schema", "check"])

        let inner = try parse(["schema", "help", "check"])
        #expect(inner.isHelpRequested && inner.path == ["schema", "check"])
    }

    @Test("'help' with a misspelled command suggests the right one")
    func helpSubcommandTypo() throws {
        let error = try #require(usageError(["help", "shcema"]))
        #expect(error.code == .unknownCommand)
        #expect(error.message == "Unknown command 'shcema'. Did you mean 'schema'?")
    }

    @Test("A help request wins over missing arguments and other usage errors")
    func helpWinsOverErrors() throws {
        let missing = try parse(["event", "add", "--help"])
        #expect(missing.isHelpRequested && missing.path == ["event", "add"])

        let unknown = try parse(["event", "add", "--titel", "-h"])
        #expect(unknown.isHelpRequested && unknown.path == ["event", "add"])
    }
}

@Suite("Usage error values")
struct UsageErrorTests {
    @Test("Rendering shows the message, the usage and where to find help")
    func rendering() throws {
        let error = try #require(usageError(["schema", "check", "--jsn"]))
        #expect(error.rendered == """
            error: Unknown option '--jsn'. Did you mean '--json'?

            Usage: cometcal schema check [<dirs> ...] [--json]
            See 'cometcal schema check --help'.
            """)
        #expect(error.description == error.rendered)
    }

    @Test("Callers build invalidValue errors, with or without command context")
    func invalidValueFactory() throws {
        let bare = UsageError.invalidValue(option: "start", value: "tomorrowish", reason: "expected a date")
        #expect(bare.code == .invalidValue)
        #expect(bare.rendered == "error: Invalid value 'tomorrowish' for '--start': expected a date.")

        let parsed = try parse(["schema", "check"])
        let contextual = UsageError.invalidValue(option: "<dirs>", value: "", reason: "Must not be empty!", in: parsed)
        #expect(contextual.message == "Invalid value '' for '<dirs>': Must not be empty!")
        #expect(contextual.commandPath == ["cometcal", "schema", "check"])
        #expect(contextual.rendered.hasSuffix("See 'cometcal schema check --help'."))
    }

    @Test("The exit code is EX_USAGE")
    func exitCode() {
        #expect(UsageError.exitCode == 64)
    }
}
