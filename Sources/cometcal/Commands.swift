import CometArguments
import CometSchema

/// The command tree of `cometcal`. Event and calendar commands are presets over the calendar
/// domain's intents; their flags come from the intents' parameters, so a new schema parameter
/// is a new flag with no Swift change.
enum Commands {
    static let globalOptions: [OptionSpec] = [
        .value("db", valueName: "path", help: "The store to use. Default: $COMETCAL_DB, else $XDG_DATA_HOME/cometcal/cometcal.sqlite."),
        .value("schemas", valueName: "dir", repeatable: true, help: "Schema directory to load (repeatable). Default: $COMETCAL_SCHEMAS, else ./Schemas."),
        .flag("json", help: "Print results as JSON (see docs/json.md)."),
        .flag("yes", short: "y", help: "Answer yes to confirmations (needed without a terminal)."),
        .flag("no-color", help: "Never colour the output (also: NO_COLOR=1)."),
        .flag("connect", help: "Run the command through cometcald instead of opening the store: --connect, or --connect SOCKET (docs/daemon.md)."),
        .value("socket", valueName: "path", help: "The daemon's socket for --connect. Default: $XDG_RUNTIME_DIR/cometcal/cometcald.sock, else beside the default store."),
        .flag("version", help: "Print the version and exit."),
    ]

    /// How a preset command maps onto an intent.
    struct Preset {
        let path: [String]
        let intent: String
        let abstract: String
        /// Positional argument name → parameter name.
        let positional: (name: String, parameter: String)?
        let examples: [String]
        var aliases: [String] = []
    }

    static let presets: [Preset] = [
        Preset(path: ["calendar", "list"], intent: "searchCalendars", abstract: "List calendars (or find them by name).", positional: ("text", "text"), examples: ["cometcal calendar list"], aliases: ["ls"]),
        Preset(path: ["calendar", "add"], intent: "createCalendar", abstract: "Create a calendar.", positional: ("title", "title"), examples: ["cometcal calendar add 'Lunar Orbit Log' --color '#6E56CF'"]),
        Preset(path: ["calendar", "update"], intent: "updateCalendar", abstract: "Change a calendar.", positional: ("calendar", "calendar"), examples: ["cometcal calendar update Work --default"], aliases: ["edit"]),
        Preset(path: ["calendar", "delete"], intent: "deleteCalendar", abstract: "Delete a calendar and its events (asks first).", positional: ("calendar", "calendar"), examples: ["cometcal calendar delete Old --yes"], aliases: ["rm", "del"]),
        Preset(path: ["event", "add"], intent: "createEvent", abstract: "Create an event.", positional: ("title", "title"),
               examples: ["cometcal event add 'Zero Gravity Yoga' --start '2026-06-15 08:00' --end '2026-06-15 09:00' --calendar 'Lunar Orbit Log'",
                          "cometcal event add Standup --start 'monday 9:30' --end 'monday 9:45' --repeat weekdays --alarm -5m"]),
        Preset(path: ["event", "update"], intent: "updateEvent", abstract: "Change an event: a flag sets, --clear FIELD removes, no flag leaves as is.", positional: ("event", "event"),
               examples: ["cometcal event update Picnic --start 'saturday 11:30'", "cometcal event update Standup --span this --occurrence '2026-06-16 09:30' --location 'Room 2'", "cometcal event update Picnic --clear location"]),
        Preset(path: ["event", "edit"], intent: "updateEvent", abstract: "Edit an event in $EDITOR (with change flags: the same as update).", positional: ("event", "event"),
               examples: ["cometcal event edit Picnic", "EDITOR=nano cometcal event edit Standup --span future --occurrence '2026-06-16 09:30'"]),
        Preset(path: ["event", "delete"], intent: "deleteEvent", abstract: "Delete an event, one occurrence, or future occurrences (asks first).", positional: ("event", "event"),
               examples: ["cometcal event delete Party", "cometcal event delete Standup --span this --occurrence 2026-06-16T09:30 --yes"], aliases: ["rm", "del"]),
        Preset(path: ["event", "list"], intent: "searchEvents", abstract: "List events, or those with these words.", positional: ("text", "text"),
               examples: ["cometcal event list", "cometcal event list standup --limit 20"], aliases: ["ls"]),
        Preset(path: ["event", "show"], intent: "openEvent", abstract: "Show one event.", positional: ("event", "event"), examples: ["cometcal event show Picnic"]),
        Preset(path: ["search"], intent: "searchEvents", abstract: "Find events by words in titles, notes, locations and people.", positional: ("text", "text"),
               examples: ["cometcal search picnic", "cometcal search cake --from today --to +30d"]),
    ]

