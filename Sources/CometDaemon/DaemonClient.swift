import Foundation
import CometSchema

/// A blocking JSON-RPC client of `cometcald` over its Unix socket, for front ends that run
/// their commands through the daemon (`cometcal --connect`). Notifications that arrive while it
/// waits for an answer are kept for `notifications`.
public final class DaemonClient {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let fd: Int32
    private var decoder = FrameDecoder()
    private var nextID = 1
    public private(set) var notifications: [JSONValue] = []
    public let path: String

    public init(path: String) throws(Failure) {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "the socket path \(path) is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket(): \(String(cString: strerror(errno)))") }
        let status = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let reason = String(cString: strerror(errno))
            // deinit closes the descriptor (a class whose init throws is deinitialized); closing
            // it here too would close whatever the number was given to next.
            throw Failure(description: "cannot reach cometcald at \(path): \(reason); start it with 'cometcald' (or give --connect the socket it listens on)")
        }
    }

    deinit { close(fd) }

    /// Calls a method and waits for its answer.
    public func call(_ method: String, _ params: JSONObject = JSONObject()) throws(Failure) -> Result<JSONValue, RPCError> {
        let id = nextID
        nextID += 1
        let request = JSONValue.object(JSONObject([("jsonrpc", .string("2.0")), ("id", .int(id)), ("method", .string(method)), ("params", .object(params))]))
        let frame = FrameDecoder.frame(Array(JSONWriter.compact(request).utf8))
        var sent = 0
        while sent < frame.count {
            let count = frame[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "the daemon closed the connection") }
            sent += count
        }
        while true {
            let message = try receive()
            if message["method"] != nil, message["id"] == nil {
                notifications.append(message)
                continue
            }
            // An error the daemon could not tie to a request (its frame or JSON did not read)
            // comes with id null: with one call waiting, it is that call's answer.
            guard message["id"] == .int(id) || (message["id"] == .null && message["error"] != nil) else { continue }
            if let result = message["result"] { return .success(result) }
            let error = message["error"]
            let code: Int = { if case .int(let value)? = error?["code"] { return value } else { return RPCError.internalError } }()
            return .failure(RPCError(code, error?["message"]?.stringValue ?? "the daemon gave no message", data: error?["data"]))
        }
    }

    private func receive() throws(Failure) -> JSONValue {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let event = decoder.next() {
                switch event {
                case .message(let body):
                    do { return try JSONParser.parse(bytes: body) } catch { throw Failure(description: "the daemon sent JSON that does not parse: \(error)") }
                case .problem(let problem):
                    throw Failure(description: "the daemon sent a frame that does not read: \(problem)")
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "the daemon closed the connection") }
            decoder.append(chunk[0..<count])
        }
    }
}
