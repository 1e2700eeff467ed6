// swift-tools-version:6.0
// CometCal: a schema-driven calendar assistant backend. See README.md and docs/.
import PackageDescription

let package = Package(
    name: "CometCal",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cometcal", targets: ["cometcal"]),
        .executable(name: "cometcald", targets: ["cometcald"]),
        .library(name: "CometSchema", targets: ["CometSchema"]),
    ],
    targets: [
        // C libraries from Debian, reached through module maps (see scripts/bootstrap).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        // Line editing and history for `cometcal chat` on a terminal.
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),

        // The PostgreSQL client library (Debian's libpq-dev), for the PostgreSQL store.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),

        // Speech recognition for `cometcal listen`: pocketsphinx and sphinxbase from Debian
        // (libpocketsphinx-dev, libsphinxbase-dev; scripts/bootstrap), reached through a module map.
        .systemLibrary(
            name: "CPocketSphinx",
            pkgConfig: "pocketsphinx",
            providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]
        ),
        // Speech out (--speak): espeak-ng's library, which synthesizes into memory (scripts/bootstrap).
        .systemLibrary(
            name: "CEspeakNG",
            pkgConfig: "espeak-ng",
            providers: [.apt(["libespeak-ng-dev"])]
        ),
        // Sound in and out (--speak, chat --voice): PulseAudio's simple API (scripts/bootstrap).
        // No pkgConfig: libpulse-simple.pc adds -D_REENTRANT and -pthread, which SwiftPM refuses
        // with a warning; the headers are in /usr/include and the module map links the libraries.
        .systemLibrary(
            name: "CPulseSimple",
            providers: [.apt(["libpulse-dev"])]
        ),

        // The schema language, the typed registry and typed values.
        .target(name: "CometSchema", dependencies: ["CometText"]),
        // Small text utilities shared by the front ends and the schema compiler.
        .target(name: "CometText"),
        // The store seam, neutral to any database: the reader and writer protocols, occurrences and
        // their assembly, the series shape, the materialization window, the journal's types,
        // errors, and where a store is (`StoreLocation`) and how one is opened.
        .target(name: "CometStore", dependencies: ["CometSchema", "CometText"]),
        // The embedded store behind the seam: SQLite tables derived from the registry, full-text
        // and occurrence indexes, the undo journal, backups. Only the composition roots use it.
        .target(name: "CometSQLiteStore", dependencies: ["CometStore", "CometSchema", "CometText", "CSQLite"]),
        // The server store behind the same seam: PostgreSQL through libpq, one owner's rows per
        // opened store (row-level security behind the queries' own scoping). docs/postgresql.md.
        .target(name: "CometPostgresStore", dependencies: ["CometStore", "CometSchema", "CometText", "CLibPQ"]),
        // iCalendar through libical: a streaming reader with line numbers, the schema-driven
        // mapping entity ⇄ component, and the writer.
        .target(name: "CometICal", dependencies: ["CometSchema", "CLibical"]),
        // The intent engine: validation, resolution, policy, spans, undo, dialogs, import/export.
        .target(name: "CometIntents", dependencies: ["CometSchema", "CometStore", "CometICal", "CometText"]),
        // The conversation layer: temporal expressions (and, to come, utterances, dialogs, scripts).
        .target(name: "CometConversation", dependencies: ["CometIntents", "CometSchema", "CometStore", "CometText"]),
        // The daemon: JSON-RPC 2.0 over a Unix socket (transport apart from the method dispatch).
        .target(name: "CometDaemon", dependencies: ["CometConversation", "CometIntents", "CometSchema", "CometStore", "CometText", "CometVoice"]),
        // Speech ⇄ text: the WAVE reader, the recognizer (one owner of the pocketsphinx decoder),
        // the language compiled from the schemas and the store, and the gate between a hearing
        // and the conversation (docs/voice.md).
        .target(name: "CometVoice", dependencies: ["CometConversation", "CometIntents", "CometSchema", "CometText", "CPocketSphinx", "CEspeakNG", "CPulseSimple"]),
        // Hand-written command-line argument parsing shared by the executables.
        .target(name: "CometArguments", dependencies: ["CometText"]),

        // --- CalDAV part B (issue 22): WebDAV/CalDAV XML and protocol rules, no server, no engine.
        // libxml2 for request bodies (no network, no entities, bounded), reached through a module map.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // WebDAV/CalDAV bodies: the safe XML reader, request decoders, multistatus and error
        // writers, calendar-query filter evaluation over a neutral component model, hrefs.
        .target(name: "CometDAV", dependencies: ["CLibXML2"]),
        // --- end of CalDAV part B

        .executableTarget(
            name: "cometcal",
            dependencies: ["CometSchema", "CometStore", "CometSQLiteStore", "CometIntents", "CometConversation", "CometDaemon", "CometArguments",
                           "CometText", "CEditLine", "CometHTTP", "CometPostgresStore", "CometVoice"]
        ),

        .executableTarget(name: "cometcald", dependencies: ["CometDaemon", "CometSchema", "CometStore", "CometSQLiteStore", "CometArguments", "CometText",
                                                            "CometIntents", "CometHTTP", "CometCalDAV", "CometPostgresStore", "CLibPQ"]),

        // Benchmarks: run with scripts/bench; ratios against raw SQLite (and libical) measured in the same
        // run, the conversation's turns against the engine calls they make, and the daemon's requests
        // (in-process, over its socket) against the same requests on the engine.
        .executableTarget(
            name: "cometcal-bench",
            dependencies: ["CometSchema", "CometStore", "CometSQLiteStore", "CometIntents", "CometConversation", "CometDaemon", "CometText", "CSQLite",
                           "CometHTTP", "CometCalDAV", "CometPostgresStore", "CLibPQ", "CometVoice"]
        ),

        .testTarget(
            name: "CometSchemaTests",
            dependencies: ["CometSchema", "TestThreads"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "CometArgumentsTests",
            dependencies: ["CometArguments"]
        ),
        .testTarget(
            name: "CometTextTests",
            dependencies: ["CometText"]
        ),
        .testTarget(
            name: "CometIntentsTests",
            dependencies: ["CometIntents", "CometStore", "CometSQLiteStore", "CometSchema"]
        ),
        .testTarget(
            name: "CometICalTests",
            dependencies: ["CometICal", "CometIntents", "CometStore", "CometSQLiteStore", "CometSchema", "CLibical", "CSQLite"]
        ),
        .testTarget(
            name: "CometConversationTests",
            dependencies: ["CometConversation", "CometSchema", "CometIntents", "CometStore", "CometSQLiteStore", "CometICal"]
        ),
        // Speech from espeak-ng, recognized and played as the example dialogs (docs/voice.md).
        .testTarget(
            name: "CometVoiceTests",
            dependencies: ["CometVoice", "CometConversation", "CometSchema", "CometIntents", "CometStore", "CometSQLiteStore"]
        ),
        .testTarget(
            name: "CometDaemonTests",
            dependencies: ["CometDaemon", "CometSchema", "CometStore", "CometSQLiteStore"]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["CometSchema", "CometHTTP", "PostgresTestSupport", "TestThreads"],
            // Golden transcripts, read from the source tree.
            exclude: ["Golden"]
        ),
        // Store behaviour every store implementation shows, written against the neutral protocol
        // and run on each factory in StoreFactory.all (SQLite today); and the seam's own checks.
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: ["CometStore", "CometSchema", "CometSQLiteStore", "CometPostgresStore", "PostgresTestSupport", "TestThreads"]
        ),
        // A private PostgreSQL cluster for tests (initdb and pg_ctl in a temporary folder, a Unix
        // socket only), shared by the test targets that run against PostgreSQL.
        .target(name: "PostgresTestSupport", dependencies: ["CLibPQ"], path: "Tests/PostgresTestSupport"),
        // Threads for tests' blocking workers, never Dispatch's global queues (see WorkerThreads).
        .target(name: "TestThreads", path: "Tests/TestThreads"),
        .testTarget(name: "TestThreadsTests", dependencies: ["TestThreads"]),
        // CalDAV part B (issue 22): the RFCs' example bodies, hostile XML, writers read back, filters.
        .testTarget(
            name: "CometDAVTests",
            dependencies: ["CometDAV"]
        ),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CSQLite", "CLibical", "CLibPQ"]
        ),

        // ── Issue 22, the HTTP side of CalDAV (helper branch i22-http): libmicrohttpd and
        // libxcrypt through module maps, and CometHTTP over them (the server, Basic
        // authentication, the bcrypt password file). It knows nothing of the engine.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CCrypt",
            pkgConfig: "libxcrypt",
            providers: [.apt(["libcrypt-dev"])]
        ),
        .target(name: "CometHTTP", dependencies: ["CMicroHTTPD", "CCrypt"]),
        .testTarget(name: "CometHTTPTests", dependencies: ["CometHTTP"]),
        // ── end of issue 22's HTTP block.
        // CalDAV over the engine: routes requests to principals, homes, calendars and events, and
        // answers them through the engine's calendar resources (docs/caldav.md).
        .target(name: "CometCalDAV", dependencies: ["CometHTTP", "CometDAV", "CometIntents", "CometSchema", "CometStore"]),
        .testTarget(name: "CometCalDAVTests", dependencies: ["CometCalDAV", "CometHTTP", "CometDAV", "CometIntents", "CometConversation", "CometSchema", "CometStore", "CometSQLiteStore", "TestThreads"],
                    exclude: ["Clients", "Baseline"]),
    ],
    swiftLanguageModes: [.v6]
)
