/// One element of a parsed request body: immutable, and free of libxml2 once built.
public struct DAVXMLElement: Hashable, Sendable {
    public let name: DAVName
    public let attributes: [DAVXMLAttribute]
    public let children: [DAVXMLElement]
    /// The element's own character data (text and CDATA directly inside it, in order), untrimmed.
    public let text: String
    /// The line the element starts on in the body, when known (0 for elements built in code).
    public let line: Int

    public init(name: DAVName, attributes: [DAVXMLAttribute] = [], children: [DAVXMLElement] = [], text: String = "", line: Int = 0) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The value of the attribute with this local name and no namespace (how DAV and CalDAV write theirs).
    public func attribute(_ local: String, namespace: String = "") -> String? {
        attributes.first { $0.name.local == local && $0.name.namespace == namespace }?.value
    }

    /// The children with this name, in document order.
    public func children(named name: DAVName) -> [DAVXMLElement] {
        children.filter { $0.name == name }
    }

    /// The first child with this name.
    public func child(named name: DAVName) -> DAVXMLElement? {
        children.first { $0.name == name }
    }

    /// The text without the whitespace XML writers put around it.
    public var trimmedText: String {
        var scalars = Substring(text).unicodeScalars
        while let first = scalars.first, Self.isXMLSpace(first) { scalars.removeFirst() }
        while let last = scalars.last, Self.isXMLSpace(last) { scalars.removeLast() }
        return String(scalars)
    }

    static func isXMLSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }
}

public struct DAVXMLAttribute: Hashable, Sendable {
    public let name: DAVName
    public let value: String

    public init(name: DAVName, value: String) {
        self.name = name
        self.value = value
    }
}
