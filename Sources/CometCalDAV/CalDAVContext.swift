import Foundation
import CometHTTP
import CometDAV
import CometIntents
import CometSchema

/// One request of one user, with the engine of their calendars: the methods on each kind of
/// target.
struct Context {
    let service: CalDAVService
    let request: HTTPRequest
    let user: String
    let engine: IntentEngine
    /// What every URL of the user answers for the principal, owner and privileges: made once a
    /// request (a calendar of 4,000 events repeats it 4,000 times).
    let common: [DAVProperty]

    init(service: CalDAVService, request: HTTPRequest, user: String, engine: IntentEngine) {
        self.service = service
        self.request = request
        self.user = user
        self.engine = engine
        let principal = Paths.principal(user)
        common = [DAVProperty(.dav("current-user-principal"), .hrefs([principal])), DAVProperty(.dav("owner"), .hrefs([principal])), Self.privileges]
    }

    /// What each kind of URL answers: OPTIONS lists it in Allow, and every other method there
    /// is 405 with the same Allow (RFC 9110 §10.2.1). An unmapped URL lists what makes
    /// something there.
    enum Allowed {
        static let principal = "OPTIONS, PROPFIND, REPORT"
        static let home = "OPTIONS, PROPFIND"
        static let collection = "OPTIONS, PROPFIND, PROPPATCH, REPORT, DELETE"
        static let unmappedCollection = "OPTIONS, MKCALENDAR, MKCOL"
        static let resource = "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH"
        static let unmappedResource = "OPTIONS, PUT"
        static let inMissingCollection = "OPTIONS"
    }

    func answer(_ target: CalDAVService.Target) throws -> HTTPResponse {
        if request.method == "OPTIONS" {
            return HTTPResponse(status: 200, headers: ["Allow": try allowed(at: target), "Content-Length": "0"])
        }
        switch target {
        case .root:
            throw Failure(.text(500, "the root is answered before a user's engine is opened\n"))
        case .principal:
            if request.method == "REPORT" { return try CalDAVService.principalSearch(request, user: user) }
            guard request.method == "PROPFIND" else { throw notAllowed(Allowed.principal) }
            return try propfindPrincipal()
        case .home:
            switch request.method {
            case "PROPFIND": return try propfindHome()
            case "MKCALENDAR", "MKCOL":
                // The home is mapped: 405 (RFC 4918 §9.3.1), saying where calendars are made.
                throw Failure(.text(405, "A calendar is made inside the calendar home: \(request.method) \(Paths.home(user))NAME/\n", headers: ["Allow": Allowed.home]))
            default: throw notAllowed(Allowed.home)
            }
        case .collection(_, let segment):
            return try answerCollection(segment)
        case .resource(_, let segment, let name):
            return try answerResource(segment: segment, name: name)
        case .belowResource(_, let parent):
            // What would make something here has no parent collection: 409 (RFC 4918 §9.7.1, §9.3.1).
            if ["PUT", "MKCOL", "MKCALENDAR"].contains(request.method) {
                throw Failure(.text(409, "\(parent) is not a collection: nothing can be made in it.\n"))
            }
            throw Failure(.text(404, "Nothing at \(request.rawPath).\n"))
        }
    }

    private func notAllowed(_ allowed: String) -> Failure {
        Failure(.text(405, "\(request.method) is not allowed on \(request.rawPath).\n", headers: ["Allow": allowed]))
    }

    /// The Allow of a URL: the methods it answers now.
    private func allowed(at target: CalDAVService.Target) throws -> String {
        switch target {
        case .root: return CalDAVService.rootAllowed
        case .principal: return Allowed.principal
        case .home: return Allowed.home
        case .collection(_, let segment):
            return try collection(segment) == nil ? Allowed.unmappedCollection : Allowed.collection
        case .resource(_, let segment, let name):
            guard let (collection, _) = try collection(segment) else { return Allowed.inMissingCollection }
            return try engine.resourceTexts(in: collection.id, named: [name]).isEmpty ? Allowed.unmappedResource : Allowed.resource
        case .belowResource: return Allowed.inMissingCollection
        }
    }

