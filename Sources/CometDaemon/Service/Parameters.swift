import Foundation
import CometSchema
import CometText

/// A method's named parameters, read with the errors JSON-RPC asks for (-32602, naming the key).
struct Parameters {
    let values: JSONObject

    init(_ values: JSONObject) { self.values = values }

    /// Keys the method does not take are refused, with a suggestion.
    func only(_ allowed: [String]) throws(RPCError) {
        for key in values.keys where !allowed.contains(key) {
            let hint = EditDistance.closest(to: key, among: allowed).map { "; did you mean '\($0)'?" } ?? ""
            throw RPCError(RPCError.invalidParams, "unknown parameter '\(key)'\(hint) (this method takes: \(allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")))")
        }
    }

    func string(_ key: String) throws(RPCError) -> String {
        guard let value = try string(optional: key) else { throw RPCError(RPCError.invalidParams, "'\(key)' is required (a string)") }
        return value
    }

    func string(optional key: String) throws(RPCError) -> String? {
        switch values[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw RPCError(RPCError.invalidParams, "'\(key)' must be a string, not \(other.kindName)")
        }
    }

    func bool(_ key: String) throws(RPCError) -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw RPCError(RPCError.invalidParams, "'\(key)' must be true or false, not \(other.kindName)")
        }
    }

    func int(_ key: String) throws(RPCError) -> Int? {
        switch values[key] {
        case nil, .null?: return nil
        case .int(let number)?: return number
        case let other?: throw RPCError(RPCError.invalidParams, "'\(key)' must be an integer, not \(other.kindName)")
        }
    }

    func object(_ key: String) throws(RPCError) -> JSONObject? {
        switch values[key] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        case let other?: throw RPCError(RPCError.invalidParams, "'\(key)' must be an object, not \(other.kindName)")
        }
    }

    /// An ISO 8601 date-time with an offset (or Z).
    func instant(_ key: String) throws(RPCError) -> Date? {
        guard let text = try string(optional: key) else { return nil }
        guard let value = try? DateTimeValue(parsing: text), let instant = value.instant else {
            throw RPCError(RPCError.invalidParams, "'\(key)' must be an ISO 8601 date-time with an offset, such as 2026-06-08T09:00:00-07:00, not '\(text)'")
        }
        return instant
    }

    func topics() throws(RPCError) -> Set<DaemonService.Topic> {
        guard let json = values["topics"], json != .null else { return Set(DaemonService.Topic.allCases) }
        guard case .array(let items) = json else { throw RPCError(RPCError.invalidParams, "'topics' must be an array of strings") }
        var topics = Set<DaemonService.Topic>()
        for item in items {
            guard case .string(let name) = item, let topic = DaemonService.Topic(rawValue: name) else {
                throw RPCError(RPCError.invalidParams, "topics are \(DaemonService.Topic.allCases.map { "'\($0.rawValue)'" }.joined(separator: " and ")), not \(item)")
            }
            topics.insert(topic)
        }
        return topics
    }
}
