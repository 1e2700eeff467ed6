import CometArguments

/// The command tree of `cometcal`: every command and flag with its help text.
enum Commands {
    static let root = CommandSpec(
        name: "cometcal",
        abstract: "A schema-driven calendar assistant backend.",
        discussion: "CometCal keeps calendars in a local SQLite store and acts on them through intents declared in schema files. Run 'cometcal schema show' for an overview of the calendar domain.",
        options: [
            .value("schemas", valueName: "dir", repeatable: true,
                   help: "Schema directory to load (repeatable). Default: $COMETCAL_SCHEMAS, else ./Schemas."),
            .flag("no-color", help: "Never colour the output (also: NO_COLOR=1)."),
        ],
        subcommands: [schema],
        examples: ["cometcal schema check Schemas", "cometcal schema show Event", "cometcal schema dump --json"]
    )

    static let schema = CommandSpec(
        name: "schema",
        abstract: "Check, describe and export the schema files.",
        subcommands: [schemaCheck, schemaShow, schemaDump]
    )

    static let schemaCheck = CommandSpec(
        name: "check",
        abstract: "Check schema files and report every problem.",
        discussion: "Reads every '*.cal' file under the given directories (or files) and reports all diagnostics like a compiler: file:line:column, the line, a caret. Exits 0 when there are no errors, 65 when there are.",
        options: [
            .flag("json", help: "Print the diagnostics as JSON."),
            .flag("no-codes", help: "Leave the diagnostic codes ([E100]) out of the messages."),
        ],
        positionals: [PositionalSpec("paths", arity: .variadic, help: "Schema directories or files (default: the schema directory).")],
        examples: ["cometcal schema check Schemas", "cometcal schema check Examples/Schemas/tasks/task.cal --json"]
    )

    static let schemaShow = CommandSpec(
        name: "show",
        abstract: "Describe an entity, enum, union or intent, or give an overview.",
        options: [.flag("json", help: "Print the declaration as JSON (the shape of 'schema dump').")],
        positionals: [PositionalSpec("name", arity: .optional, help: "A name such as Event, calendar.Event or updateEvent. Without it: an overview of every domain.")],
        examples: ["cometcal schema show", "cometcal schema show updateEvent"]
    )

    static let schemaDump = CommandSpec(
        name: "dump",
        abstract: "Print the whole registry as JSON, for tools.",
        options: [
            .flag("json", help: "JSON output (the only format; accepted for clarity)."),
            .flag("compact", help: "One line instead of indented JSON."),
        ]
    )
}