    // MARK: Collections and resources

    /// The calendar a segment names, with every calendar's segment.
    func collection(_ segment: String) throws -> (collection: CalendarCollection, segments: [UUID: String])? {
        let segments = try engine.collectionSegments()
        guard let id = segments.first(where: { $0.value == segment })?.key, let collection = try engine.calendarCollection(id) else { return nil }
        return (collection, segments)
    }

    private func answerCollection(_ segment: String) throws -> HTTPResponse {
        let found = try collection(segment)
        switch request.method {
        case "MKCALENDAR", "MKCOL":
            guard found == nil else {
                var taken = Failure.precondition(405, .resourceMustBeNull, "a calendar already answers at \(Paths.collection(user, segment))").response
                taken.headers.set("Allow", Allowed.collection)
                throw Failure(taken)
            }
            return try makeCollection(segment)
        default:
            break
        }
        guard let (collection, _) = found else { throw Failure(.text(404, "There is no calendar at \(Paths.collection(user, segment)).\n")) }
        switch request.method {
        case "PROPFIND": return try propfindCollection(collection, segment: segment)
        case "PROPPATCH": return try proppatch(collection, segment: segment)
        case "REPORT": return try report(collection, segment: segment)
        case "DELETE":
            if let ifMatch = request.headers["If-Match"], ifMatch != "*" {
                throw Failure(.text(412, "A calendar has no ETag to match; If-Match \(ifMatch) does not hold.\n"))
            }
            switch engine.deleteCollection(collection.id) {
            case .success: return HTTPResponse(status: 204)
            case .failure(let refusal): throw failure(for: refusal, href: Paths.collection(user, segment))
            }
        default:
            throw notAllowed(Allowed.collection)
        }
    }

    /// RFC 4918 §9.3: an MKCOL body of a type the server does not understand is 415, not a body
    /// read as XML and found broken (400).
    private func refuseBodyOfUnknownType() throws {
        if !request.body.isEmpty, let type = request.headers["Content-Type"] {
            let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard media == "application/xml" || media == "text/xml" || media.hasSuffix("+xml") else {
                throw Failure(.text(415, "A \(request.method) body is XML (application/xml or text/xml), not \(type).\n"))
            }
        }
    }

