import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometPostgresStore
import CometIntents
import CometText
import CLibPQ

/// `--store postgresql` (issue 23, "Speed"): the same requests on a SQLite store and on a
/// PostgreSQL store holding the same events, in one run, in one table. The SQLite store is
/// seeded through the engine as the default run seeds it, then copied into the PostgreSQL
/// database through the seam (`StoreCopy`), so both hold the same records with the same ids and
/// every request is asked of both. Single requests alternate between the stores one for one
/// (which goes first alternates too), so both see the same load; the daemon's phases run one
/// store after the other.
enum StoreComparison {
    /// The figures, in the table's order; `--scenario` picks some of them.
    static let scenarioNames = ["agenda-day", "agenda-month", "search", "create", "update", "delete", "import", "daemon", "two-daemons"]
    /// The issue's target: "within 2× of SQLite per request on one daemon".
    static let targetRatio = 2.0
    /// Clients of the daemon's throughput phase (the daemon scenario's target count).
    static let daemonClients = DaemonScenarios.targetClients
    /// The PostgreSQL owner the seeded store is copied into; imports go to owners of their own.
    static let owner = "bench"
    /// Each daemon phase's measured window is at least this long (seconds): a rate over a
    /// fraction of a second says little.
    static let daemonWindow = 3.0

