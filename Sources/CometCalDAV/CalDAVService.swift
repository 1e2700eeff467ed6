import Foundation
import CometHTTP
import CometDAV
import CometIntents
import CometSchema
import CometStore

/// CalDAV (RFC 4791) over the engine: each HTTP request from `CometHTTP` is routed to a
/// principal, a calendar home, a calendar (collection) or an event (resource), and answered
/// through the engine's calendar resources (`IntentEngine+Resources`). Every change a client
/// makes goes through the engine: the importer's rules, the journal, undo.
///
/// URLs: `/.well-known/caldav` redirects to `/dav/`; `/dav/principals/NAME/` is a user's
/// principal, `/dav/calendars/NAME/` their calendar home, `/dav/calendars/NAME/CAL/` a calendar
/// and `/dav/calendars/NAME/CAL/EVENT.ics` an event with its overrides.
public final class CalDAVService: Sendable {
    public struct Configuration: Sendable {
        /// Runs `body` with an engine of the user's store (`writes`: on the one engine that
        /// writes it, for PUT, DELETE, MKCALENDAR, PROPPATCH); nil when the user has no store.
        public var serve: @Sendable (_ user: String, _ writes: Bool, _ body: (IntentEngine) throws -> HTTPResponse) throws -> HTTPResponse?
        /// Who an unauthenticated request is (the server runs without passwords only on loopback).
        public var anonymousUser: String
        /// The largest resource a PUT may send (C:max-resource-size).
        public var maximumResourceBytes: Int
        public var log: (@Sendable (String, [(String, String)]) -> Void)?

        public init(serve: @escaping @Sendable (_ user: String, _ writes: Bool, _ body: (IntentEngine) throws -> HTTPResponse) throws -> HTTPResponse?,
                    anonymousUser: String, maximumResourceBytes: Int = 10 * 1024 * 1024) {
            self.serve = serve
            self.anonymousUser = anonymousUser
            self.maximumResourceBytes = maximumResourceBytes
        }
    }

    static let root = "dav"
    let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// What a request's path names.
    enum Target: Equatable {
        case root
        case principal(user: String)
        case home(user: String)
        case collection(user: String, segment: String)
        case resource(user: String, segment: String, name: String)
        /// Below an event's URL: nothing is there, and nothing can be made there (its parent,
        /// `parent`, is not a collection).
        case belowResource(user: String, parent: String)
    }