    static func root(registry: Registry?) -> CommandSpec {
        var calendar = CommandSpec(name: "calendar", abstract: "List, create, change and delete calendars.")
        var event = CommandSpec(name: "event", abstract: "Create, change, delete and show events.")
        var topLevel: [CommandSpec] = []
        for preset in presets {
            guard let registry, let intent = try? intentDefinition(preset.intent, in: registry) else { continue }
            let command = spec(for: preset, intent: intent, registry: registry)
            switch preset.path.first {
            case "calendar": calendar.subcommands.append(command)
            case "event": event.subcommands.append(command)
            default: topLevel.append(command)
            }
        }
        var subcommands: [CommandSpec] = []
        if !calendar.subcommands.isEmpty { subcommands.append(calendar) }
        if !event.subcommands.isEmpty { subcommands.append(event) }
        if registry.flatMap({ try? intentDefinition("searchEvents", in: $0) }) != nil { subcommands += [agenda, today, free] }
        subcommands += topLevel
        if registry != nil { subcommands += [importCommand, exportCommand, backupCommand, restoreCommand, migrateCommand] }
        subcommands += [undo, redo, history, alarms, remind, snooze, dismiss, intentCommand, whenCommand]
        if registry != nil { subcommands += [addCommand, chatCommand, listenCommand, understandCommand] }
        subcommands += [converseCommand, schema, UserCommands.spec, completionsCommand]
        return CommandSpec(
            name: "cometcal",
            abstract: "A schema-driven calendar assistant backend.",
            discussion: "CometCal keeps calendars in a local SQLite store and acts on them through intents declared in schema files. Every change is undoable. Run 'cometcal schema show' for an overview of the domain.",
            options: globalOptions,
            subcommands: subcommands,
            examples: ["cometcal calendar add Personal", "cometcal event add Picnic --start 'saturday 12:00' --location 'Tempelhofer Feld'",
                       "cometcal agenda", "cometcal event update Picnic --start 'saturday 11:30'", "cometcal undo"]
        )
    }

    static func intentDefinition(_ name: String, in registry: Registry) throws -> IntentDefinition {
        let matches = registry.lookup(name).compactMap { declaration -> IntentDefinition? in
            if case .intent(let intent) = declaration { return intent }
            return nil
        }
        guard matches.count == 1 else { throw IntentLookupError.notFound(name) }
        return matches[0]
    }

    enum IntentLookupError: Error { case notFound(String) }

    private static func spec(for preset: Preset, intent: IntentDefinition, registry: Registry) -> CommandSpec {
        let flags = IntentFlags(intent: intent)
        var options = flags.optionSpecs(registry: registry)
        if PageFlags.apply(to: intent) { options += PageFlags.options }
        // Only a change has something to clear: a new record starts empty, and searches and
        // opens take no values to remove.
        let clearable = intent.parameters.filter { !$0.isRequired && !$0.isTarget && $0.role == nil }.map { IntentFlags.flagName($0) }
        if intent.action == .update, let first = clearable.first(where: { $0 == "location" }) ?? clearable.first(where: { $0 != "title" }) ?? clearable.first {
            options.append(.value("clear", valueName: "field", repeatable: true,
                                  help: "Remove a field's value (repeatable): --clear \(first). Fields: " + clearable.joined(separator: ", ") + "."))
        }
        var positionals: [PositionalSpec] = []
        if let positional = preset.positional, let parameter = intent.parameter(positional.parameter) {
            positionals.append(PositionalSpec(positional.name, arity: .optional, help: IntentFlags.help(for: parameter, of: intent, registry: registry)))
        }
        var discussion = preset.path == ["event", "edit"] ? Commands.editDiscussion
            : (intent.doc.map { $0.replacingOccurrences(of: "\n", with: " ") + " " } ?? "") + "Runs the intent '\(intent.name.name)'."
        if preset.path == ["event", "add"] || preset.path == ["event", "update"] { discussion += " " + Commands.timeForms }
        return CommandSpec(
            name: preset.path.last ?? preset.intent,
            abstract: preset.abstract,
            discussion: discussion,
            options: options, positionals: positionals, examples: preset.examples, aliases: preset.aliases
        )
    }