    /// Runs ANALYZE on the database at `address` (a plain libpq URI: --pg-address has no
    /// cometcal_user), as after any bulk load: PostgreSQL plans from
    /// statistics, which a table copied in a few seconds does not have until autovacuum gets to
    /// it (until then the search matched every row of the owner by hand instead of through its
    /// GIN index). Returns how long it took.
    static func analyze(address: String) throws -> Double {
        let start = Stopwatch.now()
        guard let connection = PQconnectdb(address) else { throw BenchError("libpq could not allocate a connection") }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw BenchError("cannot connect to \(address) to ANALYZE: \(String(cString: PQerrorMessage(connection)))")
        }
        let result = PQexec(connection, "ANALYZE")
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw BenchError("ANALYZE failed: \(String(cString: PQerrorMessage(connection)))") }
        return Double(Stopwatch.now() - start) / 1e9
    }

    /// One line of the table: a figure on each store.
    struct Row {
        let name: String
        let summary: String
        /// "ms" (a request's p50, lower is better) or "req/s" (throughput, higher is better).
        let unit: String
        let sqlite: Double
        let postgres: Double
        /// Per-request samples behind a latency figure (nil for a throughput).
        var sqliteMeasurement: Measurement? = nil
        var postgresMeasurement: Measurement? = nil
        /// The largest PostgreSQL ÷ SQLite cost allowed; nil when the issue sets none.
        var targetRatio: Double? = StoreComparison.targetRatio
        var note: String? = nil
        /// The PostgreSQL store's mean round trips to the server per request (each a wait for
        /// its answer), where one connection serves the requests.
        var postgresRoundTrips: Double? = nil
        /// For the two-daemon row: its columns are one daemon and two, both on PostgreSQL.
        var columns = ("SQLite", "PostgreSQL")

        /// PostgreSQL's cost as a multiple of SQLite's: time over time, or rate under rate.
        var ratio: Double? {
            if unit == "req/s" { return postgres > 0 ? sqlite / postgres : nil }
            return sqlite > 0 ? postgres / sqlite : nil
        }

        var met: Bool? {
            guard let targetRatio, let ratio else { return nil }
            return ratio <= targetRatio
        }
    }

    struct Report {
        let options: BenchOptions
        let environment: Environment
        let rows: [Row]
        let seededEvents: Int
        let copySeconds: Double
        let analyzeSeconds: Double
        let postgresAddress: String

        func text() -> String {
            var lines: [String] = []
            lines.append("CometCal benchmark, SQLite beside PostgreSQL · \(environment.build) build · \(seededEvents) events (\(options.recurringPercent)% recurring) · "
                         + "\(options.samples) samples + \(options.warmup) warm-up per request · seed \(options.seed)")
            lines.append("\(environment.cpu) (\(environment.cores) cores) · SQLite \(environment.sqliteVersion) · libpq \(PostgresStore.libraryVersion) · "
                         + "load average \(StoreComparison.loadAverage())")
            if environment.build == "debug" {
                lines.append("warning: debug build; numbers are only good for a smoke test (scripts/bench builds release)")
            }
            lines.append(String(format: "The SQLite store was seeded through createEvent, then copied into PostgreSQL (owner '%@') in %.1f s, then ANALYZE (%.1f s), as after any bulk load.",
                                StoreComparison.owner, copySeconds, analyzeSeconds))
            lines.append("")
            lines.append("\(pad("scenario", 40)) \(lpad("SQLite", 12)) \(lpad("PostgreSQL", 12)) \(lpad("ratio", 7))  \(pad("target", 8)) verdict")
            for row in rows {
                let ratio = row.ratio.map { String(format: "%.2f×", $0) } ?? "–"
                let target = row.targetRatio.map { String(format: "≤ %g×", $0) } ?? "–"
                let verdict = row.met.map { $0 ? "met" : "NOT met" } ?? ""
                var line = "\(pad(row.name, 40)) \(lpad(value(row.sqlite, row.unit), 12)) \(lpad(value(row.postgres, row.unit), 12)) \(lpad(ratio, 7))  \(pad(target, 8)) \(verdict)"
                if let note = row.note { line += "  (\(note))" }
                lines.append(line)
            }
            lines.append("")
            lines.append("Requests (ms, wall clock; p50 is the table's figure)")
            lines.append("  \(pad("scenario", 40)) \(pad("store", 11)) \(lpad("ops", 6)) \(lpad("p50", 9)) \(lpad("p90", 9)) \(lpad("p99", 9)) \(lpad("cpu p50", 9)) \(lpad("rows/op", 8)) \(lpad("trips/op", 9))")
            for row in rows {
                for (store, measurement, trips) in [(row.columns.0, row.sqliteMeasurement, nil), (row.columns.1, row.postgresMeasurement, row.postgresRoundTrips)] {
                    guard let measurement else { continue }
                    lines.append(requestLine(row.name, store, measurement) + (trips.map { " " + lpad(String(format: "%.1f", $0), 9) } ?? ""))
                    for (tag, part) in measurement.byTag {
                        lines.append(requestLine("  " + tag, store, part))
                    }
                }
            }
            lines.append("")
            for row in rows { lines.append("  \(row.name): \(row.summary)") }
            lines.append("")
            lines.append("ratio: PostgreSQL's time ÷ SQLite's (for requests/s, SQLite's rate ÷ PostgreSQL's), so above 1 is PostgreSQL slower; "
                         + "the two-daemon row is one daemon's rate ÷ two daemons', both on PostgreSQL. "
                         + "trips/op: the PostgreSQL store's round trips to the server per request (an import is one request).")
            return lines.joined(separator: "\n")
        }

        func json() -> String {
            var root = JSONObject()
            root["benchmark"] = "cometcal-bench"
            root["store"] = "postgresql"
            root["config"] = .object(JSONObject([
                ("events", .int(seededEvents)), ("recurringPercent", .int(options.recurringPercent)),
                ("samples", .int(options.samples)), ("warmup", .int(options.warmup)), ("seed", .string(String(options.seed))),
                ("owner", .string(StoreComparison.owner)), ("copySeconds", .double(copySeconds)), ("analyzeSeconds", .double(analyzeSeconds)),
            ]))
            root["environment"] = .object(JSONObject([
                ("build", .string(environment.build)), ("cpu", .string(environment.cpu)), ("cores", .int(environment.cores)),
                ("sqlite", .string(environment.sqliteVersion)), ("libpq", .string(PostgresStore.libraryVersion)),
                ("system", .string(environment.system)), ("loadAverage", .string(StoreComparison.loadAverage())),
            ]))
            root["rows"] = .array(rows.map { row in
                var object = JSONObject()
                object["name"] = .string(row.name)
                object["summary"] = .string(row.summary)
                object["unit"] = .string(row.unit)
                object["columns"] = .array([.string(row.columns.0), .string(row.columns.1)])
                object["sqlite"] = .double(row.sqlite)
                object["postgresql"] = .double(row.postgres)
                object["ratio"] = row.ratio.map(JSONValue.double) ?? .null
                object["targetRatio"] = row.targetRatio.map(JSONValue.double) ?? .null
                object["met"] = row.met.map(JSONValue.bool) ?? .null
                object["note"] = row.note.map(JSONValue.string) ?? .null
                object["postgresqlRoundTripsPerRequest"] = row.postgresRoundTrips.map(JSONValue.double) ?? .null
                object["sqliteResult"] = row.sqliteMeasurement.map(StoreComparison.measurementJSON) ?? .null
                object["postgresqlResult"] = row.postgresMeasurement.map(StoreComparison.measurementJSON) ?? .null
                return .object(object)
            })
            return JSONWriter.pretty(.object(root))
        }

        private func requestLine(_ name: String, _ store: String, _ measurement: Measurement) -> String {
            let summary = measurement.summary
            return "  \(pad(name, 40)) \(pad(store, 11)) \(lpad(String(summary.count), 6)) \(lpad(ms(summary.p50), 9)) \(lpad(ms(summary.p90), 9)) "
                + "\(lpad(ms(summary.p99), 9)) \(lpad(ms(measurement.cpuSummary.p50), 9)) \(lpad(String(format: "%.1f", measurement.meanRows), 8))"
        }

        private func value(_ number: Double, _ unit: String) -> String {
            unit == "req/s" ? String(format: "%.0f req/s", number) : ms(number) + " ms"
        }
        private func ms(_ value: Double) -> String {
            value >= 100 ? String(format: "%.0f", value) : value >= 10 ? String(format: "%.1f", value) : String(format: "%.3f", value)
        }
        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        private func lpad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
    }

    static func measurementJSON(_ measurement: Measurement) -> JSONValue {
        let summary = measurement.summary
        return .object(JSONObject([
            ("count", .int(summary.count)), ("min", .double(summary.min)), ("p50", .double(summary.p50)), ("p90", .double(summary.p90)),
            ("p99", .double(summary.p99)), ("max", .double(summary.max)), ("mean", .double(summary.mean)),
            ("cpuP50", .double(measurement.cpuSummary.p50)), ("rowsPerOperation", .double(measurement.meanRows)),
        ]))
    }

    /// /proc/loadavg's three figures: the machine is shared, and the table means little without them.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// Runs the comparison: seeds the SQLite fixture, copies it into PostgreSQL, and measures each
