import CometArguments

/// A cut-down `cometcal` command tree used by every test.
enum Fixtures {
    static let root = CommandSpec(
        name: "cometcal",
        abstract: "A schema-driven calendar assistant.",
        options: [
            .value("db", valueName: "path", help: "Database file to use."),
            .value("schemas", valueName: "dir", help: "Directory containing schema files."),
            .flag("no-color", help: "Disable colored output."),
        ],
        subcommands: [schema, event]
    )

    static let schema = CommandSpec(
        name: "schema",
        abstract: "Inspect and validate schemas.",
        subcommands: [check]
    )

    static let check = CommandSpec(
        name: "check",
        abstract: "Check schema files and report every diagnostic.",
        discussion: "Parses every schema file in the given directories, resolves references across files and prints all diagnostics, not just the first.",
        options: [.flag("json", help: "Print diagnostics as JSON.")],
        positionals: [PositionalSpec("dirs", arity: .variadic, help: "Schema directories to check (default: Schemas).")],
        examples: ["cometcal schema check", "cometcal schema check Schemas Extra --json"]
    )

    static let event = CommandSpec(
        name: "event",
        abstract: "Create and change events.",
        options: [.flag("json", help: "Print results as JSON.")],
        subcommands: [add, set]
    )

    static let add = CommandSpec(
        name: "add",
        abstract: "Add an event.",
        options: [
            .value("title", valueName: "title", help: "Title of the event (overrides the positional)."),
            .value("start", valueName: "date", help: "Start date and time."),
            .value("offset", valueName: "duration", help: "Shift the start by a duration such as -1h."),
            .flag("yes", short: "y", help: "Do not ask for confirmation."),
            .flag("quiet", short: "q", help: "Print nothing on success."),
            .value("calendar", short: "c", valueName: "name", help: "Calendar to add to."),
        ],
        positionals: [PositionalSpec("title", help: "Title of the event.")]
    )

    static let set = CommandSpec(
        name: "set",
        abstract: "Change fields of an event.",
        options: [
            .value("clear", valueName: "field", repeatable: true, help: "Remove a field; may be repeated."),
        ],
        positionals: [
            PositionalSpec("id", help: "Identifier of the event."),
            PositionalSpec("assignments", arity: .variadicAtLeastOne, help: "Fields to set, as key=value."),
            PositionalSpec("note", arity: .optional, help: "Unused; checks binding order."),
        ]
    )
}