    static let timeForms = "Times read as 'cometcal when' reads them: 2026-06-15 08:00, friday 9am, next friday at noon, in 2 hours. A day with no time (--start friday) makes an all-day event, and --end then names its last day. --end +1h (or 90m) counts from the start. --alarm 15m is fifteen minutes before the start; 5m after is after. --attendee takes 'Ada <ada@example.org>'."

    static let editDiscussion = "Opens the event as a small text form, one 'field: value' line each, in $VISUAL or $EDITOR (else vi), and applies what you save as one update: a line left as it is changes nothing, a line removed clears that field, a line changed or added sets it. A form that does not read, or a change that is refused, opens again with the error on top; an empty form, or the same form saved again, changes nothing. With --span and --occurrence it edits occurrences of a repeating event; with change flags (--start, --clear, …) it is update."

    static let agenda = CommandSpec(
        name: "agenda", abstract: "Show what happens between two times, grouped by day; or a week, or a month grid.",
        discussion: "Repeating events are expanded into their occurrences, in each event's own time zone. --week lists every day of the week holding --from (today by default), empty days too; --month draws the month holding it as a grid, each day's events in its cell, in their calendar's colour. The week starts on the config file's week_start (Monday by default). Without --limit the agenda (and --week) shows at most 1,000 occurrences, and says how many there are and how to see the rest; --json is not cut.",
        options: [
            .value("from", valueName: "when", help: "Start of the range (default: today)."),
            .value("to", valueName: "when", help: "End of the range (default: 7 days after --from)."),
            .value("days", valueName: "n", help: "Length of the range in days (instead of --to)."),
            .flag("week", help: "The week holding --from, day by day."),
            .flag("month", help: "The month holding --from, as a grid."),
            .value("calendar", valueName: "calendar", help: "Only events of this calendar."),
        ] + PageFlags.options,
        examples: ["cometcal agenda", "cometcal agenda --from 2026-06-01 --to 2026-07-01 --calendar Work", "cometcal agenda --days 365 --limit 50",
                   "cometcal agenda --week", "cometcal agenda --month --from 'next month'"]
    )

    static let free = CommandSpec(
        name: "free", abstract: "Show the free and busy stretches of a span of time.",
        discussion: "Busy stretches name the events that make them (overlapping or touching events make one stretch); free ones say their length; a last line says how much is free in all. Busy is the rule the conversation's 'am I free' and the overlap sentence use: a timed event that is not marked free (TRANSP:TRANSPARENT, --no-shows-as-busy). All-day events, events marked free and events with no length leave the time free; they are listed on a last line, with why. RANGE is read as 'cometcal when' reads it: a day (today, tomorrow, friday, 2026-06-15) is midnight to midnight, a range (next week, from 2 to 4pm) is itself, a moment runs to the end of its day; --from and --to set either end. Without RANGE or --from, from now to the end of today. --min leaves out free stretches shorter than it, and says how many. Works through --connect (it asks the daemon through the searchEvents intent).",
        options: [
            .value("from", valueName: "when", help: "Start of the range (default: now, or RANGE's start)."),
            .value("to", valueName: "when", help: "End of the range (default: the end of --from's day, or RANGE's end)."),
            .value("calendar", valueName: "calendar", help: "Only events of this calendar."),
            .value("min", valueName: "duration", help: "Leave out free stretches shorter than this (30m, 1h)."),
        ],
        positionals: [PositionalSpec("range", arity: .variadic, help: "The span to look at: today, tomorrow, friday, next week, from 2 to 4pm.")],
        examples: ["cometcal free", "cometcal free tomorrow --min 30m", "cometcal free next week --calendar Work --json"]
    )

