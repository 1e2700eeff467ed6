import CometArguments

/// The man page's sections beyond the commands: what the help screens say in passing, said in
/// one place. Each fact here is also in docs/cli.md and has a test.
enum ManualSections {
    static var all: [ManPage.Section] { [configuration, environment, files, exitStatus, seeAlso] }

    static let configuration = ManPage.Section(
        title: "Configuration",
        entries: [(nil, "Settings are read from $XDG_CONFIG_HOME/cometcal/config (else ~/.config/cometcal/config, or the file $COMETCAL_CONFIG names): key = value lines; lines starting with # are comments. A missing file is the defaults. An unknown key or a bad value stops every command that uses the store with the file, line and column, and a did-you-mean (exit 78).")]
            + Config.keys.map { (term: $0.name + " = " + $0.values, text: $0.help) }
    )

    static let environment = ManPage.Section(
        title: "Environment",
        entries: [
            ("COMETCAL_DB", "The store to use, when --db is not given. Its folder must exist."),
            ("COMETCAL_SCHEMAS", "The schema directory, when --schemas is not given (else ./Schemas)."),
            ("COMETCAL_CONFIG", "The config file to read instead of the default one; it must exist."),
            ("XDG_DATA_HOME", "The default store is $XDG_DATA_HOME/cometcal/cometcal.sqlite (else ~/.local/share/…), made with its folders on first use."),
            ("XDG_CONFIG_HOME", "Where the config file is (else ~/.config)."),
            ("TZ", "The time zone, unless the config file names one."),
            ("NO_COLOR", "When set and not empty, never colour the output (as --no-color)."),
            ("COLORTERM", "truecolor or 24bit: calendar colours are drawn in 24-bit colour."),
            ("VISUAL, EDITOR", "The editor of 'cometcal event edit' (else vi)."),
            ("COMETCAL_NOW", "Fixes the clock to an ISO 8601 instant, for reproducible demos and tests."),
        ]
    )

    static let files = ManPage.Section(
        title: "Files",
        entries: [
            ("~/.local/share/cometcal/cometcal.sqlite", "The default store."),
            ("~/.config/cometcal/config", "The config file."),
        ]
    )

    static let exitStatus = ManPage.Section(
        title: "Exit status",
        entries: [
            ("0", "Done (also: nothing to undo, a question declined)."),
            ("1", "converse: a script did not go as written."),
            ("64", "The command line is wrong: an unknown flag, a value that does not read."),
            ("65", "The data is wrong: a malformed file, a value the engine refuses, a name that matches several."),
            ("66", "Not found: the event, the file, or the store a reading command was pointed at."),
            ("70", "An internal error."),
            ("74", "The store cannot be used: a folder, a file that is not a store, a missing folder."),
            ("78", "The config file is wrong."),
        ]
    )

    static let seeAlso = ManPage.Section(
        title: "See also",
        entries: [(nil, "cometcald(1) serves the same store over JSON-RPC; docs/cli.md, docs/daemon.md and docs/conversation.md in the source describe every command in depth.")]
    )
}
