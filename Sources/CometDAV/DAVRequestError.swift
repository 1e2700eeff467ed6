/// A request body that is XML but not what the RFC asks for. `description` is for the client.
public struct DAVRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    /// The element at fault, named in the message too.
    public let element: DAVName?
    public let line: Int?
    /// The precondition the RFC names for this failure, when it names one: the server answers
    /// 403 with it in a DAV:error body. Without one, the answer is 400.
    public let precondition: DAVPrecondition?

    public init(_ message: String, element: DAVName? = nil, line: Int? = nil, precondition: DAVPrecondition? = nil) {
        self.message = message
        self.element = element
        self.line = line
        self.precondition = precondition
    }

    init(_ message: String, at element: DAVXMLElement, precondition: DAVPrecondition? = nil) {
        self.init(message, element: element.name, line: element.line > 0 ? element.line : nil, precondition: precondition)
    }

    public var description: String {
        if let line { return "line \(line): \(message)" }
        return message
    }
}

/// Either failure of reading a body: not XML (or refused XML), or XML the RFC does not allow.
public enum DAVBodyError: Error, Hashable, Sendable, CustomStringConvertible {
    case xml(DAVXMLError)
    case request(DAVRequestError)

    public var description: String {
        switch self {
        case .xml(let error): error.description
        case .request(let error): error.description
        }
    }
}

/// Shared checks of the decoders, each failing with a message that names the element.
extension DAVXMLElement {
    func requireName(_ expected: DAVName) throws(DAVRequestError) {
        guard name == expected else {
            throw DAVRequestError("expected the root element \(expected.local) in \(expected.namespace), found \(name.local) in \(name.namespace.isEmpty ? "no namespace" : name.namespace)", at: self)
        }
    }

    /// The only child with this name, nil when there is none; two are an error.
    func optionalSingleChild(_ childName: DAVName) throws(DAVRequestError) -> DAVXMLElement? {
        let found = children(named: childName)
        if found.count > 1 {
            throw DAVRequestError("\(name.local) has \(found.count) \(childName.local) elements; at most one is allowed", at: found[1])
        }
        return found.first
    }

    func requiredSingleChild(_ childName: DAVName) throws(DAVRequestError) -> DAVXMLElement {
        guard let found = try optionalSingleChild(childName) else {
            throw DAVRequestError("\(name.local) has no \(childName.local) element, and it is required", at: self)
        }
        return found
    }
}

/// Parses a body and runs a decoder on its root, both failures as one error type.
func decodeBody<T>(_ body: some Collection<UInt8>, limits: DAVXMLLimits, _ decode: (DAVXMLElement) throws(DAVRequestError) -> T) throws(DAVBodyError) -> T {
    let root: DAVXMLElement
    do { root = try DAVXMLReader.parse(body, limits: limits) } catch { throw .xml(error) }
    do { return try decode(root) } catch { throw .request(error) }
}

/// An empty body, or one of whitespace only: what RFC 4918 §9.1 reads as allprop.
func isEmptyBody(_ body: some Collection<UInt8>) -> Bool {
    body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
}
