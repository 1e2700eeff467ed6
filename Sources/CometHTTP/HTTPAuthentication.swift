import Foundation

/// Who may use a server: users of a password file through HTTP Basic authentication, or
/// anyone, which `HTTPServer.start` allows only on a loopback address.
public enum HTTPAuthentication: Sendable {
    /// Every request carries `Authorization: Basic` with a user and password of this file.
    case passwordFile(PasswordFile)
    /// No authentication. `flag` is how the person asked for it (e.g. the daemon's command-line
    /// flag), named in the error when the address is not loopback.
    case none(flag: String)

    /// The `WWW-Authenticate` value of every 401 (RFC 7617).
    public static let challenge = "Basic realm=\"CometCal\", charset=\"UTF-8\""

    struct Refusal: Error {
        let response: HTTPResponse
    }

    /// The authenticated user (nil without authentication), or the answer that refuses the request.
    func check(_ headers: HTTPHeaders, log: (String) -> Void) -> Result<String?, Refusal> {
        let file: PasswordFile
        switch self {
        case .passwordFile(let passwords):
            file = passwords
        case .none(let flag):
            // Without passwords the server is for its own machine, but behind a proxy on that
            // machine every request comes from loopback: the proxy's header is what tells.
            guard let header = Self.proxyHeaders.first(where: { headers[$0] != nil }) else { return .success(nil) }
            return .failure(Refusal(response: .text(403, "This server runs without passwords (\(flag)), which is for clients on its own machine, and this request came through a proxy (\(header)): behind a proxy, use a password file.\n")))
        }
        guard let header = headers["Authorization"] else {
            return .failure(Self.unauthorized("This server needs a user name and password (HTTP Basic authentication).\n"))
        }
        guard let credentials = BasicCredentials(authorization: header) else {
            return .failure(Self.unauthorized("The Authorization header is not Basic with the base64 of user:password.\n"))
        }
        do {
            guard try file.verify(user: credentials.user, password: credentials.password) else {
                return .failure(Self.unauthorized("Wrong user name or password.\n"))
            }
            return .success(credentials.user)
        } catch {
            // The client is not told which file or why: that is for the server's log.
            log("authentication failed because the password file cannot be read: \(error.message)")
            return .failure(Refusal(response: .text(500, "The server's password file cannot be read; the server's log says why.\n")))
        }
    }

    /// The headers a proxy adds to say whom it forwards for (RFC 7239, and the older de facto one).
    static let proxyHeaders = ["X-Forwarded-For", "Forwarded"]

    static func unauthorized(_ text: String) -> Refusal {
        Refusal(response: .text(401, text, headers: ["WWW-Authenticate": challenge]))
    }
}

/// A user and password from `Authorization: Basic <base64 of user:password>` (RFC 7617): the
/// user is what comes before the first colon, the password all after it, both UTF-8.
struct BasicCredentials: Sendable, Equatable {
    let user: String
    let password: String

    /// Nil when the header is not Basic, not base64, not UTF-8, or has no colon.
    init?(authorization: String) {
        let trimmed = authorization.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "basic" else { return nil }
        let encoded = trimmed[space...].trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }
}
