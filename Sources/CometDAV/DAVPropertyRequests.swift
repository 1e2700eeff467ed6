/// Which properties a PROPFIND or a report asks for (RFC 4918 §14.20, RFC 4791 §9.5).
public enum DAVPropertySelection: Hashable, Sendable {
    /// All dead properties and the live ones the server chooses, plus those named in DAV:include.
    case allprop(include: [DAVName])
    /// Names only, no values.
    case propname
    /// Exactly these, in the order asked.
    case prop([DAVName])

    /// Reads the one of DAV:allprop (with DAV:include), DAV:propname or DAV:prop under `parent`.
    /// `required` is false for reports, where none of them means allprop (RFC 4791 §7.8, §7.9).
    static func decode(in parent: DAVXMLElement, required: Bool) throws(DAVRequestError) -> DAVPropertySelection {
        let choices = parent.children.filter {
            $0.name == .dav("allprop") || $0.name == .dav("propname") || $0.name == .dav("prop")
        }
        if choices.count > 1 {
            throw DAVRequestError("\(parent.name.local) has both \(choices[0].name.local) and \(choices[1].name.local); only one of allprop, propname and prop is allowed", at: choices[1])
        }
        let include = try parent.optionalSingleChild(.dav("include"))
        guard let choice = choices.first else {
            if required {
                throw DAVRequestError("\(parent.name.local) has none of allprop, propname and prop; one is required", at: parent)
            }
            return .allprop(include: [])
        }
        if let include, choice.name != .dav("allprop") {
            throw DAVRequestError("include is only allowed with allprop, not with \(choice.name.local)", at: include)
        }
        switch choice.name.local {
        case "allprop":
            return .allprop(include: include?.children.map(\.name) ?? [])
        case "propname":
            return .propname
        default:
            return .prop(choice.children.map(\.name))
        }
    }
}

/// A PROPFIND body (RFC 4918 §9.1, §14.20).
public enum DAVPropfindRequest {
    /// An empty body asks for all properties (§9.1).
    public static func decode(body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVBodyError) -> DAVPropertySelection {
        if isEmptyBody(body) { return .allprop(include: []) }
        return try decodeBody(body, limits: limits, decode(root:))
    }

    public static func decode(root: DAVXMLElement) throws(DAVRequestError) -> DAVPropertySelection {
        try root.requireName(.dav("propfind"))
        return try DAVPropertySelection.decode(in: root, required: true)
    }
}

/// A PROPPATCH body (RFC 4918 §9.2, §14.19): set and remove instructions, in document order,
/// which is the order they are applied in.
public struct DAVProppatchRequest: Hashable, Sendable {
    public enum Instruction: Hashable, Sendable {
        /// The property element as sent, its value being its text and children.
        case set(DAVXMLElement)
        case remove(DAVName)
    }

    public let instructions: [Instruction]

    public init(instructions: [Instruction]) {
        self.instructions = instructions
    }

    public static func decode(body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVBodyError) -> DAVProppatchRequest {
        try decodeBody(body, limits: limits, decode(root:))
    }

    public static func decode(root: DAVXMLElement) throws(DAVRequestError) -> DAVProppatchRequest {
        try root.requireName(.dav("propertyupdate"))
        var instructions: [Instruction] = []
        for child in root.children where child.name == .dav("set") || child.name == .dav("remove") {
            let properties = try propertiesOfSetOrRemove(child)
            for property in properties {
                instructions.append(child.name == .dav("set") ? .set(property) : .remove(property.name))
            }
        }
        if instructions.isEmpty {
            throw DAVRequestError("propertyupdate has no set or remove with a property in it", at: root)
        }
        return DAVProppatchRequest(instructions: instructions)
    }

    /// The property elements of one DAV:set or DAV:remove: exactly one DAV:prop, not empty.
    static func propertiesOfSetOrRemove(_ element: DAVXMLElement) throws(DAVRequestError) -> [DAVXMLElement] {
        let prop = try element.requiredSingleChild(.dav("prop"))
        if prop.children.isEmpty {
            throw DAVRequestError("the prop of \(element.name.local) names no property", at: prop)
        }
        return prop.children
    }
}

/// The body of MKCALENDAR (RFC 4791 §5.3.1) or of an extended MKCOL (RFC 5689 §5.1): the
/// properties to set on the new collection. A MKCALENDAR without a body sets none.
public struct DAVMakeCollectionRequest: Hashable, Sendable {
    /// Each property element as sent (DAV:resourcetype among them for MKCOL).
    public let properties: [DAVXMLElement]

    public init(properties: [DAVXMLElement]) {
        self.properties = properties
    }

    /// The resource types an extended MKCOL asks for (children of DAV:resourcetype), if it sets one.
    public var resourceTypes: [DAVName]? {
        properties.first { $0.name == .dav("resourcetype") }?.children.map(\.name)
    }

    public static func decodeMkcalendar(body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVBodyError) -> DAVMakeCollectionRequest {
        if isEmptyBody(body) { return DAVMakeCollectionRequest(properties: []) }
        return try decodeBody(body, limits: limits) { root throws(DAVRequestError) in try decode(root: root, expecting: .caldav("mkcalendar")) }
    }

    public static func decodeMkcol(body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVBodyError) -> DAVMakeCollectionRequest {
        if isEmptyBody(body) { return DAVMakeCollectionRequest(properties: []) }
        return try decodeBody(body, limits: limits) { root throws(DAVRequestError) in try decode(root: root, expecting: .dav("mkcol")) }
    }

    static func decode(root: DAVXMLElement, expecting rootName: DAVName) throws(DAVRequestError) -> DAVMakeCollectionRequest {
        try root.requireName(rootName)
        var properties: [DAVXMLElement] = []
        for set in root.children(named: .dav("set")) {
            // An empty prop sets nothing (python caldav's MKCALENDAR without a name sends one).
            if let prop = try set.optionalSingleChild(.dav("prop")), prop.children.isEmpty { continue }
            properties += try DAVProppatchRequest.propertiesOfSetOrRemove(set)
        }
        if let remove = root.child(named: .dav("remove")) {
            throw DAVRequestError("\(rootName.local) can only set properties, not remove them", at: remove)
        }
        return DAVMakeCollectionRequest(properties: properties)
    }
}
