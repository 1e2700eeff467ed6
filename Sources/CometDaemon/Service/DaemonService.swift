import Foundation
import Dispatch
import CometSchema
import CometStore
import CometIntents
import CometConversation
import CometText
import CometVoice

/// Serves one store and one registry to every client: the method table of docs/daemon.md. It
/// knows requests and results, not sockets, so another front end (CalDAV over HTTP) can share it.
/// Reads run on a pool of engines side by side; writes (and conversations, which may write) run
/// on one writer, one at a time. Every committed change is announced to the subscribers.
public final class DaemonService: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// The store served, and how stores are opened (the executable's choice of database).
        public var store: StoreLocation
        public var opener: StoreOpener
        /// The store as a person wrote it (logs, health, the lock file beside a store file).
        public var storePath: String { store.description }
        public var schemaPaths: [String]
        public var timeZone: TimeZone
        /// How replies, cards and prompts write a time of day (the settings file's time_format).
        public var timeFormat = TimeFormat.twentyFourHour
        public var readers: Int
        /// The engines' clock (what "now" is to intents and conversations).
        public var clock: @Sendable () -> Date = { Date() }
        /// How long one request may work on the store before it is stopped and rolled back.
        public var requestSeconds: Double = 30

        public init(store: StoreLocation, opener: StoreOpener, schemaPaths: [String], timeZone: TimeZone = .current, readers: Int = 4) {
            self.store = store
            self.opener = opener
            self.schemaPaths = schemaPaths
            self.timeZone = timeZone
            self.readers = readers
        }
    }

    public enum Topic: String, Sendable, CaseIterable { case changes, alarms }

    public static let version = CometCalVersion.number

    let configuration: Configuration
    private let lock = NSLock()
    private var registryValue: Registry
    private var book: ConversationBook
    let writer: EngineSlot
    /// The writer's WAL checkpoints, on a thread and a connection of their own (`Daemon` starts it).
    let checkpoints: Checkpointer
    let readers: ReaderPool
    let started = Date()
    private var conversations: [String: Conversation] = [:]
    /// The voice gate of each conversation that has been spoken to (`conversation.say` with audio).
    private var voiceGates: [String: VoiceConversation] = [:]
    /// The daemon's ears and voice, made when first needed (DaemonVoice).
    private var voiceValue: DaemonVoice?
    private var subscriptions: [Int: Set<Topic>] = [:]
    /// The newest journal entry announced; later ones are announced after each write.
    private var announcedJournal: Int64 = 0
    /// Whether each recent entry was undone when last looked at, to see undos and redos.
    private var journalStates: [Int64: Bool] = [:]
    /// Sends a notification to connections by id.
    var deliver: @Sendable (Set<Int>, JSONValue) -> Void = { _, _ in }
    /// Sends a message to the other daemons on the same database (`StoreWatch`); nothing
    /// when the store has none.
    var relay: @Sendable (String) -> Void = { _ in }
    /// This daemon among those on one database: its own relayed messages come back to it.
    let instance = UUID().uuidString.lowercased()
    public var log: @Sendable (String, [(String, String)]) -> Void = { _, _ in }
    /// Whether the database is away, so that an outage is logged once (`StoreOutage`).
    let outage = StoreOutage()

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let registry = try Registry.load(paths: configuration.schemaPaths)
        registryValue = registry
        book = ConversationBook(registry: registry)
        // One cache of calendar resources for all the engines on the store (CalDAV's reads).
        let resources = ResourceCache()
        func engine(checkpointing checkpointer: Checkpointer? = nil) throws -> IntentEngine {
            let store = try configuration.opener.open(configuration.store, registry: registry, now: configuration.clock())
            if let checkpointer { store.deferUpkeep { pages in checkpointer.committed(pages: pages) } }
            let engine = IntentEngine(store: store, timeZone: configuration.timeZone, timeFormat: configuration.timeFormat, clock: configuration.clock)
            engine.resourceCache = resources
            return engine
        }
        let limit = configuration.requestSeconds
        let checkpointer = Checkpointer(maintainer: try configuration.opener.maintainer(for: configuration.store))
        checkpoints = checkpointer
        let texts = RecordTextCache()
        writer = EngineSlot(label: "cometcald.writer", engine: try engine(checkpointing: checkpointer), timeLimit: limit, recordTexts: texts)
        readers = ReaderPool(try (0..<max(1, configuration.readers)).map {
            EngineSlot(label: "cometcald.reader.\($0)", engine: try engine(), timeLimit: limit, recordTexts: texts)
        })
        let recent = (try? writer.run { try $0.journalHeads(limit: DaemonService.journalLook) }) ?? []
        announcedJournal = recent.map(\.sequence).max() ?? 0
        for head in recent { journalStates[head.sequence] = head.undone }
    }

    public var registry: Registry { lock.withLock { registryValue } }

    // MARK: Requests

    /// Answers one request as a tree, for a caller that looks inside the answer; `connection`
    /// names the client for subscriptions and sessions. The daemon sends `answer`'s text.
    public func handle(_ method: String, _ params: JSONObject, connection: Int) -> Result<JSONValue, RPCError> {
        answer(method, params, connection: connection).flatMap { text in
            do {
                return .success(try JSONParser.parse(bytes: text.bytes))
            } catch {
                return .failure(RPCError(RPCError.internalError, "the answer is not JSON: \(error)"))
            }
        }
    }

    /// Answers one request as compact JSON text, written straight from the results.
    func answer(_ method: String, _ params: JSONObject, connection: Int) -> Result<JSONText, RPCError> {
        do {
            return .success(try call(method, Parameters(params), connection: connection))
        } catch let error as RPCError {
            return .failure(error)
        } catch let error as StoreError where error.code == .unavailable {
            return .failure(unavailable(error))
        } catch let error as StoreError where error.code == .timedOut {
            return .failure(RPCError(RPCError.requestTimedOut, "the request took longer than \(configuration.requestSeconds) s and was stopped; nothing was changed"))
        } catch let error as StoreError {
            return .failure(RPCError(RPCError.internalError, "the store could not do that: \(error.message)"))
        } catch {
            return .failure(RPCError(RPCError.internalError, "\(error)"))
        }
    }

    public static let methods = ["health", "schema", "intent.perform", "entity.get", "entity.search", "agenda", "ical.import", "ical.export", "ical.exportVdir",
                                 "undo", "redo", "history", "alarms.list", "conversation.open", "conversation.say", "conversation.close", "voice.language", "subscribe", "unsubscribe"]

    private func call(_ method: String, _ params: Parameters, connection: Int) throws -> JSONText {
        switch method {
        case "health": return JSONText(health())
        case "schema":
            try params.only([])
            return JSONText(registry.dump())
        case "intent.perform": return try perform(params)
        case "entity.get": return try entityGet(params)
        case "entity.search": return try entitySearch(params)
        case "agenda": return try agenda(params)
        case "ical.import": return JSONText(try icalImport(params))
        case "ical.export": return JSONText(try icalExport(params))
        case "ical.exportVdir": return JSONText(try icalExportVdir(params))
        case "undo", "redo":
            try params.only([])
            let undo = method == "undo"
            var heads: [JournalHead]?
            let text = writer.text { engine, text in
                let outcome = undo ? engine.undo() : engine.redo()
                engine.registry.write(outcome, into: &text)
                if case .done = outcome { heads = try? engine.journalHeads(limit: DaemonService.journalLook) }
            }
            if let heads { announceJournal(heads: heads) }
            return text
        case "history": return JSONText(try history(params))
        case "alarms.list": return JSONText(try alarmsList(params))
        case "conversation.open": return JSONText(try conversationOpen(params, connection: connection))
        case "conversation.say": return JSONText(try conversationSay(params))
        case "voice.language": return JSONText(try voiceLanguage(params))
        case "conversation.close":
            try params.only(["session"])
            let session = try params.string("session")
            guard lock.withLock({ voiceGates.removeValue(forKey: session); return conversations.removeValue(forKey: session) }) != nil else {
                throw RPCError(RPCError.invalidParams, "no conversation has the session '\(session)'")
            }
            return JSONText(.object(JSONObject([("closed", .bool(true))])))
        case "subscribe", "unsubscribe":
            try params.only(["topics"])
            let topics = try params.topics()
            let now = lock.withLock { () -> Set<Topic> in
                var current = subscriptions[connection] ?? []
                if method == "subscribe" { current.formUnion(topics) } else { current.subtract(topics) }
                subscriptions[connection] = current.isEmpty ? nil : current
                return current
            }
            return JSONText(.object(JSONObject([("topics", .array(now.map(\.rawValue).sorted().map(JSONValue.string)))])))
        default:
            let suggestion = EditDistance.closest(to: method, among: DaemonService.methods)
            throw RPCError(RPCError.methodNotFound, "no method is called '\(method)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""),
                           data: .object(JSONObject([("methods", .array(DaemonService.methods.map(JSONValue.string)))])))
        }
    }

    /// A client went away: its subscriptions go, its conversations stay until closed (another
    /// connection may carry the session on).
    public func disconnected(_ connection: Int) {
        lock.withLock { _ = subscriptions.removeValue(forKey: connection) }
    }

    /// Reads the store (its `_meta` and a page of each entity's records) rather than only
    /// saying it runs: "ok", or "error" with what could not be read.
    private func health() -> JSONValue {
        let check = readers.run { $0.checkStore() }
        var object = JSONObject([
            ("status", .string(check.isHealthy ? "ok" : "error")), ("version", .string(DaemonService.version)), ("store", .string(configuration.storePath)),
            ("uptime", .double((Date().timeIntervalSince(started) * 1000).rounded() / 1000)),
            ("conversations", .int(lock.withLock { conversations.count })),
            ("records", .object(JSONObject(check.records.map { ($0.entity.name, JSONValue.int($0.count)) }))),
        ])
        if let problem = check.problem { object["problem"] = .string(problem) }
        return .object(object)
    }

    // MARK: Intents

    private func perform(_ params: Parameters) throws -> JSONText {
        try params.only(["intent", "parameters", "confirmed", "limit", "offset"])
        let name = try params.string("intent")
        let registry = self.registry
        // Found in the registry, by the engine's rule, without waiting for the writer: a search
        // must not queue behind a write just to learn its intent.
        let intent: IntentDefinition
        do {
            intent = try IntentEngine.intent(named: name, in: registry)
        } catch let error as IntentError {
            return registry.jsonText(IntentOutcome.failed(error))
        }
        // confirmed: true answers yes to a confirmation, false answers no; absent, the engine asks.
        let confirmation: IntentRequest.Confirmation = try params.bool("confirmed").map { $0 ? .confirmed : .declined } ?? .pending
        var request = IntentRequest(intent: intent.name.description, confirmation: confirmation)
        let values = try params.object("parameters") ?? JSONObject()
        for (key, json) in values {
            guard let parameter = intent.parameter(key) else {
                request.parameters[key] = .cleared  // the engine refuses it, with a suggestion
                continue
            }
            if case .null = json {
                request.parameters[key] = .cleared
            } else if case .entity(let entity) = parameter.type.base, registry.entity(entity)?.kind == .indexed, !parameter.type.isArray,
                      case .string(let text) = json {
                request.references[key] = text
            } else {
                do {
                    request.parameters[key] = .set(try registry.decode(json, as: parameter.type.required))
                } catch {
                    throw RPCError(RPCError.invalidParams, "parameters.\(key): \(error.message)", data: .object(JSONObject([("parameter", .string(key))])))
                }
            }
        }
        request.page = try page(params)
        let reads = intent.action == .search || intent.action == .open
        if reads { return readers.text { engine, text in engine.registry.write(engine.perform(request), into: &text) } }
        var written: Int64?
        let text = writer.text { engine, text in
            let outcome = engine.perform(request)
            engine.registry.write(outcome, into: &text)
            if case .done(let result) = outcome { written = result.journalSequence }
        }
        announceWritten(written)
        return text
    }

    private func page(_ params: Parameters) throws -> ResultPage {
        let limit = try params.int("limit")
        let offset = try params.int("offset") ?? 0
        return limit == nil && offset == 0 ? .all : ResultPage(limit: limit, offset: offset)
    }

    // MARK: Entities and the agenda

    private func entity(_ params: Parameters) throws -> EntityDefinition {
        let name = try params.string("entity")
        let registry = self.registry
        let found = registry.lookup(name).compactMap { declaration -> EntityDefinition? in
            if case .entity(let entity) = declaration, entity.kind == .indexed { return entity }
            return nil
        }
        guard found.count == 1 else {
            let names = registry.allEntities.filter { $0.kind == .indexed }.map(\.name.name)
            throw RPCError(RPCError.invalidParams, found.isEmpty ? "no entity is called '\(name)' (entities: \(names.joined(separator: ", ")))"
                                                                 : "'\(name)' names entities in several domains; qualify it")
        }
        return found[0]
    }

    private func entityGet(_ params: Parameters) throws -> JSONText {
        try params.only(["entity", "id"])
        let entity = try entity(params)
        let text = try params.string("id")
        guard let id = UUID(uuidString: text) else { throw RPCError(RPCError.invalidParams, "'\(text)' is not an id") }
        return try readers.text { engine, text in
            let record = try engine.record(entity.name, id: id)
            text.beginObject()
            text.key("entity")
            if let record { engine.registry.write(record, into: &text) } else { text.writeNull() }
            text.endObject()
        }
    }

    /// The entity's own search intent, with its roles filled from the request.
    private func entitySearch(_ params: Parameters) throws -> JSONText {
        try params.only(["entity", "text", "from", "to", "limit", "offset"])
        let entity = try entity(params)
        guard let search = registry.allIntents.first(where: { $0.action == .search && $0.entity == entity.name }) else {
            throw RPCError(RPCError.invalidParams, "\(entity.name.name) has no search intent")
        }
        var request = IntentRequest(intent: search.name.description, page: try page(params))
        for role in [ParameterRole.text, .from, .to] {
            guard let json = params.values[role.rawValue] else { continue }
            guard let parameter = search.parameter(role: role) else {
                throw RPCError(RPCError.invalidParams, "\(search.name.name) takes no \(role.rawValue)")
            }
            request.parameters[parameter.name] = .set(try decode(json, as: parameter, key: role.rawValue))
        }
        return readers.text { engine, text in engine.registry.write(engine.perform(request), into: &text) }
    }

    private func agenda(_ params: Parameters) throws -> JSONText {
        try params.only(["from", "to", "calendar", "limit", "offset"])
        guard let search = registry.allIntents.first(where: { $0.action == .search && $0.parameter(role: .from) != nil && $0.parameter(role: .to) != nil }),
              let from = search.parameter(role: .from), let to = search.parameter(role: .to) else {
            throw RPCError(RPCError.invalidParams, "no search intent has a range (@role(from) and @role(to))")
        }
        guard let fromJSON = params.values["from"], let toJSON = params.values["to"] else {
            throw RPCError(RPCError.invalidParams, "agenda needs from and to (ISO 8601 date-times)")
        }
        var request = IntentRequest(intent: search.name.description, page: try page(params))
        request.parameters[from.name] = .set(try decode(fromJSON, as: from, key: "from"))
        request.parameters[to.name] = .set(try decode(toJSON, as: to, key: "to"))
        if let calendar = try params.string(optional: "calendar") {
            guard let parameter = search.parameters.first(where: { if case .entity = $0.type.base { return true } else { return false } }) else {
                throw RPCError(RPCError.invalidParams, "\(search.name.name) takes no calendar")
            }
            request.references[parameter.name] = calendar
        }
        return readers.text { engine, text in engine.registry.write(engine.perform(request), into: &text) }
    }

    private func decode(_ json: JSONValue, as parameter: ParameterDefinition, key: String) throws -> Value {
        do { return try registry.decode(json, as: parameter.type.required) } catch {
            throw RPCError(RPCError.invalidParams, "\(key): \(error.message)", data: .object(JSONObject([("parameter", .string(key))])))
        }
    }

    // MARK: iCalendar

    private func icalImport(_ params: Parameters) throws -> JSONValue {
        try params.only(["content", "name", "files", "calendar", "skipInvalid", "label"])
        // One document (`content`, reported under `name`), or several imported all or nothing
        // (`files: [{name, content}]`), as `cometcal import a.ics b.ics` does.
        // A file's own `calendar` puts its components there (a vdir item, in its folder's calendar).
        var files: [(name: String, content: String, calendar: String?)] = []
        if case .array(let items)? = params.values["files"] {
            for item in items {
                guard case .string(let content)? = item["content"] else { throw RPCError(RPCError.invalidParams, "each of 'files' needs a content string") }
                files.append((item["name"]?.stringValue ?? "request", content, item["calendar"]?.stringValue))
            }
        } else {
            files.append((try params.string(optional: "name") ?? "request", try params.string("content"), nil))
        }
        var options = ImportOptions(calendar: try params.string(optional: "calendar"), skipInvalid: try params.bool("skipInvalid") ?? false)
        // What the journal says the import came from (cometcal sends "the folder cal" for a vdir).
        options.label = try params.string(optional: "label")
        let registry = self.registry
        let report = writer.run { $0.importCalendars(files.map { ImportSource(name: $0.name, text: $0.content, registry: registry, calendar: $0.calendar) }, options: options) }
        // The import is a journal entry (intent "ical.import"): announced from there, with its sequence.
        if report.written, !report.changes.isEmpty { announceJournal() }
        return report.json
    }

    private func icalExport(_ params: Parameters) throws -> JSONValue {
        try params.only(["calendar", "from", "to", "event"])
        let from = try params.instant("from")
        let to = try params.instant("to")
        let calendar = try params.string(optional: "calendar")
        let event = try params.string(optional: "event")
        do {
            let text = try readers.run { try $0.exportCalendar(calendar: calendar, from: from, to: to, event: event) }
            return .object(JSONObject([("content", .string(text))]))
        } catch let error as IntentError {
            return registry.json(IntentOutcome.failed(error))
        }
    }

    /// The whole store as a vdir (`cometcal export --vdir`); the client writes the files.
    private func icalExportVdir(_ params: Parameters) throws -> JSONValue {
        try params.only([])
        do {
            let export = try readers.run { try $0.exportVdir() }
            func files(_ list: [VdirExport.File]) -> JSONValue {
                .array(list.map { .object(JSONObject([("name", .string($0.name)), ("text", .string($0.text))])) })
            }
            let collections: [JSONValue] = export.collections.map { collection in
                .object(JSONObject([("folder", .string(collection.folder)), ("title", .string(collection.title)),
                                    ("metadata", files(collection.metadata)), ("items", files(collection.items))]))
            }
            return .object(JSONObject([("collections", .array(collections)), ("warnings", .array(export.warnings.map(JSONValue.string)))]))
        } catch let error as IntentError {
            return registry.json(IntentOutcome.failed(error))
        }
    }

    private func history(_ params: Parameters) throws -> JSONValue {
        try params.only(["limit"])
        let limit = try params.int("limit") ?? 20
        guard limit >= 1 else { throw RPCError(RPCError.invalidParams, "limit must be 1 or more") }
        let entries = try readers.run { try $0.history(limit: limit) }
        return .object(JSONObject([("entries", JSONValue.array(entries.map { $0.listing }))]))
    }

    /// The alarms to come in [from, to), not fired yet, in order of their moment.
    private func alarmsList(_ params: Parameters) throws -> JSONValue {
        try params.only(["from", "to"])
        guard let from = try params.instant("from"), let to = try params.instant("to") else {
            throw RPCError(RPCError.invalidParams, "alarms.list needs from and to (ISO 8601 date-times)")
        }
        guard from < to else { throw RPCError(RPCError.invalidParams, "from must be before to") }
        let alarms = try readers.run { try $0.dueAlarms(from: from, to: to) }
        return .object(JSONObject([("alarms", JSONValue.array(alarms.map(\.listing)))]))
    }

    // MARK: Conversations

    private func conversationOpen(_ params: Parameters, connection: Int) throws -> JSONValue {
        try params.only(["now", "timeZone"])
        let now = try params.instant("now")
        var zone = configuration.timeZone
        if let identifier = try params.string(optional: "timeZone") {
            guard let found = TimeZone(identifier: identifier), TimeZones.isKnown(identifier) else {
                throw RPCError(RPCError.invalidParams, "timeZone: '\(identifier)' is not an IANA time zone")
            }
            zone = found
        }
        let session = UUID().uuidString.lowercased()
        let book = lock.withLock { self.book }
        let conversation = writer.run { Conversation(engine: $0, book: book, now: now, timeZone: zone) }
        lock.withLock { conversations[session] = conversation }
        return .object(JSONObject([("session", .string(session))]))
    }

    private func conversationSay(_ params: Parameters) throws -> JSONValue {
        try params.only(["session", "text", "audio", "speak"])
        let session = try params.string("session")
        let text = try params.string(optional: "text")
        let audio = try params.string(optional: "audio")
        let speak = try params.bool("speak") ?? false
        switch (text, audio) {
        case (nil, nil):
            throw RPCError(RPCError.invalidParams, "'text' or 'audio' is required: the words typed, or their sound (a 16 kHz mono 16-bit WAVE file, in base64)")
        case (_?, _?):
            throw RPCError(RPCError.invalidParams, "give 'text' or 'audio', not both")
        default: break
        }
        guard let conversation = lock.withLock({ conversations[session] }) else {
            throw RPCError(RPCError.invalidParams, "no conversation has the session '\(session)'; open one with conversation.open")
        }
        var result: JSONObject
        if let audio {
            result = try conversationHear(audio, session: session, conversation: conversation)
        } else {
            let (turn, snippet) = writer.run { engine -> (Conversation.Turn, JSONValue) in
                let turn = conversation.say(text ?? "")
                return (turn, turn.snippet.map { engine.json($0) } ?? .null)
            }
            announceJournal()
            result = DaemonService.turnResult(reply: turn.reply, outcome: turn.outcome, understood: turn.understood, snippet: snippet,
                                              interpretation: turn.interpretation?.json ?? .null)
        }
        if speak {
            // A reply that cannot be synthesized is still answered, in text, with the reason.
            do throws(VoiceError) {
                let spoken = try voice().speak(result["reply"]?.stringValue ?? "")
                result["audio"] = .string(spoken.wave.base64EncodedString())
                result["audioSeconds"] = .double((spoken.seconds * 1000).rounded() / 1000)
            } catch {
                result["audio"] = .null
                result["audioProblem"] = .string(error.description)
            }
        }
        return .object(result)
    }

    /// {reply, outcome, understood, snippet, interpretation}, with the parameter asked for or
    /// the number of candidates.
    private static func turnResult(reply: String, outcome: TurnOutcome, understood: Bool, snippet: JSONValue, interpretation: JSONValue) -> JSONObject {
        var result = JSONObject([
            ("reply", .string(reply)), ("outcome", .string(outcome.name)), ("understood", .bool(understood)), ("snippet", snippet),
            ("interpretation", interpretation),
        ])
        switch outcome {
        case .needsValue(let parameter): result["parameter"] = .string(parameter)
        case .needsDisambiguation(let count): result["candidates"] = .int(count)
        default: break
        }
        return result
    }

    /// A spoken turn: the sound heard with the daemon's language, through the conversation's
    /// voice gate (docs/voice.md), answered with what was heard beside the usual reply.
    private func conversationHear(_ audio: String, session: String, conversation: Conversation) throws -> JSONObject {
        guard let bytes = Data(base64Encoded: audio) else {
            throw RPCError(RPCError.invalidParams, "audio: not base64; send the WAVE file's bytes in base64 (base64 -w0 turn.wav)",
                           data: .object(JSONObject([("field", .string("audio"))])))
        }
        let samples: [Int16]
        do { samples = try WAVFile.decode(bytes, path: "IN.wav") } catch {
            throw RPCError(RPCError.invalidParams, "audio: \(error.message)", data: .object(JSONObject([("field", .string("audio")), ("code", .string(error.code.rawValue))])))
        }
        let hearing: Hearing
        do { hearing = try voice().hear(samples) } catch {
            throw RPCError(RPCError.internalError, "audio: the sound could not be heard: \(error.description)")
        }
        let gate = lock.withLock { () -> VoiceConversation in
            if let known = voiceGates[session] { return known }
            let made = VoiceConversation(conversation: conversation)
            voiceGates[session] = made
            return made
        }
        let (turn, snippet) = writer.run { engine -> (VoiceConversation.Turn, JSONValue) in
            let turn = gate.hear(hearing)
            return (turn, turn.turn?.snippet.map { engine.json($0) } ?? .null)
        }
        announceJournal()
        var result = DaemonService.turnResult(reply: turn.reply, outcome: turn.outcome, understood: turn.turn?.understood ?? false, snippet: snippet,
                                              interpretation: turn.turn?.interpretation?.json ?? .null)
        if case .object(let fields) = turn.json(threshold: gate.threshold) {
            result["heard"] = fields["heard"] ?? .null
            result["gate"] = fields["gate"] ?? .null
        }
        return result
    }

    /// The language spoken turns are heard with: its compile report, compiled first if the daemon
    /// has none yet (the call waits for it), and whether this call compiled it. A client calls it
    /// before its first spoken turn, so that turn does not wait (`listen`, `chat --voice` with
    /// `--connect`).
    private func voiceLanguage(_ params: Parameters) throws -> JSONValue {
        try params.only([])
        do throws(VoiceError) {
            let (report, compiledNow) = try voice().language()
            return .object(JSONObject([("compiled", report.json), ("compiledNow", .bool(compiledNow))]))
        } catch {
            throw RPCError(RPCError.internalError, "voice: the language could not be compiled: \(error.description)")
        }
    }

    /// The daemon's voice, made on first use; it reads the store's words through the readers.
    private func voice() -> DaemonVoice {
        lock.withLock {
            if let voiceValue { return voiceValue }
            let made = DaemonVoice { [weak self] () throws(VoiceError) -> (Registry, StoreWords) in
                guard let self else { throw VoiceError(.language, place: "cometcald", "the daemon is stopping") }
                let registry = self.registry
                do {
                    return (registry, try self.readers.run { engine in try StoreWords.read(registry: registry, records: engine.records) })
                } catch {
                    throw VoiceError(.language, place: configuration.storePath, "the store's titles could not be read: \(error)")
                }
            }
            made.log = log
            voiceValue = made
            return made
        }
    }

    // MARK: Change notifications

    /// Announces what the journal says changed since the last look: new entries (intents, by a
    /// client or a conversation) and entries undone or redone (by the methods or by "undo that"
    /// in a conversation), each change turned around for an undo.
    private func announceJournal(heads given: [JournalHead]? = nil) {
        // The heads cost no decoding; only the entries to announce are read whole (a write
        // used to decode the last 50 entries: 41% of a write's CPU in the benchmark).
        let heads = headsSinceAnnounced(given).sorted { $0.sequence < $1.sequence }
        let wanted = lock.withLock { () -> [(Int64, String?)] in
            var found: [(Int64, String?)] = []
            for head in heads {
                let known = journalStates[head.sequence]
                journalStates[head.sequence] = head.undone
                if head.sequence > announcedJournal {
                    announcedJournal = head.sequence
                    // Made and undone between two looks: nothing to tell.
                    if !head.undone { found.append((head.sequence, nil)) }
                } else if let known, known != head.undone {
                    found.append((head.sequence, head.undone ? "undo" : "redo"))
                }
            }
            // Remember only what the next look can see.
            let oldest = heads.first?.sequence ?? 0
            journalStates = journalStates.filter { $0.key >= oldest }
            return found
        }
        announce(wanted)
    }

    /// An intent this daemon performed made journal entry `sequence` (nil: it changed nothing
    /// undoable). When that entry is the next after the last one announced, it is announced
    /// without reading the journal back: that read was two of a write's seven round trips on
    /// PostgreSQL, on the request's path. Otherwise something else wrote in between (another
    /// daemon, `cometcal`), and the journal is read as at every look. Writes elsewhere with no
    /// write here are found by the look every second (`pollJournal`), as before.
    private func announceWritten(_ sequence: Int64?) {
        guard let sequence else { return }
        let isNext = lock.withLock { () -> Bool in
            guard sequence == announcedJournal + 1 else { return false }
            announcedJournal = sequence
            journalStates[sequence] = false
            return true
        }
        if isNext { announce([(sequence, nil)]) } else { announceJournal() }
    }

    /// Tells subscribers of each entry (with the replay it had, "undo" or "redo", or nil for a
    /// new one).
    private func announce(_ wanted: [(Int64, String?)]) {
        // Without a subscriber to changes, the entries are not read (each holds its records in
        // full, decoded for nothing): the alarm plan still hears of the change.
        let listening = lock.withLock { subscriptions.values.contains { $0.contains(.changes) } }
        if !listening {
            if !wanted.isEmpty {
                changed()
                lock.withLock { voiceValue }?.changed()
            }
            return
        }
        for (sequence, replay) in wanted {
            guard let entry = (try? readers.run({ try $0.journalEntry(sequence: sequence) })) ?? nil else { continue }
            let changes = entry.changes.map { change in
                (change.entity, change.id, replay == "undo" ? DaemonService.kind(existed: change.existsAfter, exists: change.existedBefore)
                                                            : DaemonService.kind(existed: change.existedBefore, exists: change.existsAfter))
            }
            announce(journal: entry.sequence, intent: replay ?? entry.intent, changes: changes)
        }
    }

    typealias JournalHead = (sequence: Int64, undone: Bool)

    /// The newest journal heads, as many as reach back to the last one announced: more than
    /// `journalLook` entries can land between two looks (other daemons' clients, an import by
    /// `cometcal`), and none may go unannounced. Past `journalLookMost`, the older ones are
    /// said to be skipped in the log.
    private func headsSinceAnnounced(_ given: [JournalHead]?) -> [JournalHead] {
        func read(_ limit: Int) -> [JournalHead] { journalHeadsNotingOutages(limit: limit) }
        var limit = DaemonService.journalLook
        var heads = given ?? read(limit)
        let since = lock.withLock { announcedJournal }
        func reachesBack() -> Bool { heads.count < limit || heads.contains { $0.sequence <= since } }
        while !reachesBack(), limit < DaemonService.journalLookMost {
            limit = min(limit * 8, DaemonService.journalLookMost)
            heads = read(limit)
        }
        if !reachesBack() {
            log("changes not announced", [("reason", "more than \(DaemonService.journalLookMost) journal entries since the last look; the oldest of them are skipped")])
        }
        return heads
    }

    /// The most journal heads one look reads.
    static let journalLookMost = 25_600

    /// How many of the newest journal entries each look at the journal reads. A write by the
    /// daemon's writer reads them on the writer, right after its commit: on a reader, the read
    /// first caught up with the commits since that reader's last (11% of the daemon's threads'
    /// samples on the benchmark's mixed load, perf; 2% on the writer).
    static let journalLook = 50

    static func kind(existed: Bool, exists: Bool) -> String {
        !existed ? "created" : !exists ? "deleted" : "updated"
    }

    /// Looks at the journal for changes made beside the daemon (a `cometcal` writing to the
    /// same store) and announces them; the daemon calls it every second.
    public func pollJournal() { announceJournal() }

    /// Fills the cache of calendar resources on a reader, in the background, so that a sync
    /// client's first full read after a start is as fast as later ones (at 50,000 events the
    /// first read would make every event's text: seconds). Logged when done.
    public func warmCalendarResources() {
        DispatchQueue.global(qos: .utility).async { [self] in
            let started = Date()
            do {
                let count = try withEngine(writes: false) { try $0.fillResourceCache() }
                log("calendar resources ready", [("resources", String(count)), ("seconds", String(format: "%.2f", Date().timeIntervalSince(started)))])
            } catch {
                log("calendar resources not kept ahead", [("error", "\(error)")])
            }
        }
    }

    /// Runs `body` with one of the daemon's engines, for another front end of the same store
    /// (CalDAV): the writer when it `writes`, then what it changed is announced at once, as the
    /// socket's writes are; else a reader.
    public func withEngine<T>(writes: Bool, _ body: (IntentEngine) throws -> T) rethrows -> T {
        guard writes else { return try readers.run(body) }
        let result = try writer.run(body)
        announceJournal()
        return result
    }

    /// Called after every change, whoever made it (the alarm plan depends on the store).
    var changed: @Sendable () -> Void = {}

    /// An alarm this daemon fired (its claim in the store won): to its subscribers, and relayed
    /// to the other daemons on the same database for theirs.
    func announceAlarm(_ alarm: DueAlarm, late: Bool) {
        let targets = lock.withLock { Set(subscriptions.filter { $0.value.contains(.alarms) }.keys) }
        log("alarm", [("event", alarm.title), ("trigger", DateTimeValue.utc(alarm.trigger).rfc3339Text), ("late", String(late)), ("subscribers", String(targets.count))])
        let params = JSONObject([
            ("event", .string(alarm.record.uuidString.lowercased())), ("entity", .string(alarm.entity.name)), ("title", .string(alarm.title)),
            ("occurrence", .string(alarm.occurrence.rfc3339Text)), ("trigger", .string(DateTimeValue.utc(alarm.trigger).rfc3339Text)),
            ("late", .bool(late)),
        ])
        relay(DaemonService.relayedAlarm(params, from: instance))
        guard !targets.isEmpty else { return }
        deliver(targets, RPCMessage.notification("alarm", .object(params)))
    }

    /// What PostgreSQL carries in a NOTIFY: under 8,000 bytes. A title that would not fit is
    /// shortened, and the notification says so (`titleShortened`).
    static let relayLimit = 7_000

    static func relayedAlarm(_ params: JSONObject, from instance: String) -> String {
        var params = params
        var message = JSONWriter.compact(.object(JSONObject([("alarm", .object(params)), ("from", .string(instance))])))
        if message.utf8.count > relayLimit, let title = params["title"]?.stringValue {
            // Room for the title: what the rest takes, with the mark and the ellipsis, and
            // escapes (a title's JSON is at most 6 bytes per byte, but nearly always 1).
            params["title"] = .string("")
            params["titleShortened"] = .bool(true)
            let rest = JSONWriter.compact(.object(JSONObject([("alarm", .object(params)), ("from", .string(instance))]))).utf8.count
            var kept = ""
            var size = rest + "…".utf8.count
            for character in title {
                // The character as the JSON string holds it (escaped when it must be).
                let written = JSONWriter.compact(.string(String(character))).utf8.count - 2
                guard size + written <= relayLimit else { break }
                size += written
                kept.append(character)
            }
            params["title"] = .string(kept + "…")
            message = JSONWriter.compact(.object(JSONObject([("alarm", .object(params)), ("from", .string(instance))])))
        }
        return message
    }

    /// A message another daemon on the same database relayed: an alarm it fired goes to this
    /// daemon's subscribers (its notify command ran there, once). This daemon's own are skipped.
    func heard(relayed message: String) {
        guard let parsed = try? JSONParser.parse(message), parsed["from"]?.stringValue != instance else { return }
        guard case .object(let params)? = parsed["alarm"] else {
            log("relayed message not understood", [("message", String(message.prefix(200)))])
            return
        }
        let targets = lock.withLock { Set(subscriptions.filter { $0.value.contains(.alarms) }.keys) }
        log("alarm fired by another daemon", [("event", params["title"]?.stringValue ?? ""), ("subscribers", String(targets.count))])
        guard !targets.isEmpty else { return }
        deliver(targets, RPCMessage.notification("alarm", .object(params)))
    }

    private func announce(journal: Int64?, intent: String, changes: [(QualifiedName, UUID, String)]) {
        changed()
        lock.withLock { voiceValue }?.changed()
        let targets = lock.withLock { Set(subscriptions.filter { $0.value.contains(.changes) }.keys) }
        guard !targets.isEmpty else { return }
        let params = JSONValue.object(JSONObject([
            ("journal", journal.map { .int(Int($0)) } ?? .null), ("intent", .string(intent)),
            ("changes", .array(changes.map { entity, id, kind in
                .object(JSONObject([("entity", .string(entity.name)), ("id", .string(id.uuidString.lowercased())), ("change", .string(kind))]))
            })),
        ]))
        deliver(targets, RPCMessage.notification("changed", params))
    }

    // MARK: Reloading

    /// Loads the schemas again; with errors the old registry stays and the diagnostics are returned.
    public func reload() -> String? {
        let registry: Registry
        do {
            registry = try Registry.load(paths: configuration.schemaPaths)
        } catch let error as SchemaError {
            return error.description
        } catch {
            return "\(error)"
        }
        do {
            let (location, opener) = (configuration.store, configuration.opener)
            let zone = configuration.timeZone
            // Every engine is made before any is swapped: a store that refuses the schemas
            // leaves the daemon as it was.
            let clock = configuration.clock
            let writingStore = try opener.open(location, registry: registry, now: clock())
            let checkpointer = checkpoints
            writingStore.deferUpkeep { pages in checkpointer.committed(pages: pages) }
            let writing = IntentEngine(store: writingStore, timeZone: zone, timeFormat: configuration.timeFormat, clock: clock)
            var reading = try (0..<readers.count).map { _ in IntentEngine(store: try opener.open(location, registry: registry, now: clock()), timeZone: zone, timeFormat: configuration.timeFormat, clock: clock) }
            // Texts written with the old schemas are not the new ones': a new cache.
            let resources = ResourceCache()
            for engine in reading + [writing] { engine.resourceCache = resources }
            let texts = RecordTextCache()
            writer.replace(writing, recordTexts: texts)
            readers.replaceAll(recordTexts: texts) { reading.removeLast() }
        } catch let error as StoreError {
            return "the store refuses the new schemas: \(error.message)"
        } catch {
            return "\(error)"
        }
        lock.withLock {
            registryValue = registry
            book = ConversationBook(registry: registry)
        }
        lock.withLock { voiceValue }?.changed(schemas: true)
        return nil
    }

    // MARK: Database outages

    /// A request that failed because the database is away: its own code, the store's message
    /// (the database, whether anything was changed, what to do), and the outage noted.
    func unavailable(_ error: StoreError) -> RPCError {
        storeUnavailable(error)
        return RPCError(RPCError.storeUnavailable, error.message)
    }

    /// Notes a failure as the database being away (logged once per outage).
    func storeUnavailable(_ error: StoreError) { outage.failed(error, log: log) }

    /// Notes that the store answered (an outage is over, logged once).
    func storeAnswered() { outage.answered(log: log) }

    /// The newest journal heads, read on a reader; none when they cannot be read. The journal
    /// is looked at every second (`pollJournal`), so this is where an outage is seen to begin
    /// and end even when no request comes.
    private func journalHeadsNotingOutages(limit: Int) -> [JournalHead] {
        do {
            let heads = try readers.run { try $0.journalHeads(limit: limit) }
            storeAnswered()
            return heads
        } catch let error as StoreError where error.code == .unavailable {
            storeUnavailable(error)
            return []
        } catch {
            return []
        }
    }

    /// Waits for the write in progress, if any.
    public func drain() { writer.queue.sync {} }

}