/// figure on both.
final class StoreComparisonBench {
    let run: BenchRun
    let sqlite: Fixture
    let postgres: Fixture
    let copySeconds: Double
    /// The ANALYZE after the copy.
    let analyzeSeconds: Double
    let address: String

    /// `address`: the PostgreSQL database (scripts/bench makes it on a private cluster). The
    /// seeded store goes to its owner `StoreComparison.owner`.
    init(run: BenchRun, address: String) throws {
        self.run = run
        sqlite = try run.fixture()
        guard let owned = StoreLocation.postgres(address).database(forOwner: StoreComparison.owner), case .postgres(let ownerAddress) = owned else {
            throw BenchError("'\(address)' is not a PostgreSQL address")
        }
        self.address = address
        let postgres = try Fixture(options: run.options, registry: run.registry, frame: run.frame, postgres: ownerAddress)
        self.postgres = postgres
        run.onCleanUp { postgres.removeTemporaryFiles() }
        let already = try postgres.store.transaction { try $0.count(postgres.event) }
        guard already == 0 else {
            throw BenchError("the PostgreSQL database already holds \(already) events of owner '\(StoreComparison.owner)'; give an empty database")
        }
        run.progress("copying the seeded store into PostgreSQL (owner '\(StoreComparison.owner)')")
        let start = Stopwatch.now()
        _ = try StoreCopy.copy(from: sqlite.store, to: postgres.store)
        copySeconds = Double(Stopwatch.now() - start) / 1e9
        analyzeSeconds = try StoreComparison.analyze(address: address)
        try postgres.adopt(progress: run.progress)
        guard postgres.pool.count == sqlite.pool.count else {
            throw BenchError("the copy holds \(postgres.pool.count) events, the SQLite store \(sqlite.pool.count)")
        }
    }

    func measure(_ names: [String]) throws -> [StoreComparison.Row] {
        var rows: [StoreComparison.Row] = []
        for name in names {
            run.progress("--store postgresql: \(name)")
            switch name {
            case "agenda-day": rows.append(try agenda(days: 1))
            case "agenda-month": rows.append(try agenda(days: 0))
            case "search": rows.append(try search())
            case "create": rows.append(try create())
            case "update": rows.append(try update())
            case "delete": rows.append(try delete())
            case "import": rows.append(try importRows())
            case "daemon": rows += try daemon()
            case "two-daemons": rows.append(try twoDaemons())
            default: throw BenchError("no --store postgresql scenario is named '\(name)' (\(StoreComparison.scenarioNames.joined(separator: ", ")))")
            }
        }
        return rows
    }

