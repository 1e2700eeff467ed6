/// Why a server did not start, with a stable code and a message for people.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The listening address could not be read.
        case badAddress = "bad-address"
        /// Unauthenticated access asked for on an address that is not loopback.
        case unauthenticatedNotLoopback = "unauthenticated-not-loopback"
        /// An option out of its range.
        case badOption = "bad-option"
        /// libmicrohttpd did not start (the port is taken, the address is not this machine's, …).
        case startFailed = "start-failed"
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
