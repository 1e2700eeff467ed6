import CometSchema

/// JSON-RPC 2.0 (https://www.jsonrpc.org/specification): requests, notifications, batches,
/// responses and the spec's error codes.
public enum RPCID: Sendable, Hashable {
    case number(Int)
    case string(String)
    case null

    var json: JSONValue {
        switch self {
        case .number(let number): return .int(number)
        case .string(let text): return .string(text)
        case .null: return .null
        }
    }
}

public struct RPCError: Error, Sendable, Hashable {
    public let code: Int
    public let message: String
    public let data: JSONValue?

    public init(_ code: Int, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    /// Implementation-defined server errors (-32000 to -32099).
    public static let requestTooLarge = -32001
    public static let requestTimedOut = -32002
    public static let shuttingDown = -32003
    /// The daemon already serves as many connections as it takes; the client may try again.
    public static let tooManyConnections = -32004
    /// The database under the store is away (a PostgreSQL restart): the request was not carried
    /// out, or a write's commit has an unknown outcome (the message says which); try again.
    public static let storeUnavailable = -32005

    var json: JSONValue {
        var object = JSONObject([("code", .int(code)), ("message", .string(message))])
        if let data { object["data"] = data }
        return .object(object)
    }
}

/// One call: `id` is nil for a notification, which gets no response.
public struct RPCRequest: Sendable {
    public let id: RPCID?
    public let method: String
    public let params: JSONObject
}

enum RPCMessage {
    /// What one frame holds: a call (or the error that it is not one), or a batch of them.
    enum Incoming {
        case single(Result<RPCRequest, Failure>)
        case batch([Result<RPCRequest, Failure>])
    }

    /// A request that cannot be served, with the id to answer it under.
    struct Failure: Error {
        let id: RPCID
        let error: RPCError
    }

    static func parse(_ body: [UInt8]) -> Incoming {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes: body)
        } catch {
            return .single(.failure(Failure(id: .null, error: RPCError(RPCError.parseError, "the body is not JSON: \(error)"))))
        }
        if case .array(let items) = json {
            guard !items.isEmpty else {
                return .single(.failure(Failure(id: .null, error: RPCError(RPCError.invalidRequest, "a batch must hold at least one request"))))
            }
            return .batch(items.map(request))
        }
        return .single(request(json))
    }

    private static func request(_ json: JSONValue) -> Result<RPCRequest, Failure> {
        guard case .object(let object) = json else {
            return .failure(Failure(id: .null, error: RPCError(RPCError.invalidRequest, "a request is a JSON object, not \(json.kindName)")))
        }
        var id: RPCID?
        switch object["id"] {
        case nil: id = nil
        case .int(let number)?: id = .number(number)
        case .string(let text)?: id = .string(text)
        case .null?: id = .null
        case let other?:
            return .failure(Failure(id: .null, error: RPCError(RPCError.invalidRequest, "the id must be a string, a number or null, not \(other.kindName)")))
        }
        let answerID = id ?? .null
        guard object["jsonrpc"] == .string("2.0") else {
            return .failure(Failure(id: answerID, error: RPCError(RPCError.invalidRequest, "\"jsonrpc\" must be \"2.0\"")))
        }
        guard case .string(let method)? = object["method"] else {
            return .failure(Failure(id: answerID, error: RPCError(RPCError.invalidRequest, "\"method\" must be a string")))
        }
        switch object["params"] {
        case nil: return .success(RPCRequest(id: id, method: method, params: JSONObject()))
        case .object(let params)?: return .success(RPCRequest(id: id, method: method, params: params))
        case .array?:
            return .failure(Failure(id: answerID, error: RPCError(RPCError.invalidParams, "params are named: give an object, not an array")))
        case let other?:
            return .failure(Failure(id: answerID, error: RPCError(RPCError.invalidRequest, "\"params\" must be an object, not \(other.kindName)")))
        }
    }

    static func response(id: RPCID, result: JSONValue) -> JSONValue {
        .object(JSONObject([("jsonrpc", .string("2.0")), ("id", id.json), ("result", result)]))
    }

    static func response(id: RPCID, error: RPCError) -> JSONValue {
        .object(JSONObject([("jsonrpc", .string("2.0")), ("id", id.json), ("error", error.json)]))
    }

    /// The response as text around a result already written: the bytes `response(id:result:)`
    /// gives for the same result's tree.
    static func responseText(id: RPCID, result: JSONText) -> JSONText {
        JSONText.write { text in
            text.beginObject()
            text.key("jsonrpc")
            text.write("2.0")
            text.key("id")
            text.write(id.json)
            text.key("result")
            text.write(result)
            text.endObject()
        }
    }

    static func responseText(id: RPCID, error: RPCError) -> JSONText {
        JSONText(response(id: id, error: error))
    }

    static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object(JSONObject([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }
}
