import Foundation
import CometSchema
import CometText
import CometStore
import CometIntents
import CometDaemon

/// What the commands ask of CometCal: an engine on a local store, or a daemon (`--connect`).
/// Both answer with the same typed values, so every command prints the same either way.
protocol CalendarBackend: AnyObject {
    var registry: Registry { get }
    func perform(_ request: IntentRequest) -> IntentOutcome
    func undo() -> IntentOutcome
    func redo() -> IntentOutcome
    func history(limit: Int) throws -> [JournalEntry]
    /// Imports `files`, then `texts` (read already: a vdir's items and folders), all or nothing.
    func importFiles(_ files: [(name: String, handle: FileHandle)], texts: [ImportText], options: ImportOptions) throws -> ImportReport
    func exportCalendar(calendar: String?, from: Date?, to: Date?, event: String?) throws -> String
    func exportVdir() throws -> VdirExport
    func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord?
    /// The alarms to come in [from, to), as `DueAlarm.listing` gives each.
    func upcomingAlarms(from: Date, to: Date) throws -> [JSONValue]
    func describe(_ record: EntityRecord) -> Candidate
}

extension CalendarBackend {
    /// Finds an intent by the engine's rule (plain or qualified name, a suggestion when none).
    func intent(named name: String) throws -> IntentDefinition { try IntentEngine.intent(named: name, in: registry) }
    func noun(_ entity: QualifiedName, count: Int) -> String { IntentEngine.noun(entity, count: count, in: registry) }
    func json(_ outcome: IntentOutcome) -> JSONValue { registry.json(outcome) }
    func json(_ snippet: Snippet) -> JSONValue { registry.json(snippet) }
}

/// An iCalendar text to import, with the calendar (by title) it goes into whatever it names
/// itself, if any: a vdir item goes into its folder's calendar.
struct ImportText {
    let name: String
    let text: String
    let calendar: String?
}

extension IntentEngine: CalendarBackend {
    func upcomingAlarms(from: Date, to: Date) throws -> [JSONValue] {
        try dueAlarms(from: from, to: to).map(\.listing)
    }

    func importFiles(_ files: [(name: String, handle: FileHandle)], texts: [ImportText], options: ImportOptions) throws -> ImportReport {
        importCalendars(files.map { ImportSource(name: $0.name, handle: $0.handle, registry: registry) }
                        + texts.map { ImportSource(name: $0.name, text: $0.text, registry: registry, calendar: $0.calendar) }, options: options)
    }
}

/// The commands through `cometcald`: each engine call is a JSON-RPC call, each answer decoded
/// back into the value the engine would have given.
final class RemoteBackend: CalendarBackend {
    let registry: Registry
    let client: DaemonClient
    let zone: TimeZone
    /// How this side writes times in lists (the daemon writes its replies with its own config's).
    let timeFormat: TimeFormat
    let now: Date

    init(socket: String, registry: Registry, zone: TimeZone, timeFormat: TimeFormat = .twentyFourHour, now: Date) throws {
        do { client = try DaemonClient(path: socket) } catch { throw CommandFailure(code: .ioError, message: "error: \(error.description)") }
        self.registry = registry
        self.zone = zone
        self.timeFormat = timeFormat
        self.now = now
        // Both sides must read the same schemas, or values would be read differently.
        guard case .success(let served) = try call("schema", JSONObject()), served == registry.dump() else {
            throw CommandFailure(code: .dataError, message: "error: the daemon at \(socket) serves other schemas than these; give cometcal the daemon's --schemas (or reload the daemon with SIGHUP)")
        }
    }

    private func call(_ method: String, _ params: JSONObject) throws -> Result<JSONValue, RPCError> {
        do { return try client.call(method, params) } catch { throw CommandFailure(code: .ioError, message: "error: \(error.description)") }
    }

    /// An outcome from the daemon, or its error as the engine would have failed.
    private func outcome(_ method: String, _ params: JSONObject) -> IntentOutcome {
        do {
            switch try call(method, params) {
            case .success(let json): return try IntentOutcome.decode(json, registry: registry)
            case .failure(let error):
                let parameter = error.data?["parameter"]?.stringValue
                return .failed(IntentError(error.code == RPCError.invalidParams ? .invalidValue : .storage, error.message, parameter: parameter))
            }
        } catch let failure as CommandFailure {
            return .failed(IntentError(.storage, failure.message.replacingOccurrences(of: "error: ", with: "")))
        } catch {
            return .failed(IntentError(.storage, "\(error)"))
        }
    }

    func perform(_ request: IntentRequest) -> IntentOutcome {
        var parameters = JSONObject()
        if let intent = try? intent(named: request.intent) {
            parameters = registry.encodeParameters(request.parameters, for: intent)
        }
        // Names the intent does not have go too: the engine says so, with a suggestion.
        for name in request.parameters.mentionedNames where parameters[name] == nil {
            if case .set(let value) = request.parameters[name] { parameters[name] = registry.encode(value) } else { parameters[name] = .null }
        }
        for (name, text) in request.references { parameters[name] = .string(text) }
        var params = JSONObject([("intent", .string(request.intent)), ("parameters", .object(parameters))])
        switch request.confirmation {
        case .confirmed: params["confirmed"] = .bool(true)
        case .declined: params["confirmed"] = .bool(false)
        case .pending: break
        }
        if let limit = request.page.limit { params["limit"] = .int(limit) }
        if request.page.offset != 0 { params["offset"] = .int(request.page.offset) }
        return outcome("intent.perform", params)
    }

    func undo() -> IntentOutcome { outcome("undo", JSONObject()) }
    func redo() -> IntentOutcome { outcome("redo", JSONObject()) }