    // MARK: Requests one at a time

    /// The same request on both stores, `samples` times after the warm-up, alternating which
    /// store goes first. `make` draws the request (outside the clock); `perform` runs it on a
    /// fixture and returns the rows it produced.
    private func interleaved<Request>(_ make: () throws -> Request, _ perform: (Fixture, Request) throws -> Int,
                                      after: ((Request) throws -> Void)? = nil) throws -> (Measurement, Measurement) {
        var onSQLite = Measurement()
        var onPostgres = Measurement()
        let counter = postgres.store as? PostgresStore
        var roundTrips = 0
        for index in 0..<(run.options.warmup + run.options.samples) {
            let request = try make()
            let measured = index >= run.options.warmup
            for fixture in index % 2 == 0 ? [sqlite, postgres] : [postgres, sqlite] {
                let before = counter?.roundTrips ?? 0
                let (rows, timing) = try Stopwatch.time { try perform(fixture, request) }
                guard measured else { continue }
                if fixture === sqlite { onSQLite.add(timing, rows: rows) } else {
                    onPostgres.add(timing, rows: rows)
                    roundTrips += (counter?.roundTrips ?? 0) - before
                }
            }
            try after?(request)
        }
        lastRoundTrips = run.options.samples > 0 ? Double(roundTrips) / Double(run.options.samples) : nil
        return (onSQLite, onPostgres)
    }

    /// The PostgreSQL store's round trips per request in the last `interleaved` measurement.
    private var lastRoundTrips: Double?

    private func row(_ name: String, _ summary: String, _ measurements: (Measurement, Measurement), note: String? = nil) -> StoreComparison.Row {
        StoreComparison.Row(name: name, summary: summary, unit: "ms", sqlite: measurements.0.summary.p50, postgres: measurements.1.summary.p50,
                            sqliteMeasurement: measurements.0, postgresMeasurement: measurements.1, note: note, postgresRoundTrips: lastRoundTrips)
    }

