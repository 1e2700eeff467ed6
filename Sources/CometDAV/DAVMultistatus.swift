/// A property's value as the server writes it.
public enum DAVPropertyValue: Hashable, Sendable {
    /// `<D:getcontentlength/>` style: present, nothing inside (also how a propname answer lists names).
    case empty
    /// Character data, escaped on output (calendar-data, displayname, getetag …).
    case text(String)
    /// One `<D:href>` per entry (current-user-principal, calendar-home-set …), in order.
    case hrefs([String])
    /// Child elements (resourcetype, supported-calendar-component-set, supported-report-set …).
    case elements([DAVXMLElement])
}

public struct DAVProperty: Hashable, Sendable {
    public let name: DAVName
    public let value: DAVPropertyValue

    public init(_ name: DAVName, _ value: DAVPropertyValue = .empty) {
        self.name = name
        self.value = value
    }
}

/// Properties sharing one status in a response (RFC 4918 §14.22).
public struct DAVPropstat: Hashable, Sendable {
    public let status: Int
    public let properties: [DAVProperty]
    /// An optional precondition for this group (e.g. DAV:cannot-modify-protected-property).
    public let error: DAVPrecondition?
    public let description: String?

    public init(status: Int, properties: [DAVProperty], error: DAVPrecondition? = nil, description: String? = nil) {
        self.status = status
        self.properties = properties
        self.error = error
        self.description = description
    }
}

/// One `<D:response>`: an href with either its property groups or a single status.
public struct DAVResponse: Hashable, Sendable {
    public enum Body: Hashable, Sendable {
        /// Groups by status; a group with no properties is not written.
        case propstats([DAVPropstat])
        /// A whole-resource status: 404 for a multiget href that does not exist, 507 for the
        /// request-URI of a truncated result (RFC 6578 §3.6), 403 …
        case status(Int)
        /// The whole `<D:response>` written before (`writtenBytes()`), kept by the server and put in
        /// as it is: a calendar's unchanged events are not written again at every query.
        case written([UInt8])
    }

    /// The href as it goes on the wire: already percent-encoded (see `DAVHref.encodePath`).
    public let href: String
    public let body: Body
    public let error: DAVPrecondition?
    public let description: String?

    public init(href: String, body: Body, error: DAVPrecondition? = nil, description: String? = nil) {
        self.href = href
        self.body = body
        self.error = error
        self.description = description
    }

    /// The response on the request-URI that says a result was cut at the client's DAV:limit or
    /// the server's own (RFC 6578 §3.6, RFC 5323 DAV:number-of-matches-within-limits): 507.
    public static func truncated(requestURI href: String, description: String? = nil) -> DAVResponse {
        DAVResponse(href: href, body: .status(507), error: .numberOfMatchesWithinLimits, description: description)
    }

    /// This response as the bytes a multistatus would hold for it, to keep and give back as
    /// `.written`; nil when the writer had to replace a character (the multistatus that holds
    /// it must count those, so such a response is written each time).
    public func writtenBytes() -> [UInt8]? {
        var writer = DAVXMLWriter(fragment: true)
        DAVMultistatus.write(self, to: &writer)
        return writer.replacedCharacters == 0 ? writer.output : nil
    }

    /// Properties found with 200 and those asked for but absent with 404, in the order given.
    public static func properties(href: String, found: [DAVProperty], notFound: [DAVName] = []) -> DAVResponse {
        DAVResponse(href: href, body: .propstats([
            DAVPropstat(status: 200, properties: found),
            DAVPropstat(status: 404, properties: notFound.map { DAVProperty($0) }),
        ]))
    }
}

/// The bytes of an XML body, and what the writer had to replace to make them XML.
public struct DAVXMLDocument: Hashable, Sendable {
    /// UTF-8.
    public let bytes: [UInt8]
    /// Characters XML 1.0 cannot carry (C0 controls other than tab, line feed and carriage
    /// return; U+FFFE; U+FFFF), written as U+FFFD. Zero nearly always; say so when not.
    public let replacedCharacters: Int

    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A 207 Multi-Status body (RFC 4918 §13), with the sync-token of RFC 6578 when there is one.
public struct DAVMultistatus: Hashable, Sendable {
    public var responses: [DAVResponse]
    public var syncToken: String?
    public var description: String?