    static let today = CommandSpec(
        name: "today", abstract: "Show today's agenda.",
        discussion: "At most 1,000 occurrences, as the agenda without --limit; a last line says how many there are.",
        options: [.value("calendar", valueName: "calendar", help: "Only events of this calendar.")] + PageFlags.options,
        examples: ["cometcal today", "cometcal today --calendar Work"]
    )

    static let importCommand = CommandSpec(
        name: "import", abstract: "Import iCalendar (.ics) files: all or nothing, and safe to repeat.",
        discussion: "Every VEVENT becomes an event with everything the schema holds; properties it has no field for are kept and exported again. Each VCALENDAR goes into the calendar its X-WR-CALNAME (or NAME) names, created if missing, unless --calendar is given. A folder is read as a vdir (as khal and vdirsyncer keep them): each subfolder is a calendar, named by its displayname file (else the folder's name), each .ics file in it an event. Importing the same file again changes nothing; a newer SEQUENCE or LAST-MODIFIED updates. A file with problems writes nothing and lists each problem with its line and UID (--skip-invalid imports the rest). An import that changes something is one entry of the undo journal: history names it (“Imported 1,250 events from work.ics”), undo takes exactly it back, redo does it again. See docs/icalendar.md for what is accepted.",
        options: [
            .value("calendar", valueName: "name", help: "Import into this calendar (created if missing)."),
            .flag("skip-invalid", help: "Import the valid components and report the others."),
        ],
        positionals: [PositionalSpec("files", arity: .variadicAtLeastOne, help: "The .ics files or vdir folders; - reads standard input.")],
        examples: ["cometcal import ~/Downloads/basic.ics", "cometcal import work.ics home.ics", "cometcal import ~/.calendars", "curl … | cometcal import - --calendar Holidays"]
    )

    static let exportCommand = CommandSpec(
        name: "export", abstract: "Export events as iCalendar (RFC 5545).",
        discussion: "Writes a VCALENDAR for each calendar (its name, colour and description; by title), each with a VTIMEZONE for each zone used (plain Olson TZIDs), overrides as RECURRENCE-ID components, and kept unknown properties; --calendar writes one. The same data always gives the same bytes. --vdir writes the vdir layout khal and vdirsyncer read: a folder per calendar with its displayname and color files, a .ics file per event; the folder must be new or empty.",
        options: [
            .value("calendar", valueName: "name", help: "Only this calendar's events."),
            .value("from", valueName: "when", help: "Only events with occurrences from this time on."),
            .value("to", valueName: "when", help: "Only events with occurrences before this time."),
            .value("event", valueName: "event", help: "Only this event (with its overrides)."),
            .value("output", short: "o", valueName: "file", help: "Write to this file instead of standard output."),
            .value("vdir", valueName: "dir", help: "Write the whole store as a vdir into this new or empty folder."),
        ],
        examples: ["cometcal export -o backup.ics", "cometcal export --calendar Work --from 2026-06-01 --to 2026-07-01", "cometcal export --vdir ~/.calendars"]
    )

    static let whenCommand = CommandSpec(
        name: "when", abstract: "Show what a time expression means: an instant, a date, a range, a duration, a shift or a repeat rule.",
        discussion: "Reads English such as 'next friday at noon', 'from 2 to 3:30pm', 'for 45 minutes', 'an hour later' or 'every other Tuesday' against a clock and a zone, with one documented rule for each ambiguity (docs/conversation.md). The date flags of other commands (--start, --from, …) read the same expressions. Text that is not understood exits 65 and names the column of the first word it could not read.",
        options: [
            .value("now", valueName: "iso8601", help: "The clock to read against, e.g. 2026-06-10T09:00:00-07:00 (default: $COMETCAL_NOW, else now)."),
            .value("tz", valueName: "zone", help: "The IANA time zone, e.g. America/Los_Angeles (default: the zone in --now, else $TZ)."),
            .value("date-order", valueName: "order", help: "How a numeric date such as 3/5 is read: mdy (March 5) or dmy (3 May) (default: the config file's date_order, else mdy)."),
        ],
        positionals: [PositionalSpec("text", arity: .variadicAtLeastOne, help: "The expression; several words are joined with spaces.")],
        examples: ["cometcal when 'next friday at noon'", "cometcal when 'from 2 to 3:30pm' --tz Europe/Berlin",
                   "cometcal when 'every other tuesday until july' --now 2026-06-10T09:00:00-07:00 --json"]
    )

