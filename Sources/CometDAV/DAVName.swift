/// A qualified XML name: the namespace URI and the local name. Prefixes are the writer's business.
public struct DAVName: Hashable, Sendable, CustomStringConvertible {
    public let namespace: String
    public let local: String

    public init(_ namespace: String, _ local: String) {
        self.namespace = namespace
        self.local = local
    }

    /// `{namespace}local`, Clark notation, as error messages and logs show it.
    public var description: String { "{\(namespace)}\(local)" }

    public static func dav(_ local: String) -> DAVName { DAVName(DAVNamespace.dav, local) }
    public static func caldav(_ local: String) -> DAVName { DAVName(DAVNamespace.caldav, local) }
    public static func calendarServer(_ local: String) -> DAVName { DAVName(DAVNamespace.calendarServer, local) }
    public static func appleICal(_ local: String) -> DAVName { DAVName(DAVNamespace.appleICal, local) }
}

/// The namespaces this server speaks, each with the prefix the writer declares once at the root.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let appleICal = "http://apple.com/ns/ical/"

    /// The root's declarations, in the order they are written.
    static let rootPrefixes: [(prefix: String, namespace: String)] = [
        ("D", dav), ("C", caldav), ("CS", calendarServer), ("ICAL", appleICal),
    ]
}
