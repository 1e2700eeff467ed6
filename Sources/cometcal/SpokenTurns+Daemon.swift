import Foundation
import CometSchema
import CometIntents
import CometDaemon
import CometVoice

/// Spoken turns heard by the daemon (`--connect`): each sent as `conversation.say`'s `audio` on
/// one daemon conversation, heard with the daemon's language (compiled for its schemas and its
/// store, rebuilt by it after changes) through that conversation's gate.
final class DaemonSpokenConversation: SpokenConversation {
    private let remote: RemoteBackend
    private let session: String
    let compiled: JSONValue
    /// Whether the daemon had no language yet and compiled one when asked (`voice.language`).
    let compiledNow: Bool

    init(remote: RemoteBackend) throws {
        self.remote = remote
        // The language first, so that no turn waits for the daemon's first compile.
        let answer: Result<JSONValue, RPCError>
        do { answer = try remote.client.call("voice.language") } catch {
            throw CommandFailure(code: .ioError, message: "error: the daemon at \(remote.client.path) did not answer: \(error.description)")
        }
        switch answer {
        case .success(let json):
            compiled = json["compiled"] ?? .null
            compiledNow = json["compiledNow"] == .bool(true)
        case .failure(let error) where error.code == RPCError.methodNotFound:
            throw CommandFailure(code: .unavailable, message: "error: the daemon at \(remote.client.path) cannot hear speech (it has no voice.language method: \(error.message)); is it the same version as this cometcal?")
        case .failure(let error):
            throw CommandFailure(code: DaemonSpokenConversation.exitCode(error), message: "error: the daemon at \(remote.client.path) has no language to hear with: \(error.message)")
        }
        session = try remote.openConversation()
    }

    func hear(_ samples: [Int16], place: String?) throws -> SpokenTurn {
        let wave = WAVFile.encode(samples, sampleRate: WAVFile.sampleRate)
        let named = place.map { "\($0): " } ?? ""
        let answer: Result<JSONValue, RPCError>
        do {
            answer = try remote.client.call("conversation.say", JSONObject([("session", .string(session)), ("audio", .string(wave.base64EncodedString()))]))
        } catch {
            throw CommandFailure(code: .ioError, message: "error: \(named)the daemon at \(remote.client.path) did not answer: \(error.description)")
        }
        let json: JSONValue
        switch answer {
        case .success(let value): json = value
        case .failure(let error):
            throw CommandFailure(code: DaemonSpokenConversation.exitCode(error), message: "error: \(named)the daemon did not hear it: \(error.message)")
        }
        guard let heard = json["heard"], let gate = json["gate"] else {
            throw CommandFailure(code: .internalError, message: "error: \(named)the daemon's answer says nothing of what it heard (no heard or gate); is it the same version as this cometcal?")
        }
        // The fields and their order of a turn heard here (VoiceConversation.Turn.json).
        var fields = JSONObject([("heard", heard), ("gate", gate)])
        for key in ["reply", "outcome", "understood", "interpretation"] { fields[key] = json[key] ?? .null }
        return SpokenTurn(fields: fields, snippet: Snippet(json: json["snippet"]))
    }

    /// Said on standard error when the daemon had no language and compiled its first one when
    /// this command asked (the commands wait for it before their first turn).
    func compileNote(command: String) -> String? {
        guard compiledNow else { return nil }
        let took = SpokenTurn.number(compiled["seconds"]).map { String(format: " (%.1f s)", $0) } ?? ""
        return "\(command): the daemon at \(remote.client.path) had no language yet and compiled one for its schemas and store\(took)"
    }

    /// The daemon's refusal as an exit code: sound it will not take is bad data (65); a store
    /// away or a request stopped is a service not there now (69); anything else its failure (70).
    static func exitCode(_ error: RPCError) -> ExitCode {
        switch error.code {
        case RPCError.invalidParams, RPCError.requestTooLarge: return .dataError
        case RPCError.storeUnavailable, RPCError.requestTimedOut, RPCError.shuttingDown, RPCError.tooManyConnections: return .unavailable
        default: return .internalError
        }
    }
}