    static let converseCommand = CommandSpec(
        name: "converse", abstract: "Play conversation scripts (.convo), each against a fresh store, and report what differed.",
        discussion: "Each script sets a clock (@now), imports its seeds (@seed), plays its turns ('> …') and checks the replies ('< …'), the outcomes and the store (@expect). A script may name its own schemas (@schemas); the others use the global --schemas. One line per script, then 'N passed, N failed'. Exits 0 when every script passed, 1 when one failed. The format is in docs/conversation.md.",
        positionals: [PositionalSpec("files", arity: .variadicAtLeastOne, help: "The scripts.")],
        examples: ["cometcal converse Examples/conversations/*.convo", "cometcal converse picnic.convo --json"]
    )

    static let understandCommand = CommandSpec(
        name: "understand", abstract: "Show how each utterance is read, without acting on it.",
        discussion: "Reads each TEXT as a new request to chat would be read, and changes nothing: the kind (request, question, command or unknown), the intent and its action (create, update, delete, search, open), every parameter with its state, the words it was read from and what they are, each mention with what it names in the store now, which reader made the reading (a declared phrase, word for word, or the statistical reader trained from the schemas' declarations) and a confidence (1 when a phrase matched strictly, 0.5 when it matched only with a named record not found, the statistical reader's probability, 0 when nothing matched). --reader phrases reads with the declared phrases alone. The store is only read; without one, mentions are read against an empty store, said on standard error. Text that is not understood is a reading with understood false, not an error. With --json, one JSON object per text, one per line, in order (docs/json.md).",
        options: [
            .value("now", valueName: "iso8601", help: "The clock to read against, e.g. 2026-06-10T09:00:00-07:00 (default: $COMETCAL_NOW, else now)."),
            .value("tz", valueName: "zone", help: "The IANA time zone, e.g. America/Los_Angeles (default: the zone in --now, else $TZ)."),
            .value("reader", valueName: "readers", help: "all (default, or $COMETCAL_READER): declared phrases, then the statistical reader; phrases: the declared phrases alone."),
        ],
        positionals: [PositionalSpec("text", arity: .variadicAtLeastOne, help: "The utterances, one per argument.")],
        examples: ["cometcal understand 'add lunch with Ada on friday at noon'",
                   "cometcal understand 'move the standup to 10am' 'where is the picnic' --now 2026-06-08T09:00:00-07:00 --json"]
    )

    static let addCommand = CommandSpec(
        name: "add", abstract: "Add what you say in one sentence: cometcal add 'lunch with Bob tomorrow at 1pm for an hour'.",
        discussion: "Quick add, like khal's new and gcalcli's quick: the words are read as chat reads them, what was understood is shown (each value with the words it came from), and then it is written through the same intent as any other add, journalled and undoable. Only a request to create something is taken: words that read as a change, a deletion, a question or nothing are refused with exit 65 and write nothing, and so is a request that still lacks something (\"add lunch\" says that it needs a time). --dry-run shows the reading and writes nothing. Reads on this machine's store; with --connect, use chat. With --json, one object: interpretation, reply, outcome and written, and for a refusal the problem.",
        options: [
            .flag("dry-run", help: "Show how the words are read; write nothing."),
        ],
        positionals: [PositionalSpec("text", arity: .variadicAtLeastOne, help: "What to add, in words; several arguments are joined with spaces.")],
        examples: ["cometcal add 'lunch with Bob tomorrow at 1pm for an hour'", "cometcal add remind me to call the bank at 4pm",
                   "cometcal add 'dentist friday 9:15a' --dry-run"]
    )