    func upcomingAlarms(from: Date, to: Date) throws -> [JSONValue] {
        let params = JSONObject([("from", .string(DateTimeValue.utc(from).description)), ("to", .string(DateTimeValue.utc(to).description))])
        switch try call("alarms.list", params) {
        case .success(let json):
            guard case .array(let items)? = json["alarms"] else {
                throw CommandFailure(code: .internalError, message: "error: the daemon's alarms.list has no alarms list; is it the same version as this cometcal?")
            }
            return items
        case .failure(let error): throw CommandFailure(code: .ioError, message: "error: the calendar store could not do that: \(error.message)")
        }
    }

    func history(limit: Int) throws -> [JournalEntry] {
        let json: JSONValue
        switch try call("history", JSONObject([("limit", .int(limit))])) {
        case .success(let value): json = value
        case .failure(let error): throw CommandFailure(code: .ioError, message: "error: the calendar store could not do that: \(error.message)")
        }
        guard case .array(let items)? = json["entries"] else {
            throw CommandFailure(code: .internalError, message: "error: the daemon's history has no entries list; is it the same version as this cometcal?")
        }
        return try items.map { item in
            let sequence: Int64? = { if case .int(let value)? = item["sequence"] { return Int64(value) } else { return nil } }()
            guard let created = item["created"]?.stringValue.flatMap({ ISO8601DateFormatter().date(from: $0) }) else {
                throw CommandFailure(code: .dataError, message: "error: the daemon's history entry \(sequence.map(String.init) ?? "?") has no readable time")
            }
            let count: Int = { if case .int(let value)? = item["changes"] { return value } else { return 0 } }()
            // The daemon lists how many records an entry changed, not the records themselves.
            let placeholders = (0..<count).map { _ in JournalEntry.Change(entity: QualifiedName(domain: "", name: ""), id: UUID(), before: nil, after: nil) }
            return JournalEntry(sequence: sequence, intent: item["intent"]?.stringValue ?? "", summary: item["summary"]?.stringValue ?? "",
                                created: created, changes: placeholders, isUndone: item["undone"] == .bool(true))
        }
    }

    func importFiles(_ files: [(name: String, handle: FileHandle)], texts: [ImportText], options: ImportOptions) throws -> ImportReport {
        var documents: [JSONValue] = try files.map { file in
            guard let text = String(data: try file.handle.readToEnd() ?? Data(), encoding: .utf8) else {
                throw CommandFailure(code: .dataError, message: "error: \(file.name) is not UTF-8 text")
            }
            return .object(JSONObject([("name", .string(file.name)), ("content", .string(text))]))
        }
        for text in texts {
            var document = JSONObject([("name", .string(text.name)), ("content", .string(text.text))])
            if let calendar = text.calendar { document["calendar"] = .string(calendar) }
            documents.append(.object(document))
        }
        var params = JSONObject([("files", .array(documents)), ("skipInvalid", .bool(options.skipInvalid))])
        if let calendar = options.calendar { params["calendar"] = .string(calendar) }
        if let label = options.label { params["label"] = .string(label) }
        switch try call("ical.import", params) {
        case .success(let json): return ImportReport(json: json)
        case .failure(let error): throw CommandFailure(code: .dataError, message: "error: \(error.message)")
        }
    }

    func exportCalendar(calendar: String?, from: Date?, to: Date?, event: String?) throws -> String {
        var params = JSONObject()
        if let calendar { params["calendar"] = .string(calendar) }
        if let event { params["event"] = .string(event) }
        if let from { params["from"] = .string(ISO8601DateFormatter().string(from: from)) }
        if let to { params["to"] = .string(ISO8601DateFormatter().string(from: to)) }
        switch try call("ical.export", params) {
        case .success(let json):
            if let content = json["content"]?.stringValue { return content }
            if case .failed(let error) = try IntentOutcome.decode(json, registry: registry) { throw error }
            return ""
        case .failure(let error): throw CommandFailure(code: .dataError, message: "error: \(error.message)")
        }
    }

    func exportVdir() throws -> VdirExport {
        switch try call("ical.exportVdir", JSONObject()) {
        case .success(let json):
            guard case .array(let collections)? = json["collections"] else {
                if case .failed(let error) = try IntentOutcome.decode(json, registry: registry) { throw error }
                throw CommandFailure(code: .internalError, message: "error: the daemon's ical.exportVdir answer holds no collections")
            }
            func files(_ value: JSONValue?) -> [VdirExport.File] {
                guard case .array(let items)? = value else { return [] }
                return items.map { VdirExport.File(name: $0["name"]?.stringValue ?? "", text: $0["text"]?.stringValue ?? "") }
            }
            let warnings: [String] = { if case .array(let items)? = json["warnings"] { return items.compactMap(\.stringValue) } else { return [] } }()
            return VdirExport(collections: collections.map {
                VdirExport.Collection(folder: $0["folder"]?.stringValue ?? "", title: $0["title"]?.stringValue ?? "", metadata: files($0["metadata"]), items: files($0["items"]))
            }, warnings: warnings)
        case .failure(let error): throw CommandFailure(code: .dataError, message: "error: \(error.message)")
        }
    }

    func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        guard case .success(let json) = try call("entity.get", JSONObject([("entity", .string(entity.description)), ("id", .string(id.uuidString))])),
              case .object(var fields)? = json["entity"], let definition = registry.entity(entity) else { return nil }
        fields["id"] = nil
        return EntityRecord(entity: entity, id: id, values: try registry.decodeProperties(fields, of: definition))
    }

    func describe(_ record: EntityRecord) -> Candidate { IntentEngine.describe(record, registry: registry, timeZone: zone, timeFormat: timeFormat, now: now) }
}