    /// Answers one request; never throws (a failure is an answer with its status and reason).
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let user = request.user ?? configuration.anonymousUser
        let response: HTTPResponse
        do {
            response = try route(request, user: user)
        } catch let failure as Failure {
            response = failure.response
        } catch let error as StoreError where error.code == .unavailable {
            response = CalDAVService.unavailable(error)
        } catch {
            configuration.log?("caldav request failed", [("method", request.method), ("path", request.rawPath), ("error", "\(error)")])
            response = .text(500, "The server could not answer: \(error)\n")
        }
        var answered = response
        answered.headers.set("DAV", CalDAVService.davCompliance)
        return answered
    }

    /// The database under the store is away (a PostgreSQL restart): 503, which sync clients
    /// take as "try again later" (a 500 reads as a broken server), with the store's message.
    static func unavailable(_ error: StoreError) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Retry-After", "5")
        return .text(503, "The calendar database is unavailable: \(error.message)\n", headers: headers)
    }

    /// The compliance classes: WebDAV 1 and 3, CalDAV's calendar-access, extended MKCOL. Not
    /// calendar-auto-schedule: scheduling (RFC 6638) is not served.
    static let davCompliance = "1, 3, calendar-access, extended-mkcol"

    /// What the root answers (REPORT with a refusal: no report is served there).
    static let rootAllowed = "OPTIONS, GET, HEAD, PROPFIND, REPORT"

    private func route(_ request: HTTPRequest, user: String) throws -> HTTPResponse {
        let path = request.path
        if path == "/.well-known/caldav" || path == "/.well-known/caldav/" {
            return HTTPResponse(status: 301, headers: ["Location": "/\(CalDAVService.root)/"])
        }
        let target = try Self.target(of: request.rawPath)
        switch target {
        case .root:
            if request.method == "OPTIONS" {
                return HTTPResponse(status: 200, headers: ["Allow": CalDAVService.rootAllowed, "Content-Length": "0"])
            }
            return try answerRoot(request, user: user)
        case .principal(let owner), .home(let owner), .collection(let owner, _), .resource(let owner, _, _), .belowResource(let owner, _):
            guard owner == user else {
                return .text(403, "\(user) may not read or change \(owner)'s calendars.\n")
            }
            let writes = ["PUT", "DELETE", "MKCALENDAR", "MKCOL", "PROPPATCH"].contains(request.method)
            let answer = try configuration.serve(user, writes) { engine in
                let context = Context(service: self, request: request, user: user, engine: engine)
                do {
                    return try context.answer(target)
                } catch let failure as Failure {
                    return failure.response
                } catch let refusal as ResourceRefusal {
                    // A refusal of the engine while answering (a report over too many instances
                    // of a series): its answer, as for a refused write.
                    return context.failure(for: refusal, href: request.rawPath).response
                }
            }
            return answer ?? .text(404, "\(user) has no calendars here.\n")
        }
    }

    private func answerRoot(_ request: HTTPRequest, user: String) throws -> HTTPResponse {
        switch request.method {
        case "PROPFIND":
            let selection = try Context.propertySelection(request)
            let found: [DAVProperty] = [
                DAVProperty(.dav("resourcetype"), .elements([DAVXMLElement(name: .dav("collection"))])),
                DAVProperty(.dav("current-user-principal"), .hrefs([Paths.principal(user)])),
                DAVProperty(.dav("principal-URL"), .hrefs([Paths.principal(user)])),
                DAVProperty(.caldav("calendar-home-set"), .hrefs([Paths.home(user)])),
                DAVProperty(.dav("displayname"), .text("CometCal")),
            ]
            return Context.multistatus([Context.response(href: "/\(CalDAVService.root)/", available: found, selection: selection)])
        case "GET", "HEAD":
            return .text(200, "CometCal CalDAV server. Add the account in your calendar with this URL; your calendars are at /\(CalDAVService.root)/calendars/\(user)/.\n")
        case "REPORT":
            return try Self.principalSearch(request, user: user)
        default:
            return .text(405, "\(request.method) is not allowed here.\n", headers: ["Allow": CalDAVService.rootAllowed])
        }
    }

    /// RFC 3744 §9.4 principal-property-search, as far as a user may see: the only principal a
    /// user finds is their own, when it matches (a match is a case-insensitive substring of its
    /// display name, the user's name; other properties match nothing). Without any
    /// property-search it lists that one principal.
    static func principalSearch(_ request: HTTPRequest, user: String) throws -> HTTPResponse {
        let root: DAVXMLElement
        do {
            root = try DAVXMLReader.parse(request.body)
        } catch {
            throw Context.failure(for: error)
        }
        guard root.name == .dav("principal-property-search") else {
            throw Failure.precondition(403, .supportedReport([.dav("principal-property-search")]), "the report \(root.name) is not served here")
        }
        let searches = root.children(named: .dav("property-search"))
        let results = searches.map { search -> Bool in
            let names = search.child(named: .dav("prop"))?.children.map(\.name) ?? []
            let match = search.child(named: .dav("match"))?.trimmedText.lowercased() ?? ""
            return names.contains(.dav("displayname")) && (match.isEmpty || user.lowercased().contains(match))
        }
        let anyOf = root.attribute("test") == "anyof"
        let found = searches.isEmpty || (anyOf ? results.contains(true) : !results.contains(false))
        // The properties asked for: DAV:prop's; python caldav 3.6 puts them beside an empty
        // DAV:prop instead, so those are read too; none at all gives them all.
        let asked = (root.child(named: .dav("prop"))?.children.map(\.name) ?? [])
            + root.children.map(\.name).filter { $0 != .dav("prop") && $0 != .dav("property-search") }
        let selection: DAVPropertySelection = asked.isEmpty ? .allprop(include: []) : .prop(asked)
        let properties: [DAVProperty] = [
            DAVProperty(.dav("displayname"), .text(user)),
            DAVProperty(.dav("resourcetype"), .elements([DAVXMLElement(name: .dav("principal"))])),
            DAVProperty(.dav("principal-URL"), .hrefs([Paths.principal(user)])),
            DAVProperty(.caldav("calendar-home-set"), .hrefs([Paths.home(user)])),
        ]
        return Context.multistatus(found ? [Context.response(href: Paths.principal(user), available: properties, selection: selection)] : [])
    }

    /// The target a raw (percent-encoded) path names; a path outside `/dav/` is a 404.
    static func target(of rawPath: String) throws -> Target {
        let segments: [String]
        do {
            segments = try DAVHref.segments(ofPath: rawPath.split(separator: "?", maxSplits: 1).first.map(String.init) ?? rawPath)
        } catch {
            throw Failure(.text(400, "The path cannot be read: \(error.message)\n"))
        }
        if segments.isEmpty { return .root }
        guard segments[0] == root else { throw Failure(.text(404, "Nothing here; CalDAV is under /\(root)/.\n")) }
        let rest = Array(segments.dropFirst())
        switch (rest.first, rest.count) {
        case (nil, _): return .root
        case ("principals", 2): return .principal(user: rest[1])
        case ("calendars", 2): return .home(user: rest[1])
        case ("calendars", 3): return .collection(user: rest[1], segment: rest[2])
        case ("calendars", 4): return .resource(user: rest[1], segment: rest[2], name: rest[3])
        case ("calendars", let count) where count > 4:
            return .belowResource(user: rest[1], parent: DAVHref.encodePath([root] + rest.dropLast(), collection: true))
        default: throw Failure(.text(404, "Nothing at \(rawPath).\n"))
        }
    }
}

/// An answer given early, as an error: a failed precondition, a bad body, a missing resource.
struct Failure: Error {
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
    }

    /// A `<D:error>` body with a precondition and a human-readable reason.
    static func precondition(_ status: Int, _ precondition: DAVPrecondition, _ reason: String) -> Failure {
        Failure(HTTPResponse(status: status, headers: ["Content-Type": "application/xml; charset=utf-8"],
                             body: DAVErrorBody(precondition, description: reason).document().bytes))
    }
}

/// The URL of each thing, percent-encoded as it goes on the wire.
enum Paths {
    static func principal(_ user: String) -> String { DAVHref.encodePath([CalDAVService.root, "principals", user], collection: true) }
    static func home(_ user: String) -> String { DAVHref.encodePath([CalDAVService.root, "calendars", user], collection: true) }
    static func collection(_ user: String, _ segment: String) -> String { DAVHref.encodePath([CalDAVService.root, "calendars", user, segment], collection: true) }
    static func resource(_ user: String, _ segment: String, _ name: String) -> String {
        DAVHref.encodePath([CalDAVService.root, "calendars", user, segment, name], collection: false)
    }
}
