/// A declared name within its domain: `calendar.Event`.
public struct QualifiedName: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public let domain: String
    public let name: String

    public init(domain: String, name: String) {
        self.domain = domain
        self.name = name
    }

    public var description: String { "\(domain).\(name)" }

    public static func < (lhs: QualifiedName, rhs: QualifiedName) -> Bool {
        (lhs.domain, lhs.name) < (rhs.domain, rhs.name)
    }
}