    public init(responses: [DAVResponse], syncToken: String? = nil, description: String? = nil) {
        self.responses = responses
        self.syncToken = syncToken
        self.description = description
    }

    public func document() -> DAVXMLDocument {
        var writer = DAVXMLWriter()
        writer.reserve(responses.count * 1_024)
        writer.open(.dav("multistatus"))
        for response in responses { Self.write(response, to: &writer) }
        if let description { writer.element(.dav("responsedescription"), text: description) }
        if let syncToken { writer.element(.dav("sync-token"), text: syncToken) }
        writer.close(.dav("multistatus"))
        return DAVXMLDocument(bytes: writer.output, replacedCharacters: writer.replacedCharacters)
    }

    static func write(_ response: DAVResponse, to writer: inout DAVXMLWriter) {
        if case .written(let bytes) = response.body {
            writer.appendWritten(bytes)
            return
        }
        writer.open(.dav("response"))
        writer.element(.dav("href"), text: response.href)
        switch response.body {
        case .status(let status):
            writer.element(.dav("status"), text: DAVStatus.line(status))
        case .written:
            break
        case .propstats(let groups):
            for group in groups where !group.properties.isEmpty {
                writer.open(.dav("propstat"))
                writer.open(.dav("prop"))
                for property in group.properties { write(property, to: &writer) }
                writer.close(.dav("prop"))
                writer.element(.dav("status"), text: DAVStatus.line(group.status))
                if let error = group.error { DAVErrorBody.write(error, to: &writer) }
                if let description = group.description { writer.element(.dav("responsedescription"), text: description) }
                writer.close(.dav("propstat"))
            }
        }
        if let error = response.error { DAVErrorBody.write(error, to: &writer) }
        if let description = response.description { writer.element(.dav("responsedescription"), text: description) }
        writer.close(.dav("response"))
    }

    private static func write(_ property: DAVProperty, to writer: inout DAVXMLWriter) {
        switch property.value {
        case .empty:
            writer.empty(property.name)
        case .text(let text):
            writer.element(property.name, text: text)
        case .hrefs(let hrefs):
            writer.open(property.name)
            for href in hrefs { writer.element(.dav("href"), text: href) }
            writer.close(property.name)
        case .elements(let children):
            if children.isEmpty {
                writer.empty(property.name)
            } else {
                writer.open(property.name)
                for child in children { writer.element(child) }
                writer.close(property.name)
            }
        }
    }
}

/// A `<D:error>` body (RFC 4918 §16) for a 403, 409, 412 …, with a sentence for people.
public struct DAVErrorBody: Hashable, Sendable {
    public let precondition: DAVPrecondition
    public let description: String?

    public init(_ precondition: DAVPrecondition, description: String? = nil) {
        self.precondition = precondition
        self.description = description
    }

    public func document() -> DAVXMLDocument {
        var writer = DAVXMLWriter()
        writer.open(.dav("error"))
        writer.element(DAVXMLElement(name: precondition.name, children: precondition.children))
        // DAV:error's content is open (RFC 4918 §14.5); the sentence goes in a responsedescription.
        if let description { writer.element(.dav("responsedescription"), text: description) }
        writer.close(.dav("error"))
        return DAVXMLDocument(bytes: writer.output, replacedCharacters: writer.replacedCharacters)
    }

    static func write(_ precondition: DAVPrecondition, to writer: inout DAVXMLWriter) {
        writer.open(.dav("error"))
        writer.element(DAVXMLElement(name: precondition.name, children: precondition.children))
        writer.close(.dav("error"))
    }
}

/// Status lines as DAV:status carries them.
public enum DAVStatus {
    public static func line(_ code: Int) -> String {
        switch code {
        case 200: ok
        case 404: notFound
        default: "HTTP/1.1 \(code) \(reason(code))"
        }
    }

    /// The lines a multistatus repeats for every event, made once.
    private static let ok = "HTTP/1.1 200 OK"
    private static let notFound = "HTTP/1.1 404 Not Found"

    public static func reason(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 424: "Failed Dependency"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 507: "Insufficient Storage"
        default: "Status \(code)"
        }
    }
}