    private func makeCollection(_ segment: String) throws -> HTTPResponse {
        try refuseBodyOfUnknownType()
        let body: DAVMakeCollectionRequest
        do {
            body = request.method == "MKCALENDAR" ? try DAVMakeCollectionRequest.decodeMkcalendar(body: request.body)
                                                  : try DAVMakeCollectionRequest.decodeMkcol(body: request.body)
        } catch {
            throw Self.failure(for: error)
        }
        if request.method == "MKCOL", let types = body.resourceTypes, !types.contains(.caldav("calendar")), types.contains(where: { $0 != .dav("collection") }) {
            // A collection of another kind has no place in a calendar home.
            throw Failure.precondition(403, .calendarCollectionLocationOK, "only calendars are made here; MKCOL needs no resourcetype or one with C:calendar (RFC 5689), or use MKCALENDAR")
        }
        // A plain MKCOL in the calendar home makes a calendar: the only kind of collection here.
        var title: String?
        var color: String?
        var description: String?
        for property in body.properties {
            switch property.name {
            case .dav("displayname"): title = property.text
            case .appleICal("calendar-color"): color = property.text
            case .caldav("calendar-description"): description = property.text
            case .caldav("supported-calendar-component-set"):
                let wanted = property.children.compactMap { $0.attribute("name")?.uppercased() }
                let held = Set(engine.calendarComponents)
                if wanted.count == 1, !held.contains(wanted[0]), let own = engine.standaloneCollection(holding: wanted[0]) {
                    // To-dos are one collection of their own (they are on no calendar): a new
                    // to-do list is that collection, at the URL the client chose.
                    guard try engine.nameCollection(own.id, segment: segment) else {
                        let at = try engine.collectionSegments()[own.id].map { Paths.collection(user, $0) } ?? "another URL"
                        throw Failure.precondition(403, .supportedCalendarComponent, "\(wanted[0]) resources are one collection here, already at \(at); a second list cannot be made")
                    }
                    return HTTPResponse(status: 201, headers: ["Location": Paths.collection(user, segment), "Content-Length": "0"])
                }
                if let missing = wanted.first(where: { !held.contains($0) }) {
                    throw Failure.precondition(403, .supportedCalendarComponent, "calendars here hold \(held.sorted().joined(separator: ", ")), not \(missing)")
                }
            default:
                // Properties CometCal does not keep: refused whole rather than dropped.
                if property.name != .dav("resourcetype"), property.name != .caldav("calendar-timezone") {
                    throw Failure(.text(403, "The property \(property.name) cannot be set on a calendar here; displayname, calendar-color and calendar-description can.\n"))
                }
            }
        }
        switch engine.createCollection(segment: segment, title: title, color: color, description: description) {
        case .success: return HTTPResponse(status: 201, headers: ["Location": Paths.collection(user, segment), "Content-Length": "0"])
        case .failure(let refusal): throw failure(for: refusal, href: Paths.collection(user, segment))
        }
    }

    private func answerResource(segment: String, name: String) throws -> HTTPResponse {
        guard let (collection, _) = try collection(segment) else {
            // A missing parent is 409 for what would make something there (RFC 4918 §9.7.1, §9.3.1).
            if ["PUT", "MKCOL", "MKCALENDAR"].contains(request.method) {
                throw Failure(.text(409, "There is no calendar at \(Paths.collection(user, segment)); make it first (MKCALENDAR).\n"))
            }
            throw Failure(.text(404, "There is no calendar at \(Paths.collection(user, segment)).\n"))
        }
        switch request.method {
        case "GET", "HEAD":
            guard let (resource, text) = try engine.resourceTexts(in: collection.id, named: [name]).first else {
                throw Failure(.text(404, "There is no event at \(request.rawPath).\n"))
            }
            if let none = request.headers["If-None-Match"], none == "*" || none.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(resource.etag) {
                return HTTPResponse(status: 304, headers: ["ETag": resource.etag])
            }
            // For HEAD too: libmicrohttpd sends the body's length and leaves the body out.
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8", "ETag": resource.etag], body: Array(text.utf8))
        case "PUT":
            return try put(collection, segment: segment, name: name)
        case "PROPPATCH":
            return try proppatchResource(collection, segment: segment, name: name)
        case "MKCOL", "MKCALENDAR":
            try refuseBodyOfUnknownType()
            // RFC 4918 §9.3.1: 405 only where something is mapped; an empty URL in a calendar is
            // a place where no collection may be (RFC 4791 §4.2: a calendar holds no collections).
            if try engine.resourceTexts(in: collection.id, named: [name]).first != nil {
                throw notAllowed(Allowed.resource)
            }
            throw Failure.precondition(403, .calendarCollectionLocationOK, "a calendar holds events, not collections; make calendars in \(Paths.home(user))")
        case "DELETE":
            switch engine.deleteResource(in: collection.id, named: name, ifMatch: request.headers["If-Match"]) {
            case .success: return HTTPResponse(status: 204)
            case .failure(let refusal): throw failure(for: refusal, href: Paths.resource(user, segment, name))
            }
        case "PROPFIND":
            let selection = try Self.propertySelection(request)
            guard let (resource, text) = try engine.resourceTexts(in: collection.id, named: [name]).first else {
                throw Failure(.text(404, "There is no event at \(request.rawPath).\n"))
            }
            return Self.multistatus([Self.response(href: Paths.resource(user, segment, resource.name), available: resourceProperties(resource, text: text, selection: selection), selection: selection)])
        default:
            throw notAllowed(Allowed.resource)
        }
    }