    static let chatCommand = CommandSpec(
        name: "chat", abstract: "Talk to your calendar: one request or question per line.",
        discussion: "A conversation on your own store: \"who's coming to my picnic?\", \"move it to noon… actually 11:30\", \"yes\", \"undo that\". Nothing is written until CometCal has what it needs and, where its policy asks, your yes. :history lists what you said, :quit (or Ctrl-D) ends. On a terminal, lines are edited as in a shell (libedit) and the up arrow recalls earlier ones, kept in $XDG_STATE_HOME/cometcal/chat_history. With --json each reply is one JSON line. --voice listens instead of reading lines: it records from the default input through PulseAudio, finds where each stretch of speech starts and ends (energy over the noise floor measured in the first 0.2 s, 0.5 s of quiet ends it), hears it as listen does and plays it as a turn, printing what was heard; with no sound server or input it fails at once (exit 69). With --connect, each stretch is recorded here and heard by the daemon, on its store. --speak says each reply aloud, on this machine. docs/voice.md.",
        options: [
            .flag("voice", help: "Listen on the default input (PulseAudio) instead of reading lines; each stretch of speech is a turn."),
            .flag("speak", help: "Say each reply aloud (espeak-ng, on the default output); with no output, said once on standard error and the replies go on as text."),
            .value("speak-to", valueName: "dir", help: "Write each reply as DIR/reply-N.wav instead of playing it."),
            .value("turns", valueName: "n", help: "With --voice: stop after N spoken turns (default: until Ctrl-C)."),
        ],
        examples: ["cometcal chat", "echo \"what's on this week?\" | cometcal chat", "cometcal chat --voice --speak"]
    )

    static let listenCommand = CommandSpec(
        name: "listen", abstract: "Talk to your calendar from WAVE files: each file is one turn of a conversation.",
        discussion: "Hears each FILE (16 kHz mono 16-bit PCM; convert others with sox IN.wav -r 16000 -c 1 -b 16 OUT.wav) with pocketsphinx, offline, and plays it as a turn of one conversation on your store, the conversation chat holds. The words listened for are compiled from the schemas and from the titles, people and places in the store, and compiled again in the background after a change. For each file it prints what was heard with its confidence (the least sure word's posterior) and the gate's decision, then the reply and the outcome. A change heard with a confidence under 0.3 is asked back (\"Did you say …?\") and waits for a yes in the next file; silence or noise is \"I didn't catch that\" and changes nothing. Words with no pronunciation cannot be heard and are said on standard error. With --connect, each file is sent to the daemon, which hears it with the language it compiled for its schemas and store, on its conversation; the replies are spoken on this machine. --language generic hears with pocketsphinx's generic English model instead (the reference; not through the daemon). With --json, one object: the language, the compile report and each turn (file, heard with each word's posterior, gate, reply, outcome, interpretation). docs/voice.md.",
        options: [.value("language", valueName: "language", help: "compiled (default): the language compiled from the schemas and the store; generic: pocketsphinx's generic US English model."),
                  .flag("speak", help: "Say each reply aloud (espeak-ng, on the default output through PulseAudio); with no output, said once on standard error and the replies go on as text."),
                  .value("speak-to", valueName: "dir", help: "Write each reply as DIR/reply-N.wav (16-bit mono at espeak-ng's rate, 22050 Hz) instead of playing it.")],
        positionals: [PositionalSpec("files", arity: .variadicAtLeastOne, help: "The turns, as WAVE files, in order.")],
        examples: ["cometcal listen move-picnic.wav yes.wav", "cometcal listen turn.wav --json", "cometcal listen where.wav --speak"]
    )

    static let backupCommand = CommandSpec(
        name: "backup", abstract: "Copy the store to a new file, consistent even while it is in use.",
        discussion: "Has SQLite write the copy afresh with VACUUM INTO: the copy is the store as of one moment, also while cometcald or another cometcal is writing. The file is private to you (0600) and checked with SQLite's integrity check; an existing file is never overwritten.",
        positionals: [PositionalSpec("path", help: "The new file.")],
        examples: ["cometcal backup ~/cometcal-$(date +%F).sqlite"]
    )

