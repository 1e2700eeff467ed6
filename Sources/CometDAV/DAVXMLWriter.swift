/// Writes XML text: the four DAV/CalDAV prefixes declared once at the root, any other namespace
/// declared on the element that uses it, text and attribute values escaped.
struct DAVXMLWriter {
    private(set) var output = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    /// Characters XML 1.0 cannot carry at all (most C0 controls, U+FFFE, U+FFFF), each written
    /// as U+FFFD and counted here, so the caller can say so.
    private(set) var replacedCharacters = 0
    private var rootWritten = false

    mutating func open(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        output += "<"
        writeName(name, attributes: attributes)
        output += ">"
    }

    mutating func close(_ name: DAVName) {
        output += "</\(qualified(name))>"
    }

    mutating func empty(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        output += "<"
        writeName(name, attributes: attributes)
        output += "/>"
    }

    mutating func element(_ name: DAVName, text: String) {
        open(name)
        appendEscaped(text)
        close(name)
    }

    /// An element from a request or built in code, children and text included.
    mutating func element(_ element: DAVXMLElement) {
        if element.children.isEmpty, element.text.isEmpty {
            empty(element.name, attributes: element.attributes)
            return
        }
        open(element.name, attributes: element.attributes)
        appendEscaped(element.text)
        for child in element.children { self.element(child) }
        close(element.name)
    }

    mutating func text(_ text: String) {
        appendEscaped(text)
    }

    private mutating func writeName(_ name: DAVName, attributes: [DAVXMLAttribute]) {
        output += qualified(name)
        if !rootWritten {
            rootWritten = true
            for (prefix, namespace) in DAVNamespace.rootPrefixes {
                output += " xmlns:\(prefix)=\""
                appendEscaped(namespace)
                output += "\""
            }
        }
        if Self.prefix(of: name.namespace) == nil, !name.namespace.isEmpty, name.namespace != Self.xmlNamespace {
            output += " xmlns:X=\""
            appendEscaped(name.namespace)
            output += "\""
        }
        // An attribute in a namespace of its own gets a prefix declared on this element, one per
        // namespace (A0, A1 …); the xml: namespace is predeclared and may not be bound again.
        var attributePrefixes: [String: String] = [:]
        for attribute in attributes {
            let namespace = attribute.name.namespace
            guard !namespace.isEmpty, namespace != Self.xmlNamespace, Self.prefix(of: namespace) == nil,
                  attributePrefixes[namespace] == nil else { continue }
            let prefix = "A\(attributePrefixes.count)"
            attributePrefixes[namespace] = prefix
            output += " xmlns:\(prefix)=\""
            appendEscaped(namespace)
            output += "\""
        }
        for attribute in attributes {
            output += " "
            let namespace = attribute.name.namespace
            if namespace.isEmpty {
                output += attribute.name.local
            } else if namespace == Self.xmlNamespace {
                output += "xml:\(attribute.name.local)"
            } else {
                output += "\(Self.prefix(of: namespace) ?? attributePrefixes[namespace] ?? "A"):\(attribute.name.local)"
            }
            output += "=\""
            appendEscaped(attribute.value)
            output += "\""
        }
    }

    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    private func qualified(_ name: DAVName) -> String {
        if name.namespace.isEmpty { return name.local }
        if name.namespace == Self.xmlNamespace { return "xml:\(name.local)" }
        return "\(Self.prefix(of: name.namespace) ?? "X"):\(name.local)"
    }

    static func prefix(of namespace: String) -> String? {
        DAVNamespace.rootPrefixes.first { $0.namespace == namespace }?.prefix
    }

    /// Escapes for both text and double-quoted attribute values. Carriage returns are written as
    /// a character reference, or a reader would turn them into line feeds.
    mutating func appendEscaped(_ text: String) {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 && scalar != "\r", "\u{FFFE}", "\u{FFFF}":
                replacedCharacters += 1
                result.unicodeScalars.append("\u{FFFD}")
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            case "\"": result += "&quot;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        output += result
    }
}