    /// A random day (`days` 1) or calendar month (`days` 0) of the data, as searchEvents from/to.
    private func agenda(days: Int) throws -> StoreComparison.Row {
        var random = SplitMix64(seed: run.options.seed, stream: days == 1 ? "compare-days" : "compare-months")
        let frame = run.frame
        let measurements = try interleaved({ () -> (from: DateTimeValue, to: DateTimeValue) in
            if days == 0 { return try frame.monthBounds(random.pick(frame.months)) }
            return try frame.dayBounds(TimeFrame.date(day: Int64(random.int(Int(frame.firstDay)...Int(frame.lastDay)))))
        }, { fixture, bounds in
            let result = try fixture.perform(IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
                "from": .set(.dateTime(bounds.from)), "to": .set(.dateTime(bounds.to)),
            ])))
            return result.occurrences.count
        })
        return days == 1
            ? row("agenda, a day", "searchEvents from/to one day (Europe/Berlin) at a random day of the data", measurements)
            : row("agenda, a month", "searchEvents from/to one calendar month at a random month of the data", measurements)
    }

    private func search() throws -> StoreComparison.Row {
        let request = IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": .set(.string("lunch"))]), page: ResultPage(limit: 200))
        let measurements = try interleaved({ request }, { fixture, request in try fixture.perform(request).records.count })
        return row("search, best 200 of \"lunch\"", "searchEvents text 'lunch' (full-text, ranked, the best 200)", measurements)
    }

    /// A new generated event, created on both stores (the same parameters: the calendars have
    /// the same ids in both). Not added to the pools: each store gives it an id of its own, and
    /// updates and deletes ask both stores for the same id.
    private func create() throws -> StoreComparison.Row {
        let measurements = try interleaved({ try sqlite.generator.next() }, { fixture, event in
            let result = try fixture.perform(IntentRequest(intent: "createEvent", parameters: event.parameters, confirmation: .confirmed))
            guard result.record?.id != nil else { throw BenchError("createEvent returned no event") }
            return 1
        })
        return row("create", "createEvent (confirmed) of a new generated event, the seed's mix", measurements,
                   note: "each store makes its own id")
    }

    /// The same seeded event updated on both (series: span all).
    private func update() throws -> StoreComparison.Row {
        var random = SplitMix64(seed: run.options.seed, stream: "compare-update")
        let recurringPercent = run.options.recurringPercent
        let measurements = try interleaved({ () -> (UUID, Bool, [String: ParameterValue]) in
            let recurring = random.int(0...99) < recurringPercent && !sqlite.pool.series.isEmpty
            guard let id = sqlite.pool.pick(recurring: recurring, using: &random) else { throw BenchError("no event left to update") }
            return (id, recurring, sqlite.generator.changes())
        }, { fixture, request in
            var parameters = request.2
            parameters["event"] = .set(.reference(request.0))
            if request.1 { parameters["span"] = .set(.enumCase("all")) }
            try fixture.perform(IntentRequest(intent: "updateEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed))
            return 1
        })
        return row("update", "updateEvent title + location of a random seeded event (series: span all), confirmed", measurements)
    }

    /// The same seeded event deleted from both (series: span all).
    private func delete() throws -> StoreComparison.Row {
        var random = SplitMix64(seed: run.options.seed, stream: "compare-delete")
        let recurringPercent = run.options.recurringPercent
        let measurements = try interleaved({ () -> (UUID, Bool) in
            let recurring = random.int(0...99) < recurringPercent && !sqlite.pool.series.isEmpty
            guard let id = sqlite.pool.pick(recurring: recurring, using: &random) else { throw BenchError("no event left to delete") }
            return (id, recurring)
        }, { fixture, request in
            var parameters: [String: ParameterValue] = ["event": .set(.reference(request.0))]
            if request.1 { parameters["span"] = .set(.enumCase("all")) }
            try fixture.perform(IntentRequest(intent: "deleteEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed))
            return 1
        }, after: { request in
            self.sqlite.pool.remove(request.0, recurring: request.1)
            self.postgres.pool.remove(request.0, recurring: request.1)
        })
        return row("delete", "deleteEvent of a random seeded event (series: span all), confirmed", measurements)
    }

    // MARK: Import

    /// Events of the import's generated file: a fifth of the seed, at least 100 and at most 5,000.
    var importEvents: Int { min(5_000, max(100, run.options.events / 5)) }

    /// The generated file imported into a new store each round: a new SQLite file, and a new
    /// owner of the PostgreSQL database (the seeded owner's rows stay beside it, as on a shared
    /// server). Alternating which goes first.
    private func importRows() throws -> StoreComparison.Row {
        let folder = (sqlite.directory as NSString).appendingPathComponent("compare-import")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = (folder as NSString).appendingPathComponent("calendar.ics")
        var generator = CalendarFileGenerator(frame: run.frame, events: importEvents, seed: run.options.seed)
        _ = try generator.write(to: file)
        var onSQLite = Measurement()
        var onPostgres = Measurement()
        var importTrips = 0
        defer { lastRoundTrips = nil }
        for round in 0..<run.options.importRounds {
            let sqliteStore = try SQLiteStore(path: (folder as NSString).appendingPathComponent("import-\(round).sqlite"), registry: run.registry, now: run.frame.now)
            guard let owned = StoreLocation.postgres(address).database(forOwner: "import-\(round)") else { throw BenchError("no owner address") }
            let postgresStore = try BenchStores.opener.open(owned, registry: run.registry, now: run.frame.now)
            let stores: [(any OpenedStore, Bool)] = round % 2 == 0 ? [(sqliteStore, true), (postgresStore, false)] : [(postgresStore, false), (sqliteStore, true)]
            for (store, isSQLite) in stores {
                let now = run.frame.now
                let engine = IntentEngine(store: store, timeZone: run.frame.zone, clock: { now })
                guard let handle = FileHandle(forReadingAtPath: file) else { throw BenchError("cannot open \(file)") }
                let before = (store as? PostgresStore)?.roundTrips ?? 0
                let (report, timing) = Stopwatch.time { engine.importCalendars([ImportSource(name: file, handle: handle, registry: run.registry)]) }
                importTrips += ((store as? PostgresStore)?.roundTrips ?? 0) - before
                try? handle.close()
                guard report.written, report.added == importEvents else {
                    throw BenchError("the import into \(isSQLite ? "SQLite" : "PostgreSQL") added \(report.added) of \(importEvents) events: "
                                     + report.problems.prefix(3).map(\.message).joined(separator: "; "))
                }
                if isSQLite { onSQLite.add(timing, rows: report.added) } else { onPostgres.add(timing, rows: report.added) }
            }
        }
        lastRoundTrips = run.options.importRounds > 0 ? Double(importTrips) / Double(run.options.importRounds) : nil
        return row("import, \(ICalScenarios.thousands(importEvents)) events", "cometcal import of a generated .ics into a new store (SQLite: a new file; PostgreSQL: a new owner in the same database), in process",
                   (onSQLite, onPostgres), note: "\(run.options.importRounds) round\(run.options.importRounds == 1 ? "" : "s")")
    }

    // MARK: The daemon

    /// The mixed load on one daemon per store: 1 client (a request's latency) and
    /// `daemonClients` (requests per second).
    private func daemon() throws -> [StoreComparison.Row] {
        var phases: [(DaemonPhase, DaemonPhase)] = []
        var byStore: [[DaemonPhase]] = []
        for fixture in [sqlite, postgres] {
            run.progress("daemon on \(fixture.storeName)")
            let bench = try DaemonBench(run: run, fixture: fixture, minimumWindow: StoreComparison.daemonWindow)
            let result = try bench.measure(nil, scenario: DaemonScenarios.daemon, mixes: [.mixed], clientCounts: [1, StoreComparison.daemonClients])
            byStore.append(result.daemon?.phases ?? [])
        }
        func phase(_ store: Int, _ clients: Int) throws -> DaemonPhase {
            guard let found = byStore[store].first(where: { $0.clients == clients }) else { throw BenchError("the daemon's \(clients)-client phase is missing") }
            return found
        }
        phases.append((try phase(0, 1), try phase(1, 1)))
        phases.append((try phase(0, StoreComparison.daemonClients), try phase(1, StoreComparison.daemonClients)))
        let single = phases[0]
        let many = phases[1]
        let mix = "70% reads (search, agenda of a day or a week, entity.get, health), 30% writes (create, update, delete)"
        return [
            StoreComparison.Row(name: "daemon mix, 1 client, per request", summary: "cometcald's JSON-RPC in this process, one client: " + mix,
                                unit: "ms", sqlite: single.0.measurement.summary.p50, postgres: single.1.measurement.summary.p50,
                                sqliteMeasurement: single.0.measurement, postgresMeasurement: single.1.measurement),
            StoreComparison.Row(name: "daemon mix, \(StoreComparison.daemonClients) clients, requests/s", summary: "the same mix from \(StoreComparison.daemonClients) client threads on one daemon",
                                unit: "req/s", sqlite: many.0.requestsPerSecond, postgres: many.1.requestsPerSecond,
                                sqliteMeasurement: many.0.measurement, postgresMeasurement: many.1.measurement,
                                note: String(format: "p99 %.0f / %.0f ms", many.0.measurement.summary.p99, many.1.measurement.summary.p99)),
        ]
    }

    /// The mixed load from `daemonClients` clients on one PostgreSQL daemon, then spread over
    /// two daemons on the same database, both in this process on the same cores.
    private func twoDaemons() throws -> StoreComparison.Row {
        let bench = try DaemonBench(run: run, fixture: postgres, minimumWindow: StoreComparison.daemonWindow)
        let one = try bench.spreadPhase(.mixed, daemons: 1, clients: StoreComparison.daemonClients)
        let two = try bench.spreadPhase(.mixed, daemons: 2, clients: StoreComparison.daemonClients)
        var row = StoreComparison.Row(name: "PostgreSQL, 2 daemons vs 1, requests/s", summary: "the daemon's mix from \(StoreComparison.daemonClients) clients on one daemon, then spread "
                                      + "over two daemons on the same database (both in this process, on the same cores); the issue: the throughput should not drop",
                                      unit: "req/s", sqlite: one.requestsPerSecond, postgres: two.requestsPerSecond,
                                      sqliteMeasurement: one.measurement, postgresMeasurement: two.measurement,
                                      targetRatio: 1, note: String(format: "p99 %.0f / %.0f ms", one.measurement.summary.p99, two.measurement.summary.p99))
        row.columns = ("1 daemon", "2 daemons")
        return row
    }
}