    static let restoreCommand = CommandSpec(
        name: "restore", abstract: "Replace the store's content with a backup (asks first).",
        discussion: "Checks the backup first (SQLite's integrity check, a CometCal store, these schemas can open it) and changes nothing when it fails. Then keeps the current content beside the store (cal.sqlite.before-restore-DATE) and replaces it in one transaction, so an interrupted restore leaves the store as it was. The undo history is the backup's. With cometcald running, stop it first or restart it after.",
        positionals: [PositionalSpec("path", help: "The backup to restore.")],
        examples: ["cometcal restore ~/cometcal-2026-06-01.sqlite", "cometcal restore backup.sqlite --yes"]
    )

    static let migrateCommand = CommandSpec(
        name: "migrate", abstract: "Copy the store into another, empty one: a new .sqlite file or a PostgreSQL database.",
        discussion: "Copies every record, the undo history (undone entries stay undone, so redo works on the copy), the CalDAV names and properties clients set, and which alarms have fired, in one transaction: a failure leaves the destination empty. Then checks the copy: both stores must export the same bytes. The store copied from is only read. CalDAV clients of the new store start with a full sync: its change feed begins anew.",
        options: [.value("to", valueName: "location", help: "The store to copy into: a new file's path, or postgresql://… (an empty database).")],
        examples: ["cometcal migrate --to 'postgresql:///cometcal?host=/run/postgresql'", "cometcal --db 'postgresql:///cometcal' migrate --to ~/cometcal-copy.sqlite"]
    )

    static let completionsCommand = CommandSpec(
        name: "completions", abstract: "Print shell completions for bash, zsh or fish.",
        discussion: "Completes commands, flags, the values of enum flags, and event and calendar titles from your store. The script asks cometcal itself what may come next, so it always matches the commands you have.",
        positionals: [PositionalSpec("shell", help: "bash, zsh or fish.")],
        examples: ["source <(cometcal completions bash)", "cometcal completions zsh > ~/.zfunc/_cometcal", "cometcal completions fish > ~/.config/fish/completions/cometcal.fish"]
    )

    static let undo = CommandSpec(name: "undo", abstract: "Undo the last change or import (restores exactly what was there).")
    static let redo = CommandSpec(name: "redo", abstract: "Redo what the last undo took back.")
    static let history = CommandSpec(name: "history", abstract: "List recent changes, newest first.",
                                     options: [.value("limit", valueName: "n", help: "How many entries (default 20).")])

    static let alarms = CommandSpec(
        name: "alarms", abstract: "List the alarms to come, by the moment each goes off.",
        discussion: "Every alarm of every occurrence between --from and --to (by default the next 7 days) that has not gone off yet: its moment, the event's title and start, and what the alarm is. The range is said on the first line. Alarms set more than 30 days before or after their occurrence are not found.",
        options: [
            .value("from", valueName: "when", help: "Start of the range (default: now)."),
            .value("to", valueName: "when", help: "End of the range (default: 7 days after --from)."),
        ],
        examples: ["cometcal alarms", "cometcal alarms --to 'next month' --json"]
    )

    static let remind = CommandSpec(
        name: "remind", abstract: "Make alarms go off without the daemon: print each, and run the notify command.",
        discussion: "Runs in the foreground until SIGINT or SIGTERM, printing each alarm as its moment comes and running --notify (else the config file's notify) for it, as cometcald --notify does (the same variables and JSON; docs/daemon.md). Each alarm is recorded in the store before it goes off, so remind, a second remind and cometcald on one store never fire one twice, and an alarm whose moment passed while nothing watched goes off once, marked late. --once fires what is due now and exits, for cron; the first run on a store only starts watching.",
        options: [
            .value("notify", valueName: "command", help: "Run COMMAND (with /bin/sh -c) for each alarm. Default: the config file's notify."),
            .value("notify-seconds", valueName: "seconds", help: "How long the command may run before it is killed (default: the config's notify_seconds, else 30)."),
            .flag("once", help: "Fire what is due now, wait for the commands, and exit."),
        ],
        examples: ["cometcal remind", "cometcal remind --once --notify 'echo \"$COMETCAL_TITLE\" >> ~/reminders.log'"]
    )