    private func put(_ collection: CalendarCollection, segment: String, name: String) throws -> HTTPResponse {
        if let type = request.headers["Content-Type"], !type.lowercased().hasPrefix("text/calendar") {
            throw Failure.precondition(415, .supportedCalendarData, "a calendar resource is text/calendar, not \(type)")
        }
        guard request.body.count <= service.configuration.maximumResourceBytes else {
            throw Failure.precondition(403, .maxResourceSize, "the resource has \(request.body.count) bytes; the limit is \(service.configuration.maximumResourceBytes)")
        }
        guard let text = String(validating: request.body, as: UTF8.self) else {
            throw Failure.precondition(403, .validCalendarData, "the body is not UTF-8 text")
        }
        let ifNoneMatch = request.headers["If-None-Match"].map { $0.trimmingCharacters(in: .whitespaces) == "*" } ?? false
        switch engine.putResource(in: collection.id, named: name, text: text, ifMatch: request.headers["If-Match"], ifNoneMatch: ifNoneMatch) {
        case .success(let write):
            var headers: HTTPHeaders = ["ETag": write.resource.etag, "Content-Length": "0"]
            // What the importer said without refusing, as `cometcal import` says it.
            for warning in write.warnings.prefix(Self.warningHeaders) {
                headers.add("CometCal-Warning", "line \(warning.line): \(warning.message)".replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " "))
            }
            if write.warnings.count > Self.warningHeaders {
                headers.add("CometCal-Warning", "and \(write.warnings.count - Self.warningHeaders) more warnings; cometcal import of the same text lists them all")
            }
            if write.resource.name != name { headers.set("Location", Paths.resource(user, segment, write.resource.name)) }
            return HTTPResponse(status: write.created ? 201 : 204, headers: headers)
        case .failure(let refusal):
            throw failure(for: refusal, href: Paths.resource(user, segment, name))
        }
    }

    /// How many of an import's warnings a PUT's answer carries, one header each.
    static let warningHeaders = 20

    /// The answer for a refusal of the engine.
    func failure(for refusal: ResourceRefusal, href: String) -> Failure {
        switch refusal.reason {
        case .preconditionFailed: return Failure(.text(412, refusal.message + "\n"))
        case .notFound: return Failure(.text(404, refusal.message + "\n"))
        case .invalidCalendarData: return .precondition(403, .validCalendarData, refusal.message)
        case .notAnObjectResource: return .precondition(403, .validCalendarObjectResource, refusal.message)
        case .unsupportedComponent: return .precondition(403, .supportedCalendarComponent, refusal.message)
        case .uidConflict(let collection, let name):
            let segment = (try? engine.collectionSegments())?[collection] ?? collection.lowercasedText
            return .precondition(409, .noUIDConflict(href: Paths.resource(user, segment, name)), refusal.message)
        case .refusedByStore: return Failure(.text(403, refusal.message + "\n"))
        case .tooManyInstances: return .precondition(507, .numberOfMatchesWithinLimits, refusal.message)
        }
    }

    /// The answer for a body that cannot be read.
    static func failure(for error: Error) -> Failure {
        if case .request(let problem)? = error as? DAVBodyError, let precondition = problem.precondition {
            return .precondition(403, precondition, problem.description)
        }
        // A body longer than the XML reader takes is too large (RFC 9110 §15.5.14), not malformed.
        let xml: DAVXMLError? = if case .xml(let inner)? = error as? DAVBodyError { inner } else { error as? DAVXMLError }
        if xml?.kind == .tooLarge {
            return Failure(.text(413, "The request body cannot be read: \(error)\n"))
        }
        return Failure(.text(400, "The request body cannot be read: \(error)\n"))
    }
}
