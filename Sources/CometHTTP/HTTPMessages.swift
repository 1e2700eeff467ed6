/// One request, whole: its body has been read to the end before a handler sees it.
public struct HTTPRequest: Sendable {
    /// The method token as sent, in any case the client wrote it: GET, PROPFIND, REPORT, MKCALENDAR, …
    public let method: String
    /// The path as sent, percent-encoded, without the query: what a CalDAV href must be compared with.
    public let rawPath: String
    /// The path percent-decoded by libmicrohttpd (%2F becomes /, %20 a space; a + stays a +).
    public let path: String
    /// What follows the first '?', as sent (percent-encoded); nil when there is no '?'.
    public let query: String?
    /// HTTP/1.1 or HTTP/1.0.
    public let version: String
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// The client's numeric IP address, without its port.
    public let remoteAddress: String
    /// The user who authenticated with this request; nil when the server runs without authentication.
    public let user: String?

    public init(method: String, rawPath: String, path: String, query: String?, version: String,
                headers: HTTPHeaders, body: [UInt8], remoteAddress: String, user: String?) {
        self.method = method
        self.rawPath = rawPath
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.user = user
    }
}

/// A handler's answer. libmicrohttpd adds Date, Content-Length (from the body) and Connection;
/// a HEAD answer's body is left out by it, with Content-Length still the body's length.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer (UTF-8), as the server's own refusals are.
    public static func text(_ status: Int, _ text: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var all = headers
        all.set("Content-Type", "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: all, body: Array(text.utf8))
    }
}