    static let snooze = CommandSpec(
        name: "snooze", abstract: "Put off an event's reminder: it goes off again after DURATION.",
        discussion: "The intent snoozeAlarm: a one-shot alarm at now plus DURATION for the occurrence whose reminder went off last (else the next one with a reminder to come), kept in the store until it goes off once.",
        options: [.value("occurrence", valueName: "when", help: "For a repeating event: the occurrence whose reminder to snooze.")],
        positionals: [PositionalSpec("event", help: "The event, by title or id."), PositionalSpec("duration", help: "How long: 10m, 1h, 90 minutes.")],
        examples: ["cometcal snooze Standup 10m"]
    )

    static let dismiss = CommandSpec(
        name: "dismiss", abstract: "Dismiss an event's reminders: those of the occurrence that have not gone off won't.",
        discussion: "The intent dismissAlarm, for the occurrence whose reminder went off last (else the next one with a reminder to come).",
        options: [.value("occurrence", valueName: "when", help: "For a repeating event: the occurrence whose reminders to dismiss.")],
        positionals: [PositionalSpec("event", help: "The event, by title or id.")],
        examples: ["cometcal dismiss Review"]
    )

    static let intentCommand = CommandSpec(
        name: "intent", abstract: "Run any intent of any domain by name.",
        subcommands: [
            CommandSpec(
                name: "run", abstract: "Run an intent with key=value parameters.",
                discussion: "Parameters are NAME=VALUE (repeat a name for array parameters). A value is read by the parameter's type, as a flag's value is: text stays text whatever it starts with; structured values (places, people, attendees, unions such as a location) also take JSON. Entity parameters take a title or an id. --clear NAME clears an optional parameter (null in JSON); parameters not given stay as they are.",
                options: [.value("clear", valueName: "name", repeatable: true, help: "Clear this parameter (repeatable).")] + PageFlags.options,
                positionals: [PositionalSpec("intent", help: "The intent's name, e.g. updateEvent or tasks.createTask."),
                              PositionalSpec("parameters", arity: .variadic, help: "NAME=VALUE pairs.")],
                examples: ["cometcal intent run createEvent title='Crew lunch' startDate='2026-06-15 12:00'",
                           "cometcal intent run updateEvent event='Crew lunch' --clear location",
                           "cometcal --schemas Examples/Schemas intent run createTask title='Buy cake' priority=high"]
            ),
            CommandSpec(name: "list", abstract: "List the intents of every loaded domain."),
        ]
    )

    static let schema = CommandSpec(
        name: "schema",
        abstract: "Check, describe and export the schema files.",
        subcommands: [
            CommandSpec(
                name: "check",
                abstract: "Check schema files and report every problem.",
                discussion: "Reads every '*.cal' file under the given directories (or files) and reports all diagnostics like a compiler: file:line:column, the line, a caret. Exits 0 when there are no errors, 65 when there are.",
                options: [.flag("no-codes", help: "Leave the diagnostic codes ([E100]) out of the messages.")],
                positionals: [PositionalSpec("paths", arity: .variadic, help: "Schema directories or files (default: the schema directory).")],
                examples: ["cometcal schema check Schemas", "cometcal schema check Examples/Schemas/tasks --json"]
            ),
            CommandSpec(
                name: "show",
                abstract: "Describe an entity, enum, union or intent, or give an overview.",
                positionals: [PositionalSpec("name", arity: .optional, help: "A name such as Event, calendar.Event or updateEvent. Without it: an overview of every domain.")],
                examples: ["cometcal schema show", "cometcal schema show updateEvent"]
            ),
            CommandSpec(
                name: "dump",
                abstract: "Print the whole registry as JSON, for tools.",
                options: [.flag("compact", help: "One line instead of indented JSON.")]
            ),
        ]
    )
}
