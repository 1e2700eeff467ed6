import CMicroHTTPD
import Foundation
import Synchronization

/// One request as it is read: made when its request line arrives, released when libmicrohttpd
/// says the request is over. Only the connection's own thread touches it.
final class RequestState {
    let rawTarget: String
    var headers = HTTPHeaders()
    var user: String?
    var body: [UInt8] = []
    var headersSeen = false
    var tooLarge = false
    var answered = false
    /// Counted in `ServerCore.requestsBeingHandled` (from its headers to its end).
    var counted = false

    init(rawTarget: String) {
        self.rawTarget = rawTarget
    }
}

/// What libmicrohttpd's callbacks act on: the handler, the authentication, the options, and
/// the counts `stop()` and the tests read.
final class ServerCore: Sendable {
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let authentication: HTTPAuthentication
    let options: HTTPServerOptions

    private struct Counts {
        var beingHandled = 0
        var heldStates = 0
        /// libmicrohttpd's messages while it starts, to say why it did not; nil once started.
        var startMessages: [String]? = []
    }

    private let counts = Mutex(Counts())

    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, authentication: HTTPAuthentication, options: HTTPServerOptions) {
        self.handler = handler
        self.authentication = authentication
        self.options = options
    }

    var requestsBeingHandled: Int { counts.withLock { $0.beingHandled } }
    var heldRequestStates: Int { counts.withLock { $0.heldStates } }

    func log(_ message: String) {
        counts.withLock { counts in counts.startMessages?.append(message) }
        options.log?(message)
    }

    func takeStartMessages() -> [String] {
        counts.withLock { counts in
            let messages = counts.startMessages ?? []
            counts.startMessages = nil
            return messages
        }
    }

    func startMessagesDone() { _ = takeStartMessages() }

    func makeRequestState(rawTarget: String) -> UnsafeMutableRawPointer {
        counts.withLock { $0.heldStates += 1 }
        return Unmanaged.passRetained(RequestState(rawTarget: rawTarget)).toOpaque()
    }

    func releaseRequestState(_ pointer: UnsafeMutableRawPointer) {
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
        counts.withLock { counts in
            counts.heldStates -= 1
            if state.counted { counts.beingHandled -= 1 }
        }
    }

    /// One call of libmicrohttpd's access handler: first with the headers, then once per piece
    /// of the body, then once more when the request is whole.
    func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
                context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if context.pointee == nil {
            // libmicrohttpd calls the URI callback for every request; this is only a guard.
            context.pointee = makeRequestState(rawTarget: url.map { String(cString: $0) } ?? "")
        }
        guard let pointer = context.pointee else { return .NO }
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
        if state.answered {
            uploadDataSize.pointee = 0
            return .YES
        }
        if !state.headersSeen {
            state.headersSeen = true
            state.counted = true
            counts.withLock { $0.beingHandled += 1 }
            state.headers = Self.headers(of: connection)
            return beginRequest(state, on: connection)
        }
        if uploadDataSize.pointee > 0 {
            let size = uploadDataSize.pointee
            if !state.tooLarge, let uploadData {
                if state.body.count + size > options.maximumBodyBytes {
                    // The answer cannot be queued while the body arrives (libmicrohttpd refuses
                    // it then): the rest is read and dropped, and the 413 goes out at its end.
                    state.tooLarge = true
                    state.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                        state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                    }
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }
        if state.tooLarge {
            return queue(tooLarge(), for: state, on: connection)
        }
        let (rawPath, query) = Self.split(state.rawTarget)
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "",
            rawPath: rawPath,
            path: url.map { String(cString: $0) } ?? rawPath,
            query: query,
            version: version.map { String(cString: $0) } ?? "",
            headers: state.headers,
            body: state.body,
            remoteAddress: Self.remoteAddress(of: connection),
            user: state.user)
        state.body = []
        return queue(handler(request), for: state, on: connection)
    }

    /// The headers are in: refuse now what is refused whatever the body (too long a declared
    /// body, no or wrong credentials), so such a body is never read.
    private func beginRequest(_ state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        let declared = state.headers["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let declared, declared > options.maximumBodyBytes {
            return queue(tooLarge(), for: state, on: connection)
        }
        switch authentication.check(state.headers, log: { [self] in log($0) }) {
        case .success(let user):
            state.user = user
            // Room for the whole body at once, only for a client that may send one.
            if let declared, declared > 0 { state.body.reserveCapacity(declared) }
            return .YES
        case .failure(let refusal):
            return queue(refusal.response, for: state, on: connection)
        }
    }

    private func tooLarge() -> HTTPResponse {
        .text(413, "The request body is over this server's limit of \(options.maximumBodyBytes) bytes.\n")
    }

    private func queue(_ response: HTTPResponse, for state: RequestState, on connection: OpaquePointer) -> MHD_Result {
        state.answered = true
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else {
            log("could not make a response of \(response.body.count) bytes: the connection is closed")
            return .NO
        }
        defer { MHD_destroy_response(made) }
        for field in response.headers where MHD_add_response_header(made, field.name, field.value) == .NO {
            log("libmicrohttpd refused the header '\(field.name)' of a \(response.status) response (it writes Content-Length, Date and Connection itself): the header is left out")
        }
        guard (100...999).contains(response.status) else {
            log("a handler answered with status \(response.status), which is not an HTTP status: the connection is closed")
            return .NO
        }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    static func split(_ target: String) -> (path: String, query: String?) {
        guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        final class Collector { var headers = HTTPHeaders() }
        let collector = Collector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return .YES }
                let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
                let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
                collector.headers.add(name, text)
                return .YES
            }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.headers
    }

    private static func remoteAddress(of connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        cometcal_mhd_client_address(connection, &buffer, socklen_t(buffer.count))
        return cString(buffer)
    }
}
