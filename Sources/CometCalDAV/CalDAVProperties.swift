import Foundation
import CometHTTP
import CometDAV
import CometIntents

/// PROPFIND and PROPPATCH: the live properties of principals, homes, calendars and events.
extension Context {
    /// The properties a PROPFIND body asks for (an empty body is allprop, RFC 4918 §9.1).
    static func propertySelection(_ request: HTTPRequest) throws -> DAVPropertySelection {
        do {
            return try DAVPropfindRequest.decode(body: request.body)
        } catch {
            throw failure(for: error)
        }
    }

    /// 0 or 1; `infinity` is refused (RFC 4918 §9.1: DAV:propfind-finite-depth).
    func depth() throws -> Int {
        switch request.headers["Depth"]?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "0": return 0
        case "1": return 1
        case nil, "infinity":
            throw Failure.precondition(403, DAVPrecondition(.dav("propfind-finite-depth")), "Depth: infinity is not served; ask with Depth: 0 or 1")
        case let other?:
            throw Failure(.text(400, "Depth is 0, 1 or infinity, not \(other).\n"))
        }
    }

    /// A response with what was asked of `available`: allprop gives them all (and the names
    /// included), propname their names, prop those asked with 404 for the rest.
    static func response(href: String, available: [DAVProperty], selection: DAVPropertySelection, expensive: [DAVName] = []) -> DAVResponse {
        switch selection {
        case .allprop(let include):
            let given = available.filter { !expensive.contains($0.name) || include.contains($0.name) }
            let missing = include.filter { name in !available.contains { $0.name == name } }
            return .properties(href: href, found: given, notFound: missing)
        case .propname:
            return .properties(href: href, found: available.map { DAVProperty($0.name) })
        case .prop(let names):
            var found: [DAVProperty] = []
            var missing: [DAVName] = []
            for name in names {
                if let property = available.first(where: { $0.name == name }) { found.append(property) } else { missing.append(name) }
            }
            return .properties(href: href, found: found, notFound: missing)
        }
    }

    static func multistatus(_ responses: [DAVResponse], syncToken: String? = nil) -> HTTPResponse {
        HTTPResponse(status: 207, headers: ["Content-Type": "application/xml; charset=utf-8"],
                     body: DAVMultistatus(responses: responses, syncToken: syncToken).document().bytes)
    }

    private static func element(_ name: DAVName) -> DAVXMLElement { DAVXMLElement(name: name) }

    /// What the owner may do: everything (a user sees only their own calendars).
    static let privileges: DAVProperty = DAVProperty(.dav("current-user-privilege-set"), .elements(
        ["read", "write", "write-properties", "write-content", "bind", "unbind", "read-current-user-privilege-set"].map {
            DAVXMLElement(name: .dav("privilege"), children: [element(.dav($0))])
        }))

    func propfindPrincipal() throws -> HTTPResponse {
        let selection = try Self.propertySelection(request)
        let properties: [DAVProperty] = [
            DAVProperty(.dav("resourcetype"), .elements([Self.element(.dav("principal")), Self.element(.dav("collection"))])),
            DAVProperty(.dav("displayname"), .text(user)),
            DAVProperty(.dav("principal-URL"), .hrefs([Paths.principal(user)])),
            DAVProperty(.caldav("calendar-home-set"), .hrefs([Paths.home(user)])),
        ] + common
        return Self.multistatus([Self.response(href: Paths.principal(user), available: properties, selection: selection)])
    }

    func propfindHome() throws -> HTTPResponse {
        let selection = try Self.propertySelection(request)
        let depth = try depth()
        let head = try engine.changeHead()
        var responses = [Self.response(href: Paths.home(user), available: [
            DAVProperty(.dav("resourcetype"), .elements([Self.element(.dav("collection"))])),
            DAVProperty(.dav("displayname"), .text("\(user)'s calendars")),
            DAVProperty(.caldav("calendar-home-set"), .hrefs([Paths.home(user)])),
        ] + common, selection: selection)]
        if depth == 1 {
            let segments = try engine.collectionSegments()
            for collection in try engine.calendarCollections() {
                let segment = segments[collection.id] ?? collection.id.lowercasedText
                responses.append(Self.response(href: Paths.collection(user, segment), available: try collectionProperties(collection, head: head), selection: selection))
            }
        }
        return Self.multistatus(responses)
    }

    static func syncToken(_ head: Int64) -> String { "urn:x-cometcal:sync:\(head)" }

    /// A calendar's properties. The ctag and the sync token are the store's change feed head:
    /// a change to any calendar of the user changes every calendar's (a client then asks
    /// sync-collection, which answers only this calendar's changes).
    func collectionProperties(_ collection: CalendarCollection, head: Int64) throws -> [DAVProperty] {
        var properties: [DAVProperty] = [
            DAVProperty(.dav("resourcetype"), .elements([Self.element(.dav("collection")), Self.element(.caldav("calendar"))])),
            DAVProperty(.dav("displayname"), .text(collection.title)),
            DAVProperty(.caldav("supported-calendar-component-set"), .elements(collection.components.map {
                DAVXMLElement(name: .caldav("comp"), attributes: [DAVXMLAttribute(name: DAVName("", "name"), value: $0)])
            })),
            DAVProperty(.caldav("supported-calendar-data"), .elements([DAVXMLElement(name: .caldav("calendar-data"), attributes: [
                DAVXMLAttribute(name: DAVName("", "content-type"), value: "text/calendar"), DAVXMLAttribute(name: DAVName("", "version"), value: "2.0")])])),
            DAVProperty(.caldav("max-resource-size"), .text(String(service.configuration.maximumResourceBytes))),
            DAVProperty(.calendarServer("getctag"), .text(Self.syncToken(head))),
            DAVProperty(.dav("sync-token"), .text(Self.syncToken(head))),
            DAVProperty(.dav("supported-report-set"), .elements(DAVReportRequest.supportedReports.map {
                DAVXMLElement(name: .dav("supported-report"), children: [DAVXMLElement(name: .dav("report"), children: [Self.element($0)])])
            })),
        ]
        if let description = collection.description { properties.append(DAVProperty(.caldav("calendar-description"), .text(description))) }
        if let color = collection.color { properties.append(DAVProperty(.appleICal("calendar-color"), .text(color))) }
        for (key, value) in try engine.collectionClientProperties(collection.id).sorted(by: { $0.key < $1.key }) {
            if let name = Self.deadName(key) { properties.append(DAVProperty(name, .text(value))) }
        }
        return properties + common
    }

    func propfindCollection(_ collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        let selection = try Self.propertySelection(request)
        let depth = try depth()
        let head = try engine.changeHead()
        var responses = [Self.response(href: Paths.collection(user, segment), available: try collectionProperties(collection, head: head), selection: selection)]
        if depth == 1 {
            let wantsData = Self.asks(selection, for: .caldav("calendar-data")) || Self.asks(selection, for: .dav("getcontentlength"))
            if wantsData {
                let names = try engine.resources(in: collection.id).map(\.name)
                for (resource, text) in try engine.resourceTexts(in: collection.id, named: names) {
                    responses.append(Self.response(href: Paths.resource(user, segment, resource.name), available: resourceProperties(resource, text: text, selection: selection),
                                                   selection: selection, expensive: [.caldav("calendar-data")]))
                }
            } else {
                for resource in try engine.resources(in: collection.id) {
                    responses.append(Self.response(href: Paths.resource(user, segment, resource.name), available: resourceProperties(resource, text: nil, selection: selection),
                                                   selection: selection))
                }
            }
        }
        return Self.multistatus(responses)
    }

    static func asks(_ selection: DAVPropertySelection, for name: DAVName) -> Bool {
        switch selection {
        case .prop(let names): return names.contains(name)
        case .allprop(let include): return include.contains(name)
        case .propname: return false
        }
    }

    /// An event's properties; its text (for calendar-data and the length) only when read.
    func resourceProperties(_ resource: CalendarResource, text: String?, selection: DAVPropertySelection) -> [DAVProperty] {
        var properties: [DAVProperty] = [
            DAVProperty(.dav("resourcetype"), .elements([])),
            DAVProperty(.dav("getetag"), .text(resource.etag)),
            DAVProperty(.dav("getcontenttype"), .text("text/calendar; charset=utf-8; component=vevent")),
        ]
        if let text {
            properties.append(DAVProperty(.dav("getcontentlength"), .text(String(text.utf8.count))))
            properties.append(DAVProperty(.caldav("calendar-data"), .text(text)))
        }
        return properties + common
    }

    // MARK: PROPPATCH

    /// A dead property's key in the store: its name in Clark notation, `{namespace}local`.
    static func deadKey(_ name: DAVName) -> String { "{" + name.namespace + "}" + name.local }

    static func deadName(_ key: String) -> DAVName? {
        guard key.hasPrefix("{"), let close = key.firstIndex(of: "}") else { return nil }
        return DAVName(String(key[key.index(after: key.startIndex)..<close]), String(key[key.index(after: close)...]))
    }

    /// What a calendar keeps of properties it gives no meaning to (dead properties, such as
    /// Apple's calendar-order): text values of at most this many bytes, this many per calendar.
    static let deadValueBytes = 4_096
    static let deadPropertiesPerCalendar = 64

    /// Names in the WebDAV and CalDAV namespaces are the protocols' own: those not changeable
    /// here are protected, never kept as dead properties.
    static func isProtected(_ name: DAVName) -> Bool {
        name.namespace == "DAV:" || name.namespace == "urn:ietf:params:xml:ns:caldav" || name == .calendarServer("getctag")
    }

    /// Sets or removes a calendar's displayname, colour and description, and the properties a
    /// client keeps there (dead properties, text only): all of them or none (RFC 4918 §9.2).
    /// A protected property, or a dead one with elements in it, is refused with 403, one over
    /// the limits with 507, and the rest then fail with 424.
    func proppatch(_ collection: CalendarCollection, segment: String) throws -> HTTPResponse {
        let body: DAVProppatchRequest
        do {
            body = try DAVProppatchRequest.decode(body: request.body)
        } catch {
            throw Self.failure(for: error)
        }
        var changes: [IntentEngine.CollectionProperty: String?] = [:]
        var dead: [String: String?] = [:]
        var names: [DAVName] = []
        var refused: [DAVName] = []
        var withElements: [DAVName] = []
        for instruction in body.instructions {
            let name: DAVName
            let value: String?
            switch instruction {
            case .set(let element):
                (name, value) = (element.name, element.text)
                if !element.children.isEmpty, !Self.isProtected(name) { withElements.append(name) }
            case .remove(let removed): (name, value) = (removed, nil)
            }
            names.append(name)
            switch name {
            case .dav("displayname"):
                if let value { changes[.title] = value } else { refused.append(name) }
            case .appleICal("calendar-color"): changes[.color] = value
            case .caldav("calendar-description"): changes[.description] = value
            default:
                if Self.isProtected(name) { refused.append(name) } else { dead[Self.deadKey(name)] = .some(value) }
            }
        }
        let href = Paths.collection(user, segment)
        func refusal(_ status: Int, _ these: [DAVName], error: DAVPrecondition?, _ description: String) -> HTTPResponse {
            let failed = names.filter { !these.contains($0) }
            return Self.multistatus([DAVResponse(href: href, body: .propstats([
                DAVPropstat(status: status, properties: these.map { DAVProperty($0) }, error: error, description: description),
            ] + (failed.isEmpty ? [] : [DAVPropstat(status: 424, properties: failed.map { DAVProperty($0) })])))])
        }
        if !refused.isEmpty {
            return refusal(403, refused, error: DAVPrecondition(.dav("cannot-modify-protected-property")),
                           "displayname (set), calendar-color and calendar-description can be changed, and properties outside the DAV: and CalDAV namespaces kept; these are the protocols' own")
        }
        if !withElements.isEmpty {
            return refusal(403, withElements, error: nil, "a property kept for clients holds text, not elements")
        }
        let kept = try engine.collectionClientProperties(collection.id)
        let long = dead.filter { ($0.value?.utf8.count ?? 0) > Self.deadValueBytes }.keys.compactMap(Self.deadName)
        var after = kept
        for (key, value) in dead { after[key] = value }
        if !long.isEmpty || after.count > Self.deadPropertiesPerCalendar {
            return refusal(507, long.isEmpty ? dead.keys.compactMap(Self.deadName) : long, error: nil,
                           "a calendar keeps at most \(Self.deadPropertiesPerCalendar) properties for clients, each at most \(Self.deadValueBytes) bytes")
        }
        if !changes.isEmpty, case .failure(let refusal) = engine.updateCollection(collection.id, changes) {
            return Self.multistatus([DAVResponse(href: href, body: .propstats([
                DAVPropstat(status: 409, properties: names.map { DAVProperty($0) }, description: refusal.message),
            ]))])
        }
        if !dead.isEmpty { try engine.setCollectionClientProperties(collection.id, dead) }
        return Self.multistatus([.properties(href: href, found: names.map { DAVProperty($0) })])
    }

    /// PROPPATCH on an event: every WebDAV resource answers it (RFC 4918 §9.2), but an event's
    /// properties are its iCalendar text, changed by PUT, and CometCal keeps no others; so each
    /// property asked is refused with 403, and nothing changes.
    func proppatchResource(_ collection: CalendarCollection, segment: String, name: String) throws -> HTTPResponse {
        let body: DAVProppatchRequest
        do {
            body = try DAVProppatchRequest.decode(body: request.body)
        } catch {
            throw Self.failure(for: error)
        }
        guard let (resource, _) = try engine.resourceTexts(in: collection.id, named: [name]).first else {
            throw Failure(.text(404, "There is no event at \(request.rawPath).\n"))
        }
        let names = body.instructions.map { instruction -> DAVName in
            switch instruction {
            case .set(let element): return element.name
            case .remove(let removed): return removed
            }
        }
        return Self.multistatus([DAVResponse(href: Paths.resource(user, segment, resource.name), body: .propstats([
            DAVPropstat(status: 403, properties: names.map { DAVProperty($0) },
                        description: "an event's properties are its iCalendar text, changed with PUT; no other property is kept"),
        ]))])
    }
}
