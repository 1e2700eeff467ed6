import Testing
import CometArguments

@Suite("Help rendering")
struct HelpFormatterTests {
    @Test("Help for 'schema check' matches the golden text exactly")
    func goldenSchemaCheck() {
        let expected = """
            OVERVIEW: Check schema files and report every diagnostic.

            Parses every schema file in the given directories, resolves references across
            files and prints all diagnostics, not just the first.

            USAGE: cometcal schema check [<dirs> ...] [--json]

            ARGUMENTS:
              <dirs>                  Schema directories to check (default: Schemas).

            OPTIONS:
              --json                  Print diagnostics as JSON.
              -h, --help              Show help information.

            GLOBAL OPTIONS:
              --db <path>             Database file to use.
              --schemas <dir>         Directory containing schema files.
              --no-color              Disable colored output.

            EXAMPLES:
              cometcal schema check
              cometcal schema check Schemas Extra --json
            """
        #expect(HelpFormatter.render(command: Fixtures.root, path: ["schema", "check"]) == expected)
    }

    @Test("The root lists its options and subcommands, with no GLOBAL OPTIONS heading")
    func rootHelp() {
        let help = HelpFormatter.render(command: Fixtures.root)
        #expect(help.hasPrefix("OVERVIEW: A schema-driven calendar assistant.\n\nUSAGE: cometcal [--db <path>]"))
        #expect(help.contains("\n  --db <path>             Database file to use.\n"))
        #expect(!help.contains("GLOBAL OPTIONS:"))
        #expect(help.hasSuffix("""
            SUBCOMMANDS:
              schema                  Inspect and validate schemas.
              event                   Create and change events.

              See 'cometcal help <subcommand>' for detailed help.
            """))
    }

    @Test("A command group points to 'help' with its own path")
    func groupHelpTrailer() {
        let help = HelpFormatter.render(command: Fixtures.root, path: ["schema"])
        #expect(help.contains("USAGE: cometcal schema <subcommand>"))
        #expect(help.hasSuffix("  See 'cometcal help schema <subcommand>' for detailed help."))
    }

    @Test("Options inherited from an intermediate command appear under GLOBAL OPTIONS")
    func inheritedFromIntermediate() {
        let help = HelpFormatter.render(command: Fixtures.root, path: ["event", "add"])
        #expect(help.contains("""
            GLOBAL OPTIONS:
              --db <path>             Database file to use.
              --schemas <dir>         Directory containing schema files.
              --no-color              Disable colored output.
              --json                  Print results as JSON.
            """))
        #expect(help.contains("  -c, --calendar <name>   Calendar to add to."))
    }

    @Test("Long help text wraps with a hanging indent and wide labels get their own line")
    func wrapping() {
        let root = CommandSpec(
            name: "tool",
            abstract: "Test wrapping.",
            options: [
                .flag("verbose", help: String(repeating: "word ", count: 20)),
                .value("a-very-long-option-name", valueName: "value", repeatable: true, help: "Short text."),
            ]
        )
        let help = HelpFormatter.render(command: root)
        #expect(help.contains("""
              --verbose               word word word word word word word word word word word
                                      word word word word word word word word word
            """))
        #expect(help.contains("""
              --a-very-long-option-name <value> ...
                                      Short text.
            """))
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 && $0.last != " " })
        #expect(help.contains("USAGE: tool [--verbose] [--a-very-long-option-name <value> ...]"))
    }

    @Test("Long usage lines wrap between whole elements")
    func usageWrapping() {
        let help = HelpFormatter.render(command: Fixtures.root, path: ["event", "add"])
        #expect(help.contains("""
            USAGE: cometcal event add <title> [--title <title>] [--start <date>]
                   [--offset <duration>] [--yes] [--quiet] [--calendar <name>]
            """))
    }

    @Test("An unknown path falls back to the deepest command that exists")
    func unknownPath() {
        let help = HelpFormatter.render(command: Fixtures.root, path: ["schema", "nope"])
        #expect(help == HelpFormatter.render(command: Fixtures.root, path: ["schema"]))
    }

    @Test("A long example breaks between words outside quotes, with a backslash, inside 80 columns")
    func exampleWrapping() {
        let example = "cometcal event add 'Zero Gravity Yoga on the upper deck' --start '2026-06-15 08:00' --end '2026-06-15 09:00' --calendar 'Lunar Orbit Log'"
        let lines = HelpFormatter.wrapExample(example)
        #expect(lines == [
            "  cometcal event add 'Zero Gravity Yoga on the upper deck' --start \\",
            "      '2026-06-15 08:00' --end '2026-06-15 09:00' --calendar 'Lunar Orbit Log'",
        ])
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(HelpFormatter.wrapExample("cometcal agenda") == ["  cometcal agenda"])
    }
}

@Suite("Man page rendering")
struct ManPageTests {
    @Test("roff text: backslashes, hyphens, a leading dot and non-ASCII are escaped")
    func escaping() {
        #expect(ManPage.escape("a\\b --json") == "a\\eb \\-\\-json")
        #expect(ManPage.escape(".not a macro\n'nor this") == "\\&.not a macro\n\\&'nor this")
        #expect(ManPage.escape("“quoted” …") == "\\[u201C]quoted\\[u201D] \\[u2026]")
    }

    @Test("every runnable command gets a section with its usage, options and examples")
    func sections() {
        let page = ManPage.render(root: Fixtures.root, source: "test 1")
        #expect(page.hasPrefix(".TH COMETCAL 1 \"\" \"test 1\" \"User Commands\"\n.SH NAME\n"))
        #expect(page.contains(".SS \"cometcal schema check\""))
        #expect(page.contains("\\fB\\-\\-json\\fR"))
    }
}

@Suite("Completion")
struct CompleterTests {
    @Test("subcommands, then options by prefix, then an option's value slot")
    func slots() {
        let completer = Completer(root: Fixtures.root)
        #expect(completer.slot(for: ["sch"]) == .words(["schema"]))
        #expect(completer.slot(for: ["schema", ""]) == .words(["check"]))
        if case .words(let options) = completer.slot(for: ["schema", "check", "--j"]) { #expect(options == ["--json"]) } else { Issue.record("no options") }
        #expect(completer.slot(for: ["--db", ""]) == .value(kind: "path", fixed: []))
    }
}
